// Screenshots of the code browser on a real repository for docs/ (not a test):
//   node browse-shots.mjs REPO_PAGE_URL SYMBOL_PATH:LINE TREE_PATH:LINE OUT_DIR [CALLEES_PATH:LINE]
// the symbol view (References tab), the call hierarchy opened two levels by keyboard, the
// symbol view at 390×844, and a graph expanded with its callees by keyboard.
import { chromium } from "playwright-core";
import path from "node:path";

const [url, symbol, tree, out, callees] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(`${url}?symbol=${symbol}`);
await page.locator("#panel-refs .ref-row").first().waitFor({ timeout: 30000 });
await page.waitForLoadState("networkidle");
await page.screenshot({ path: path.join(out, "web-symbol.png") });
await page.goto(`${url}?symbol=${tree}&panel=calls`);
await page.locator('#panel-calls li[aria-level="2"]').first().waitFor({ timeout: 30000 });
await page.locator('#panel-calls li[aria-level="1"]').focus();
for (const key of ["ArrowDown", "ArrowRight"]) { await page.keyboard.press(key); await page.waitForTimeout(1200); }
await page.keyboard.press("ArrowDown");
await page.keyboard.press("ArrowRight");
await page.waitForTimeout(1500);
await page.waitForLoadState("networkidle");
await page.locator("#symbol .sym-panels").screenshot({ path: path.join(out, "web-call-tree.png") });
await page.setViewportSize({ width: 390, height: 844 });
await page.goto(`${url}?symbol=${symbol}&panel=callers`);
await page.locator("#panel-callers .ref-row").first().waitFor({ timeout: 30000 });
await page.waitForLoadState("networkidle");
await page.screenshot({ path: path.join(out, "web-phone.png") });
if (callees) {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${url}?symbol=${callees}&panel=graph`);
  await page.locator(".g-svg g.n").first().waitFor({ timeout: 30000 });
  await page.locator(".g-rel label", { hasText: "callees" }).click();
  await page.locator(".g-svg").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(2500);
  await page.waitForLoadState("networkidle");
  await page.locator("#graph-box").screenshot({ path: path.join(out, "web-graph-callees.png") });
}
console.log(JSON.stringify({ ok: true }));
await browser.close();
