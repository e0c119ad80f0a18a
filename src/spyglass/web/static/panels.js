// spyglass web: the symbol's panels (loaded by app.js with the first symbol; it uses app.js's
// helpers): rows with
// their line of code grouped by file and paged through every result, callees with their call
// lines, the call-hierarchy tree (the WAI-ARIA tree pattern), and the panel tabs.
"use strict";

// -- rows with their line of code -----------------------------------------------------
async function withLines(rows, holder) {
  // the line of code of every row, read in batches (GET …/lines?at=PATH:LINE)
  const keys = [...new Set(rows.map((x) => `${x.path}:${x.line || x.start_line}`))];
  for (let i = 0; i < keys.length; i += 120) {
    const r = await api(repoPath(`/lines?${keys.slice(i, i + 120).map((k) => "at=" + encodeURIComponent(k)).join("&")}`));
    if (!r.ok) return;
    for (const code of holder.querySelectorAll("code.line[data-at]")) {
      const t = r.body.lines[code.dataset.at];
      if (t !== undefined && code.textContent === "…") { code.textContent = t.trim() || " "; code.title = t.trim(); }
    }
  }
}

function evidenceOf(x) {
  // long evidence is cut to one line; the whole text is one click (or Enter) away
  if (!x.evidence || !(x.uncertain || x.showEvidence)) return null;
  return h("details", { class: "ev" }, h("summary", {}, x.evidence), h("p", {}, x.evidence));
}

function rowItem(x, opts) {
  const line = x.line || x.start_line;
  return h("li", { class: "ref-row" },
    linkTo(fileHref(x.path, line), () => openFile(x.path, line, null), { class: "ln", "aria-label": `${x.path} line ${line}` }, `${line}`),
    h("code", { class: "line", "data-at": `${x.path}:${line}` }, "…"),
    h("span", { class: "row-meta" },
      // a caller row is a call site: its link opens the definition holding it
      opts.symbolName ? (opts.openName
        ? linkTo(symHref(x.path, x.start_line), () => definitionAt(x.path, x.start_line).then((d) => d && openSymbol(d)),
          { class: "sym-name" }, breakable(x.symbol))
        : h("span", { class: "muted sym-name" }, breakable(x.symbol))) : null,
      h("span", { class: `kind ${x.kind}` }, x.kind), tags(x), evidenceOf(x)));
}

function groupedRows(rows, truncated, noun, opts = {}) {
  // rows grouped by file (collapsible, with counts); each row links to the file view
  if (!rows.length) return h("p", { class: "muted" }, `No ${noun}s found.`);
  const byFile = new Map();
  for (const x of rows) { if (!byFile.has(x.path)) byFile.set(x.path, []); byFile.get(x.path).push(x); }
  const many = byFile.size > 8;
  const groups = [...byFile].map(([path, xs], i) => h("details", { class: "refs-file", open: !many || i < 5 },
    h("summary", {}, h("span", { class: "path" }, breakable(path)), h("span", { class: "count", "aria-label": `${xs.length} ${noun}(s)` }, String(xs.length))),
    h("ul", { class: "ref-rows" }, xs.map((x) => rowItem(x, opts)))));
  const box = h("div", {},
    h("div", { class: "group-head" }, h("span", { class: "muted" }, `${rows.length}${truncated ? "+" : ""} ${noun}(s) in ${byFile.size} file(s)`),
      many ? expandTools(() => box) : null),
    groups);
  withLines(rows, box);
  return box;
}

function expandTools(boxOf) {
  return h("span", { class: "group-tools" },
    h("button", { type: "button", onclick: () => { for (const d of boxOf().querySelectorAll("details.refs-file")) d.open = true; } }, "Expand all"),
    h("button", { type: "button", onclick: () => { for (const d of boxOf().querySelectorAll("details.refs-file")) d.open = false; } }, "Collapse all"));
}

