// `fetchModel` (vramfit/full) against the mock hub (tests/hub): the same model and checkpoint as
// the CLI's `vramfit estimate --hub --json` (both run the crate's `vramfit::hub::Lookup`), the
// exact weights of each kind of repo, ModelScope's shape, a GGUF file at an address, an Ollama
// registry tag, every failure, and nothing fetched before it is called.
//
// Env: VRAMFIT_NPM_DIR (the built package), VRAMFIT_CLI (target/debug/vramfit), VRAMFIT_HUB_URL
// (the mock hub, started by `cargo xtask npm-test` / `cargo xtask test`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const hubUrl = process.env.VRAMFIT_HUB_URL;
assert.ok(hubUrl, "VRAMFIT_HUB_URL names the mock hub (cargo xtask starts it)");
const log = async () => (await fetch(`${hubUrl}/__mock/log`)).json();
await fetch(`${hubUrl}/__mock/clear`);

const pkgDir = process.env.VRAMFIT_NPM_DIR ?? path.resolve("target/npm");
const cli = process.env.VRAMFIT_CLI ?? path.resolve("target/debug/vramfit");
const full = await import(pathToFileURL(path.join(pkgDir, "full.js")).href);
const vf = await import(pathToFileURL(path.join(pkgDir, "index.js")).href);
const { fetchModel, repoId, estimate } = full;

test("loading the package fetches nothing from the hub", async () => {
  assert.deepEqual(await log(), []);
  assert.equal(typeof fetchModel, "function");
  assert.equal(vf.fetchModel, undefined, "the main module stays the estimator alone");
});

const cache = mkdtempSync(path.join(os.tmpdir(), "vramfit-npm-hub-"));
function cliHub(repo, extra = []) {
  const out = execFileSync(cli, ["estimate", "--model", repo, "--hub", "--hub-endpoint", hubUrl, "--hub-refresh", "--json", ...extra], {
    encoding: "utf8",
    env: { ...process.env, VRAMFIT_CACHE_DIR: cache },
  });
  return JSON.parse(out);
}

// Qwen2 0.5B's projections (out, in): q, k, v, o, gate, up, down; 24 layers, vocabulary 151936.
const L05 = [[896, 896], [128, 896], [128, 896], [896, 896], [4864, 896], [4864, 896], [896, 4864]];
const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);

// Each repo with its checkpoint's bytes, by hand from its tensor shapes (as in cli_hub.rs).
const repos = [
  // bf16: 2 bytes per parameter; hidden 2048, 16 + 2 heads of 128, intermediate 11008, 36 layers.
  ["Qwen/Qwen2.5-3B-Instruct", 2 * (151936 * 2048 + 36 * (2048 * 2048 + 2048 + 2 * (256 * 2048 + 256) + 2048 * 2048 + 3 * 2048 * 11008 + 2 * 2048) + 2048)],
  // AWQ: qweight in·out/2, qzeros in·out/256, scales in·out/64; F16 embedding, biases, norms.
  ["Qwen/Qwen2.5-0.5B-Instruct-AWQ", 151936 * 896 * 2 + 896 * 2 + 24 * (sum(L05, ([o, i]) => i * o / 2 + i * o / 256 + i * o / 64) + 1152 * 2 + 2 * 896 * 2)],
  // FP8: a byte per weight, an F32 scale per 128×128 block; BF16 embedding, norms.
  ["Qwen/Qwen3-0.6B-FP8", 151936 * 1024 * 2 + 1024 * 2 + 28 * (15728640 + 960 * 4 + 2 * 128 * 2 + 2 * 1024 * 2)],
  // bnb NF4, double quantization: weight, absmax, nested absmax, the two maps, the quant state.
  ["unsloth/Qwen2.5-0.5B-Instruct-bnb-4bit", 151936 * 896 * 2 + 896 * 2 + 24 * (sum(L05, ([o, i]) => o * i / 2 + o * i / 64 + Math.ceil(o * i / 64 / 256) * 4 + 1024 + 64 + (Math.max(o, i) === 4864 ? 164 : 163)) + 1152 * 2 + 2 * 896 * 2)],
  // GGUF Q4_K_M: Q5_0, Q8_0, Q6_K, Q4_K and F32, as llama.cpp typed them.
  ["Qwen/Qwen2.5-0.5B-Instruct-GGUF", (24 * (896 * 896 * 2 + 128 * 896 + 2 * 4864 * 896) + 12 * 128 * 896) / 32 * 22 + (151936 * 896 + 12 * 128 * 896) / 32 * 34 + 12 * 4864 * 896 / 256 * (210 + 144) + (24 * (3 * 896 + 256) + 896) * 4],
];

