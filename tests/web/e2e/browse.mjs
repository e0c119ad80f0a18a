// The code browser in headless Chromium: node browse.mjs BASE_URL REPO_ROOT ARTIFACTS_DIR
// (tests/web/test_browser.py makes the repository: a long file, a class with 300+
// references, a call chain, long names with long evidence). Prints one JSON line; exits 1 at
// the first check that fails. Every page state: a screenshot and axe-core.
import { chromium } from "playwright-core";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [base, root, artifacts] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
fs.mkdirSync(artifacts, { recursive: true });
const report = { steps: [], axe: {}, errors: [], external: [], states: [], widths: {} };
const origin = new URL(base).origin;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
page.setDefaultTimeout(20000);
page.on("pageerror", (e) => report.errors.push(String(e)));
page.on("console", (m) => { if (m.type() === "error") report.errors.push(m.text()); });
page.on("request", (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) report.external.push(r.url()); });

const repoUrl = (q) => `${base}/repos/repo?${q}`;
const lineOf = (file, needle) => fs.readFileSync(path.join(root, file), "utf8").split("\n").findIndex((l) => l.includes(needle)) + 1;
function step(s) { report.steps.push(s); }
function check(cond, what) { if (!cond) throw new Error(what); }
async function state(name) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`) });
  await page.evaluate(axeSource);
  const res = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations
    .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) })));
  report.axe[name] = res.filter((v) => v.impact === "critical" || v.impact === "serious");
  report.states.push(name);
}
async function noOverflow(name) {
  const [sw, vw] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  report.widths[name] = [sw, vw];
  check(sw <= vw, `${name}: the page scrolls sideways (${sw} px wide at ${vw} px)`);
}
async function inViewport(sel) {
  // the element is inside the window and inside every scrolling box around it
  return page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el) return "missing";
    const r = el.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight || r.height === 0) return `outside the window (top ${Math.round(r.top)}, bottom ${Math.round(r.bottom)}, window ${window.innerHeight})`;
    for (let p = el.parentElement; p; p = p.parentElement) {
      const st = getComputedStyle(p);
      if (!/(auto|scroll)/.test(st.overflowY)) continue;
      const b = p.getBoundingClientRect();
      if (r.top < b.top - 1 || r.bottom > b.bottom + 1) return `outside its scroll box (top ${Math.round(r.top)}, box ${Math.round(b.top)}-${Math.round(b.bottom)})`;
    }
    return "ok";
  }, sel);
}
const ready = () => page.waitForFunction(() => document.body.dataset.ready === "1");

try {
  // 1. a deep link to a line far down a file: that line on screen, highlighted
  await page.goto(repoUrl("tab=file&file=pkg/big.py&line=719"));
  await ready();
  await page.locator("#L719.hl").waitFor();
  let seen = await inViewport("#L719");
  check(seen === "ok", `deep link: line 719 ${seen}`);
  check(!(await page.locator("#status-box").evaluate((d) => d.open)), "the status panel is open on an indexed repository");
  step("deep link to pkg/big.py line 719: the line is on screen, highlighted; status folded");
  await state("deep-link");

  // 2. a followed reference far down the file (from the symbol's References tab)
  const call = lineOf("pkg/big.py", "return deep_target(3)");
  await page.goto(repoUrl("symbol=pkg/big.py:719"));
  await ready();
  const row = page.locator(`#panel-refs a.ln[aria-label="pkg/big.py line ${call}"]`);
  await row.click();
  await page.locator(`#L${call}.hl`).waitFor();
  seen = await inViewport(`#L${call}`);
  check(seen === "ok", `followed reference: line ${call} ${seen}`);
  step(`followed the reference at pkg/big.py:${call}: on screen, highlighted`);
  await state("followed-ref");

  // 3. a name in the code view goes to its definition
  await page.locator(`#L${call} a.site`, { hasText: "deep_target" }).click();
  await page.waitForFunction(() => /deep_target/.test((document.getElementById("sym-title") || {}).textContent || ""));
  check(new URL(page.url()).searchParams.get("symbol") === "pkg/big.py:719", `go to definition went to ${page.url()}`);
  step("a name in the code view opened its definition");

  // 4. every reference of a class with 300+ of them, through paging
  await page.goto(repoUrl("symbol=pkg/model.py:1"));
  await ready();
  await page.locator("#panel-refs .ref-row").first().waitFor();
  const first = await page.locator("#panel-refs .group-head [role=status]").innerText();
  const total = Number((/of (\d+)/.exec(first) || [])[1]);
  check(total >= 300, `expected 300+ references, the page says "${first}"`);
  await page.locator("#panel-refs button", { hasText: "Load all" }).click();
  await page.waitForFunction((n) => document.querySelectorAll("#panel-refs .ref-row").length === n, total, { timeout: 30000 });
  const counted = await page.evaluate(() => [...document.querySelectorAll("#panel-refs details.refs-file .count")].reduce((a, c) => a + Number(c.textContent), 0));
  check(counted === total, `per-file counts add up to ${counted}, not ${total}`);
  const shownAll = await page.locator("#panel-refs .group-head [role=status]").innerText();
  report.refs = { first, all: shownAll, total };
  step(`${total} references: first page "${first}", then all (${shownAll})`);
  await state("refs-all");

  // and every caller: 330 call sites, paged the same way
  await page.locator("#ptab-callers").click();
  await page.locator("#panel-callers .ref-row").first().waitFor();
  const callersFirst = await page.locator("#panel-callers .group-head [role=status]").innerText();
  const callersTotal = Number((/of (\d+)/.exec(callersFirst) || [])[1]);
  await page.locator("#panel-callers button", { hasText: "Load all" }).click();
  await page.waitForFunction((n) => document.querySelectorAll("#panel-callers .ref-row").length === n, callersTotal, { timeout: 30000 });
  report.callers = { first: callersFirst, total: callersTotal };
  step(`${callersTotal} callers: "${callersFirst}", then all`);

  // its graph: 300 callers in 30 files fold into one folder node, opened by keyboard
  await page.locator("#ptab-graph").click();
  await page.locator(".g-svg g.n").first().waitFor();
  const drawn = await page.locator(".g-svg g.n").count();
  const folder = await page.locator('.g-svg g.n.group[aria-label*="uses/,"]').getAttribute("aria-label");
  check(drawn <= 15 && /\d+ symbols/.test(folder), `the callers' layer is not folded: ${drawn} nodes, ${folder}`);
  await page.locator('.g-svg g.n.group[aria-label*="uses/,"]').focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.querySelectorAll(".g-svg g.n").length > n, drawn);
  const files = await page.locator('.g-svg g.n.group[aria-label*="uses/use_"]').count();
  const still = await page.locator('.g-svg g.n.group[aria-label*="uses/,"]').count();
  check(still === 0 && files > 1, `the folder did not open into its files: ${files} file groups, ${still} folder`);
  step(`graph of Model: ${drawn} nodes (${folder.split(",")[0]}), the folder opened: ${files} file groups (the graph's 300-node limit)`);
  await state("graph-folder");

  // 5. the call-hierarchy tree, two levels expanded by keyboard
  const leaf = lineOf("pkg/chain.py", "def leaf(");
  await page.goto(repoUrl(`symbol=pkg/chain.py:${leaf}&panel=calls`));
  await ready();
  await page.locator('#panel-calls li[aria-level="2"]').first().waitFor();
  await page.locator('#panel-calls li[aria-level="1"]').focus();
  for (const [key, level] of [["ArrowDown", 2], ["ArrowRight", 3], ["ArrowDown", 3], ["ArrowRight", 4]]) {
    await page.keyboard.press(key);
    if (key === "ArrowRight") await page.locator(`#panel-calls li[aria-level="${level}"]`).first().waitFor();
  }
  const deepest = await page.locator('#panel-calls li[aria-level="4"]').first().innerText();
  const topCall = lineOf("pkg/chain.py", "return top()");
  check(/entry_point/.test(deepest) && deepest.includes(`pkg/chain.py:${topCall}`), `level 4: "${deepest}", expected entry_point at pkg/chain.py:${topCall}`);
  check(await page.evaluate(() => document.activeElement.getAttribute("aria-level")) === "3", "focus left the tree");
  step(`call hierarchy: leaf ← mid ← top ← entry_point, two levels opened by keyboard (${deepest.replace(/\s+/g, " ").slice(0, 60)})`);
  await state("call-tree");

  // 6. a callee edge carries the line of the call
  const topDef = lineOf("pkg/chain.py", "def top(");
  const midCall = lineOf("pkg/chain.py", "return mid()");
  await page.goto(repoUrl(`symbol=pkg/chain.py:${topDef}&panel=graph`));
  await ready();
  await page.locator(".g-svg g.n").first().waitFor();
  const before = await page.locator(".g-svg g.n").count();
  await page.locator(".g-rel label", { hasText: "callees" }).click();
  await page.locator(".g-svg").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.querySelectorAll(".g-svg g.n").length > n, before);
  await page.locator('.g-svg g.n[aria-label*="pkg.chain.mid"]').focus();
  const info = await page.locator(".g-info").innerText();
  const edgeLine = Number((/calls ×\d+ \(line (\d+)\)/.exec(info) || [])[1]);
  check(edgeLine === midCall, `callee edge says line ${edgeLine}, the call is at ${midCall} (${info})`);
  await state("graph-callees");
  await page.locator("#ptab-callees").click();
  const calleeLine = Number(await page.locator("#panel-callees li.ref-row", { hasText: "pkg.chain.mid" }).locator("a.ln").innerText());
  check(calleeLine === midCall, `the Callees tab shows line ${calleeLine}, the call is at ${midCall}`);
  step(`callee edge top → mid at line ${edgeLine} = the call's line (graph and Callees tab)`);

  // an edge passing a column (top → leaf, with mid between them) runs through no node
  await page.goto(repoUrl(`symbol=pkg/chain.py:${lineOf("pkg/chain.py", "def mid(")}&panel=graph`));
  await ready();
  await page.locator(".g-svg g.n").first().waitFor();
  await page.locator(".g-rel label", { hasText: "callees" }).click();
  await page.locator(".g-svg").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");  // mid's callees: leaf, right of mid
  await page.waitForFunction(() => document.querySelectorAll(".g-svg g.n").length >= 3);
  await page.locator('.g-svg g.n[aria-label*="pkg.chain.top"]').focus();
  await page.keyboard.press("Enter");  // top's callees: mid, and leaf two columns away
  await page.waitForFunction(() => document.querySelectorAll(".g-svg path.e").length >= 3);
  const through = await page.evaluate(() => {
    const box = new Map([...document.querySelectorAll(".g-svg g.n")].map((g) => {
      const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute("transform"));
      const r = g.querySelector("rect");
      return [g.dataset.id, [Number(m[1]), Number(m[2]), Number(r.getAttribute("width")), Number(r.getAttribute("height"))]];
    }));
    const bad = [];
    for (const p of document.querySelectorAll(".g-svg path.e")) {
      for (let d = 0; d <= p.getTotalLength(); d += 3) {
        const pt = p.getPointAtLength(d);
        for (const [id, [x, y, w, h]] of box) {
          if (id === p.dataset.s || id === p.dataset.t) continue;
          if (pt.x > x + 1 && pt.x < x + w - 1 && pt.y > y + 1 && pt.y < y + h - 1) { bad.push(`${p.dataset.s} → ${p.dataset.t} through ${id}`); break; }
        }
      }
    }
    return [...new Set(bad)];
  });
  const edges = await page.locator(".g-svg path.e").count();
  check(through.length === 0, `edges drawn through nodes they do not join: ${through.join("; ")}`);
  step(`graph of mid, top and leaf expanded: ${edges} edges, none through a node it does not join`);
  await state("graph-skip-edge");

  // 7. long names and long evidence: no sideways scroll at 1280×800 and 390×844
  const file = "wire_formats/request_handlers_for_every_supported_wire_format.py";
  const method = lineOf(file, "def process_incoming_request_payload_with_validation");
  await page.goto(repoUrl(`symbol=${file}:${method}&panel=callers`));
  await ready();
  await page.locator("#panel-callers details.ev").first().waitFor();
  await noOverflow("callers-1280");
  await page.locator("#panel-callers details.ev summary").first().click();
  await noOverflow("evidence-open-1280");
  check(/receiver type unknown/.test(await page.locator("#panel-callers details.ev p").first().innerText()), "the whole evidence is not shown on demand");
  await state("evidence-1280");
  for (const tab of ["calls", "graph", "blast", "refs"]) {
    await page.locator(`#ptab-${tab}`).click();
    await page.waitForTimeout(400);
    await noOverflow(`${tab}-1280`);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  for (const tab of ["callers", "calls", "graph", "blast", "refs"]) {
    await page.locator(`#ptab-${tab}`).click();
    await page.waitForLoadState("networkidle");
    await noOverflow(`${tab}-390`);
    if (tab === "callers") await state("phone-callers");
    if (tab === "graph") {
      await page.locator(".g-svg g.n").first().waitFor();
      const box = await page.locator(".g-svg").boundingBox();
      check(box.x >= 0 && box.x + box.width <= 390, `the graph overflows its box at 390 px: ${JSON.stringify(box)}`);
      await page.locator(".g-svg").scrollIntoViewIfNeeded();
      const inBox = await page.evaluate(() => {
        const b = document.querySelector(".g-svg").getBoundingClientRect();
        return [...document.querySelectorAll(".g-svg g.n rect")].every((n) => {
          const r = n.getBoundingClientRect();
          return r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
        });
      });
      check(inBox, "the graph's nodes do not fit its box at 390 px");
      await state("phone-graph");
    }
  }
  await page.goto(repoUrl(`tab=file&file=${file}&line=${method}`));
  await ready();
  await page.locator(`#L${method}.hl`).waitFor();
  await noOverflow("file-390");
  check(await inViewport(`#L${method}`) === "ok", "the followed line is off screen at 390 px");
  await state("phone-file");
  await page.goto(repoUrl(""));
  await ready();
  await noOverflow("empty-search-390");
  await state("phone-home");
  step(`no sideways scroll: ${Object.entries(report.widths).map(([k, [s, v]]) => `${k} ${s}/${v}`).join(", ")}`);

  // 8. did you mean
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator("#q").fill("deep_targt");
  await page.locator("#q").press("Enter");
  await page.locator(".suggest a.suggestion", { hasText: "deep_target" }).waitFor();
  await state("did-you-mean");
  await page.locator(".suggest a.suggestion", { hasText: "deep_target" }).click();
  await page.waitForFunction(() => /deep_target/.test((document.getElementById("sym-title") || {}).textContent || ""));
  step("search deep_targt: did you mean deep_target (opened)");
  report.ok = true;
} catch (err) {
  report.ok = false;
  report.failure = String(err && err.message ? err.message : err).split("\n")[0] + ` (at ${page.url()})`;
  await page.screenshot({ path: path.join(artifacts, "browse-failure.png") }).catch(() => {});
} finally {
  await browser.close();
  console.log(JSON.stringify(report));
  process.exit(report.ok ? 0 : 1);
}
