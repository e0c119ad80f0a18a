// spyglass web page: plain JavaScript, no build step. Everything from the repository is
// inserted as text (never as HTML).
"use strict";

const S = {
  repoId: null, summary: null, job: null, lastEventId: 0, es: null, mode: "connecting",
  pollTimer: null, reconnectTimer: null, token: sessionStorage.getItem("spyglass-token") || "",
  targetRef: null, selected: null, tab: "symbols", diffLoaded: false, fullPending: false,
};
const TERMINAL = new Set(["completed", "failed", "unavailable"]);
const $ = (id) => document.getElementById(id);

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat(Infinity)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}
const NS = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...kids) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v); else el.setAttribute(k, v);
  }
  for (const kid of kids) el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  return el;
}
function fill(el, ...kids) { el.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false)); }
const short = (sha) => (sha ? sha.slice(0, 12) : "—");
const qs = (o) => new URLSearchParams(Object.entries(o).filter(([, v]) => v !== null && v !== undefined && v !== "")).toString();
function when(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString();
}

// -- HTTP ------------------------------------------------------------------------------
async function api(path, opts = {}) {
  const headers = Object.assign({ Accept: "application/json" }, opts.headers || {});
  if (opts.method === "POST") headers["Content-Type"] = "application/json";
  // Beyond loopback every API request needs the token; on loopback only POSTs do.
  if (S.token) headers.Authorization = "Bearer " + S.token;
  let res;
  try {
    res = await fetch(path, Object.assign({}, opts, { headers }));
  } catch (err) {
    return { ok: false, status: 0, body: { error: "server unreachable: " + err.message } };
  }
  let body = null;
  try { body = await res.json(); } catch (_) { body = { error: res.statusText }; }
  if (res.status === 401) $("token-row").hidden = false;  // the server wants the admin token
  return { ok: res.ok, status: res.status, body };
}
const repoPath = (tail) => `/api/v1/code/repos/${encodeURIComponent(S.repoId)}${tail}`;

function notice(text) {
  const el = $("notice");
  el.hidden = !text;
  el.textContent = text || "";
}

// -- summary, provenance, coverage ------------------------------------------------------
async function loadSummary() {
  const r = await api(repoPath(""));
  if (!r.ok) { notice("Could not load the repository summary: " + r.body.error); return null; }
  notice("");
  S.summary = r.body;
  if (r.body.partial && !S.fullPending) {
    S.fullPending = true;
    setTimeout(loadFull, 1500);  // give the operator time to press "Index repository" first
  }
  S.lastEventId = Math.max(S.lastEventId, r.body.last_event_id || 0);
  if (S.targetRef === null) S.targetRef = r.body.target_ref;
  renderSummary();
  const web = r.body.job, sj = r.body.store_job;
  const webRunning = web && !TERMINAL.has(web.state);
  const extRunning = !webRunning && sj && !TERMINAL.has(sj.state);
  const showingExt = S.job && S.job.external;
  if (webRunning || (web && !extRunning && !showingExt && (!S.job || S.job.id === web.id))) onJob(web);
  else if (sj && (extRunning || showingExt)) renderStoreJob(sj);
  if (S.tab === "diff" || S.diffLoaded) loadDiff();
  return r.body;
}

async function loadFull() {
  // Before the first index, coverage and diagnostics need a live parse of every file:
  // the page shows the empty state at once and fills them in when that finishes.
  if (S.job && !TERMINAL.has(S.job.state)) { S.fullPending = false; return; }
  const r = await api(repoPath("?full=1"));
  S.fullPending = false;
  if (r.ok && S.summary && (S.summary.partial || !S.summary.indexed)) {
    S.summary = Object.assign({}, r.body, { job: S.summary.job, last_event_id: S.summary.last_event_id });
    renderSummary();
  }
}

