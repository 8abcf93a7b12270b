// The package's TypeScript types under `tsc --strict`: a consumer that uses every function
// compiles; a file of wrong uses fails on exactly the lines marked; and the real results of
// every function, written as literals of their declared types, compile (so the generated types
// match what the functions return, field for field: a missing or an extra field is an error).
//
// Env: VRAMFIT_NPM_DIR (the built package), VRAMFIT_TSC (node_modules/.bin/tsc).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.resolve(process.env.VRAMFIT_NPM_DIR ?? "target/npm");
const tsc = process.env.VRAMFIT_TSC ?? path.resolve("node_modules/.bin/tsc");
const vf = await import(pathToFileURL(path.join(pkgDir, "index.js")).href);
const full = await import(pathToFileURL(path.join(pkgDir, "full.js")).href);

// A scratch ES-module project where `vramfit` resolves to the built package.
const project = mkdtempSync(path.join(os.tmpdir(), "vramfit-tsc-"));
mkdirSync(path.join(project, "node_modules"));
symlinkSync(pkgDir, path.join(project, "node_modules/vramfit"), "dir");
writeFileSync(path.join(project, "package.json"), JSON.stringify({ type: "module", private: true }));

function typecheck(file) {
  const r = spawnSync(tsc, ["--strict", "--noEmit", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--lib", "es2022,dom", file], {
    cwd: project,
    encoding: "utf8",
  });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}

test("a strict consumer of every function compiles", () => {
  cpSync(path.join(here, "types/ok.ts"), path.join(project, "ok.ts"));
  const r = typecheck("ok.ts");
  assert.ok(r.ok, r.out);
});

test("wrong argument and result types are rejected, line by line", () => {
  const src = readFileSync(path.join(here, "types/bad.ts"), "utf8");
  writeFileSync(path.join(project, "bad.ts"), src);
  const r = typecheck("bad.ts");
  assert.ok(!r.ok, "bad.ts compiled");
  const marked = src.split("\n").flatMap((l, i) => (l.includes("// expect-error") ? [i + 1] : []));
  const failing = [...new Set([...r.out.matchAll(/bad\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])))];
  assert.deepStrictEqual(failing.sort((a, b) => a - b), marked, r.out);
});

test("real results type-check as their declared types", () => {
  const { cases } = JSON.parse(readFileSync(path.join(here, "cases.json"), "utf8"));
  const lit = (v) => JSON.stringify(v);
  const lines = [
    `import type { Estimate, EstimateInput, Solutions, Recommendation, MigResult, Diagnosis, ParsedConfig, GgufHeader, Gpu, Preset, Offer, Platform } from "vramfit";`,
  ];
  cases.forEach((c, i) => {
    lines.push(`export const in${i}: EstimateInput = ${lit(c.input)};`);
    lines.push(`export const e${i}: Estimate = ${lit(vf.estimate(c.input))};`);
  });
  const serve = { model: "Qwen/Qwen2.5-7B-Instruct", mode: "serve", engine: "vllm", gpu: "a100-sxm4-80gb" };
  lines.push(`export const s: Solutions = ${lit(vf.solve(serve))};`);
  lines.push(`export const r: Recommendation = ${lit(full.recommend({ model: "meta-llama/Llama-3.1-70B" }, { limit: 0, spot: true }))};`);
  lines.push(`export const m: MigResult = ${lit(full.planMig("a100-sxm4-80gb", [{ memory: "36GiB" }, { model: "Qwen/Qwen2.5-7B-Instruct" }]))};`);
  const cfg = full.parseConfig(JSON.stringify({ model_type: "llama", vocab_size: 128256, hidden_size: 4096, num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, intermediate_size: 14336, torch_dtype: "bfloat16" }));
  assert.equal(vf.estimate({ arch: cfg.arch }).params, 8_030_261_248);
  lines.push(`export const c: ParsedConfig = ${lit(cfg)};`);
  const texts = [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.07 GiB is free. Of the allocated memory 20.1 GiB is allocated by PyTorch, and 1.9 GiB is reserved by PyTorch but unallocated.",
    "hello",
  ];
  texts.forEach((t, i) => lines.push(`export const d${i}: Diagnosis = ${lit(full.diagnose(t))};`));
  lines.push(`export const g: Gpu[] = ${lit(vf.gpus())};`);
  lines.push(`export const p: Preset[] = ${lit(vf.models())};`);
  lines.push(`export const o: Offer[] = ${lit(vf.offers())};`);
  lines.push(`export const pl: Platform[] = ${lit(vf.platforms())};`);
  writeFileSync(path.join(project, "results.ts"), lines.join("\n") + "\n");
  const r = typecheck("results.ts");
  assert.ok(r.ok, r.out.slice(0, 4000));
});