function pagedRows(tail, at, noun, opts = {}) {
  // Every result of a continuing tool (references, callers), a page at a time: grouped by
  // file with the count per file, "Load more" and "Load all" until the answer's total.
  const box = h("div", { class: "paged" }, h("p", { class: "muted" }, "Loading…"));
  const groups = new Map();  // path → { details, list, count }
  const list = h("div", {});
  const head = h("span", { class: "muted", role: "status" });
  const more = h("button", { type: "button" }, "Load more");
  const all = h("button", { type: "button" }, "Load all");
  const foot = h("div", { class: "page-tools" }, more, all);
  let shown = 0, total = null, next = 0, busy = false;
  const seq = S.seq;
  async function page() {
    if (busy || next === null) return false;
    busy = true; more.disabled = all.disabled = true;
    const r = await api(repoPath(`${tail}?${qs(Object.assign({}, at, next ? { offset: next } : {}))}`));
    busy = false; more.disabled = all.disabled = false;
    if (seq !== S.seq) return false;
    if (!r.ok) { fill(box, h("p", { class: "error" }, r.body.error)); return false; }
    const rows = r.body.results, pg = r.body.page;
    total = pg ? pg.total : rows.length;
    next = pg && pg.next_offset !== null && pg.next_offset > next ? pg.next_offset : null;
    if (shown === 0) {
      if (!rows.length) { fill(box, h("p", { class: "muted" }, `No ${noun}s found.`)); return false; }
      fill(box, h("div", { class: "group-head" }, head, expandTools(() => box)), list, foot);
    }
    for (const x of rows) {
      let g = groups.get(x.path);
      if (!g) {
        const count = h("span", { class: "count" });
        const ul = h("ul", { class: "ref-rows" });
        const d = h("details", { class: "refs-file", open: groups.size < 5 }, h("summary", {}, h("span", { class: "path" }, breakable(x.path)), count), ul);
        g = { d, ul, count, n: 0 };
        groups.set(x.path, g);
        list.append(d);
      }
      g.ul.append(rowItem(x, opts));
      g.n += 1;
      g.count.textContent = String(g.n);
      g.count.setAttribute("aria-label", `${g.n} ${noun}(s)`);
    }
    shown += rows.length;
    head.textContent = `${shown} of ${total} ${noun}(s) in ${groups.size} file(s)` + (r.body.truncated && next === null ? " (cut by the server's limits)" : "");
    foot.hidden = next === null;
    more.textContent = next === null ? "Load more" : `Load more (${total - shown} left)`;
    withLines(rows, list);
    return next !== null;
  }
  more.addEventListener("click", () => page());
  all.addEventListener("click", async () => { while (await page()) { /* every page */ } });
  page();
  return box;
}

// -- callees: the calls made here, at their lines ---------------------------------------------
const CALLED_AT = /^called at line ([0-9, ]+)/;
const callLines = (evidence) => { const m = CALLED_AT.exec(evidence || ""); return m ? m[1].split(",").map((s) => parseInt(s, 10)).filter((n) => n > 0) : []; };

function calleeRows(loc, rows, truncated) {
  // one row per call (its line here, its line of code) naming the definition it reaches
  if (!rows.length) return h("p", { class: "muted" }, "No callees found.");
  const calls = [];
  for (const d of rows) {
    const why = (d.evidence || "").replace(CALLED_AT, "").replace(/^;\s*/, "");
    for (const n of callLines(d.evidence).slice(0, 6)) calls.push({ line: n, d, why });
  }
  calls.sort((a, b) => a.line - b.line);
  const box = h("div", {}, h("div", { class: "group-head" }, h("span", { class: "muted" },
    `${rows.length}${truncated ? "+" : ""} callee(s) called at ${new Set(calls.map((c) => c.line)).size} line(s) of ${loc.path}`)),
  h("ul", { class: "ref-rows" }, calls.map((c) => h("li", { class: "ref-row" },
    linkTo(fileHref(loc.path, c.line), () => openFile(loc.path, c.line, null), { class: "ln", "aria-label": `${loc.path} line ${c.line}` }, String(c.line)),
    h("code", { class: "line", "data-at": `${loc.path}:${c.line}` }, "…"),
    h("span", { class: "row-meta" }, linkTo(symHref(c.d.path, c.d.start_line), () => openSymbol(c.d), { class: "sym-name" }, breakable(c.d.symbol)),
      h("span", { class: `kind ${c.d.kind}` }, c.d.kind), tags(c.d),
      c.d.uncertain && c.why ? evidenceOf({ evidence: c.why, uncertain: true }) : null)))));
  withLines(calls.map((c) => ({ path: loc.path, line: c.line })), box);
  return box;
}