for (const [repo, bytes] of repos) {
  test(`fetchModel gives the CLI's model and the exact checkpoint: ${repo}`, async () => {
    const m = await fetchModel(repo, { endpoint: hubUrl });
    assert.equal(m.checkpoint.bytes, bytes);
    const fromCli = cliHub(repo);
    const { input, ...jsModel } = m;
    assert.deepStrictEqual(jsModel, fromCli.hub);
    // The model estimates as the CLI's: the same weights.
    const e = estimate({ ...input });
    assert.equal(e.weights_bytes, fromCli.weights_bytes);
    assert.equal(e.total_bytes, fromCli.total_bytes);
    if (repo.endsWith("GGUF")) assert.equal(input.engine, "llamacpp");
  });
}

test("the estimate's weights are the checkpoint's for bf16, AWQ and GGUF", async () => {
  for (const repo of ["Qwen/Qwen2.5-3B-Instruct", "Qwen/Qwen2.5-0.5B-Instruct-AWQ", "Qwen/Qwen2.5-0.5B-Instruct-GGUF"]) {
    const m = await fetchModel(repo, { endpoint: hubUrl });
    assert.equal(estimate(m.input).weights_bytes, m.checkpoint.bytes, repo);
  }
});

// Issue 42's model types through the hub (the fixtures of crates/vramfit-cli/tests/cli_hub_types.rs,
// which checks every one in each engine): the package reads each as the CLI does, and four kinds
// of attention estimate to the hand figures below in transformers, vLLM and SGLang.
const TYPES = [
  "Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3.5-9B", "Qwen/Qwen3.5-35B-A3B", "google/gemma-4-e2b-it",
  "google/gemma-3n-E4B-it", "zai-org/GLM-5.3-Flash", "zai-org/GLM-5", "deepseek-ai/DeepSeek-V3.2",
  "deepseek-ai/DeepSeek-V4-Flash", "moonshotai/Kimi-K2.5", "moonshotai/Kimi-Linear-48B-A3B-Instruct",
  "MiniMaxAI/MiniMax-M2", "mistralai/Mistral-Small-4-119B-2603", "nvidia/Nemotron-H-8B-Base-8K",
  "ibm-granite/granite-4.0-h-tiny", "tiiuae/Falcon-H1-0.5B-Instruct", "LiquidAI/LFM2-1.2B",
  "allenai/Olmo-3-1025-7B", "allenai/Olmo-Hybrid-7B", "stepfun-ai/Step-3.5-Flash",
  "ByteDance-Seed/Seed-OSS-36B-Instruct", "HuggingFaceTB/SmolLM3-3B", "baidu/ERNIE-4.5-21B-A3B-PT",
  "zai-org/GLM-4.5-Air", "bigcode/starcoder", "Qwen/Qwen3-VL-8B-Instruct", "OpenGVLab/InternVL3-8B-hf",
];

test("every model type of issue 42 is read from the hub as the CLI reads it", async () => {
  const types = new Set();
  for (const repo of TYPES) {
    const m = await fetchModel(repo, { endpoint: hubUrl });
    const fromCli = cliHub(repo);
    const { input, ...jsModel } = m;
    assert.deepStrictEqual(jsModel, fromCli.hub, repo);
    const e = estimate({ ...input });
    assert.equal(e.params, fromCli.params, repo);
    assert.equal(e.weights_bytes, fromCli.weights_bytes, repo);
    assert.equal(e.total_bytes, fromCli.total_bytes, repo);
    types.add(m.model.model_type);
  }
  assert.equal(types.size, 27, [...types].join(", "));
});

