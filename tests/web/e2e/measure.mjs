// Page weight and time to interactive of the web page (docs/web.md): load a repository's
// page, then search a symbol and open it. Usage: node measure.mjs URL SYMBOL [RUNS]
import { chromium } from "playwright-core";

const [url, symbol, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const out = { load_ms: [], load_bytes: [], load_requests: [], open_ms: [], open_bytes: [], symbol_px: [] };
for (let i = 0; i < runs; i++) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  let bytes = 0, requests = 0;
  page.on("requestfinished", async (req) => {
    const s = await req.sizes().catch(() => null);
    if (s) { bytes += s.responseBodySize + s.responseHeadersSize; requests += 1; }
  });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: "domcontentloaded" });
  // interactive: the provenance strip is filled and the search box takes input
  await page.waitForFunction(() => {
    const r = document.getElementById("pv-repo");
    return r && r.textContent && r.textContent !== "…" && document.getElementById("q");
  });
  out.load_ms.push(Date.now() - t0);
  await page.waitForLoadState("networkidle");
  out.load_bytes.push(bytes); out.load_requests.push(requests);
  bytes = 0;
  const t1 = Date.now();
  await page.fill("#q", symbol);
  await page.press("#q", "Enter");
  await page.locator(".hit").first().click();
  await page.waitForFunction(() => /reference\(s\)/.test(document.getElementById("symbol").textContent));
  out.open_ms.push(Date.now() - t1);
  await page.waitForLoadState("networkidle");
  out.open_bytes.push(bytes);
  // the height of the symbol view once its answers are in (one long stack, or tabs)
  out.symbol_px.push(await page.evaluate(() => Math.round(document.getElementById("symbol").getBoundingClientRect().height)));
  await ctx.close();
}
await browser.close();
const med = Object.fromEntries(Object.entries(out).map(([k, v]) => [k, median(v)]));
console.log(JSON.stringify({ runs, median: med, all: out }));