// -- the call-hierarchy tree ------------------------------------------------------------------
function callTree(loc, rels) {
  // callers or callees, one level per expansion (Right / Enter / click), each node with the
  // line of its call: in the caller's file for callers, in the parent's file for callees
  const box = h("div", { class: "calltree" });
  let mode = "callers";
  const name = `tree-mode-${S.seq}`;
  const radios = ["callers", "callees"].filter((m) => rels[m] && rels[m].available).map((m) =>
    h("label", {}, h("input", { type: "radio", name, value: m, checked: m === mode, onchange: () => { mode = m; build(); } }), " ", m));
  const tree = h("ul", { role: "tree", class: "tree", "aria-label": "call hierarchy" });
  const status = h("p", { class: "muted tree-status", role: "status" });
  box.append(h("fieldset", { class: "g-rel" }, h("legend", {}, "Show"), radios), tree, status,
    h("p", { class: "muted g-help" }, "Keys: ↑ ↓ move, → expands (or enters the first child), ← collapses (or goes to the parent), Enter opens the call site, Shift+Enter opens the symbol."));

  function item(node, level, ancestors) {
    // node: { symbol, kind, path, start_line, site: [path, line] | null }
    const recursive = ancestors.has(`${node.path}:${node.start_line}`);
    const li = h("li", { role: "treeitem", "aria-level": String(level), tabindex: "-1",
      "aria-expanded": recursive ? null : "false", class: "ti" });
    li._node = node;
    li._ancestors = new Set([...ancestors, `${node.path}:${node.start_line}`]);
    const site = node.site;
    li.append(h("span", { class: "ti-row" },
      h("span", { class: "twisty", "aria-hidden": "true" }, recursive ? "·" : "▸"),
      h("span", { class: `kind ${node.kind}` }, node.kind),
      linkTo(symHref(node.path, node.start_line), () => openSymbol(node), { class: "sym-name", tabindex: "-1" }, breakable(node.symbol)),
      site ? linkTo(fileHref(site[0], site[1]), () => openFile(site[0], site[1], null), { class: "ti-site", tabindex: "-1" }, `${site[0]}:${site[1]}`) : null,
      site ? h("code", { class: "line", "data-at": `${site[0]}:${site[1]}` }, "…") : null,
      recursive ? h("span", { class: "muted" }, "(recursive)") : null,
      node.uncertain ? h("span", { class: "tag uncertain", title: node.evidence || "" }, "uncertain") : null));
    li.addEventListener("click", (ev) => { if (ev.target.closest("a")) return; ev.stopPropagation(); focus(li); toggle(li); });
    return li;
  }
  async function children(li) {
    const n = li._node;
    const r = await api(graphPath({ path: n.path, line: n.start_line, relation: mode, depth: 1, limit: 300, references: 0 }));
    if (!r.ok) return { error: r.body.error };
    const g = r.body, center = new Set(g.center), byId = new Map(g.nodes.map((x) => [x.id, x]));
    const out = [];
    for (const e of g.edges) {
      const otherId = center.has(e.target) ? e.source : e.target;
      if (center.has(otherId)) continue;
      const o = byId.get(otherId);
      if (!o || o.kind === "file") continue;
      const lines = e.lines.length ? e.lines : [o.start_line];
      const sitePath = mode === "callers" ? o.path : n.path;
      for (const line of lines.slice(0, 20)) {
        out.push({ symbol: o.symbol, kind: o.kind, path: o.path, start_line: o.start_line, end_line: o.end_line,
          site: [sitePath, line], uncertain: e.uncertain, evidence: e.evidence, source: "", indexed_at: null, stale: false });
      }
    }
    out.sort((a, b) => a.site[0].localeCompare(b.site[0]) || a.site[1] - b.site[1]);
    return { rows: out, truncated: g.truncated };
  }
  async function expand(li) {
    if (li.getAttribute("aria-expanded") !== "false") return;
    li.setAttribute("aria-expanded", "true");
    li.querySelector(".twisty").textContent = "▾";
    let group = li.querySelector(":scope > ul");
    if (group) { group.hidden = false; return; }
    group = h("ul", { role: "group" }, h("li", { role: "none", class: "muted" }, "Loading…"));
    li.append(group);
    const got = await children(li);
    const level = Number(li.getAttribute("aria-level")) + 1;
    if (got.error) { fill(group, h("li", { role: "none", class: "error" }, got.error)); return; }
    if (!got.rows.length) { fill(group, h("li", { role: "none", class: "muted" }, `No ${mode}.`)); return; }
    fill(group, got.rows.map((x) => item(x, level, li._ancestors)));
    status.textContent = `${got.rows.length} ${mode === "callers" ? "call site(s)" : "call(s)"} of ${li._node.symbol}` + (got.truncated ? " (truncated)" : "");
    withLines(got.rows.map((x) => ({ path: x.site[0], line: x.site[1] })), group);
  }
  function collapse(li) {
    if (li.getAttribute("aria-expanded") !== "true") return;
    li.setAttribute("aria-expanded", "false");
    li.querySelector(".twisty").textContent = "▸";
    const group = li.querySelector(":scope > ul");
    if (group) group.hidden = true;
  }
  const toggle = (li) => (li.getAttribute("aria-expanded") === "true" ? collapse(li) : expand(li));
  const visible = () => [...tree.querySelectorAll("li[role=treeitem]")].filter((x) => !x.closest("ul[hidden]"));
  function focus(li) {
    for (const x of tree.querySelectorAll("li[role=treeitem]")) x.tabIndex = -1;
    li.tabIndex = 0;
    li.focus();
  }
  tree.addEventListener("keydown", async (ev) => {
    const li = ev.target.closest("li[role=treeitem]");
    if (!li) return;
    const items = visible(), i = items.indexOf(li);
    const key = ev.key;
    if (["ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft", "Home", "End", "Enter"].includes(key)) ev.preventDefault();
    if (key === "ArrowDown" && i < items.length - 1) focus(items[i + 1]);
    else if (key === "ArrowUp" && i > 0) focus(items[i - 1]);
    else if (key === "Home") focus(items[0]);
    else if (key === "End") focus(items[items.length - 1]);
    else if (key === "ArrowRight") {
      const st = li.getAttribute("aria-expanded");
      if (st === "false") await expand(li);
      else if (st === "true") { const c = li.querySelector(":scope > ul > li[role=treeitem]"); if (c) focus(c); }
    } else if (key === "ArrowLeft") {
      if (li.getAttribute("aria-expanded") === "true") collapse(li);
      else { const p = li.parentElement.closest("li[role=treeitem]"); if (p) focus(p); }
    } else if (key === "Enter") {
      const n = li._node;
      if (ev.shiftKey || !n.site) openSymbol(n); else openFile(n.site[0], n.site[1], null);
    }
  });
  function build() {
    const root = item({ symbol: loc.symbol, kind: loc.kind, path: loc.path, start_line: loc.start_line, end_line: loc.end_line,
      site: null, source: loc.source, indexed_at: loc.indexed_at, stale: loc.stale }, 1, new Set());
    root.tabIndex = 0;
    fill(tree, root);
    status.textContent = "";
    expand(root);
  }
  build();
  return box;
}

