// spyglass web page: plain JavaScript, no build step. Everything from the repository is
// inserted as text (never as HTML). The page's state (repository, ref, symbol, tab, query,
// file and line) lives in the URL: Back and Forward move through it, a URL can be shared.
"use strict";

// Web storage may be missing (a private window, a desktop web view): the page works without it.
function stored(area, key, value) {
  try {
    const st = window[area];
    if (!st) return null;
    if (value === undefined) return st.getItem(key);
    if (value === null) st.removeItem(key); else st.setItem(key, value);
  } catch (_) { /* storage refused: the URL still carries the state */ }
  return null;
}
const S = {
  repoId: null, summary: null, job: null, lastEventId: 0, es: null, mode: "connecting",
  pollTimer: null, reconnectTimer: null, token: stored("sessionStorage", "spyglass-token") || "",
  targetRef: null, tab: "symbols", fullPending: false, down: false,
  sym: null, file: null, graph: null, query: null, overlay: null, seq: 0, nav: 0,
};
const TERMINAL = new Set(["completed", "failed", "unavailable"]);
const TYPEISH = new Set(["class", "struct", "interface", "type", "trait", "enum", "method", "field", "property"]);
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
function fill(el, ...kids) { el.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false)); }
// -- names that wrap at their joints, not mid-word ----------------------------------------
function breakable(text) {
  // a <wbr> after every `.`, `/`, `_` and `:`, and between the words of a CamelCase name:
  // a long qualified name wraps there first
  const out = [];
  for (const part of String(text).split(/(?<=[./_:])|(?<=[a-z0-9])(?=[A-Z][a-z])/)) out.push(part, h("wbr"));
  out.pop();
  return out;
}

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
    if (!S.down) { S.down = true; notice("The server is unreachable; the page retries and recovers by itself."); }
    return { ok: false, status: 0, body: { error: "server unreachable: " + err.message } };
  }
  if (S.down) { S.down = false; notice(""); setTimeout(refreshAnswers, 0); }  // recovered
  let body = null;
  try { body = await res.json(); } catch (_) { body = { error: res.statusText }; }
  if (res.status === 401) $("token-row").hidden = false;  // the server wants the admin token
  return { ok: res.ok, status: res.status, body };
}
const repoPath = (tail) => `/api/v1/code/repos/${encodeURIComponent(S.repoId)}${tail}`;
const graphPath = (o) => `/api/v1/runs/workspace/code/graph?${qs(o)}`;

function notice(text) {
  const el = $("notice");
  el.hidden = !text;
  el.textContent = text || "";
}

// -- URL state -------------------------------------------------------------------------
const KEYS = ["ref", "q", "kind", "in", "symbol", "panel", "tab", "file", "line", "end"];
function urlState() {
  const p = new URLSearchParams(location.search);
  return Object.fromEntries(KEYS.map((k) => [k, p.get(k) || ""]));
}
function setUrl(change, replace) {
  const st = Object.assign(urlState(), change);
  const next = `${location.pathname}?${qs(st)}`;
  if (next === location.pathname + location.search) return;
  history[replace ? "replaceState" : "pushState"](null, "", next);
}
const fileHref = (path, line, end) => `${location.pathname}?${qs(Object.assign(urlState(), { tab: "file", file: path, line, end: end || "" }))}`;
const symHref = (path, line) => `${location.pathname}?${qs(Object.assign(urlState(), { tab: "symbols", symbol: `${path}:${line}`, file: "", line: "", end: "" }))}`;
function linkTo(href, onOpen, ...kids) {
  // a real link (a new tab takes the URL); a plain click moves within the page
  const attrs = kids.length && kids[0] && kids[0].constructor === Object ? kids.shift() : {};
  return h("a", Object.assign({}, attrs, { href, onclick: (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button) return;
    ev.preventDefault(); onOpen();
  } }), ...kids);
}
const splitAt = (v) => { const i = v.lastIndexOf(":"); return i > 0 ? [v.slice(0, i), parseInt(v.slice(i + 1), 10)] : [v, NaN]; };

async function applyState() {
  S.nav += 1;  // Back / Forward: answers to what was asked before are dropped
  const st = urlState();
  if (st.ref) S.targetRef = st.ref;
  const tab = st.tab || "symbols";
  switchTab(tab, false);  // first: a line is scrolled into view only in a shown tab
  if (st.q !== (S.query || "")) {
    $("q").value = st.q; $("kind").value = st.kind; $("scope").value = st.in;
    if (st.q) await search(null, false); else { S.query = null; fill($("results"), h("p", { class: "muted pad" }, "Search for a symbol to start.")); layoutSplit(); }
  }
  const key = S.sym ? `${S.sym.path}:${S.sym.start_line}` : "";
  if (st.symbol && st.symbol !== key) {
    const [path, line] = splitAt(st.symbol);
    const loc = await definitionAt(path, line);
    if (loc) openSymbol(loc, false);
    else fill($("symbol"), h("p", { class: "error pad" }, `No definition at ${st.symbol}.`));
  } else if (!st.symbol && S.sym) { S.sym = null; S.graph = null; S.seq += 1; fill($("symbol")); layoutSplit(); }
  if (st.file) {
    const line = parseInt(st.line, 10) || null, end = parseInt(st.end, 10) || null;
    if (!S.file || S.file.path !== st.file || S.file.line !== line || S.file.end !== end) await openFile(st.file, line, end, false);
  }
  switchTab(tab, false);
}

