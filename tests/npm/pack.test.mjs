// The package as a user gets it: `npm pack`, then `npm install <tarball>` into a scratch project
// (offline: a local tarball with no dependencies needs no registry), then import it by name.
// Numbers are checked against hand calculations written here.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

const pkgDir = process.env.VRAMFIT_NPM_DIR ?? path.resolve("target/npm");
const tmp = mkdtempSync(path.join(os.tmpdir(), "vramfit-pack-"));
const project = path.join(tmp, "project");
let packed;

function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });
}

before(() => {
  const out = JSON.parse(npm(["pack", "--json", "--pack-destination", tmp, pkgDir], tmp));
  packed = out[0];
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  npm(["install", "--offline", "--no-audit", "--no-fund", path.join(tmp, packed.filename)], project);
});

test("the tarball holds only what ships", () => {
  const files = packed.files.map((f) => f.path).sort();
  assert.deepStrictEqual(files, [
    "README.md",
    "full.d.ts",
    "full.js",
    "hub.d.ts",
    "hub.js",
    "index.d.ts",
    "index.js",
    "load.js",
    "package.json",
    "vramfit.d.ts",
    "vramfit.js",
    "vramfit_bg.wasm",
    "vramfit_full.d.ts",
    "vramfit_full.js",
    "vramfit_full_bg.wasm",
    "widget.d.ts",
    "widget.js",
  ]);
  const dry = JSON.parse(npm(["pack", "--dry-run", "--json", pkgDir], tmp))[0];
  assert.deepStrictEqual(dry.files.map((f) => f.path).sort(), files);
  const pj = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  assert.equal(pj.name, "vramfit");
  assert.equal(pj.type, "module");
  assert.match(pj.version, /^\d+\.\d+\.\d+/);
  assert.deepStrictEqual(Object.keys(pj.exports).slice(0, 3), [".", "./full", "./widget"]);
  // Every entry loads a module at import: a bundler that thought index.js pure would keep its
  // re-exports and drop the loading (bundlers.test.mjs caught that with Vite and webpack).
  assert.deepStrictEqual(pj.sideEffects, ["./index.js", "./full.js", "./widget.js"]);
});

// The budgets: the package's wasm (what `import "vramfit"` loads: the estimator with every
// catalog) under 336,000 B gzip (Node's zlib); the widget's whole download under 344,000 B gzip. `vramfit/full`
// (every function in one module) is larger and is held to a ceiling by `cargo xtask size`.
test("size budget: the main module < 336,000 B gzip with every catalog; the widget's download < 344,000 B", () => {
  const gz = (f) => zlib.gzipSync(readFileSync(path.join(pkgDir, f)), { level: 9 }).length;
  const raw = (f) => readFileSync(path.join(pkgDir, f)).length;
  const wasm = gz("vramfit_bg.wasm");
  const widget = ["vramfit_bg.wasm", "vramfit.js", "index.js", "load.js", "widget.js"].map(gz).reduce((a, b) => a + b);
  console.log(`vramfit_bg.wasm ${raw("vramfit_bg.wasm")} B raw, ${wasm} B gzip; vramfit_full_bg.wasm ${raw("vramfit_full_bg.wasm")} B raw, ${gz("vramfit_full_bg.wasm")} B gzip; widget download ${widget} B gzip`);
  assert.ok(wasm < 336_000, `the main module is ${wasm} B gzip`);
  assert.ok(widget < 344_000, `the widget is ${widget} B gzip`);
});