function renderSummary() {
  const sm = S.summary;
  const p = sm.provenance || {};
  $("pv-repo").textContent = sm.repo;
  $("pv-repo").title = sm.root;
  $("pv-ref").textContent = sm.snapshot ? sm.snapshot.ref : (S.targetRef || sm.target_ref) + " (not indexed)";
  $("pv-commit").textContent = sm.snapshot ? short(sm.snapshot.commit) : "—";
  $("pv-commit").title = sm.snapshot && sm.snapshot.commit ? sm.snapshot.commit : "";
  $("pv-indexed").textContent = sm.snapshot ? when(sm.snapshot.indexed_at) : "never";
  $("pv-indexed").title = sm.snapshot ? sm.snapshot.indexed_at || "" : "";
  const rep = sm.results[0];
  const changed = rep ? rep.overlay_added.length + rep.overlay_modified.length + rep.overlay_deleted.length : 0;
  $("pv-workspace").textContent = !sm.snapshot ? "live parsing" : changed ? `${changed} changed file(s)` : "clean";
  $("pv-workspace").title = `digest ${p.workspace_digest || "—"} · tree-sitter ${p.tree_sitter || "?"}` +
    (p.worktree_mismatch ? " · " + p.worktree_mismatch : "");
  const pill = $("diff-count");
  pill.hidden = !(sm.snapshot && changed);
  pill.textContent = String(changed);
  $("empty").hidden = sm.indexed;
  $("empty-repo").textContent = sm.repo;
  $("reindex-box").hidden = !sm.indexed;
  if (document.activeElement !== $("index-ref")) $("index-ref").value = S.targetRef || "";
  if (document.activeElement !== $("reindex-ref")) $("reindex-ref").value = S.targetRef || "";
  if (sm.admin_token_required && !S.token) $("token-row").hidden = false;
  if (p.worktree_mismatch) notice("Worktree mismatch: " + p.worktree_mismatch);
  renderCoverage();
}

function renderCoverage() {
  const sm = S.summary, cov = sm.coverage, rep = sm.results[0], dg = sm.diagnostics;
  if (!cov || !rep || !dg) {
    fill($("coverage-line"), h("span", { class: "muted" }, "Analysing the files on disk (live parsing, no index yet)…"));
    fill($("skipped"), h("p", { class: "muted pad" }, "Pending."));
    fill($("diags"), h("p", { class: "muted pad" }, "Pending."));
    return;
  }
  const langs = rep.languages.map((l) => `${l.files} ${l.language}`).join(", ") || "no supported files";
  const skippedTotal = rep.skipped_by_reason.reduce((n, [, c]) => n + c, 0);
  fill($("coverage-line"),
    h("span", {}, h("b", {}, String(cov.analysed)), " files analysed (", langs, ")"),
    h("span", {}, h("b", {}, skippedTotal ? String(skippedTotal) : `${cov.skipped.length}${cov.skipped.length >= 50 ? "+" : ""}`), " skipped",
      rep.skipped_by_reason.length ? " — " + rep.skipped_by_reason.map(([r, c]) => `${c} ${r}`).join(", ") : ""),
    h("span", { class: dg.count ? "warnish" : "" }, h("b", {}, String(dg.count)), " parse diagnostics",
      dg.count ? ` in ${dg.files} file(s)` : ""),
    cov.limitations.length ? h("span", { class: "muted" }, cov.limitations.join("; ")) : null,
    rep.hint && sm.indexed ? h("span", { class: "muted" }, rep.hint) : null);
  const listed = cov.skipped.filter((x) => !x.path.startsWith(".spyglass"));
  const skipped = listed.length
    ? h("div", { class: "mini" }, h("table", {}, listed.map((x) => h("tr", {}, h("td", {}, x.path), h("td", {}, x.reason)))))
    : h("p", { class: "muted pad" }, skippedTotal ? "Only files that are not source code were skipped." : "No files skipped.");
  fill($("skipped"), skipped);
  const diags = dg.items.length
    ? h("div", { class: "mini" }, h("table", {}, dg.items.map((d) => h("tr", {},
      h("td", {}, `${d.path}:${d.start_line}:${d.column}`), h("td", {}, `${d.severity}: ${d.message}`)))),
      dg.truncated ? h("p", { class: "muted pad" }, `…and ${dg.count - dg.items.length} more`) : null)
    : h("p", { class: "muted pad" }, "No parse diagnostics.");
  fill($("diags"), diags);
  if (!sm.indexed) { $("skipped-box").open = true; $("diag-box").open = dg.count > 0; }
}

