// The graph at 100+ nodes in headless Chromium: node BASE_URL PAGE_PATH ARTIFACTS_DIR.
// Prints one JSON line; exits 1 when a check fails.
import { chromium } from "playwright-core";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [base, pagePath, artifacts] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
fs.mkdirSync(artifacts, { recursive: true });
const report = { errors: [] };
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
page.setDefaultTimeout(20000);
page.on("pageerror", (e) => report.errors.push(String(e)));
try {
  await page.goto(base + pagePath);
  await page.locator(".g-svg g.n").first().waitFor();
  await page.waitForLoadState("networkidle");
  report.status = await page.locator(".g-status").innerText();
  report.drawn = await page.locator(".g-svg g.n").count();
  report.groups = await page.locator(".g-svg g.n.group").count();
  // keyboard: into the graph, to the callers' column, open the first group there
  await page.locator(".g-svg").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("ArrowLeft");
  for (let i = 0; i < 30; i++) {
    if (await page.evaluate(() => document.activeElement.matches("g.n.group"))) break;
    await page.keyboard.press("ArrowDown");
  }
  report.focusedGroup = await page.evaluate(() => document.activeElement.getAttribute("aria-label"));
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.querySelectorAll(".g-svg g.n").length > n, report.drawn);
  report.drawnAfterOpen = await page.locator(".g-svg g.n").count();
  report.focusedAfterOpen = await page.evaluate(() => document.activeElement.getAttribute("aria-label"));
  // no edge is drawn across a node it does not join (a wrapped column used to draw the
  // outer column's edges through the inner one, as if joining unrelated nodes)
  report.crossing = await page.evaluate(() => {
    const at = new Map([...document.querySelectorAll(".g-svg g.n")].map((g) => {
      const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute("transform"));
      return [g.dataset.id, [Number(m[1]), Number(m[2])]];
    }));
    const W = Number(document.querySelector(".g-svg g.n rect").getAttribute("width"));
    const bad = [];
    for (const p of document.querySelectorAll(".g-svg path.e")) {
      const a = at.get(p.dataset.s), b = at.get(p.dataset.t);
      const lo = Math.min(a[0], b[0]) + W, hi = Math.max(a[0], b[0]);
      for (const [id, [x]] of at) if (id !== p.dataset.s && id !== p.dataset.t && x > lo - 1 && x + W < hi + 1) bad.push(`${p.dataset.s} → ${p.dataset.t} crosses ${id}`);
    }
    return bad;
  });
  const box = await page.locator(".g-svg").boundingBox();
  report.svg = [Math.round(box.width), Math.round(box.height)];
  await page.locator("#graph-box").screenshot({ path: path.join(artifacts, "graph-120.png") });
  await page.evaluate(axeSource);
  report.axe = (await page.evaluate(async () => (await window.axe.run(document)).violations
    .filter((v) => v.impact === "critical" || v.impact === "serious").map((v) => v.id)));
  report.ok = true;
} catch (err) {
  report.ok = false;
  report.failure = String(err && err.message ? err.message : err).split("\n")[0];
} finally {
  await browser.close();
  console.log(JSON.stringify(report));
  process.exit(report.ok ? 0 : 1);
}
