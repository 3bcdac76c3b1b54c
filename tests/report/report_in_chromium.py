"""`tlconform report` as a browser shows it (CTest label `report`).

The committed scorecard and a doctored copy (one passed cell made `failed`, with a message full of
HTML metacharacters, its summary adjusted) go through `tlconform report --graphs` for one small row;
index.html is opened in Debian's chromium-headless-shell with its script run (`--dump-dom` prints the
DOM after scripts ran), and the rendered DOM is checked against the cards: one row per cell, each
column's states and summary counts, exactly the doctored cell marked as a regression, its message
shown as written, the graph link, and the filtering script's work (a `#show=regression` view hides
every other row). Nothing here knows the committed card's contents beyond its format.
"""

import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
COMMITTED = SOURCE / "scorecards" / "tinygrad" / "scorecard.json"
FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL:", message, file=sys.stderr)


def browser():
    for name in ("chromium-headless-shell", "chromium"):
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.access(f"/usr/bin/{name}", os.X_OK) else None)
        if found:
            return found
    sys.exit(
        "FAIL: no chromium-headless-shell (or chromium) on PATH; ci/bootstrap.sh installs the Debian package "
        "chromium-headless-shell (apt-get install chromium-headless-shell)"
    )


def rendered_dom(page_url):
    command = [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--dump-dom", page_url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or "<html" not in done.stdout:
        sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return done.stdout


class Page(HTMLParser):
    """The parts of the rendered page the checks read, as plain data."""

    def __init__(self):
        super().__init__()
        self.body = {}
        self.rows = []  # [{"id", "hidden", "cells": {column: {...}}, "graph": href or None}]
        self.columns = {}  # column -> {state: count}
        self.marks = []  # (row id, transition, text)
        self.shown = ""
        self._stack = []  # (tag, attrs) of open elements we care about
        self._column = None
        self._text_into = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "th" and "column" in a.get("class", "").split():
            self._column = int(a["data-column"])
            self.columns[self._column] = {}
        elif tag == "span" and "count" in a.get("class", "").split() and self._column is not None:
            self.columns[self._column][a["data-state"]] = int(a["data-count"])
        elif tag == "tr" and "data-id" in a:
            self.rows.append({"id": a["data-id"], "hidden": "hidden" in a, "cells": {}, "graph": None})
        elif tag == "td" and "cell" in a.get("class", "").split() and self.rows:
            self.rows[-1]["cells"][int(a["data-column"])] = {
                "state": a["data-state"],
                "transition": a.get("data-transition"),
                "title": a.get("title", ""),
                "pre": "",
            }
        elif tag == "a" and "data-graph" in a and self.rows:
            self.rows[-1]["graph"] = a["href"]
        elif tag == "span" and "data-transition" in a and self.rows:
            self.marks.append([self.rows[-1]["id"], a["data-transition"], ""])
            self._text_into = ("mark", self.marks[-1])
        elif tag == "pre" and self.rows and self.rows[-1]["cells"]:
            cell = self.rows[-1]["cells"][max(self.rows[-1]["cells"])]
            self._text_into = ("pre", cell)
        elif tag == "output" and a.get("id") == "shown":
            self._text_into = ("shown", None)

    def handle_endtag(self, tag):
        if tag == "th":
            self._column = None
        if tag in ("span", "pre", "output"):
            self._text_into = None

    def handle_data(self, data):
        if self._text_into is None:
            return
        kind, target = self._text_into
        if kind == "mark":
            target[2] += data
        elif kind == "pre":
            target["pre"] += data
        else:
            self.shown += data


def parse(dom):
    page = Page()
    page.feed(dom)
    return page


def doctor(card):
    """A copy where the first passed cell with ops now failed, its summary adjusted; a day later."""
    doctored = copy.deepcopy(card)
    victim = next(c for c in doctored["cells"] if c["state"] == "passed" and "ops" in c)
    victim["state"] = "failed"
    victim["message"] = 'doctored: output 1 differs <b>&amp; "quoted" \'x\'</b>'
    victim["failed_checks"] = [victim["checks"][0]]
    victim["failures"] = [{"check": victim["checks"][0], "detail": "max |a-b| 0.5 > 1e-05 at [0, 1]"}]
    by_state = doctored["summary"]["by_state"]
    by_state["passed"] -= 1
    by_state["failed"] = by_state.get("failed", 0) + 1
    family = doctored["summary"]["by_family"][victim["family"]]
    family["passed"] -= 1
    family["failed"] = family.get("failed", 0) + 1
    doctored["run"]["date"] = doctored["run"].get("date", 0) + 86400
    doctored["provenance"]["git_commit"] = "d0c702ed" + doctored["provenance"]["git_commit"][8:]
    return doctored, victim


def main():
    tlconform = os.environ.get("TL_TLCONFORM")
    if not tlconform:
        sys.exit("FAIL: TL_TLCONFORM names no tlconform binary (CTest sets it)")
    work = Path(tempfile.mkdtemp(prefix="tl_report_"))
    try:
        committed = json.loads(COMMITTED.read_text())
        doctored, victim = doctor(committed)
        first, second = work / "committed.json", work / "doctored.json"
        first.write_text(json.dumps(committed))
        second.write_text(json.dumps(doctored))
        cards = [committed, doctored]
        # The smallest capturing row that still passes: its graph is quick to draw.
        graph_row = min(
            (c for c in doctored["cells"] if c["state"] == "passed" and "ops" in c), key=lambda c: c["ops"]
        )["id"]

        site = work / "site"
        done = subprocess.run(
            [tlconform, "report", "--out", str(site), "--graphs", "--row", graph_row, str(first), str(second)],
            capture_output=True, text=True, timeout=600,
        )
        print(done.stderr, file=sys.stderr)
        if done.returncode != 0:
            sys.exit(f"FAIL: tlconform report exited {done.returncode}")
        check(f"[1/1] {graph_row}: drawn" in done.stderr, "report printed no [done/total] progress for the graph it drew")

        page = parse(rendered_dom((site / "index.html").as_uri()))

        # The script ran: it marks <body> and counts the rows it shows.
        rows = len(page.rows)
        check(page.body.get("data-script") == "ready", f"the page's script did not run (body attributes {page.body})")
        check(page.shown.strip() == f"{rows} of {rows} rows shown", f"the script did not count the rows: {page.shown!r}")

        # Every cell of the cards is exactly one row, in the last card's order.
        ids = [row["id"] for row in page.rows]
        union = [c["id"] for c in doctored["cells"]] + [
            c["id"] for c in committed["cells"] if c["id"] not in {d["id"] for d in doctored["cells"]}
        ]
        check(len(ids) == len(set(ids)), "a cell has more than one row")
        check(ids == union, f"rows are not the cards' cells in order: {ids[:5]}... vs {union[:5]}...")

        # Each column shows each card's states, and counts equal to the card's summary.by_state.
        by_id = {row["id"]: row for row in page.rows}
        for column, card in enumerate(cards):
            for cell in card["cells"]:
                shown = by_id.get(cell["id"], {"cells": {}})["cells"].get(column, {}).get("state")
                check(shown == cell["state"], f"column {column}: {cell['id']} shows {shown}, the card says {cell['state']}")
            check(
                page.columns.get(column) == card["summary"]["by_state"],
                f"column {column} counts {page.columns.get(column)} != summary.by_state {card['summary']['by_state']}",
            )

        # Exactly the doctored cell is a regression, marked "passed -> failed", its message as written.
        regressions = {mark[0] for mark in page.marks if mark[1] == "regression"}
        check(regressions == {victim["id"]}, f"regression marks on {regressions}, expected only {victim['id']}")
        marked_cells = {row["id"] for row in page.rows if any(c["transition"] for c in row["cells"].values())}
        check(marked_cells == {victim["id"]}, f"transitions marked on {marked_cells}, expected only {victim['id']}")
        texts = [mark[2] for mark in page.marks if mark[0] == victim["id"]]
        check(texts == ["passed -> failed"], f"the regression mark says {texts}")
        cell = by_id[victim["id"]]["cells"][1]
        expected = victim["message"] + "\n" + victim["failures"][0]["check"] + ": " + victim["failures"][0]["detail"]
        check(cell["pre"] == expected, f"the failure text reads {cell['pre']!r}, not {expected!r}")
        check(victim["message"] in cell["title"], f"the tooltip lacks the message: {cell['title']!r}")

        # The graph drawn for one row is linked and is an SVG file; no other row links one.
        linked = {row["id"]: row["graph"] for row in page.rows if row["graph"]}
        check(linked == {graph_row: f"graphs/{graph_row}.svg"}, f"graph links {linked}")
        svg = site / "graphs" / f"{graph_row}.svg"
        check(svg.is_file() and "<svg" in svg.read_text()[:2000], f"{svg} is not an SVG picture")
        check((site / "trend.svg").is_file(), "no trend.svg for two cards")

        # The filter, from the URL hash: only the regression's row stays visible.
        filtered = parse(rendered_dom((site / "index.html").as_uri() + "#show=regression"))
        visible = [row["id"] for row in filtered.rows if not row["hidden"]]
        check(visible == [victim["id"]], f"#show=regression shows {visible[:5]}, expected only {victim['id']}")
        check(filtered.shown.strip() == f"1 of {rows} rows shown", f"filtered count reads {filtered.shown!r}")

        # A hostile hash (a sort key that would break a selector) sorts nothing and stops nothing:
        # the script still runs, and the filter in the same hash still applies.
        hostile = parse(rendered_dom((site / "index.html").as_uri() + '#sort=column-x"]&show=regression'))
        check(hostile.body.get("data-script") == "ready", f"a hostile hash stopped the script (body {hostile.body})")
        visible = [row["id"] for row in hostile.rows if not row["hidden"]]
        check(visible == [victim["id"]], f"with a hostile sort key, #show=regression shows {visible[:5]}")

        # A row whose trace fails leaves no picture: no link, a short reason, and a stale picture
        # from an earlier report removed rather than passed off as this one.
        roster = work / "broken.yaml"
        roster.write_text(
            "rows:\n  - id: broken_forward\n    family: config_built\n    description: its forward raises\n"
            "    inputs:\n      x: [[1.0, 2.0]]\n    forward: x.no_such_method()\n    expect:\n      output: [[1.0, 2.0]]\n"
        )
        broken = copy.deepcopy(committed)
        broken["cells"].append(dict(broken["cells"][0], id="broken_forward", roster=f"{roster}:2", ops=1))
        (work / "broken.json").write_text(json.dumps(broken))
        (site / "graphs" / "broken_forward.svg").write_text("<svg>stale</svg>")
        done = subprocess.run(
            [tlconform, "report", "--out", str(site), "--graphs", "--roster", str(roster), "--row", "broken_forward",
             str(work / "broken.json")],
            capture_output=True, text=True, timeout=600,
        )
        check(done.returncode == 0, f"report with an undrawable row exited {done.returncode}: {done.stderr}")
        check(not (site / "graphs" / "broken_forward.svg").exists(), "a stale picture outlived a failed trace")
        page = parse((site / "index.html").read_text())
        row = next((r for r in page.rows if r["id"] == "broken_forward"), None)
        check(row is not None and row["graph"] is None, "the undrawable row links a graph")
        check("no_such_method" in done.stderr and "not drawn: trace exited 1" in done.stderr,
              f"the progress line does not say why: {done.stderr}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        sys.exit(f"FAIL: {len(FAILURES)} check(s) failed")
    print(f"ok: {rows} rows, 2 columns, regression {victim['id']}, graph {graph_row}")


if __name__ == "__main__":
    main()