// -- index jobs ------------------------------------------------------------------------
async function startIndex(refInput) {
  const ref = refInput.value.trim();
  S.targetRef = ref || S.summary.target_ref;
  for (const b of [$("index-btn"), $("reindex"), $("retry")]) b.disabled = true;
  const body = ref && ref !== S.summary.target_ref ? JSON.stringify({ ref }) : "";
  const r = await api(repoPath("/index"), { method: "POST", body });
  for (const b of [$("index-btn"), $("reindex"), $("retry")]) b.disabled = false;
  if (r.status === 403 && /token/.test(r.body.error || "")) {
    $("token-row").hidden = false;
    notice(r.body.error);
    $("token").focus();
    return;
  }
  if (r.status === 409 && r.body.job) { onJob(r.body.job); return; }
  if (!r.ok) { notice("Index request refused: " + r.body.error); return; }
  notice("");
  onJob(r.body.job);
}

function onJob(job) {
  if (!job) return;
  const was = S.job;
  S.job = job;
  renderJob(job);
  if (!TERMINAL.has(job.state)) ensurePolling();
  if (TERMINAL.has(job.state) && (!was || !TERMINAL.has(was.state) || was.id !== job.id)) {
    if (job.state === "completed") loadSummary();
  }
}

function renderJob(job) {
  const box = $("job");
  box.hidden = false;
  $("job-title").textContent = `Index job ${job.id}` + (job.ref ? ` · ${job.ref}` : "");
  const st = $("job-state");
  st.textContent = job.state;
  st.className = "badge " + job.state;
  $("job-times").textContent = `started ${when(job.started_at)}` + (job.finished_at ? ` · finished ${when(job.finished_at)}` : "");
  const bar = $("job-bar");
  const running = !TERMINAL.has(job.state);
  if (job.total > 0) {
    if (bar.classList.contains("indeterminate")) {
      bar.classList.remove("indeterminate");
      bar.style.transition = "none";
      bar.style.width = "0";
      void bar.offsetWidth;
      bar.style.transition = "";
    }
    bar.style.width = `${Math.min(100, Math.round((100 * job.persisted) / job.total))}%`;
  } else if (running) {
    bar.classList.add("indeterminate");
    bar.style.width = "";
  } else {
    bar.classList.remove("indeterminate");
    bar.style.width = "100%";
  }
  bar.classList.toggle("failed", job.state === "failed" || job.state === "unavailable");
  const snap = job.snapshot || {};
  const kids = [
    h("span", {}, "phase ", h("b", {}, job.phase)),
    h("span", {}, "parsed ", h("b", {}, `${job.parsed}`), job.total ? ` / ${job.total}` : ""),
    h("span", {}, "persisted ", h("b", {}, `${job.persisted}`)),
  ];
  if (job.state === "completed") {
    kids.push(h("span", {}, "files ", h("b", {}, `${snap.files ?? "?"}`)),
      h("span", {}, "reused ", h("b", {}, `${snap.reused ?? 0}`)),
      h("span", {}, "skipped ", h("b", {}, job.skipped ? `${Object.values(job.skipped).reduce((a, b) => a + b, 0)}` : "—"),
        job.skipped && Object.keys(job.skipped).length ? ` (${Object.entries(job.skipped).map(([k, v]) => `${v} ${k}`).join(", ")})` : ""),
      h("span", {}, "diagnostics ", h("b", {}, `${job.diagnostics ?? "—"}`)),
      h("span", {}, "commit ", h("b", { class: "mono" }, short(snap.commit))));
  }
  fill($("job-counts"), kids);
  const failed = job.state === "failed" || job.state === "unavailable";
  $("job-error").hidden = !failed;
  $("job-error").textContent = failed ? job.error || job.state : "";
  $("retry").hidden = !failed;
  for (const b of [$("index-btn"), $("reindex")]) b.disabled = running && !job.external;
}

function renderStoreJob(row) {
  // An index run by another process (CLI): show it read-only; polling picks up the end.
  const job = { id: `${row.id} (another process)`, external: true, ref: row.ref, state: row.state,
    phase: TERMINAL.has(row.state) ? "done" : "parse", parsed: row.parsed, persisted: row.persisted,
    total: row.parsed, started_at: row.started_at, finished_at: row.finished_at || null,
    error: row.error, snapshot: { files: row.files, reused: row.reused, commit: row.commit } };
  renderJob(job);
  S.job = TERMINAL.has(row.state) ? null : job;
  ensurePolling();
}

// -- live events, with polling when the stream is down -----------------------------------
function setMode(mode) {
  S.mode = mode;
  const el = $("conn");
  el.className = "conn " + mode;
  el.textContent = { live: "live events", polling: "polling (event stream down)", connecting: "connecting…" }[mode];
}