async function definitionAt(path, line) {
  const r = await api(repoPath(`/file?${qs({ path })}`));
  if (!r.ok) return null;
  const holding = r.body.definitions.filter((d) => d.start_line <= line && line <= d.end_line);
  if (!holding.length) return null;
  const d = holding.reduce((a, b) => (b.end_line - b.start_line < a.end_line - a.start_line ? b : a));
  return Object.assign({ path: r.body.path, source: "", indexed_at: null, stale: false, uncertain: false, evidence: "" }, d);
}

// -- summary, provenance, coverage ------------------------------------------------------
async function loadSummary(pre) {
  const r = pre || await api(repoPath(""));
  if (!r.ok) {
    if (r.status) notice("Could not load the repository summary: " + r.body.error);
    return null;
  }
  if (!S.down) notice("");
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
  if (r.body.indexed) await loadOverlay();
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
  $("pv-branch").textContent = sm.branch || (sm.target_ref === "working-tree" ? "not a git repository" : "detached HEAD");
  $("pv-ref").textContent = sm.snapshot ? sm.snapshot.ref : (S.targetRef || sm.target_ref) + " (not indexed)";
  $("pv-commit").textContent = sm.snapshot ? short(sm.snapshot.commit) : "—";
  $("pv-commit").title = sm.snapshot && sm.snapshot.commit ? sm.snapshot.commit : "";
  $("pv-indexed").textContent = sm.snapshot ? when(sm.snapshot.indexed_at) : "never";
  $("pv-indexed").title = sm.snapshot ? sm.snapshot.indexed_at || "" : "";
  if (!sm.snapshot) $("pv-workspace").textContent = "live parsing";
  $("pv-workspace").title = `digest ${p.workspace_digest || "—"} · tree-sitter ${p.tree_sitter || "?"}` +
    (p.worktree_mismatch ? " · " + p.worktree_mismatch : "");
  $("empty").hidden = sm.indexed;
  $("empty-repo").textContent = sm.repo;
  $("reindex-box").hidden = !sm.indexed;
  if (document.activeElement !== $("index-ref")) $("index-ref").value = S.targetRef && S.targetRef !== sm.target_ref ? S.targetRef : "";
  if (document.activeElement !== $("reindex-ref")) $("reindex-ref").value = S.targetRef && S.targetRef !== sm.target_ref ? S.targetRef : "";
  if (sm.admin_token_required && !S.token) $("token-row").hidden = false;
  if (p.worktree_mismatch) notice("Worktree mismatch: " + p.worktree_mismatch);
  if (!S.statusSet) { S.statusSet = true; $("status-box").open = !sm.indexed || !!(sm.job && !TERMINAL.has(sm.job.state)); }
  if (!sm.indexed) $("status-box").open = true;
  renderCoverage();
}

