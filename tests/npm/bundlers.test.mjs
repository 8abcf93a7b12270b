// The package through real bundlers, as a docs site would use it: the packed tarball installed
// into a scratch project (offline), one app importing both entry points (`vramfit` and
// `vramfit/widget`), built with Vite and with webpack 5, then each build served from loopback
// and opened in headless Chromium. The numbers the bundled app computes must equal the
// package's own `estimate()` in Node (itself checked against the CLI in cli.test.mjs) and the
// hand calculations below; the wasm must be emitted as an asset and fetched from the page's own
// origin; no console error, failed request or foreign request. Vite's dev server is checked too.
//
// Env: VRAMFIT_NPM_DIR (the built package), CHROMIUM (/usr/bin/chromium).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { problemsOf, serveInBrowser } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const pkgDir = path.resolve(process.env.VRAMFIT_NPM_DIR ?? path.join(root, "target/npm"));
const vf = await import(pathToFileURL(path.join(pkgDir, "index.js")).href);
const full = await import(pathToFileURL(path.join(pkgDir, "full.js")).href);
// The bundlers are the workspace's dev dependencies (package.json), pinned by its lock.
const { build: viteBuild, createServer } = await import(pathToFileURL(path.join(root, "node_modules/vite/dist/node/index.js")).href);
const webpack = (await import(pathToFileURL(path.join(root, "node_modules/webpack/lib/index.js")).href)).default;


// What the app computes: two estimates, the catalog sizes, and the widget's first event.
const INPUTS = [
  { model: "meta-llama/Llama-3.1-8B" },
  { model: "meta-llama/Llama-3.1-8B", mode: "training", batch: 2, seq_len: 2048, gpu: "h100-sxm5-80gb" },
];
const APP = `import { estimate, gpus, models, version } from "vramfit";
import { recommend } from "vramfit/full";
import "vramfit/widget";

const inputs = ${JSON.stringify(INPUTS)};
const events = [];
document.addEventListener("vramfit-change", (e) => {
  events.push(e.detail);
  window.result = {
    estimates: inputs.map((i) => estimate(i)),
    recommended: recommend(inputs[0], { limit: 3 }),
    gpus: gpus().length,
    models: models().length,
    version: version(),
    widget: events[0],
  };
});
const w = document.createElement("vramfit-calculator");
w.setAttribute("model", "meta-llama/Llama-3.1-8B");
w.setAttribute("batch", "4");
w.setAttribute("seq-len", "8192");
document.body.append(w);
`;

const tmp = mkdtempSync(path.join(os.tmpdir(), "vramfit-bundlers-"));
const project = path.join(tmp, "project");

function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });
}

let env, base, context;
before(async () => {
  const packed = JSON.parse(npm(["pack", "--json", "--pack-destination", tmp, pkgDir], tmp))[0];
  mkdirSync(path.join(project, "src"), { recursive: true });
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "docs-site", private: true, type: "module" }));
  npm(["install", "--offline", "--no-audit", "--no-fund", path.join(tmp, packed.filename)], project);
  writeFileSync(path.join(project, "src/main.js"), APP);
  writeFileSync(path.join(project, "index.html"), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>vite</title></head>
<body><script type="module" src="/src/main.js"></script></body></html>`);

  env = await serveInBrowser(tmp);
  ({ base, context } = env);
});

after(async () => {
  await env?.close();
  rmSync(tmp, { recursive: true, force: true });
});

// Opens `url`, waits for the app's result, and checks it against Node and the hand figures.
async function check(url, outDir) {
  const page = await context.newPage();
  const problems = problemsOf(page, new URL(url).origin);
  const wasm = [];
  page.on("response", (r) => { if (r.url().endsWith(".wasm")) wasm.push(r.url()); });
  await page.goto(url);
  try {
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30_000 });
  } catch (e) {
    throw new Error(`${url}: no result (${e.message}); ${problems.join("; ")}`);
  }
  const got = await page.evaluate(() => window.result);

  assert.deepStrictEqual(got.estimates, INPUTS.map((i) => vf.estimate(i)));
  // `vramfit/full`'s module ships too, and ranks as under Node.
  assert.deepStrictEqual(got.recommended, full.recommend(INPUTS[0], { limit: 3 }));
  // Llama-3.1-8B: 8,030,261,248 parameters (the published count) × 2 B (bf16).
  assert.equal(got.estimates[0].weights_bytes, 8_030_261_248 * 2);
  // 8 KV heads × 128 head_dim × 32 layers × 2 (K and V) × 2 B = 131,072 B per token.
  assert.equal(got.estimates[0].kv_bytes_per_token, 8 * 128 * 32 * 2 * 2);
  assert.deepStrictEqual(got.widget, vf.estimate({ model: "meta-llama/Llama-3.1-8B", batch: 4, seq_len: 8192 }));
  assert.equal(got.gpus, vf.gpus().length);
  assert.equal(got.models, vf.models().length);
  assert.equal(got.version, vf.version());

  // Both modules (the API's and the widget's) were emitted by the bundler and fetched from it.
  if (outDir) {
    const emitted = readdirSync(outDir, { recursive: true }).filter((f) => String(f).endsWith(".wasm"));
    assert.equal(emitted.length, 2, `emitted wasm: ${emitted}`);
  }
  assert.equal(wasm.length, 2, `fetched wasm: ${wasm}`);
  for (const u of wasm) assert.ok(u.startsWith(new URL(url).origin), u);
  assert.deepStrictEqual(problems, []);
  await page.close();
}

test("Vite: a production build of an app importing vramfit and vramfit/widget", async () => {
  const outDir = path.join(tmp, "vite-dist");
  await viteBuild({
    root: project,
    base: "./",
    logLevel: "silent",
    configFile: false,
    // Top-level await (the package's entry waits for its module) needs an ES2022 target.
    build: { outDir, emptyOutDir: true, target: "es2022" },
  });
  await check(`${base}vite-dist/index.html`, outDir);
});

test("Vite: the dev server, with no configuration", async () => {
  const dev = await createServer({
    root: project,
    logLevel: "silent",
    configFile: false,
    server: { host: "127.0.0.1", port: 0, strictPort: false },
  });
  await dev.listen();
  try {
    await check(dev.resolvedUrls.local[0], null);
  } finally {
    await dev.close();
  }
});

test("webpack 5: a production build of the same app", async () => {
  const outDir = path.join(tmp, "webpack-dist");
  const stats = await new Promise((resolve, reject) => {
    webpack({
      mode: "production",
      context: project,
      entry: "./src/main.js",
      output: { path: outDir, filename: "main.js", publicPath: "auto", clean: true },
      infrastructureLogging: { level: "error" },
      // The modules are large for webpack's default hint (244 KiB); a docs site loads them once.
      performance: { hints: false },
    }, (err, s) => (err ? reject(err) : resolve(s)));
  });
  assert.ok(!stats.hasErrors(), stats.toString({ all: false, errors: true }));
  assert.ok(!stats.hasWarnings(), stats.toString({ all: false, warnings: true }));
  writeFileSync(path.join(outDir, "index.html"), `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>webpack</title></head>
<body><script src="main.js"></script></body></html>`);
  await check(`${base}webpack-dist/index.html`, outDir);
});