function connectEvents() {
  if (S.es) S.es.close();
  clearTimeout(S.reconnectTimer);
  let es;
  try {
    es = new EventSource(repoPath(`/events?after=${S.lastEventId}`));
  } catch (_) { setMode("polling"); ensurePolling(); return; }
  S.es = es;
  es.onopen = () => { setMode("live"); stopPolling(); };
  es.onerror = () => {
    setMode("polling");
    ensurePolling();
    if (es.readyState === EventSource.CLOSED) S.reconnectTimer = setTimeout(connectEvents, 10000);
  };
  const take = (e) => {
    const id = parseInt(e.lastEventId, 10);
    if (!isNaN(id)) S.lastEventId = Math.max(S.lastEventId, id);
    return JSON.parse(e.data);
  };
  for (const kind of ["accepted", "progress", "completed", "failed", "unavailable", "coverage"]) {
    es.addEventListener(kind, (e) => onJob(take(e).job));
  }
  es.addEventListener("code_graph_updated", (e) => { take(e); loadSummary(); });
}

function needPolling() {
  const running = S.job && !TERMINAL.has(S.job.state);
  const external = !S.job && S.summary && S.summary.store_job && !TERMINAL.has(S.summary.store_job.state);
  return S.mode !== "live" && (running || external || S.mode === "polling");
}
function ensurePolling() {
  if (S.pollTimer || !needPolling()) return;
  S.pollTimer = setTimeout(poll, 1500);
}
function stopPolling() { clearTimeout(S.pollTimer); S.pollTimer = null; }
async function poll() {
  S.pollTimer = null;
  if (S.mode === "live") return;
  if (S.job && !TERMINAL.has(S.job.state) && !S.job.external) {
    const r = await api(repoPath(`/jobs/${encodeURIComponent(S.job.id)}`));
    if (r.ok) onJob(r.body.job);
    else if (r.status === 404) S.job = null;  // the server restarted: read the summary
  }
  await loadSummary();
  S.pollTimer = setTimeout(poll, S.job && !TERMINAL.has(S.job.state) ? 1500 : 5000);
}

// -- symbol search -----------------------------------------------------------------------
async function search(ev) {
  if (ev) ev.preventDefault();
  const q = $("q").value.trim();
  if (!q) return;
  const kind = $("kind").value, path = $("scope").value.trim();
  fill($("results"), h("p", { class: "muted pad" }, "Searching…"));
  let r = await api(repoPath(`/symbols?${qs({ q, kind, path })}`));
  let pattern = q;
  if (r.ok && !r.body.results.length && !/[*?]/.test(q)) {
    pattern = `*${q.split(".").pop()}*`;
    r = await api(repoPath(`/symbols?${qs({ q: pattern, kind, path })}`));
  }
  if (!r.ok) { fill($("results"), h("p", { class: "error pad" }, r.body.error)); return; }
  const rows = r.body.results;
  const meta = h("div", { class: "meta" }, `${rows.length}${r.body.truncated ? "+" : ""} definition(s) for `,
    h("code", {}, pattern), rows.length ? ` · ${rows[0].source}` : "");
  const list = rows.slice(0, 300).map((loc) => h("button", {
    class: "hit", type: "button", onclick: (e) => { selectHit(e.currentTarget); openSymbol(loc); },
  }, h("div", { class: "name" }, h("span", { class: `kind ${loc.kind}` }, loc.kind), loc.symbol),
  h("div", { class: "where" }, `${loc.path}:${loc.start_line}`, tags(loc))));
  fill($("results"), meta, list.length ? list : h("p", { class: "muted pad" },
    r.body.coverage.limitations.join("; ") || "No definitions match."));
  if (rows.length === 1) openSymbol(rows[0]);
}
function selectHit(el) {
  for (const x of document.querySelectorAll(".hit.sel")) x.classList.remove("sel");
  if (el) el.classList.add("sel");
}
function tags(loc) {
  return [loc.uncertain ? h("span", { class: "tag uncertain", title: loc.evidence }, "uncertain") : null,
    loc.stale ? h("span", { class: "tag stale" }, "stale") : null];
}