function renderCoverage() {
  const sm = S.summary, cov = sm.coverage, rep = sm.results[0], dg = sm.diagnostics;
  if (!cov || !rep || !dg) {
    fill($("coverage-line"), h("span", { class: "muted" }, "Analysing the files on disk (live parsing, no index yet)…"));
    fill($("skipped"), h("p", { class: "muted pad" }, "Pending."));
    fill($("diags"), h("p", { class: "muted pad" }, "Pending."));
    statusLine();
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
  fill($("skipped"), listed.length
    ? h("div", { class: "mini" }, h("table", {}, h("tbody", {}, listed.map((x) => h("tr", {}, h("td", {}, x.path), h("td", {}, x.reason))))))
    : h("p", { class: "muted pad" }, skippedTotal ? "Only files that are not source code were skipped." : "No files skipped."));
  fill($("diags"), dg.items.length
    ? h("div", { class: "mini" }, h("table", {}, h("tbody", {}, dg.items.map((d) => h("tr", {},
      h("td", {}, linkTo(fileHref(d.path, d.start_line), () => openFile(d.path, d.start_line, null), `${d.path}:${d.start_line}:${d.column}`)),
      h("td", {}, `${d.severity}: ${d.message}`))))),
    dg.truncated ? h("p", { class: "muted pad" }, `…and ${dg.count - dg.items.length} more`) : null)
    : h("p", { class: "muted pad" }, "No parse diagnostics."));
  if (!sm.indexed) { $("skipped-box").open = true; $("diag-box").open = dg.count > 0; }
  statusLine();
}

// -- index jobs ------------------------------------------------------------------------
async function startIndex(refInput) {
  const ref = refInput.value.trim();
  S.targetRef = ref || S.summary.target_ref;
  stored("localStorage", `spyglass-ref:${S.repoId}`, ref || null);
  setUrl({ ref: ref && ref !== S.summary.target_ref ? ref : "" }, true);
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
  // a snapshot of the job read before it finished (a slow summary) never undoes its end
  if (was && was.id === job.id && TERMINAL.has(was.state) && !TERMINAL.has(job.state)) return;
  S.job = job;
  renderJob(job);
  if (!TERMINAL.has(job.state)) ensurePolling();
  if (TERMINAL.has(job.state) && (!was || !TERMINAL.has(was.state) || was.id !== job.id)) {
    if (job.state === "completed") loadSummary().then(refreshAnswers);
  }
}

function statusLine() {
  // the one line the collapsed status panel shows: the snapshot, coverage and last job
  const sm = S.summary, job = S.job;
  const parts = [];
  if (sm && sm.snapshot) parts.push(`indexed ${short(sm.snapshot.commit)}`); else if (sm) parts.push("not indexed");
  if (sm && sm.coverage) parts.push(`${sm.coverage.analysed} files analysed`);
  if (sm && sm.diagnostics) parts.push(`${sm.diagnostics.count} parse diagnostics`);
  if (job) parts.push(`job ${job.id} ${job.state}`);
  $("status-sum").textContent = "· " + parts.join(" · ");
}
function settleStatus(job) {
  // open while nothing is indexed or a job runs (or failed); folded once the index is complete
  const box = $("status-box");
  const running = job && !TERMINAL.has(job.state), failed = job && job.state !== "completed" && TERMINAL.has(job.state);
  if (running || failed) box.open = true;
  else if (job && job.state === "completed") { if (S.statusJob !== job.id) box.open = false; }
  else if (S.summary && !S.summary.indexed) box.open = true;
  if (job) S.statusJob = TERMINAL.has(job.state) ? job.id : null;
  statusLine();
}

function renderJob(job) {
  $("job").hidden = false;
  $("job-title").textContent = `Index job ${job.id}` + (job.ref ? ` · ${job.ref}` : "");
  const st = $("job-state");
  st.textContent = job.state;
  st.className = "badge " + job.state;
  $("job-times").textContent = `started ${when(job.started_at)}` + (job.finished_at ? ` · finished ${when(job.finished_at)}` : "");
  const bar = $("job-bar"), meter = $("job-progress");
  const running = !TERMINAL.has(job.state);
  let pct = null;
  if (job.total > 0) {
    if (bar.classList.contains("indeterminate")) {
      bar.classList.remove("indeterminate");
      bar.style.transition = "none";
      bar.style.width = "0";
      void bar.offsetWidth;
      bar.style.transition = "";
    }
    pct = running ? Math.min(100, Math.round((100 * job.persisted) / job.total)) : 100;
  } else if (running) {
    bar.classList.add("indeterminate");
    bar.style.width = "";
  } else {
    bar.classList.remove("indeterminate");
    pct = 100;
  }
  if (pct !== null) { bar.style.width = `${pct}%`; meter.setAttribute("aria-valuenow", String(pct)); }
  else meter.removeAttribute("aria-valuenow");
  bar.classList.toggle("failed", job.state === "failed" || job.state === "unavailable");
  const snap = job.snapshot || {};
  const kids = [
    h("span", {}, "phase ", h("b", {}, job.phase)),
    h("span", {}, "parsed ", h("b", {}, `${job.parsed}`), job.total && running ? ` / ${job.total}` : ""),
    h("span", {}, "persisted ", h("b", {}, `${job.persisted}`)),
  ];
  if (job.state === "completed") {
    const reused = job.reused ?? snap.reused ?? 0;
    kids.push(h("span", {}, "files ", h("b", {}, `${snap.files ?? "?"}`)),
      h("span", {}, "reused ", h("b", {}, `${reused}`)),
      h("span", {}, "skipped ", h("b", {}, job.skipped ? `${Object.values(job.skipped).reduce((a, b) => a + b, 0)}` : "—"),
        job.skipped && Object.keys(job.skipped).length ? ` (${Object.entries(job.skipped).map(([k, v]) => `${v} ${k}`).join(", ")})` : ""),
      h("span", {}, "diagnostics ", h("b", {}, `${job.diagnostics ?? "—"}`)),
      h("span", {}, "commit ", h("b", { class: "mono" }, short(snap.commit))));
    if (!job.parsed && reused) kids.push(h("span", { class: "muted" }, "unchanged commit: every file reused, nothing parsed"));
  }
  fill($("job-counts"), kids);
  const failed = job.state === "failed" || job.state === "unavailable";
  $("job-error").hidden = !failed;
  $("job-error").textContent = failed ? job.error || job.state : "";
  $("retry").hidden = !failed;
  for (const b of [$("index-btn"), $("reindex")]) b.disabled = running && !job.external;
  settleStatus(job);
}

function renderStoreJob(row) {
  // An index run by another process (CLI): show it read-only; polling picks up the end.
  const job = { id: `${row.id} (another process)`, external: true, ref: row.ref, state: row.state,
    phase: TERMINAL.has(row.state) ? "done" : "parse", parsed: row.parsed, persisted: row.persisted,
    total: row.parsed, started_at: row.started_at, finished_at: row.finished_at || null, reused: row.reused,
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
  es.onopen = () => {
    const was = S.mode;
    setMode("live"); stopPolling();
    if (was === "polling") { notice(""); loadSummary().then(refreshAnswers); }  // recovered
  };
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
  es.addEventListener("code_graph_updated", (e) => { take(e); loadSummary().then(refreshAnswers); });
  es.addEventListener("workspace_changed", (e) => { take(e); loadSummary().then(refreshAnswers); });
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
  const before = S.overlay && S.overlay.workspace_digest;
  await loadSummary();
  if (S.overlay && S.overlay.workspace_digest !== before) refreshAnswers();
  S.pollTimer = setTimeout(poll, S.job && !TERMINAL.has(S.job.state) ? 1500 : 5000);
}

// Answers on screen are read again when the workspace or the snapshot changed.
async function refreshAnswers() {
  if (S.sym) await openSymbol(S.sym, false, true);
  if (S.file) await openFile(S.file.path, S.file.line, S.file.end, false, true);
}

// -- symbol search -----------------------------------------------------------------------
async function search(ev, push = true) {
  if (ev) ev.preventDefault();
  const q = $("q").value.trim();
  if (!q) return;
  const kind = $("kind").value, path = $("scope").value.trim();
  S.query = q;
  const nav = push ? ++S.nav : S.nav;
  if (push) {  // a new search replaces the symbol shown
    setUrl({ q, kind, in: path, symbol: "", tab: "symbols", file: "", line: "", end: "" });
    S.sym = null; S.graph = null; S.seq += 1;  // answers still arriving are dropped
    fill($("symbol"));
  }
  layoutSplit();
  fill($("results"), h("p", { class: "muted pad" }, "Searching…"));
  let r = await api(repoPath(`/symbols?${qs({ q, kind, path })}`));
  let pattern = q;
  // did you mean: the index's own names spelled like the query (query/suggest.py, as the CLI)
  const close = r.ok && !r.body.results.length ? didYouMean(r.body.coverage.limitations) : [];
  if (r.ok && !r.body.results.length && !/[*?]/.test(q)) {
    pattern = `*${q.split(".").pop()}*`;
    r = await api(repoPath(`/symbols?${qs({ q: pattern, kind, path })}`));
  }
  if (nav !== S.nav) return;  // the user moved on while this search ran
  if (!r.ok) { fill($("results"), h("p", { class: "error pad" }, r.body.error)); return; }
  const rows = r.body.results;
  const meta = h("div", { class: "meta" }, `${rows.length}${r.body.truncated ? "+" : ""} definition(s) for `,
    h("code", {}, pattern), rows.length ? ` · ${rows[0].source}` : "");
  const list = h("ul", { class: "hits" }, rows.slice(0, 300).map((loc) => h("li", {}, linkTo(symHref(loc.path, loc.start_line),
    () => openSymbol(loc), { class: "hit" },
    h("span", { class: "name" }, h("span", { class: `kind ${loc.kind}` }, loc.kind), breakable(loc.symbol)),
    h("span", { class: "where" }, breakable(`${loc.path}:${loc.start_line}`), tags(loc))))));
  const hint = close.length ? h("p", { class: "pad suggest" }, `No definition named “${q}”. Did you mean `,
    close.map((n, i) => [i ? ", " : "", linkTo(`${location.pathname}?${qs(Object.assign(urlState(), { q: n, symbol: "", file: "", line: "", end: "" }))}`,
      () => { $("q").value = n; search(null); }, { class: "suggestion" }, n)]), "?") : null;
  fill($("results"), hint, meta, rows.length ? list : h("p", { class: "muted pad" },
    r.body.coverage.limitations.filter((x) => !/did you mean/.test(x)).join("; ") || "No definitions match."));
  if (rows.length === 1 && push) openSymbol(rows[0], true, false, true);
}
function didYouMean(notes) {
  // the names of the facade's note "no definition named 'x'; did you mean 'a', 'b'?"
  const note = (notes || []).find((x) => /did you mean/.test(x));
  if (!note) return [];
  return [...note.slice(note.indexOf("did you mean")).matchAll(/'([^']+)'|"([^"]+)"/g)].map((m) => m[1] || m[2]);
}
function layoutSplit() {
  // no search and a symbol open (a shared link): the symbol takes the whole width
  $("results").hidden = !S.query && !!S.sym;
}
function markHit() {
  const key = S.sym ? `${S.sym.path}:${S.sym.start_line}` : null;
  for (const a of document.querySelectorAll("#results a.hit")) {
    const on = key && a.getAttribute("href").includes("symbol=" + encodeURIComponent(key).replace(/%20/g, "+"));
    a.classList.toggle("sel", !!on);
    if (on) a.setAttribute("aria-current", "true"); else a.removeAttribute("aria-current");
  }
}
function tags(loc) {
  return [loc.uncertain ? h("span", { class: "tag uncertain", title: loc.evidence }, "uncertain") : null,
    loc.stale ? h("span", { class: "tag stale" }, "stale") : null];
}

// -- symbol view -----------------------------------------------------------------------
async function openSymbol(loc, push = true, refresh = false, replace = false) {
  const same = S.sym && S.sym.path === loc.path && S.sym.start_line === loc.start_line;
  S.sym = loc;
  const seq = ++S.seq;
  await script("panels.js", () => window.symbolTabs);
  if (seq !== S.seq) return;
  if (push) setUrl({ symbol: `${loc.path}:${loc.start_line}`, tab: "symbols", file: "", line: "", end: "" }, replace);
  if (push) switchTab("symbols", false);
  markHit();
  layoutSplit();
  const at = { path: loc.path, line: loc.start_line };
  const fresh = () => seq === S.seq;
  const srcBox = h("div", {});
  const feats = S.summary ? S.summary.features : {};
  const rels = (S.summary && S.summary.relations) || { callers: { available: true, label: "callers" } };
  const keepGraph = refresh && same && S.graph ? $("graph-box") : null;
  const unavailable = (name) => h("p", { class: "muted" }, (rels[name] && rels[name].reason) || `${name} are not offered by this server.`);
  const relRows = (name, noun) => {
    const box = h("div", {}, h("p", { class: "muted" }, "Loading…"));
    api(graphPath(Object.assign({ references: 0, depth: 1, limit: 120, relation: name }, at))).then((r) => {
      if (fresh()) fill(box, r.ok ? groupedRows(r.body.results, r.body.truncated, noun, { symbolName: true, openName: true }) : h("p", { class: "error" }, r.body.error));
    });
    return box;
  };
  const loaders = {
    refs: () => pagedRows("/references", at, "reference"),
    callers: () => pagedRows("/callers", at, "call site", { symbolName: true, openName: true }),
    callees: () => {
      if (!rels.callees || !rels.callees.available) return unavailable("callees");
      const box = h("div", {}, h("p", { class: "muted" }, "Loading…"));
      api(repoPath(`/callees?${qs(at)}`)).then((r) => { if (fresh()) fill(box, r.ok ? calleeRows(loc, r.body.results, r.body.truncated) : h("p", { class: "error" }, r.body.error)); });
      return box;
    },
    calls: () => callTree(loc, rels),
    types: TYPEISH.has(loc.kind) ? () => (rels.hierarchy && rels.hierarchy.available ? relRows("hierarchy", "related type") : unavailable("hierarchy")) : null,
    graph: () => {
      const gbox = keepGraph || h("div", { id: "graph-box" }, h("p", { class: "muted" }, "Loading…"));
      api(graphPath(Object.assign({ references: 0, depth: 1, limit: 300, relation: "callers" }, at))).then(async (r) => {
        if (!fresh()) return;
        if (!r.ok) { fill(gbox, h("p", { class: "error" }, r.body.error)); return; }
        if (keepGraph && S.graph) { await S.graph.replay(r.body); return; }
        await graphLib();
        if (!fresh()) return;
        S.graph = SpyGraph.create(gbox, { relations: rels, uid: seq, fetch: fetchRelation, open: (n) => openSymbol(Object.assign(
          { source: "", indexed_at: null, stale: false, uncertain: false, evidence: "" }, n)) });
        S.graph.start(r.body);
      });
      return gbox;
    },
    blast: feats.blast_radius ? () => {
      const box = h("div", {}, h("p", { class: "muted" }, "Loading…"));
      api(repoPath(`/blast-radius?${qs({ target: `${loc.path}:${loc.start_line}` })}`)).then((r) => { if (fresh()) fill(box, renderBlast(r)); });
      return box;
    } : null,
  };
  if (!refresh || !same) S.graph = null;
  const tabs = symbolTabs(loaders, urlState().panel || (refresh && same && S.panel) || "refs", (n) => { S.panel = n; setUrl({ panel: n === "refs" ? "" : n }, true); });
  S.panel = tabs.el.querySelector("[aria-selected=true]").dataset.panel;
  fill($("symbol"),
    h("section", { class: "panel sym-head", "aria-labelledby": "sym-title" },
      h("h2", { id: "sym-title" }, h("span", { class: `kind ${loc.kind}` }, loc.kind), breakable(loc.symbol)),
      h("div", { class: "where" }, linkTo(fileHref(loc.path, loc.start_line, loc.end_line), () => openFile(loc.path, loc.start_line, loc.end_line),
        breakable(`${loc.path}:${loc.start_line}-${loc.end_line}`)),
      loc.source ? h("span", { class: "tag" }, loc.source) : null, loc.indexed_at ? h("span", { class: "tag" }, `indexed ${loc.indexed_at}`) : null, tags(loc)),
      srcBox),
    tabs.el);
  if (push && !refresh && window.matchMedia("(max-width: 900px)").matches) $("symbol").scrollIntoView({ block: "start" });
  api(repoPath(`/context?${qs({ path: loc.path, start: loc.start_line, end: Math.min(loc.end_line, loc.start_line + 40) })}`))
    .then((r) => { if (fresh()) fill(srcBox, r.ok && r.body.results.length ? sourceBlock(r.body.results[0]) : h("p", { class: "error" }, r.body.error || "No source.")); });
}

const scripts = {};
function script(name, loaded) {
  // panels.js (with the first symbol) and graph.js (with the first graph) are loaded when
  // needed, not before the page is interactive
  if (loaded()) return Promise.resolve();
  if (!scripts[name]) {
    scripts[name] = new Promise((resolve, reject) => {
      const el = document.createElement("script");
      el.src = `/static/${name}`;
      el.onload = resolve;
      el.onerror = () => { scripts[name] = null; reject(new Error(`${name} did not load`)); };
      document.head.append(el);
    });
  }
  return scripts[name];
}
const graphLib = () => script("graph.js", () => window.SpyGraph);

function fetchRelation(n, relation) {
  return api(graphPath({ path: n.path, line: n.start_line, relation, depth: 1, limit: 300, references: 0 }))
    .then((r) => (r.ok ? { ok: true, body: r.body } : { ok: false, error: r.body.error }));
}

function sourceBlock(span) {
  const lines = span.text.replace(/\n$/, "").split("\n");
  return h("pre", { class: "src", tabindex: "0", "aria-label": `source of lines ${span.start_line}-${span.start_line + lines.length - 1}`, title: `live from disk · sha1 ${span.content_hash}` },
    lines.map((t, i) => [h("span", { class: "ln", "aria-hidden": "true" }, String(span.start_line + i)), t, "\n"]),
    span.truncated ? h("span", { class: "ln" }, "…") : null);
}

function renderBlast(r) {
  if (!r.ok) return h("p", { class: "error" }, r.body.error);
  const b = r.body, rows = b.results || [], files = b.files || [], tests = b.tests || [];
  const out = [h("p", { class: "muted" }, `${rows.length}${b.truncated ? "+" : ""} affected symbol(s) in ${files.length} file(s)` +
    (b.packages ? `, ${b.packages.length} package(s)` : "") + ` · ${tests.length} test target(s)`)];
  if (rows.length) out.push(groupedRows(rows, b.truncated, "affected symbol", { symbolName: true }));
  if (tests.length) {
    out.push(h("h4", {}, "Tests to run"),
      h("table", { class: "list" }, h("tbody", {}, tests.slice(0, 20).map((t) => h("tr", {},
        h("td", { class: "mono" }, `${t.path}${t.symbol ? "::" + t.symbol.replaceAll(".", "::") : ""}`),
        h("td", { class: "muted" }, t.reason), h("td", { class: "muted", title: t.evidence }, t.uncertain ? "uncertain" : ""))))));
  }
  for (const c of b.commands || []) out.push(h("pre", { class: "cmd" }, typeof c === "string" ? c : c.command));
  if (b.notes && b.notes.length) out.push(h("p", { class: "muted" }, b.notes.join(" · ")));
  return out;
}

// -- code view -------------------------------------------------------------------------
async function openFile(path, line, end, push = true, refresh = false) {
  S.file = { path, line: line || null, end: end || null };
  if (push) { setUrl({ tab: "file", file: path, line: line || "", end: end || "" }); switchTab("file", false); }
  const box = $("file");
  const scroller = box.querySelector(".code");
  const keep = refresh && scroller ? scroller.scrollTop : null;
  if (!refresh) fill(box, h("p", { class: "muted pad" }, `Loading ${path}…`));
  const r = await api(repoPath(`/file?${qs({ path })}`));
  if (!S.file || S.file.path !== path) return;
  if (!r.ok) { fill(box, h("p", { class: "error pad" }, r.body.error)); return; }
  const f = r.body;
  const lo = line || 0, hi = end || line || 0;
  const defs = f.definitions.filter((d) => !d.symbol.includes(".") || d.kind !== "field").slice(0, 400);
  const sitesAt = new Map();  // line → its indexed sites (links to their definitions)
  for (const x of f.sites || []) { if (!sitesAt.has(x.line)) sitesAt.set(x.line, []); sitesAt.get(x.line).push(x); }
  const defAt = new Map();  // line → the definitions named there (links to their references)
  for (const d of f.definitions) { if (!defAt.has(d.start_line)) defAt.set(d.start_line, []); defAt.get(d.start_line).push(d); }
  const rows = f.lines.map((t, i) => {
    const n = i + 1;
    return h("div", { class: "cl" + (n >= lo && n <= hi ? " hl" : ""), id: `L${n}` },
      h("a", { class: "ln", href: fileHref(f.path, n), "aria-label": `line ${n}`, onclick: (ev) => { ev.preventDefault(); openFile(f.path, n, null); } }, String(n)),
      h("code", {}, codeLine(f.path, t, sitesAt.get(n), defAt.get(n))));
  });
  const outline = h("nav", { class: "outline", "aria-label": "definitions in this file" }, h("h3", {}, "Definitions"),
    defs.length ? h("ul", {}, defs.map((d) => h("li", {}, linkTo(symHref(f.path, d.start_line), () => openSymbol(Object.assign(
      { path: f.path, source: "", indexed_at: null, stale: false, uncertain: false, evidence: "" }, d)),
    h("span", { class: `kind ${d.kind}` }, d.kind), breakable(d.symbol.split(".").slice(-2).join(".")))))) : h("p", { class: "muted" }, "None."));
  fill(box,
    h("div", { class: "file-head" }, h("h2", { id: "file-title" }, breakable(f.path)),
      h("span", { class: "muted" }, `${f.total_lines} lines` + (lo ? ` · line ${lo}${hi > lo ? "-" + hi : ""}` : "") + (f.truncated ? " · cut" : "") + " · as on disk" +
        ((f.sites || []).length ? ` · ${f.sites.length} name(s) link to their definitions` : "") +
        (f.sites_truncated ? " (the first 20,000 sites)" : ""))),
    h("div", { class: "file-split" },
      h("div", { class: "code", tabindex: "0", role: "region", "aria-labelledby": "file-title" }, rows), outline));
  const code = box.querySelector(".code");
  if (keep !== null) code.scrollTop = keep;
  else if (lo) {
    // the followed line in the middle of the code box, and the box itself on screen
    const target = $(`L${lo}`);
    if (target) {
      code.scrollTop = Math.max(0, target.offsetTop - code.clientHeight / 3);
      const r = target.getBoundingClientRect();
      if (r.top < 0 || r.bottom > window.innerHeight) target.scrollIntoView({ block: "center" });
    }
  }
}

function codeLine(path, text, sites, defs) {
  // the line's text with each indexed site a link to its definition (go to definition) and
  // each definition's name a link to its symbol view (its references, callers, …)
  if (!text) return " ";
  const marks = [];
  for (const x of sites || []) {
    let c = x.col;
    if (text.slice(c, c + x.name.length) !== x.name) c = text.indexOf(x.name, Math.max(0, c - 40));  // byte columns
    if (c < 0) continue;
    marks.push({ c, e: c + x.name.length, a: () => linkTo(symHref(x.path, x.start_line), () => openSymbol(Object.assign(
      { source: "", indexed_at: null, stale: false, uncertain: false, evidence: "", end_line: x.end_line }, x, { line: undefined })),
    { class: "site", title: `go to definition: ${x.kind} ${x.symbol} (${x.path}:${x.start_line})${x.uncertain ? " · uncertain" : ""}` }, x.name) });
  }
  for (const d of defs || []) {
    const name = d.symbol.split(".").pop();
    const m = new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).exec(text);
    if (!m) continue;
    marks.push({ c: m.index, e: m.index + name.length, a: () => linkTo(symHref(path, d.start_line), () => openSymbol(Object.assign(
      { path, source: "", indexed_at: null, stale: false, uncertain: false, evidence: "" }, d)),
    { class: "site defn", title: `find references: ${d.kind} ${d.symbol}` }, name) });
  }
  if (!marks.length) return text;
  marks.sort((a, b) => a.c - b.c);
  const out = [];
  let at = 0;
  for (const m of marks) {
    if (m.c < at) continue;  // overlapping: the first wins
    out.push(text.slice(at, m.c), m.a());
    at = m.e;
  }
  out.push(text.slice(at));
  return out;
}

// -- workspace overlay diff ---------------------------------------------------------------
async function loadOverlay() {
  // one read serves the strip, the tab's count and the diff view (they never disagree)
  const r = await api("/api/v1/runs/workspace/code/diff-overlay");
  const box = $("diff");
  if (!r.ok) {
    S.overlay = null;
    fill(box, h("p", { class: r.status === 409 ? "muted pad" : "error pad" }, r.body.error));
    return;
  }
  const d = r.body, sm = d.summary;
  S.overlay = d;
  const changed = sm.added + sm.modified + sm.deleted;
  $("pv-workspace").textContent = changed ? `${changed} changed file(s)` : "clean";
  const pill = $("diff-count");
  pill.hidden = !changed;
  pill.textContent = String(changed);
  const head = h("p", { class: "muted" }, `${sm.modified} modified · ${sm.added} added · ${sm.deleted} deleted, against `,
    h("code", {}, short(d.base.commit)), ` (${d.base.ref}, indexed ${when(d.base.indexed_at)}) · workspace digest `, h("code", {}, d.workspace_digest));
  if (!d.results.length) { fill(box, head, h("p", { class: "pad" }, "The files on disk match the snapshot.")); return; }
  const cards = d.results.map((f) => {
    const defs = f.definitions;
    const rows = [];
    if (defs) {
      for (const [kind, mark] of [["changed", "~"], ["added", "+"], ["removed", "−"]]) {
        for (const x of defs[kind]) {
          const name = kind === "removed" ? h("span", {}, x.symbol) : linkTo(symHref(x.path, x.start_line), () => openSymbol(x), x.symbol);
          rows.push(h("li", { class: `def ${kind}` }, h("span", { class: "mark", "aria-label": kind }, mark),
            h("span", { class: `kind ${x.kind}` }, x.kind), name, h("span", { class: "ev" }, `:${x.start_line} · ${x.evidence}`)));
        }
      }
    }
    return h("div", { class: "file-card" }, h("div", { class: "fh" }, h("span", { class: `st ${f.status}` }, f.status),
      f.status === "deleted" ? h("span", { class: "path" }, f.path) : linkTo(fileHref(f.path, 1), () => openFile(f.path, null, null), { class: "path" }, f.path),
      f.language ? h("span", { class: "muted" }, f.language) : null),
    rows.length ? h("ul", { class: "defs" }, rows) : h("p", { class: "muted pad" }, defs ? "No definition changed (edits outside definitions)." : "Not analysed (limit)."));
  });
  fill(box, head, cards, d.truncated ? h("p", { class: "muted" }, "More files changed than max_files_per_request; the rest are listed without definitions.") : null);
}

function switchTab(tab, push = true) {
  S.tab = tab;
  for (const b of document.querySelectorAll(".tab")) {
    const on = b.dataset.tab === tab;
    b.classList.toggle("active", on);
    b.setAttribute("aria-selected", on ? "true" : "false");
    b.tabIndex = on ? 0 : -1;
  }
  for (const t of ["symbols", "file", "diff"]) $(`tab-${t}`).hidden = tab !== t;
  if (push) setUrl({ tab });
  if (tab === "diff" && S.summary && S.summary.indexed) loadOverlay();
}

// -- pages -------------------------------------------------------------------------------
async function showList(repos) {
  $("view-list").hidden = false;
  document.title = "Repositories · spyglass";
  fill($("repo-list"), repos.map((x) => h("li", {}, h("a", { href: x.links.page }, x.repo),
    h("span", { class: "muted" }, ` ${x.root} · ${x.indexed ? "indexed" : "not indexed"}`))));
}

async function boot() {
  setMode("connecting");
  $("search").addEventListener("submit", search);
  $("index-btn").addEventListener("click", () => startIndex($("index-ref")));
  $("reindex").addEventListener("click", () => startIndex($("reindex-ref")));
  $("retry").addEventListener("click", () => startIndex(S.summary && S.summary.indexed ? $("reindex-ref") : $("index-ref")));
  $("token-save").addEventListener("click", () => {
    S.token = $("token").value.trim();
    stored("sessionStorage", "spyglass-token", S.token);
    $("token-row").hidden = !!S.token;
    notice("");
    if (!S.summary) location.reload();  // refused before the token: start over with it
  });
  const tabs = [...document.querySelectorAll(".tab")];
  for (const b of tabs) {
    b.addEventListener("click", () => switchTab(b.dataset.tab));
    b.addEventListener("keydown", (ev) => {  // the tablist pattern: arrows move between tabs
      const i = tabs.indexOf(b), d = { ArrowRight: 1, ArrowLeft: -1 }[ev.key];
      if (!d) return;
      const next = tabs[(i + d + tabs.length) % tabs.length];
      next.focus(); switchTab(next.dataset.tab);
    });
  }
  window.addEventListener("popstate", () => { if (S.repoId) applyState(); });
  const m = location.pathname.match(/^\/repos\/([^/]+)/);
  if (!m) {
    const r = await api("/api/v1/code/repos");
    if (!r.ok) { notice("Could not list repositories: " + (r.body.error || "none")); return; }
    showList(r.body.repos); $("conn").textContent = "ready";
    return;
  }
  S.repoId = decodeURIComponent(m[1]);
  const first = await api(repoPath(""));  // the summary: also says whether the repository exists
  if (first.status === 404) {
    $("view-404").hidden = false;
    $("missing-name").textContent = S.repoId;
    document.title = "Unknown repository · spyglass";
    $("conn").textContent = "not found";
    return;
  }
  if (first.ok) document.title = `${first.body.repo} · spyglass`;
  $("view-repo").hidden = false;
  $("provenance").hidden = false;
  const st = urlState();
  S.targetRef = st.ref || stored("localStorage", `spyglass-ref:${S.repoId}`) || null;
  await loadSummary(first);
  connectEvents();
  await applyState();
  document.body.dataset.ready = "1";
}
document.addEventListener("DOMContentLoaded", boot);
