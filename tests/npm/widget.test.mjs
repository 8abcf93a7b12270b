// <vramfit-calculator> in headless Chromium: a plain page and the site's demo (www/embed.html),
// served from loopback by node's http. The widget's numbers are checked against the package's
// own estimate() in Node (itself checked against the CLI in cli.test.mjs).
//
// Env: VRAMFIT_NPM_DIR (the built package), CHROMIUM (/usr/bin/chromium).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { problemsOf, serveInBrowser } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const pkgDir = path.resolve(process.env.VRAMFIT_NPM_DIR ?? path.join(root, "target/npm"));
const vf = await import(pathToFileURL(path.join(pkgDir, "index.js")).href);
const WIDGET_FILES = ["index.js", "load.js", "vramfit.js", "vramfit_bg.wasm", "widget.js"];

// The site as `cargo xtask dist` lays it out: www/embed.html, and the widget under widget/.
const site = mkdtempSync(path.join(os.tmpdir(), "vramfit-widget-"));
mkdirSync(path.join(site, "widget"));
for (const f of WIDGET_FILES) copyFileSync(path.join(pkgDir, f), path.join(site, "widget", f));
copyFileSync(path.join(root, "www/embed.html"), path.join(site, "embed.html"));
writeFileSync(path.join(site, "plain.html"), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>plain</title></head>
<body>
<p id="outside">page text</p>
<script>window.events = []; document.addEventListener("vramfit-change", (e) => window.events.push(e.detail));</script>
<vramfit-calculator id="w" model="meta-llama/Llama-3.1-8B" batch="4" seq-len="8192" gpu="h100-sxm5-80gb"></vramfit-calculator>
<script type="module">import "./widget/widget.js"; window.widgetLoaded = true;</script>
</body></html>`);

let env, base, context;
before(async () => {
  env = await serveInBrowser(site);
  ({ base, context } = env);
});

after(async () => {
  await env?.close();
  rmSync(site, { recursive: true, force: true });
});

async function open(file) {
  const page = await context.newPage();
  const problems = problemsOf(page, base);
  await page.goto(base + file);
  await page.waitForFunction(() => customElements.get("vramfit-calculator") !== undefined);
  page.problems = problems;
  return page;
}

const shadowText = (page, sel, part) =>
  page.evaluate(([s, p]) => document.querySelector(s).shadowRoot.querySelector(`[part="${p}"]`)?.textContent ?? null, [sel, part]);
const gib = (b) => `${(b / 2 ** 30).toFixed(2)} GiB`;

test("the widget shows the estimate, fires vramfit-change, and follows its attributes", async () => {
  const page = await open("plain.html");
  const want = vf.estimate({ model: "meta-llama/Llama-3.1-8B", batch: 4, seq_len: 8192, gpu: "h100-sxm5-80gb" });
  await page.waitForFunction(() => window.events.length >= 1);
  const first = await page.evaluate(() => window.events[0]);
  assert.deepStrictEqual(first, want);
  assert.equal(await shadowText(page, "#w", "total"), `Total: ${gib(want.total_bytes)}`);
  assert.equal(await shadowText(page, "#w", "recommended"), `Recommended (guide): ${gib(want.recommended_bytes)}`);
  assert.match(await shadowText(page, "#w", "fit"), /^✓ fits on .*H100 SXM5 80GB \(headroom \d+\.\d\d GiB\)$/);
  const segments = await page.evaluate(() => document.querySelector("#w").shadowRoot.querySelectorAll('[part="bar"] span').length);
  assert.ok(segments >= 3, `${segments} bar segments`);
  // The element's property is the same estimate.
  assert.equal(await page.evaluate(() => document.querySelector("#w").estimate.total_bytes), want.total_bytes);

  // Attributes drive it: training on a 24 GB card does not fit; Chinese labels.
  await page.evaluate(() => {
    const w = document.querySelector("#w");
    w.setAttribute("lang", "zh");
    w.setAttribute("mode", "training");
    w.setAttribute("batch", "1");
    w.setAttribute("seq-len", "2048");
    w.setAttribute("gpu", "rtx-4090");
  });
  const train = vf.estimate({ model: "meta-llama/Llama-3.1-8B", mode: "training", batch: 1, seq_len: 2048, gpu: "rtx-4090" });
  await page.waitForFunction((t) => window.events.at(-1).total_bytes === t, train.total_bytes);
  assert.deepStrictEqual(await page.evaluate(() => window.events.at(-1)), train);
  assert.equal(await shadowText(page, "#w", "total"), `总显存: ${gib(train.total_bytes)}`);
  assert.match(await shadowText(page, "#w", "fit"), /^✗ 放不下 .*RTX 4090 \(还差 \d+\.\d\d GiB\)$/);

  // The same result again fires nothing.
  const n = await page.evaluate(() => window.events.length);
  await page.evaluate(() => document.querySelector("#w").setAttribute("layout", "compact"));
  assert.equal(await page.evaluate(() => window.events.length), n);

  // A control in the shadow root changes the attribute and the result.
  await page.evaluate(() => {
    const s = document.querySelector("#w").shadowRoot.querySelector('input[name="batch"]');
    s.value = "2";
    s.dispatchEvent(new Event("change", { bubbles: true }));
  });
  assert.equal(await page.evaluate(() => document.querySelector("#w").getAttribute("batch")), "2");
  assert.equal(await page.evaluate(() => window.events.at(-1).total_bytes),
    vf.estimate({ model: "meta-llama/Llama-3.1-8B", mode: "training", batch: 2, seq_len: 2048, gpu: "rtx-4090" }).total_bytes);
  assert.deepStrictEqual(page.problems, []);
  await page.close();
});

test("bad input shows the error in the widget and throws nothing to the page", async () => {
  const page = await open("plain.html");
  await page.waitForFunction(() => window.events.length >= 1);
  await page.evaluate(() => document.querySelector("#w").setAttribute("batch", "0"));
  const err = await shadowText(page, "#w", "error");
  assert.match(err, /^batch: /);
  assert.equal(await page.evaluate(() => document.querySelector("#w").estimate), null);
  // In Chinese, the error is the one the estimator wrote in Chinese (the Error's message_zh).
  await page.evaluate(() => document.querySelector("#w").setAttribute("lang", "zh"));
  assert.equal(await shadowText(page, "#w", "error"), "batch：0 超出范围。可接受：整数，从 1 到 1048576。");
  await page.evaluate(() => document.querySelector("#w").setAttribute("lang", "en"));
  assert.match(await shadowText(page, "#w", "error"), /^batch: /);
  await page.evaluate(() => document.querySelector("#w").setAttribute("model", "no/such-model"));
  assert.match(await shadowText(page, "#w", "error"), /^model: /);
  await page.evaluate(() => document.querySelector("#w").setAttribute("mode", "flying"));
  assert.match(await shadowText(page, "#w", "error"), /^mode: /);
  // Recovers when the input is good again.
  await page.evaluate(() => {
    const w = document.querySelector("#w");
    w.setAttribute("mode", "inference");
    w.setAttribute("model", "Qwen/Qwen2.5-7B-Instruct");
    w.setAttribute("batch", "1");
  });
  assert.equal(await page.evaluate(() => document.querySelector("#w").error), null);
  assert.ok(await page.evaluate(() => document.querySelector("#w").shadowRoot.querySelector('[part="error"]').hidden));
  // Styles stay inside: the page's paragraph is untouched by the widget's CSS.
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector("#outside")).color), "rgb(0, 0, 0)");
  assert.deepStrictEqual(page.problems, []);
  await page.close();
});

test("the site's demo page www/embed.html runs the widget from ./widget/", async () => {
  const page = await open("embed.html");
  const widgets = await page.evaluate(() => document.querySelectorAll("vramfit-calculator").length);
  assert.ok(widgets >= 1);
  await page.waitForFunction(() => document.querySelector("vramfit-calculator").estimate !== null);
  const [model, total] = await page.evaluate(() => {
    const w = document.querySelector("vramfit-calculator");
    return [w.getAttribute("model"), w.estimate.total_bytes];
  });
  assert.ok(total > 0 && model);
  assert.deepStrictEqual(page.problems, []);
  await page.close();
});