// -- symbol view -----------------------------------------------------------------------
async function openSymbol(loc) {
  S.selected = loc;
  const at = { path: loc.path, line: loc.start_line };
  const panel = (title, body) => h("section", { class: "panel" }, h("h3", {}, title), body);
  const srcBox = h("div", {}), refsBox = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const graphBox = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const blastBox = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const feats = S.summary ? S.summary.features : {};
  fill($("symbol"),
    h("section", { class: "panel sym-head" },
      h("h2", {}, h("span", { class: `kind ${loc.kind}` }, loc.kind), loc.symbol),
      h("div", { class: "where" }, `${loc.path}:${loc.start_line}-${loc.end_line}`,
        h("span", { class: "tag" }, loc.source), loc.indexed_at ? h("span", { class: "tag" }, `indexed ${loc.indexed_at}`) : null, tags(loc)),
      srcBox),
    panel("References", refsBox),
    panel("Callers graph", graphBox),
    feats.blast_radius ? panel("Blast radius", blastBox) : null);
  api(repoPath(`/context?${qs({ path: loc.path, start: loc.start_line, end: Math.min(loc.end_line, loc.start_line + 30) })}`))
    .then((r) => { if (r.ok && r.body.results.length) fill(srcBox, sourceBlock(r.body.results[0])); });
  api(repoPath(`/references?${qs(at)}`)).then((r) => fill(refsBox, renderRefs(r)));
  api(`/api/v1/runs/workspace/code/graph?${qs(Object.assign({ references: 0, depth: 2, limit: 40 }, at))}`)
    .then((r) => fill(graphBox, renderGraph(r)));
  if (feats.blast_radius) {
    api(repoPath(`/blast-radius?${qs({ target: `${loc.path}:${loc.start_line}` })}`)).then((r) => fill(blastBox, renderBlast(r)));
  }
}

function sourceBlock(span) {
  const lines = span.text.replace(/\n$/, "").split("\n");
  return h("pre", { class: "src", title: `live from disk · sha1 ${span.content_hash}` },
    lines.map((t, i) => [h("span", { class: "ln" }, String(span.start_line + i)), t, "\n"]),
    span.truncated ? h("span", { class: "ln" }, "…") : null);
}

function renderRefs(r) {
  if (!r.ok) return h("p", { class: "error" }, r.body.error);
  const rows = r.body.results;
  if (!rows.length) return h("p", { class: "muted" }, "No references found.");
  const byFile = new Map();
  for (const x of rows) { if (!byFile.has(x.path)) byFile.set(x.path, []); byFile.get(x.path).push(x); }
  const out = [h("p", { class: "muted" }, `${rows.length}${r.body.truncated ? "+" : ""} reference(s) in ${byFile.size} file(s)`)];
  for (const [path, xs] of byFile) {
    out.push(h("div", { class: "refs-file" }, path));
    for (const x of xs) {
      out.push(h("div", { class: "ref-row" }, h("span", { class: "ln" }, `:${x.start_line}`),
        h("span", { class: `kind ${x.kind}` }, x.kind), x.uncertain ? h("span", { class: "ev" }, x.evidence) : null, tags(x)));
    }
  }
  return out;
}

