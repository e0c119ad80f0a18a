// The browser end-to-end scenario of the web page, in headless Chromium (playwright-core,
// Debian's chromium). Run by tests/web/test_browser.py:
//   node scenario.mjs BASE_URL REPO_ROOT ARTIFACTS_DIR
// It prints one JSON line (steps passed, axe-core violations per page state, JavaScript
// errors, requests leaving the server) and exits 1 at the first step that fails.
import { chromium } from "playwright-core";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [base, root, artifacts] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
fs.mkdirSync(artifacts, { recursive: true });
fs.rmSync(path.join(artifacts, "failure.png"), { force: true });
const report = { steps: [], axe: {}, errors: [], external: [], states: [] };
const origin = new URL(base).origin;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
page.setDefaultTimeout(15000);
page.on("pageerror", (e) => report.errors.push(String(e)));
let outage = false;  // requests aborted on purpose: their console errors are expected
page.on("console", (m) => { if (m.type() === "error" && !outage && !/status of 404/.test(m.text())) report.errors.push(m.text()); });
page.on("request", (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith("data:")) report.external.push(r.url()); });

async function state(name) {
  // every page state: a screenshot and axe-core (critical and serious violations kept)
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: false });
  await page.evaluate(axeSource);
  const res = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length,
      targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")), help: v.help }));
  });
  report.axe[name] = res.filter((v) => v.impact === "critical" || v.impact === "serious");
  report.states.push(name);
}
function step(name) { report.steps.push(name); }
function check(cond, what) { if (!cond) throw new Error(what); }
const text = (sel) => page.locator(sel).first().innerText();

