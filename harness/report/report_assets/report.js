// tlconform report: sort by a column header, filter by text and by kind of change. The state lives
// in the URL hash (#show=regression&q=conv&sort=column-1&dir=desc), so a link reproduces a view.
"use strict";

(function () {
  const table = document.getElementById("cells");
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const filter = document.getElementById("filter");
  const show = document.getElementById("show");
  const shown = document.getElementById("shown");
  let sortKey = "";
  let sortDir = "asc";
  // The keys a header sorts by: a hash naming anything else (a hand-edited or hostile link) sorts
  // nothing, rather than reaching a selector or a dataset lookup.
  const sortKeys = new Set(Array.from(table.tHead.querySelectorAll("th[data-sort]"), (th) => th.dataset.sort));

  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    filter.value = params.get("q") || "";
    const wanted = params.get("show") || "all";
    show.value = Array.from(show.options).some((o) => o.value === wanted) ? wanted : "all";
    const wantedSort = params.get("sort") || "";
    sortKey = sortKeys.has(wantedSort) ? wantedSort : "";
    sortDir = params.get("dir") === "desc" ? "desc" : "asc";
  }

  function writeHash() {
    const params = new URLSearchParams();
    if (filter.value) params.set("q", filter.value);
    if (show.value !== "all") params.set("show", show.value);
    if (sortKey) params.set("sort", sortKey);
    if (sortKey && sortDir === "desc") params.set("dir", "desc");
    const hash = params.toString();
    history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }

  // The value a row sorts by: a text field, a number, or a column's state rank then state name.
  function keyOf(row) {
    if (sortKey.startsWith("column-")) {
      const column = sortKey.slice(7);
      const cell = Array.from(row.querySelectorAll("td.cell")).find((td) => td.dataset.column === column);
      return cell ? cell.dataset.rank + cell.dataset.state : "";
    }
    if (sortKey === "ops") return row.dataset.ops === "" ? -1 : Number(row.dataset.ops);
    return (row.dataset[sortKey] || "").toLowerCase();
  }

  function sortRows() {
    const ordered = rows.slice();
    if (sortKey) {
      ordered.sort((a, b) => {
        const x = keyOf(a);
        const y = keyOf(b);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return sortDir === "desc" ? -order : order;
      });
    }
    for (const row of ordered) body.appendChild(row);
    for (const th of table.tHead.querySelectorAll("th[data-sort]")) {
      if (th.dataset.sort === sortKey) th.setAttribute("aria-sort", sortDir === "desc" ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    }
  }

  function matches(row) {
    const changes = row.dataset.changes.split(" ");
    if (show.value === "changed" && row.dataset.changes === "") return false;
    if ((show.value === "regression" || show.value === "fixed") && !changes.includes(show.value)) return false;
    if (show.value === "failing" && row.dataset.failing !== "1") return false;
    const text = filter.value.trim().toLowerCase();
    return text === "" || row.textContent.toLowerCase().includes(text);
  }

  function applyFilter() {
    let count = 0;
    for (const row of rows) {
      const visible = matches(row);
      row.hidden = !visible;
      if (visible) count += 1;
    }
    shown.textContent = count + " of " + rows.length + " rows shown";
    document.body.dataset.shownRows = String(count);
  }

  function update() {
    sortRows();
    applyFilter();
  }

  filter.addEventListener("input", () => { applyFilter(); writeHash(); });
  show.addEventListener("change", () => { applyFilter(); writeHash(); });
  for (const th of table.tHead.querySelectorAll("th[data-sort]")) {
    th.addEventListener("click", () => {
      sortDir = sortKey === th.dataset.sort && sortDir === "asc" ? "desc" : "asc";
      sortKey = th.dataset.sort;
      sortRows();
      writeHash();
    });
  }
  window.addEventListener("hashchange", () => { readHash(); update(); });

  readHash();
  update();
  // Tests (and people) can tell the script ran: the page without it has no such attribute.
  document.body.dataset.script = "ready";
})();
