"""A Python file with known mistakes: lint.pyflakes_finds_mistakes runs pyflakes on it and must fail."""
import os


def uses_a_name_that_is_not_there():
    return undefined_on_purpose + 1