try {
  // 1. the repository list, then the repository
  await page.goto(base + "/");
  await page.locator("#repo-list a").first().waitFor();
  await state("repo-list");
  await page.locator("#repo-list a").first().click();
  await page.locator("#empty").waitFor({ state: "visible" });
  step("unindexed repository opened");
  await state("empty");

  // 2. Index → progress → completed, without reload
  await page.evaluate(() => {
    window.__jobStates = [];
    new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes) window.__jobStates.push(n.textContent); })
      .observe(document.getElementById("job-state"), { childList: true, characterData: true, subtree: true });
  });
  await page.locator("#index-btn").click();
  await page.waitForFunction(() => document.getElementById("job-state").textContent === "completed", null, { timeout: 40000 });
  const seen = await page.evaluate(() => window.__jobStates);
  check(seen.includes("progress"), `no progress state shown: ${seen}`);
  await page.locator("#empty").waitFor({ state: "hidden" });
  await page.waitForFunction(() => document.getElementById("pv-workspace").textContent === "clean");
  step(`indexed (states seen: ${[...new Set(seen)].join(" → ")})`);
  await state("indexed");

  // 3. search → open the symbol (one match opens by itself)
  await page.locator("#q").fill("helper");
  await page.locator("#q").press("Enter");
  await page.waitForFunction(() => /helper/.test((document.getElementById("sym-title") || {}).textContent || ""));
  await page.waitForFunction(() => [...document.querySelectorAll("#symbol code.line")].some((c) => /helper\(/.test(c.textContent)));
  check(new URL(page.url()).searchParams.get("symbol") === "pkg/util.py:1", `symbol not in the URL: ${page.url()}`);
  step("searched and opened helper");
  await state("symbol");

  // 4. follow a reference into the file view
  const ref = page.locator("#symbol details.refs-file a.ln").first();
  const refLine = Number(await ref.innerText());
  await ref.click();
  await page.locator("#tab-file .cl.hl").first().waitFor();
  const hl = await page.locator("#tab-file .cl.hl a.ln").first().innerText();
  check(Number(hl) === refLine, `highlighted line ${hl}, expected ${refLine}`);
  check(new URL(page.url()).searchParams.get("tab") === "file", "file view not in the URL");
  step(`followed a reference into the file view (line ${refLine})`);
  await state("file-view");

  // Back returns to the symbol
  await page.goBack();
  await page.locator("#tab-symbols").waitFor({ state: "visible" });
  await page.waitForFunction(() => /helper/.test(document.getElementById("sym-title").textContent));
  step("Back returned to the symbol");

  // 5. expand the graph by keyboard: Tab into the graph, Enter, arrow to a caller, Enter
  await page.locator("#ptab-graph").click();
  check(new URL(page.url()).searchParams.get("panel") === "graph", "the panel is not in the URL");
  await page.locator(".g-svg g.n").first().waitFor();
  const before = await page.locator(".g-svg g.n").count();
  await page.getByRole("button", { name: "Fit" }).focus();
  await page.keyboard.press("Tab");
  check(await page.evaluate(() => document.activeElement.classList.contains("g-svg")), "Tab did not reach the graph");
  await page.keyboard.press("Enter");
  check(await page.evaluate(() => document.activeElement.matches("g.n.center")), "Enter did not focus the center node");
  await page.keyboard.press("ArrowLeft");  // the callers' column; then up or down to `run`
  const label = () => page.evaluate(() => document.activeElement.getAttribute("aria-label") || "");
  let focused = await label();
  for (const key of ["ArrowUp", "ArrowUp", "ArrowUp", "ArrowDown", "ArrowDown", "ArrowDown", "ArrowDown"]) {
    if (/\brun\b/.test(focused)) break;
    await page.keyboard.press(key);
    focused = await label();
  }
  check(/\brun\b/.test(focused), `arrow keys did not reach run: ${focused}`);
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.querySelectorAll(".g-svg g.n").length > n, before);
  const after = await page.locator(".g-svg g.n").count();
  const info = await text(".g-info");
  step(`graph expanded by keyboard: ${before} → ${after} nodes (focus: ${focused.split(",")[0]}; info: ${info.split("\n")[0]})`);
  await state("graph-expanded");

  // 6. edit a workspace file: the page shows the change without a reload
  const file = path.join(root, "pkg", "util.py");
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("return x + 1", "return x + 2  # edited live"));
  await page.waitForFunction(() => document.getElementById("pv-workspace").textContent === "1 changed file(s)", null, { timeout: 20000 });
  await page.waitForFunction(() => /edited live/.test((document.querySelector("#symbol pre.src") || {}).textContent || ""), null, { timeout: 20000 });
  check(!(await page.locator("#diff-count").isHidden()), "the tab count did not show the change");
  step("workspace edit shown without reload (strip, tab count, source)");
  await state("live-update");

  // 7. open a graph node by keyboard, then Back returns to the previous symbol
  await page.locator(".g-svg g.n[aria-label*='run']").first().focus();
  await page.keyboard.press("Shift+Enter");
  await page.waitForFunction(() => /\brun\b/.test(document.getElementById("sym-title").textContent));
  step("opened run from the graph");
  await page.goBack();
  await page.waitForFunction(() => /helper/.test(document.getElementById("sym-title").textContent));
  check(new URL(page.url()).searchParams.get("symbol") === "pkg/util.py:1", "Back did not restore the symbol in the URL");
  step("Back returned to the previous symbol");

  // the server unreachable for a moment: a notice, cleared by the first answer after it
  outage = true;
  await page.route("**/api/v1/**", (r) => r.abort());
  await page.locator("#q").fill("run");
  await page.locator("#q").press("Enter");
  await page.locator("#notice").waitFor({ state: "visible" });
  const down = await text("#notice");
  await page.unroute("**/api/v1/**");
  await page.locator("#q").press("Enter");
  await page.locator("#notice").waitFor({ state: "hidden" });
  outage = false;
  step(`error shown while the server was unreachable ("${down.slice(0, 40)}…"), cleared on recovery`);
  await page.goBack();  // the symbol before that search
  await page.waitForFunction(() => /helper/.test((document.getElementById("sym-title") || {}).textContent || ""));

  // a chosen ref: re-index the unchanged commit as `main` (reuse reported), kept on reload
  await page.locator("#reindex-ref").fill("main");
  await page.locator("#reindex").click();
  await page.waitForFunction(() => /·\s*main/.test(document.getElementById("job-title").textContent)
    && document.getElementById("job-state").textContent === "completed");
  const counts = await page.locator("#job-counts").textContent();
  check(/parsed 0/.test(counts) && /unchanged commit/.test(counts), `re-index did not report reuse: ${counts}`);
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.ready === "1");
  check(await page.locator("#reindex-ref").inputValue() === "main", "the chosen ref was lost on reload");
  check(new URL(page.url()).searchParams.get("ref") === "main", "the chosen ref is not in the URL");
  await page.waitForFunction(() => /helper/.test((document.getElementById("sym-title") || {}).textContent || ""));
  step(`re-index of the unchanged commit as main: "${counts.replace(/\s+/g, " ").slice(0, 60)}…"; ref kept across reload`);

  // 8. the diff tab, dark mode, 800×600, an unknown repository
  await page.locator("#tab-btn-diff").click();
  await page.locator("#diff .file-card").first().waitFor();
  await state("diff");
  await page.locator("#tab-btn-symbols").click();
  await page.emulateMedia({ colorScheme: "dark" });
  await state("dark");
  await page.setViewportSize({ width: 800, height: 600 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  check(overflow <= 800, `horizontal overflow at 800×600: ${overflow}px`);
  await state("small-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await state("small");
  const missing = await page.goto(base + "/repos/no-such-repo");
  check(missing.status() === 404, `unknown repository answered ${missing.status()}`);
  await page.locator("#view-404").waitFor({ state: "visible" });
  step("unknown repository: 404 page");
  await state("not-found");
  report.ok = true;
} catch (err) {
  report.ok = false;
  report.failure = String(err && err.message ? err.message : err).split("\n")[0] + ` (at ${page.url()})`;
  await page.screenshot({ path: path.join(artifacts, "failure.png") }).catch(() => {});
} finally {
  await browser.close();
  console.log(JSON.stringify(report));
  process.exit(report.ok ? 0 : 1);
}