function renderGraph(r) {
  if (!r.ok) return h("p", { class: "error" }, r.body.error);
  const g = r.body;
  if (g.nodes.length <= g.center.length) return h("p", { class: "muted" }, "No callers found.");
  const W = 220, H = 38, GX = 60, GY = 10;
  const cols = new Map();
  for (const n of g.nodes) { if (!cols.has(n.distance)) cols.set(n.distance, []); cols.get(n.distance).push(n); }
  const maxD = Math.max(...cols.keys());
  const pos = new Map(), rank = new Map();
  const targets = new Map();
  for (const e of g.edges) { if (!targets.has(e.source)) targets.set(e.source, []); targets.get(e.source).push(e.target); }
  let height = 0;
  for (const d of [...cols.keys()].sort((a, b) => a - b)) {
    // Order each column by the position of what its nodes call (fewer crossings), then by name.
    const key = (n) => Math.min(...(targets.get(n.id) || []).map((t) => rank.has(t) ? rank.get(t) : 1e9), 1e9);
    const ns = cols.get(d);
    ns.sort((a, b) => key(a) - key(b) || (a.path + a.symbol).localeCompare(b.path + b.symbol));
    ns.forEach((n, i) => rank.set(n.id, i));
    height = Math.max(height, ns.length * (H + GY) + 10);
  }
  for (const [d, ns] of cols) {  // columns centred vertically against the tallest one
    const top = (height - ns.length * (H + GY)) / 2 + 5;
    for (const n of ns) pos.set(n.id, { x: (maxD - d) * (W + GX) + 10, y: top + rank.get(n.id) * (H + GY) });
  }
  const width = (maxD + 1) * (W + GX) - GX + 20;
  const svg = s("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": "callers graph: callers on the left point at what they call" });
  for (const e of g.edges) {
    const a = pos.get(e.source), b = pos.get(e.target);
    if (!a || !b) continue;
    const forward = a.x < b.x;  // same column (or back to the right): loop out on the left
    const x1 = forward ? a.x + W : a.x, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
    const c1 = forward ? (x1 + x2) / 2 : x1 - 28, c2 = forward ? (x1 + x2) / 2 : x2 - 28;
    const path = s("path", { class: "e" + (e.uncertain ? " uncertain" : ""), d: `M${x1},${y1} C${c1},${y1} ${c2},${y2} ${x2 - 6},${y2}` });
    path.append(s("title", {}, `${e.kind} ×${e.count} (lines ${e.lines.join(", ")})${e.uncertain ? " · " + e.evidence : ""}`));
    svg.append(path, s("path", { d: `M${x2 - 6},${y2 - 4} L${x2},${y2} L${x2 - 6},${y2 + 4}`, fill: e.uncertain ? "#d2a24c" : "#97a3b6" }));
  }
  for (const n of g.nodes) {
    const p = pos.get(n.id);
    const link = n.kind !== "module" && n.kind !== "file" && n.role !== "center";
    let label = n.symbol;
    if (label.length > 30 && n.kind !== "file") label = label.split(".").slice(-2).join(".");
    if (label.length > 30) label = "…" + label.slice(-29);
    const where = `${n.path}:${n.start_line}`;
    const grp = s("g", { class: `n ${n.role}` + (link ? " link" : ""), transform: `translate(${p.x},${p.y})` },
      s("title", {}, `${n.kind} ${n.symbol}\n${where}`),
      s("rect", { width: W, height: H, rx: 6 }),
      s("text", { x: 8, y: 15 }, label),
      s("text", { x: 8, y: 30, class: "sub" }, where.length > 34 ? "…" + where.slice(-33) : where));
    if (link) grp.addEventListener("click", () => openSymbol({ repo: "", ref: "", path: n.path, start_line: n.start_line,
      end_line: n.end_line, symbol: n.symbol, kind: n.kind, source: "", indexed_at: null, stale: false, uncertain: false, evidence: "" }));
    svg.append(grp);
  }
  return [h("div", { class: "graph" }, svg),
    h("div", { class: "legend" }, `${g.nodes.length} nodes · ${g.edges.length} edges · dashed = uncertain (matched by name)`,
      g.truncated ? " · truncated" : "", g.notes.length ? " · " + g.notes.join("; ") : "")];
}

function locRow(x, onOpen) {
  const name = onOpen ? h("a", { onclick: () => onOpen(x) }, x.symbol) : h("span", {}, x.symbol);
  return h("div", { class: "loc" },
    h("div", {}, h("span", { class: `kind ${x.kind}` }, x.kind), name, h("span", { class: "where" }, ` ${x.path}:${x.start_line}`), tags(x)),
    x.evidence ? h("div", { class: "ev" }, x.evidence) : null);
}

function renderBlast(r) {
  if (!r.ok) return h("p", { class: "error" }, r.body.error);
  const b = r.body, rows = b.results || [], files = b.files || [], tests = b.tests || [];
  const open = (x) => openSymbol(x);
  const out = [h("p", { class: "muted" }, `${rows.length}${b.truncated ? "+" : ""} affected symbol(s) in ${files.length} file(s)` +
    (b.packages ? `, ${b.packages.length} package(s)` : "") + ` · ${tests.length} test target(s)`)];
  const first = rows.slice(0, 12), rest = rows.slice(12);
  out.push(first.map((x) => locRow(x, open)));
  if (rest.length) out.push(h("details", {}, h("summary", {}, `${rest.length} more`), rest.map((x) => locRow(x, open))));
  if (tests.length) {
    out.push(h("h4", {}, "Tests to run"),
      h("table", { class: "list" }, tests.slice(0, 20).map((t) => h("tr", {},
        h("td", { class: "mono" }, `${t.path}${t.symbol ? "::" + t.symbol.replaceAll(".", "::") : ""}`),
        h("td", { class: "muted" }, t.reason), h("td", { class: "muted", title: t.evidence }, t.uncertain ? "uncertain" : "")))));
  }
  for (const c of b.commands || []) {
    out.push(h("pre", { class: "cmd" }, typeof c === "string" ? c : c.command));
  }
  if (b.notes && b.notes.length) out.push(h("p", { class: "muted" }, b.notes.join(" · ")));
  return out;
}