// -- the panels of one symbol, as tabs ----------------------------------------------------------
const PANELS = [["refs", "References"], ["callers", "Callers"], ["callees", "Callees"], ["calls", "Call hierarchy"],
  ["types", "Type hierarchy"], ["graph", "Graph"], ["blast", "Blast radius"]];

function symbolTabs(loaders, current, onSwitch) {
  // loaders: panel name → () => content (built the first time the panel is shown)
  const names = PANELS.filter(([n]) => loaders[n]);
  const pick = names.some(([n]) => n === current) ? current : names[0][0];
  const buttons = [], bodies = {};
  const list = h("div", { class: "tabs sym-tabs", role: "tablist", "aria-label": "symbol panels" });
  const holder = h("div", {});
  for (const [n, title] of names) {
    const b = h("button", { type: "button", role: "tab", class: "tab", id: `ptab-${n}`, "aria-controls": `panel-${n}`,
      "aria-selected": "false", tabindex: "-1", "data-panel": n }, title);
    const body = h("section", { class: "panel sym-panel", role: "tabpanel", id: `panel-${n}`, "aria-labelledby": `ptab-${n}`, hidden: true });
    buttons.push(b); bodies[n] = body;
    list.append(b); holder.append(body);
    b.addEventListener("click", () => show(n, true));
    b.addEventListener("keydown", (ev) => {  // the tablist pattern: arrows, Home, End
      const i = buttons.indexOf(b), last = buttons.length - 1;
      const j = { ArrowRight: (i + 1) % buttons.length, ArrowLeft: (i + last) % buttons.length, Home: 0, End: last }[ev.key];
      if (j === undefined) return;
      ev.preventDefault();
      buttons[j].focus(); show(buttons[j].dataset.panel, true);
    });
  }
  function show(n, user) {
    for (const b of buttons) {
      const on = b.dataset.panel === n;
      b.classList.toggle("active", on); b.setAttribute("aria-selected", on ? "true" : "false"); b.tabIndex = on ? 0 : -1;
    }
    for (const [k, body] of Object.entries(bodies)) {
      body.hidden = k !== n;
      if (k === n && !body.dataset.built) { body.dataset.built = "1"; fill(body, loaders[k]()); }
    }
    if (user) onSwitch(n);
  }
  show(pick, false);
  return { el: h("div", { class: "sym-panels" }, list, holder), show, bodies };
}