// Per Gated DeltaNet layer in transformers: a bf16 convolution state of 2 × 16 key heads × 128 +
// 32 value heads × 128 = 8,192 channels × kernel 4 × 2 B, and an fp32 state of 32 × 128 × 128 × 4 B.
const GDN = 8192 * 4 * 2 + 32 * 128 * 128 * 4;
const KINDS = [
  // Linear attention: 12 attention layers of 48 (every 4th) × 2 (K, V) × 2 KV heads × 256 × 2 B;
  // 36 Gated DeltaNet layers. transformers' count, tests/reference/hybrid-reference.csv.
  { repo: "Qwen/Qwen3-Next-80B-A3B-Instruct", params: 79674391296, kv: 12 * 2 * 2 * 256 * 2, state: 36 * GDN },
  // State-space: 4 attention layers × 2 × 8 × 128 × 2 B; 24 Mamba2 layers of a bf16 convolution
  // state of 128 heads × 64 + 2 × 8 groups × 128 = 10,240 channels × 4 × 2 B and an fp32 SSM state
  // of 128 × 64 × 128 × 4 B.
  { repo: "nvidia/Nemotron-H-8B-Base-8K", params: 8100852736, kv: 4 * 2 * 8 * 128 * 2, state: 24 * (10240 * 4 * 2 + 128 * 64 * 128 * 4) },
  // Indexed MLA: 61 layers of the latent 512 and rotary key 64 and the indexer's key 128, all bf16
  // in transformers (61 × 704 × 2 B); vLLM and SGLang keep the indexer's key in fp8 with a 4 B
  // scale (61 × (576 × 2 + 132)). tests/reference/attention-reference.csv, state_dict.
  { repo: "deepseek-ai/DeepSeek-V3.2", params: 671877944064, kv: 61 * 704 * 2, serveKv: 61 * (576 * 2 + 132) },
  // A vision wrapper: InternViT-300M and the projector counted with Qwen2.5-7B's text model;
  // Qwen2.5-7B's cache, 28 × 2 × 4 KV heads × 128 × 2 B. families-reference.csv internvl3-8b.
  { repo: "OpenGVLab/InternVL3-8B-hf", params: 7944373760, kv: 28 * 2 * 4 * 128 * 2 },
];

for (const k of KINDS) {
  test(`through the hub in transformers, vLLM and SGLang: ${k.repo}`, async () => {
    const m = await fetchModel(k.repo, { endpoint: hubUrl });
    const run = { seq_len: 4096, new_tokens: 0, batch: 1, gpu: "h200-sxm-141gb" };
    const part = (e, key) => e.components.find((c) => c.key === key)?.bytes;
    // Both languages: the config's notes in Chinese, one for one.
    assert.equal(m.notes_zh.length, m.model.notes.length);
    assert.ok(m.notes_zh.every((n) => /[\u4e00-\u9fff]/.test(n)), m.notes_zh.join("; "));
    const hf = estimate({ ...m.input, ...run, engine: "hf", mode: "inference" });
    assert.equal(hf.params, k.params);
    assert.ok(/[\u4e00-\u9fff]/.test(hf.components.find((c) => c.key === "weights").formula_zh));
    assert.equal(hf.weights_bytes, 2 * k.params, "bf16");
    assert.equal(hf.kv_bytes_per_token, k.kv);
    assert.equal(part(hf, "kv_cache"), 4096 * k.kv);
    assert.equal(part(hf, "state_cache"), k.state);
    for (const engine of ["vllm", "sglang"]) {
      const e = estimate({ ...m.input, ...run, engine, mode: "serve" });
      assert.equal(e.params, k.params, engine);
      assert.equal(e.kv_bytes_per_token, k.serveKv ?? k.kv, engine);
    }
  });
}

