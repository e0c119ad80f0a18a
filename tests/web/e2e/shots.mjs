// Screenshots of the page on a real repository for docs/ (not a test):
//   node shots.mjs PAGE_URL_WITH_STATE OUT_DIR   (the state with panel=graph)
import { chromium } from "playwright-core";
import path from "node:path";

const [url, out] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
for (const scheme of ["light", "dark"]) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
  await page.goto(url);
  await page.locator(".g-svg g.n").first().waitFor({ timeout: 30000 });
  await page.waitForLoadState("networkidle");
  const graph = page.locator("#graph-box");
  await graph.scrollIntoViewIfNeeded();
  const nodes0 = await page.locator(".g-svg g.n").count();
  // expand two callers by keyboard
  await page.locator(".g-svg").focus();
  await page.keyboard.press("Enter");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(1500);
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(1500);
  const nodes1 = await page.locator(".g-svg g.n").count();
  const symbols = await page.evaluate(() => document.querySelectorAll(".g-svg g.n:not(.group)").length);
  await graph.screenshot({ path: path.join(out, `web-graph-${scheme}.png`) });
  if (scheme === "light") {
    await page.locator("#ptab-refs").click();
    const refs = page.locator("#panel-refs");
    await refs.screenshot({ path: path.join(out, "web-references.png") });
  }
  console.log(JSON.stringify({ scheme, nodes0, nodes1, symbols, status: await page.locator(".g-status").innerText() }));
  await page.close();
}
await browser.close();