// -- workspace overlay diff ---------------------------------------------------------------
async function loadDiff() {
  S.diffLoaded = true;
  const r = await api("/api/v1/runs/workspace/code/diff-overlay");
  const box = $("diff");
  if (!r.ok) { fill(box, h("p", { class: r.status === 409 ? "muted pad" : "error pad" }, r.body.error)); return; }
  const d = r.body, sm = d.summary;
  const head = h("p", { class: "muted" }, `${sm.modified} modified · ${sm.added} added · ${sm.deleted} deleted, against `,
    h("code", {}, short(d.base.commit)), ` (${d.base.ref}, indexed ${when(d.base.indexed_at)}) · workspace digest `, h("code", {}, d.workspace_digest));
  if (!d.results.length) { fill(box, head, h("p", { class: "pad" }, "The files on disk match the snapshot.")); return; }
  const cards = d.results.map((f) => {
    const defs = f.definitions;
    const rows = [];
    if (defs) {
      for (const [kind, mark] of [["changed", "~"], ["added", "+"], ["removed", "−"]]) {
        for (const x of defs[kind]) {
          const name = kind === "removed" ? h("span", {}, x.symbol)
            : h("a", { onclick: () => { switchTab("symbols"); openSymbol(x); } }, x.symbol);
          rows.push(h("div", { class: `def ${kind}` }, h("span", { class: "mark" }, mark),
            h("span", { class: `kind ${x.kind}` }, x.kind), name, h("span", { class: "ev" }, `:${x.start_line} · ${x.evidence}`)));
        }
      }
    }
    return h("div", { class: "file-card" }, h("div", { class: "fh" }, h("span", { class: `st ${f.status}` }, f.status),
      h("span", { class: "path" }, f.path), f.language ? h("span", { class: "muted" }, f.language) : null),
    rows.length ? rows : h("p", { class: "muted pad" }, defs ? "No definition changed (edits outside definitions)." : "Not analysed (limit)."));
  });
  fill(box, head, cards, d.truncated ? h("p", { class: "muted" }, "More files changed than max_files_per_request; the rest are listed without definitions.") : null);
}

function switchTab(tab) {
  S.tab = tab;
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === tab);
  $("tab-symbols").hidden = tab !== "symbols";
  $("tab-diff").hidden = tab !== "diff";
  if (tab === "diff") loadDiff();
}

// -- start -------------------------------------------------------------------------------
async function boot() {
  setMode("connecting");
  $("search").addEventListener("submit", search);
  $("index-btn").addEventListener("click", () => startIndex($("index-ref")));
  $("reindex").addEventListener("click", () => startIndex($("reindex-ref")));
  $("retry").addEventListener("click", () => startIndex(S.summary && S.summary.indexed ? $("reindex-ref") : $("index-ref")));
  $("token-save").addEventListener("click", () => {
    S.token = $("token").value.trim();
    sessionStorage.setItem("spyglass-token", S.token);
    $("token-row").hidden = !!S.token;
    notice("");
    if (!S.summary) location.reload();  // refused before the token: start over with it
  });
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => switchTab(b.dataset.tab));
  const r = await api("/api/v1/code/repos");
  if (!r.ok || !r.body.repos.length) { notice("Could not list repositories: " + (r.body.error || "none")); return; }
  const m = location.pathname.match(/^\/repos\/([^/]+)/);
  const wanted = m ? decodeURIComponent(m[1]) : null;
  const repo = r.body.repos.find((x) => x.repo_id === wanted) || r.body.repos[0];
  S.repoId = repo.repo_id;
  document.title = `${repo.repo} · spyglass`;
  await loadSummary();
  connectEvents();
}
document.addEventListener("DOMContentLoaded", boot);
