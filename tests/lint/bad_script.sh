#!/usr/bin/env bash
# A script with mistakes shellcheck must find (lint.shellcheck_finds_mistakes).
files=$(ls *.txt)
for f in $files; do
  cat $f
done
cd $HOME/somewhere