function run(script) {
  const file = path.join(project, `check-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, script);
  return JSON.parse(execFileSync(process.execPath, [file], { cwd: project, encoding: "utf8" }));
}

test("the installed package computes the guide's numbers", () => {
  const r = run(`
    import { estimate, version, gpus, models, offers, platforms } from "vramfit";
    import { searchModels } from "vramfit/full";
    const q = estimate({ params: "7B", dtype: "fp16" });
    const l = estimate({ model: "meta-llama/Llama-3.1-8B" });
    const i4 = estimate({ params: "7B", quantization: { format: "gptq", bits: 4, group_size: 128 } });
    const s4 = estimate({ model: "meta-llama/Llama-3.1-8B", quantization: "gptq" });
    const o4 = estimate({ model: "meta-llama/Llama-3.1-8B", quantization: { format: "gptq", bits: 4, group_size: 128 } });
    console.log(JSON.stringify({ version: version(), weights: q.weights_bytes, quick: q.quick, kv: l.kv_bytes_per_token,
      params: l.params, lweights: l.weights_bytes, gpus: gpus().length, models: models().length, offers: offers().length,
      h100: gpus().find((g) => g.id === "h100-sxm5-80gb").memory_bytes, q4: i4.quick,
      platforms: platforms().length, found: searchModels("llama 3.1 8b").map((m) => m.id),
      gptqString: s4.weights_bytes, gptqObject: o4.weights_bytes }));
  `);
  const pj = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  assert.equal(r.version, pj.version);
  // Guide: 7B fp16 weights = 7e9 × 2 B = 14 GB.
  assert.equal(r.weights, 14_000_000_000);
  // Llama-3.1-8B: 8 KV heads × 128 head_dim × 32 layers × 2 (K and V) × 2 B (bf16) = 131,072 B/token.
  assert.equal(r.kv, 8 * 128 * 32 * 2 * 2);
  assert.equal(r.kv, 131_072);
  // 8,030,261,248 parameters (the published count) × 2 B.
  assert.equal(r.params, 8_030_261_248);
  assert.equal(r.lweights, 16_060_522_496);
  // H100 SXM5: torch prints total_memory = 81090 MB (MiB) for the "80 GB" card: 79.19 GiB.
  assert.equal(r.h100, 81090 * 2 ** 20);
  assert.ok(r.gpus >= 30 && r.models >= 40 && r.offers > 0 && r.platforms > 0);
  assert.ok(r.found.includes("meta-llama/Llama-3.1-8B"), `search: ${r.found}`);
  // The CLI's spelling "gptq" reads as GPTQ 4-bit in groups of 128, the object form's weights,
  // which are well under the bf16 16,060,522,496 B (a quarter of the bytes plus scales, zeros
  // and the unquantized embeddings and head).
  assert.equal(r.gptqString, r.gptqObject);
  assert.ok(r.gptqString < 16_060_522_496 / 2, `gptq weights ${r.gptqString}`);
});

test("errors are Errors that name the field", () => {
  const r = run(`
    import { estimate } from "vramfit";
    import { planMig, parseConfig, recommend } from "vramfit/full";
    const msg = (f) => { try { f(); return null; } catch (e) { return { isError: e instanceof Error, message: e.message, zh: e.message_zh }; } };
    console.log(JSON.stringify({
      batch: msg(() => estimate({ params: "7B", batch: 0 })),
      wrongType: msg(() => estimate({ params: "7B", seq_len: "long" })),
      unknown: msg(() => estimate({ params: "7B", seqLen: 4096 })),
      mode: msg(() => estimate({ params: "7B", mode: "flying" })),
      quant: msg(() => estimate({ params: "7B", quantization: "gguf-q9" })),
      // NaN and infinities, which JSON.stringify would write as null (and an optional field
      // would then read as absent), at the top and nested.
      nan: msg(() => estimate({ params: "7B", max_model_len: NaN })),
      inf: msg(() => estimate({ params: "7B", batch: -Infinity })),
      options: msg(() => recommend({ params: "7B" }, { cny_per_usd: Infinity })),
      nested: msg(() => estimate({ arch: { num_layers: 32, hidden_size: NaN } })),
      model: msg(() => estimate({ model: "no/such-model" })),
      gpu: msg(() => planMig("rtx-4090", [{ memory: "10GB" }])),
      config: msg(() => parseConfig("{")),
      maxGpus: msg(() => recommend({ params: "7B" }, { max_gpus: 0 })),
      // Every field in range, the run past 2^53 B (where JavaScript numbers stop being exact):
      // 3 × 32 heads × (2^22)^2 × 6 B of eager attention scores = 9 PiB.
      huge: msg(() => estimate({ model: "meta-llama/Llama-3.1-8B", engine: "hf", attention: "eager", batch: 3, seq_len: 4194304 })),
    }));
  `);
  for (const [k, v] of Object.entries(r)) {
    assert.ok(v, `${k} threw`);
    assert.ok(v.isError, `${k} threw an Error`);
  }
  assert.match(r.batch.message, /^batch: .*accepted: /);
  assert.match(r.wrongType.message, /^seq_len: invalid type/);
  assert.match(r.unknown.message, /^seqLen: unknown field/);
  assert.match(r.mode.message, /^mode: unknown variant `flying`/);
  // The string form's error says what the core's parser accepts, once.
  assert.match(r.quant.message, /^quantization: unknown GGUF type `q9`; accepted: none, fp8, .*q4_k_m/);
  assert.doesNotMatch(r.quant.message, /accepted: .*accepted: /);
  assert.equal(r.nan.message, "max_model_len: NaN is not a finite number; accepted: a finite number");
  assert.equal(r.inf.message, "batch: -Infinity is not a finite number; accepted: a finite number");
  assert.equal(r.options.message, "cny_per_usd: Infinity is not a finite number; accepted: a finite number");
  assert.equal(r.nested.message, "hidden_size: NaN is not a finite number; accepted: a finite number");
  assert.match(r.model.message, /^model: /);
  assert.match(r.gpu.message, /^gpu: rtx-4090 does not support MIG/);
  assert.match(r.config.message, /config/);
  assert.match(r.maxGpus.message, /^max_gpus: /);
  assert.match(r.huge.message, /^batch × seq_len: the run needs 8 PiB .*accepted: /);
  // The errors the estimator's input code writes in Chinese too carry it as `message_zh`, in the
  // site's form (field：problem。可接受：accepted。); others (serde's) have English alone.
  assert.equal(r.batch.zh, "batch：0 超出范围。可接受：整数，从 1 到 1048576。");
  assert.equal(r.quant.zh, undefined);
  assert.match(r.huge.zh, /^batch × seq_len：这次运行需要 8 PiB 或更多显存（最大的一项：\w+）。可接受：显存需求低于 8 PiB 的运行：/);
  assert.match(r.model.zh, /^model：没有这个预设模型：`no\/such-model`。可接受：/);
  assert.equal(r.gpu.zh, undefined);
  assert.equal(r.wrongType.zh, undefined);
});

test("the widget entry is exported and typed", () => {
  const dir = path.join(project, "node_modules/vramfit");
  assert.ok(existsSync(path.join(dir, "widget.js")));
  assert.match(readFileSync(path.join(dir, "widget.d.ts"), "utf8"), /"vramfit-calculator": VramfitCalculator/);
});