// EmbeddingGemma (gemma3_text with use_bidirectional_attention, float32): an encoder. transformers
// fills the DynamicCache its use_cache asks for, 24 layers × 2 × 1 KV head × 256 × 4 B × 32 × 512
// prompt tokens = 805,306,368 B; vLLM (EncoderOnlyAttention) sizes no KV pool; SGLang is refused.
test("EmbeddingGemma through the hub: no KV pool in vLLM, transformers' cache by hand", async () => {
  const m = await fetchModel("google/embeddinggemma-300m", { endpoint: hubUrl });
  assert.equal(m.model.arch.bidirectional, true);
  const run = { seq_len: 512, batch: 32, gpu: "h100-sxm5-80gb" };
  const part = (e, key) => e.components.find((c) => c.key === key)?.bytes;
  const hf = estimate({ ...m.input, ...run, engine: "hf", mode: "inference" });
  assert.equal(hf.params, 302863104);
  assert.equal(part(hf, "kv_cache"), 805306368);
  const vllm = estimate({ ...m.input, ...run, engine: "vllm", mode: "serve" });
  assert.equal(part(vllm, "kv_cache"), 0);
  assert.equal(vllm.kv_cache_tokens, 0);
  assert.throws(() => estimate({ ...m.input, ...run, engine: "sglang", mode: "serve" }), (e) => e.field === "engine");
});

test("only headers are read: every weights request is a range inside the header", async () => {
  await fetch(`${hubUrl}/__mock/clear`);
  await fetchModel("Qwen/Qwen2.5-3B-Instruct", { endpoint: hubUrl });
  await fetchModel("unsloth/Qwen2.5-0.5B-Instruct-bnb-4bit", { endpoint: hubUrl });
  const l = await log();
  const weights = l.filter((r) => /\.safetensors$/.test(r.target));
  assert.ok(weights.length >= 6);
  for (const r of weights) {
    assert.match(r.range ?? "", /^bytes=\d+-\d+$/, r.target);
    assert.equal(r.data_bytes, 0, r.target);
  }
  assert.deepEqual(l.filter((r) => r.data_bytes > 0), []);
});

test("ModelScope's API gives the same model", async () => {
  await fetch(`${hubUrl}/__mock/clear`);
  const hf = await fetchModel("Qwen/Qwen3-0.6B-FP8", { endpoint: hubUrl });
  const ms = await fetchModel("Qwen/Qwen3-0.6B-FP8", { endpoint: hubUrl, hub: "modelscope" });
  assert.deepStrictEqual(ms.checkpoint, hf.checkpoint);
  assert.deepStrictEqual(ms.model, hf.model);
  assert.deepStrictEqual(ms.hub, { kind: "modelscope", endpoint: hubUrl });
  assert.equal(ms.revision, "master");
  const l = await log();
  assert.ok(l.some((r) => r.target.startsWith("/api/v1/models/Qwen/Qwen3-0.6B-FP8/repo/files?Revision=master")));
  assert.ok(l.some((r) => r.target.includes("repo?Revision=master&FilePath=config.json")));
});

test("a GGUF file is chosen by a part of its name", async () => {
  const m = await fetchModel("Qwen/Qwen2.5-0.5B-Instruct-GGUF", { endpoint: hubUrl, file: "q8_0" });
  assert.deepEqual(m.checkpoint.files, ["qwen2.5-0.5b-instruct-q8_0.gguf"]);
  assert.equal(m.model.quantization.file_type, "Q8_0");
});

// The GGUF file of the mock's Qwen2.5 0.5B repo, at its CDN address, and its bytes (above).
const GGUF_AT = (hub) => `${hub}/__cdn/Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf`;
const Q4KM_BYTES = repos.at(-1)[1];

test("a GGUF file at an address is read by Range alone, the CLI's model", async () => {
  await fetch(`${hubUrl}/__mock/clear`);
  const m = await fetchModel(GGUF_AT(hubUrl));
  assert.equal(m.hub.kind, "url");
  assert.equal(m.checkpoint.bytes, Q4KM_BYTES);
  assert.equal(m.input.engine, "llamacpp");
  const { input, ...jsModel } = m;
  // The CLI reads an address without `--hub`.
  const out = execFileSync(cli, ["estimate", "--model", GGUF_AT(hubUrl), "--json"], {
    encoding: "utf8",
    env: { ...process.env, VRAMFIT_CACHE_DIR: cache },
  });
  assert.deepStrictEqual(jsModel, JSON.parse(out).hub);
  for (const r of (await log()).filter((r) => r.target.endsWith(".gguf"))) {
    assert.match(r.range ?? "", /^bytes=\d+-\d+$/, r.target);
  }
});

