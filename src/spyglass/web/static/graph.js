// spyglass web: the interactive graph around a symbol, written here (no library): callers
// to the left, callees to the right, one hop per expansion; a layered layout grouped by file,
// a file's nodes collapsed beyond COLLAPSE; pan and zoom; every node reachable by keyboard.
"use strict";

(function () {
  const NS = "http://www.w3.org/2000/svg";
  const W = 210, H = 40, GX = 70, GY = 8, GROUP_GAP = 14, HEAD = 18;
  const COLLAPSE = 5;  // a file's nodes in one layer beyond this are one group node
  const CROWDED = 24;  // a layer with more nodes than this collapses every file of 2+ nodes
  const MAX_ROWS = 14;  // a layer taller than this folds folders into group nodes
  const ARC_Y = -30;  // edges passing columns arc at this height, above the layout

  function el(tag, attrs, ...kids) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
    for (const kid of kids) e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    return e;
  }
  function hel(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat(Infinity)) if (kid !== null && kid !== undefined && kid !== false) e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    return e;
  }
  function label(symbol, kind) {
    if (kind === "file" || kind === "group") return symbol;
    const parts = symbol.split(".");
    const text = parts.length > 2 ? parts.slice(-2).join(".") : symbol;
    return text.length > 28 ? text.slice(0, 27) + "…" : text;  // cut at the end, never the start
  }
  const base = (p) => (p.endsWith("/") ? p : p.split("/").pop());

  function create(box, opts) {
    const G = {
      nodes: new Map(), edges: new Map(), expansions: [], open: new Set(), focusId: null,
      relation: "callers", view: { x: 0, y: 0, k: 1 }, fitted: false, busy: false, notes: [],
    };
    const status = hel("div", { class: "g-status", role: "status", "aria-live": "polite" });
    const info = hel("div", { class: "g-info", "aria-live": "polite" });
    const rels = Object.entries(opts.relations);
    const relBox = hel("fieldset", { class: "g-rel" }, hel("legend", {}, "Expand with"),
      rels.map(([name, r]) => hel("label", { title: r.reason || "" },
        hel("input", { type: "radio", name: `rel-${opts.uid}`, value: name, checked: name === G.relation,
          disabled: !r.available, onchange: () => { G.relation = name; } }),
        " ", r.label, r.available ? "" : " (not available)")));
    const unavailable = rels.filter(([, r]) => !r.available).map(([, r]) => r.reason);
    const button = (text, fn, title) => hel("button", { type: "button", onclick: fn, title }, text);
    const tools = hel("div", { class: "g-tools" }, relBox,
      button("Expand", () => expandFocused(), "expand the selected node one hop (Enter)"),
      button("Open", () => openFocused(), "open the selected node (Shift+Enter)"),
      button("Zoom in", () => zoom(1.25), "+"), button("Zoom out", () => zoom(0.8), "−"),
      button("Fit", () => fit(), "0"));
    const svg = el("svg", { class: "g-svg", role: "group", tabindex: "0",
      "aria-label": "call graph: callers on the left point at what they call; arrows move between nodes, Enter expands, Shift+Enter opens, + and − zoom" });
    const vp = el("g", { class: "viewport" });
    svg.append(vp);
    const help = hel("p", { class: "g-help muted" },
      "Keys: Tab to the graph, arrows move between nodes (on the background they pan), Enter expands one hop, Shift+Enter opens, + / − zoom, 0 fits. Drag to pan, wheel to zoom. Dashed edges are uncertain (matched by name); focus a node for their evidence.",
      unavailable.length ? " " + unavailable.join("; ") + "." : "");
    box.replaceChildren(tools, hel("div", { class: "graph" }, svg), info, status, help);

    // -- model ------------------------------------------------------------------------
    function merge(g, fromId, relation) {
      const from = fromId ? G.nodes.get(fromId) : null;
      const alias = new Map();  // the answer's center ids → the node that was expanded
      if (from) for (const c of g.center) alias.set(c, fromId);
      // a node whose edge points at the expanded one (a caller, a subtype) goes one layer
      // left of it, any other (a callee, a supertype) one layer right
      const inward = new Set(g.edges.filter((e) => g.center.includes(e.target)).map((e) => e.source));
      const at = from ? from.layer : 0;
      let added = 0;
      for (const n of g.nodes) {
        const id = alias.get(n.id) || n.id;
        if (G.nodes.has(id)) continue;
        const center = !from && g.center.includes(n.id);
        const layer = center ? 0 : at + (inward.has(n.id) ? -1 : 1);
        G.nodes.set(id, { id, symbol: n.symbol, kind: n.kind, path: n.path, start_line: n.start_line,
          end_line: n.end_line, layer, center, expanded: new Set() });
        added += 1;
      }
      for (const e of g.edges) {
        const s = alias.get(e.source) || e.source, t = alias.get(e.target) || e.target;
        const key = `${s}|${t}|${e.kind}`;
        if (!G.edges.has(key)) G.edges.set(key, Object.assign({}, e, { source: s, target: t }));
      }
      if (from) from.expanded.add(relation);
      G.notes = g.notes || [];
      return added;
    }

    async function expand(id, relation) {
      const n = G.nodes.get(id);
      const r = opts.relations[relation];
      if (!n || G.busy) return;
      if (!r || !r.available) { status.textContent = r ? r.reason : `unknown relation ${relation}`; return; }
      G.busy = true;
      status.textContent = `Expanding ${r.label} of ${n.symbol}…`;
      const got = await opts.fetch(n, relation);
      G.busy = false;
      if (!got.ok) { status.textContent = got.error; return; }
      G.expansions.push([id, relation]);
      const added = merge(got.body, id, relation);
      status.textContent = `${added} new node(s) from the ${r.label} of ${n.symbol}` + (got.body.truncated ? " (truncated)" : "") +
        ` · ${G.nodes.size} nodes`;
      render();
      const { w, h } = size();
      if (Math.min(w / L.width, h / L.height) >= 0.55) fit();  // all of it still legible
      focusNode(id);
    }

    // -- layout -----------------------------------------------------------------------
    function foldDirs(gs, L) {
      // A layer still taller than MAX_ROWS rows folds whole folders into one group node
      // ("31 symbols · tests/"), then top-level folders; a folder holding an opened group,
      // or opened itself, is never folded. Enter on the folder shows its files.
      const rows = (list) => list.reduce((a, g) => a + (g.collapsed ? 1 : g.ns.length), 0);
      const dirOf = (p) => { const parts = p.split("/"); parts.pop(); return parts.join("/") + "/"; };
      for (const top of [false, true]) {
        if (rows(gs) <= MAX_ROWS) break;
        const target = (g) => { const d = g.dir || dirOf(g.path); return top ? d.split("/")[0] + "/" : d; };
        const kept = new Set(gs.filter((g) => G.open.has(g.key) || g.ns.some((n) => n.center)).map(target));
        const byDir = new Map();
        for (const g of gs) { const d = target(g); if (!byDir.has(d)) byDir.set(d, []); byDir.get(d).push(g); }
        const out = [];
        for (const g of gs) {
          const d = target(g), same = byDir.get(d);
          const key = `${L}|dir:${d}`;
          if (same.length < 2 || kept.has(d) || G.open.has(key)) { out.push(g); continue; }
          if (same[0] !== g) continue;  // the folder's node stands where its first member was
          const ns = same.flatMap((x) => x.ns);
          out.push({ key, path: d, dir: d, ns, collapsed: true, score: same[0].score, layer: L });
        }
        gs = out;
      }
      return gs;
    }

    function layout() {
      const cols = new Map();
      for (const n of G.nodes.values()) { if (!cols.has(n.layer)) cols.set(n.layer, []); cols.get(n.layer).push(n); }
      const layers = [...cols.keys()].sort((a, b) => a - b);
      const rank = new Map(), pos = new Map(), groups = [], shown = new Map();  // node id → drawn id
      const nbr = new Map();
      for (const e of G.edges.values()) {
        for (const [a, b] of [[e.source, e.target], [e.target, e.source]]) { if (!nbr.has(a)) nbr.set(a, []); nbr.get(a).push(b); }
      }
      const bary = (id) => {
        const xs = (nbr.get(id) || []).filter((x) => rank.has(x)).map((x) => rank.get(x));
        return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 1e9;
      };
      // order from the center outwards so each column follows the one it hangs from
      const order = [...layers].sort((a, b) => Math.abs(a) - Math.abs(b));
      const columns = new Map();
      for (const L of order) {
        const byFile = new Map();
        for (const n of cols.get(L)) { if (!byFile.has(n.path)) byFile.set(n.path, []); byFile.get(n.path).push(n); }
        const gs = [...byFile.entries()].map(([path, ns]) => {
          ns.sort((a, b) => bary(a.id) - bary(b.id) || a.symbol.localeCompare(b.symbol));
          const key = `${L}|${path}`;
          const crowded = cols.get(L).length > CROWDED && ns.length > 1;
          const collapsed = (ns.length > COLLAPSE || crowded) && !G.open.has(key) && !ns.some((n) => n.center);
          const score = ns.reduce((a, n) => a + Math.min(bary(n.id), 1e6), 0) / ns.length;
          return { key, path, ns, collapsed, score, layer: L };
        });
        gs.sort((a, b) => a.score - b.score || a.path.localeCompare(b.path));
        const folded = L === 0 ? gs : foldDirs(gs, L);
        let i = 0;
        for (const g of folded) for (const n of g.ns) rank.set(n.id, i++);
        columns.set(L, folded);
      }
      // One column per layer, never wrapped: an edge only ever joins the nodes it names
      // (a wrapped column drew edges across the inner one, as if joining unrelated nodes);
      // a tall layer is panned, and a crowded one is already folded into file groups.
      const gh = (g) => (g.ns.length > 1 ? HEAD : 0) + (g.collapsed ? 1 : g.ns.length) * (H + GY) + GROUP_GAP;
      const slots = layers.map((L) => ({ layer: L, groups: columns.get(L), height: columns.get(L).reduce((a, g) => a + gh(g), 0) }));
      const height = Math.max(...slots.map((c) => c.height));
      slots.forEach((c, i) => {
        let y = (height - c.height) / 2 + 10;
        const x = i * (W + GX) + 10;
        for (const g of c.groups) {
          const top = y;
          if (g.ns.length > 1) y += HEAD;
          if (g.collapsed) {
            const id = `group:${g.key}`;
            pos.set(id, { x, y, node: { id, symbol: `${g.ns.length} symbols`, kind: "group", path: g.path,
              start_line: g.ns[0].start_line, end_line: g.ns[0].end_line, layer: c.layer, groupKey: g.key, members: g.ns, expanded: new Set() } });
            for (const n of g.ns) shown.set(n.id, id);
            y += H + GY;
          } else {
            for (const n of g.ns) { pos.set(n.id, { x, y, node: n }); shown.set(n.id, n.id); y += H + GY; }
          }
          if (g.ns.length > 1) groups.push({ x: x - 6, y: top, w: W + 12, h: y - top - GY + 6, path: g.path, key: g.key, collapsed: g.collapsed });
          y += GROUP_GAP;
        }
      });
      const width = slots.length * (W + GX) - GX + 20;
      return { pos, groups, shown, width, height: height + 20 };
    }

    // -- drawing ----------------------------------------------------------------------
    let L = null;
    function render() {
      L = layout();
      vp.replaceChildren();
      for (const g of L.groups) {
        vp.append(el("rect", { class: "grp", x: g.x, y: g.y, width: g.w, height: g.h, rx: 8 }),
          el("text", { class: "grp-label", x: g.x + 8, y: g.y + 13 }, base(g.path).length > 30 ? base(g.path).slice(0, 29) + "…" : base(g.path)));
      }
      const drawn = new Set();
      for (const e of G.edges.values()) {
        const s = L.shown.get(e.source), t = L.shown.get(e.target);
        if (!s || !t || s === t) continue;
        const key = `${s}|${t}`;
        if (drawn.has(key)) continue;
        drawn.add(key);
        const a = L.pos.get(s), b = L.pos.get(t);
        const fwd = a.x < b.x;
        const x1 = fwd ? a.x + W : a.x, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
        const apart = Math.round(Math.abs(b.x - a.x) / (W + GX));
        // between neighbouring columns a curve across the gap; an edge passing other columns
        // arcs above every node, so it never runs through a node it does not join
        const d = apart > 1 || (!fwd && apart === 1)
          ? `M${x1},${y1} C${x1 + (fwd ? 50 : -50)},${ARC_Y} ${x2 - 50},${ARC_Y} ${x2 - 6},${y2}`
          : `M${x1},${y1} C${fwd ? (x1 + x2) / 2 : x1 - 30},${y1} ${fwd ? (x1 + x2) / 2 : x2 - 30},${y2} ${x2 - 6},${y2}`;
        const p = el("path", { class: "e" + (e.uncertain ? " uncertain" : ""), "data-s": s, "data-t": t, d },
        el("title", {}, edgeText(e)));
        vp.append(p, el("path", { class: "arrow" + (e.uncertain ? " uncertain" : ""), d: `M${x2 - 7},${y2 - 4} L${x2},${y2} L${x2 - 7},${y2 + 4}` }));
      }
      for (const { x, y, node: n } of L.pos.values()) {
        const where = n.kind === "group" ? n.path : `${base(n.path)}:${n.start_line}`;
        const shownWhere = where.length > 32 ? where.slice(0, 31) + "…" : where;
        const more = n.kind === "group" ? "collapsed group, Enter shows them" :
          [...n.expanded].map((r) => `${r} shown`).join(", ");
        const g = el("g", { class: `n${n.center ? " center" : ""}${n.kind === "group" ? " group" : ""}`, transform: `translate(${x},${y})`,
          tabindex: "-1", role: "button", "data-id": n.id,
          "aria-label": `${n.kind} ${n.symbol}, ${n.kind === "group" ? n.path : `${n.path} line ${n.start_line}`}${more ? ", " + more : ""}` },
        el("title", {}, `${n.kind} ${n.symbol}\n${n.path}:${n.start_line}`),
        el("rect", { width: W, height: H, rx: 6 }));
        // the texts are drawn beside the focusable node (aria-hidden, not hit by the pointer):
        // its accessible name is the full one, not the shortened visible label
        const t = el("g", { class: "nt", transform: `translate(${x},${y})`, "aria-hidden": "true" },
          el("text", { x: 8, y: 16 }, label(n.symbol, n.kind)),
          el("text", { x: 8, y: 31, class: "sub" }, shownWhere));
        if (n.expanded.size) t.append(el("text", { x: W - 8, y: 16, class: "mark", "text-anchor": "end" }, "✓"));
        g.addEventListener("click", (ev) => { focusNode(n.id); if (ev.detail > 1) openNode(n); });
        g.addEventListener("dblclick", () => openNode(n));
        g.addEventListener("focus", () => describe(n));
        g.addEventListener("keydown", (ev) => nodeKey(ev, n));
        vp.append(g, t);
      }
      if (!G.fitted) { fit(); G.fitted = true; } else apply();
      const id = G.focusId && L.pos.has(G.focusId) ? G.focusId : firstId();
      for (const g of vp.querySelectorAll("g.n")) g.setAttribute("tabindex", g.dataset.id === id ? "0" : "-1");
    }
    const firstId = () => { const c = [...G.nodes.values()].find((n) => n.center); return c ? c.id : null; };
    function edgeText(e) {
      return `${e.kind} ×${e.count} (line${e.lines.length > 1 ? "s" : ""} ${e.lines.join(", ")})${e.uncertain ? " · uncertain: " + e.evidence : ""}`;
    }

    function describe(n) {
      G.focusId = n.id;
      for (const p of vp.querySelectorAll("path.e")) p.classList.toggle("hot", p.dataset.s === n.id || p.dataset.t === n.id);
      const ids = n.kind === "group" ? new Set(n.members.map((m) => m.id)) : new Set([n.id]);
      const rows = [...G.edges.values()].filter((e) => ids.has(e.source) || ids.has(e.target)).slice(0, 12).map((e) => {
        const other = G.nodes.get(ids.has(e.source) ? e.target : e.source);
        return hel("li", { class: e.uncertain ? "uncertain" : "" }, ids.has(e.source) ? "→ " : "← ",
          other ? other.symbol : "?", " · ", edgeText(e));
      });
      info.replaceChildren(hel("b", {}, `${n.kind} ${n.symbol}`), ` ${n.path}:${n.start_line}`,
        rows.length ? hel("ul", {}, rows) : hel("span", { class: "muted" }, " · no edges shown yet"));
    }

    // -- keyboard, pan and zoom -------------------------------------------------------
    function focusNode(id) {
      if (!id) return;
      const g = vp.querySelector(`g.n[data-id="${CSS.escape(id)}"]`);
      if (!g) return;
      for (const x of vp.querySelectorAll("g.n")) x.setAttribute("tabindex", "-1");
      g.setAttribute("tabindex", "0");
      g.focus();
      const p = L.pos.get(id);
      ensureVisible(p.x, p.y);
    }
    function neighbour(n, dx, dy) {
      const here = L.pos.get(n.id);
      let best = null, bestD = Infinity;
      for (const [id, p] of L.pos) {
        if (id === n.id) continue;
        const ddx = p.x - here.x, ddy = p.y - here.y;
        if (dx && Math.sign(ddx) !== dx) continue;
        if (!dx && (ddx !== 0 || Math.sign(ddy) !== dy)) continue;
        const d = dx ? Math.abs(ddx) * 10 + Math.abs(ddy) : Math.abs(ddy);
        if (d < bestD) { bestD = d; best = id; }
      }
      return best;
    }
    function nodeKey(ev, n) {
      const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      if (moves[ev.key]) { ev.preventDefault(); ev.stopPropagation(); focusNode(neighbour(n, ...moves[ev.key])); return; }
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault(); ev.stopPropagation();
        if (ev.shiftKey) openNode(n);
        else if (n.kind === "group") { G.open.add(n.groupKey); render(); focusNode(n.members[0].id); }
        else expand(n.id, G.relation);
        return;
      }
      if (ev.key === "Escape") { ev.preventDefault(); svg.focus(); }
    }
    function openNode(n) { if (n.kind !== "group" && !n.center) opts.open(n); }
    function expandFocused() {
      const id = G.focusId || firstId();
      const p = id && L ? L.pos.get(id) : null;
      if (p && p.node.kind === "group") { G.open.add(p.node.groupKey); render(); focusNode(p.node.members[0].id); }
      else if (id) expand(id, G.relation);
    }
    function openFocused() { const n = G.nodes.get(G.focusId || ""); if (n) openNode(n); }
    svg.addEventListener("keydown", (ev) => {
      if (ev.target !== svg) {
        if (ev.key === "+" || ev.key === "=") zoom(1.25); else if (ev.key === "-") zoom(0.8); else if (ev.key === "0") fit();
        return;
      }
      const pan = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] }[ev.key];
      if (pan) { ev.preventDefault(); G.view.x += pan[0]; G.view.y += pan[1]; apply(); }
      else if (ev.key === "+" || ev.key === "=") zoom(1.25);
      else if (ev.key === "-") zoom(0.8);
      else if (ev.key === "0") fit();
      else if (ev.key === "Enter") { ev.preventDefault(); focusNode(G.focusId || firstId()); }
    });
    function size() { const r = svg.getBoundingClientRect(); return { w: r.width || 600, h: r.height || 400 }; }
    function apply() { vp.setAttribute("transform", `translate(${G.view.x},${G.view.y}) scale(${G.view.k})`); }
    function fit() {
      if (!L) return;
      const { w, h } = size();
      const k = Math.max(0.55, Math.min(1.1, w / L.width, h / L.height));  // legible, then pan
      const c = L.pos.get(firstId());
      const x = L.width * k <= w ? (w - L.width * k) / 2 : (c ? w / 2 - (c.x + W / 2) * k : 0);
      G.view = { k, x, y: L.height * k <= h ? (h - L.height * k) / 2 : (c ? h / 2 - (c.y + H / 2) * k : 0) };
      apply();
    }
    function zoom(f, cx, cy) {
      const { w, h } = size();
      const x = cx ?? w / 2, y = cy ?? h / 2, k = Math.max(0.15, Math.min(3, G.view.k * f));
      G.view.x = x - ((x - G.view.x) * k) / G.view.k;
      G.view.y = y - ((y - G.view.y) * k) / G.view.k;
      G.view.k = k;
      apply();
    }
    function ensureVisible(x, y) {
      const { w, h } = size(), k = G.view.k;
      const sx = x * k + G.view.x, sy = y * k + G.view.y;
      if (sx < 0 || sx + W * k > w) G.view.x = w / 2 - (x + W / 2) * k;
      if (sy < 0 || sy + H * k > h) G.view.y = h / 2 - (y + H / 2) * k;
      apply();
    }
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const r = svg.getBoundingClientRect();
      zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - r.left, ev.clientY - r.top);
    }, { passive: false });
    let drag = null;
    svg.addEventListener("pointerdown", (ev) => {
      if (ev.target.closest && ev.target.closest("g.n")) return;
      drag = { x: ev.clientX, y: ev.clientY, vx: G.view.x, vy: G.view.y };
      svg.setPointerCapture(ev.pointerId);
    });
    svg.addEventListener("pointermove", (ev) => {
      if (!drag) return;
      G.view.x = drag.vx + ev.clientX - drag.x; G.view.y = drag.vy + ev.clientY - drag.y; apply();
    });
    svg.addEventListener("pointerup", () => { drag = null; });
    // the box changed size (a narrower window, a tab shown again): fit the graph into it
    let boxW = 0;
    new ResizeObserver(() => {
      const w = Math.round(svg.getBoundingClientRect().width);
      if (w && w !== boxW && L) { boxW = w; fit(); } else if (w) boxW = w;
    }).observe(svg);

    return {
      /** Show the first answer (the symbol's callers, one hop). */
      start(g) {
        G.nodes.clear(); G.edges.clear(); G.expansions = []; G.fitted = false;
        merge(g, null, "callers");
        const c = firstId();
        if (c) G.nodes.get(c).expanded.add("callers");
        status.textContent = `${G.nodes.size} node(s): the symbol and its callers` + (g.truncated ? " (truncated)" : "");
        render();
      },
      /** Replay the expansions on fresh answers (the workspace changed). */
      async replay(first) {
        const steps = G.expansions.slice();
        const focus = G.focusId;
        this.start(first);
        for (const [id, rel] of steps) if (G.nodes.has(id)) await expand(id, rel);
        if (focus && document.activeElement && svg.contains(document.activeElement)) focusNode(focus);
      },
      expand, size: () => G.nodes.size,
    };
  }
  window.SpyGraph = { create };
})();