test("an Ollama tag is read through its manifest to the model blob, and runs on Ollama", async () => {
  await fetch(`${hubUrl}/__mock/clear`);
  const m = await fetchModel("qwen2.5:0.5b", { hub: "ollama", endpoint: hubUrl });
  assert.equal(m.repo, "library/qwen2.5:0.5b");
  assert.equal(m.revision, "0.5b");
  assert.equal(m.files_read[0], "manifest");
  assert.equal(m.checkpoint.bytes, Q4KM_BYTES);
  assert.equal(m.input.engine, "ollama");
  assert.ok(m.model.notes.some((n) => n.includes("vision projector (mmproj)")), m.model.notes.join("; "));
  const l = await log();
  assert.equal(l[0].target, "/v2/library/qwen2.5/manifests/0.5b");
  assert.ok(estimate({ ...m.input, gpu_memory: "24GB" }).total_bytes > Q4KM_BYTES);
});

// A rejection of field `hub`, of the package's error `kind` (any where `null`), in Chinese as
// well, with each check (a function) and each text (a string) of `says`.
async function rejects(promise, kind, ...says) {
  await assert.rejects(promise, (e) => {
    if (kind !== null) assert.equal(e.kind, kind, e.message);
    assert.equal(e.field, "hub");
    assert.match(e.message, /^hub: .*; accepted: /s);
    assert.ok(/[\u4e00-\u9fff]/.test(e.message_zh ?? ""), `no Chinese: ${e.message}`);
    for (const s of says) {
      if (typeof s === "function") s(e);
      else assert.ok(e.message.includes(s), `${s} not in ${e.message}`);
    }
    return true;
  });
}

test("each failure names the repo and what to do", async () => {
  const o = { endpoint: hubUrl };
  const status = (n) => (e) => assert.equal(e.status, n, e.message);
  const failure = (f) => (e) => assert.equal(e.failure, f, e.message);
  await rejects(fetchModel("meta-llama/Llama-3.1-8B", o), "hub", status(401), "`meta-llama/Llama-3.1-8B`", "is gated: HTTP 401 for config.json", "accept its licence");
  await rejects(fetchModel("Qwen/Qwen9-404B", o), "hub", status(401), "`Qwen/Qwen9-404B` is not on", "does not exist, or it is private");
  await rejects(fetchModel("mock/rate-limited", o), "hub", status(429), "HTTP 429", "wait 30 s");
  await rejects(fetchModel("mock/slow", { ...o, timeout: 1000 }), "hub", failure("timeout"), "did not answer within 1 s", "`mock/slow`");
  await rejects(fetchModel("mock/huge-header", o), "hub", "model.safetensors of `mock/huge-header`", "104857600 bytes, over the 64 MiB");
  await rejects(fetchModel("state-spaces/mamba-130m-hf", o), null, "`state-spaces/mamba-130m-hf`", "config.json: num_attention_heads: missing: `mamba` is not a model_type vramfit names");
  await rejects(fetchModel("Qwen/Qwen2.5-0.5B-Instruct-GGUF", { ...o, file: "IQ1" }), "unknown_name", "no GGUF file matching `IQ1`");
  await rejects(fetchModel("not a repo", o), null, "`not a repo` is not a repo id");
  await rejects(fetchModel("a/b", { endpoint: "huggingface.co" }), "malformed", "is not the address of a hub");
  await rejects(fetchModel("Qwen/Qwen3-0.6B-FP8", { endpoint: "http://127.0.0.1:9" }), "hub", failure("network"), "could not be reached");
  // The CLI says the same.
  assert.throws(() => cliHub("mock/huge-header"), (e) => e.status === 2 && e.stderr.includes("104857600 bytes, over the 64 MiB"));
});

test("repo ids as the hubs write them", () => {
  assert.equal(repoId("https://huggingface.co/Qwen/Qwen3-0.6B-FP8/tree/main"), "Qwen/Qwen3-0.6B-FP8");
  assert.equal(repoId("https://www.modelscope.cn/models/Qwen/Qwen3-0.6B"), "Qwen/Qwen3-0.6B");
  assert.throws(() => repoId("a--b/c"), /is not a repo id/);
});
