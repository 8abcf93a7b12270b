// The package gives the same numbers as the CLI: every case of cases.json is run both ways and
// the whole estimate must be identical (bit-identical bytes, the same formulas and notes).
//
// Env: VRAMFIT_NPM_DIR (the built package, target/npm), VRAMFIT_CLI (target/debug/vramfit).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const pkgDir = process.env.VRAMFIT_NPM_DIR ?? path.resolve("target/npm");
const cli = process.env.VRAMFIT_CLI ?? path.resolve("target/debug/vramfit");
const vf = await import(pathToFileURL(path.join(pkgDir, "index.js")).href);
// recommend, planMig and diagnose are in `vramfit/full`, whose module also gives every estimate.
const full = await import(pathToFileURL(path.join(pkgDir, "full.js")).href);
const { cases } = JSON.parse(readFileSync(new URL("./cases.json", import.meta.url), "utf8"));

function runCli(args) {
  return JSON.parse(execFileSync(cli, ["estimate", ...args, "--json"], { encoding: "utf8" }));
}

for (const c of cases) {
  test(`same estimate as the CLI: ${c.name}`, () => {
    const fromCli = runCli(c.args);
    const solutions = fromCli.solutions;
    delete fromCli.solutions;
    const fromJs = vf.estimate(c.input);
    // The headline figures first, for a readable failure.
    for (const k of ["weights_bytes", "kv_cache_bytes", "activations_bytes", "peak_allocated_bytes", "total_bytes", "recommended_bytes", "required_bytes"]) {
      assert.equal(fromJs[k], fromCli[k], `${k}`);
      assert.ok(Number.isSafeInteger(fromJs[k]), `${k} is an exact integer number`);
    }
    assert.deepStrictEqual(fromJs, fromCli);
    if (solutions) {
      assert.deepStrictEqual(vf.solve(c.input), solutions);
    }
    // The full module computes with the same core: the same estimate.
    assert.deepStrictEqual(full.estimate(c.input), fromCli);
  });
}

test("recommend ranks the same options as the CLI", () => {
  const args = ["--model", "meta-llama/Llama-3.1-70B", "--limit", "5", "--json"];
  const fromCli = JSON.parse(execFileSync(cli, ["recommend", ...args], { encoding: "utf8" }));
  const r = full.recommend({ model: "meta-llama/Llama-3.1-70B" }, { limit: 5 });
  assert.deepStrictEqual(r.estimate, fromCli.estimate);
  assert.deepStrictEqual(r.options, fromCli.options);
  assert.ok(r.options.length > 0 && r.options.length <= 5);
  // 70B in bf16 is 141 GB of weights: no single 80 GB card holds it.
  assert.ok(r.options.every((o) => o.count > 1 || o.usable_bytes > 141e9));
});

test("planMig packs the same slices as the CLI", () => {
  const fromCli = JSON.parse(
    execFileSync(cli, ["mig", "--gpu", "a100-sxm4-80gb", "--job", "debug=36GiB", "--job", "16GiB", "--job", "16GiB", "--json"], { encoding: "utf8" }),
  );
  const r = full.planMig("a100-sxm4-80gb", [{ name: "debug", memory: "36GiB" }, { memory: "16GiB" }, { memory: "16GiB" }]);
  const { jobs, ...plan } = fromCli;
  assert.deepStrictEqual(r.plan, plan);
  assert.deepStrictEqual(r.jobs, jobs);
  // Guide §5.3: one card as 3g.40gb + 2 × 2g.20gb.
  assert.deepStrictEqual(r.plan.cards[0].slices.map((s) => s.profile).sort(), ["2g.20gb", "2g.20gb", "3g.40gb"]);
  assert.equal(r.jobs[0].bytes, 36 * 2 ** 30);
});

test("diagnose reads a PyTorch OOM as the CLI does", () => {
  const text = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 4.25 MiB is free. Including non-PyTorch memory, this process has 79.14 GiB memory in use. Of the allocated memory 78.23 GiB is allocated by PyTorch, and 405.52 MiB is reserved by PyTorch but unallocated.";
  const fromCli = JSON.parse(execFileSync(cli, ["diagnose", "--json", "-"], { input: text, encoding: "utf8" }));
  const d = full.diagnose(text);
  assert.deepStrictEqual(d, fromCli);
  assert.equal(d.kind, "capacity");
});

test("modelsOn and grid answer as the CLI's fits", () => {
  const fromCli = JSON.parse(
    execFileSync(cli, ["fits", "--gpu", "rtx-4090", "--engine", "llamacpp", "--all", "--json"], { encoding: "utf8" }),
  );
  const fromJs = full.modelsOn({ engine: "llamacpp" }, "rtx-4090");
  assert.deepStrictEqual(fromJs, fromCli);
  // The grid's cell for a model on the 4090 is that model's best format there.
  const g = full.grid({ engine: "llamacpp" }, ["rtx-4090", "h100-sxm5-80gb"]);
  assert.deepStrictEqual(g.gpus, ["rtx-4090", "h100-sxm5-80gb"]);
  assert.equal(g.cells.length, g.models.length * 2);
  for (const [m, model] of g.models.entries()) {
    const best = fromJs.find((r) => r.model === model && r.best);
    const cell = g.cells[m * 2];
    assert.deepStrictEqual(cell === null ? null : g.formats[cell], best ? best.format : null, model);
  }
  // Every card of the catalog when none are named.
  assert.equal(full.grid({}).gpus.length, full.gpus().length);
  assert.throws(() => full.grid({ model: "gpt2" }), /model: every preset is tried/);
  assert.throws(() => full.modelsOn({}, "no-such-card"), /gpu: no GPU named/);
  assert.throws(() => full.grid({}, ["rtx-4090", "nope"]), /gpuIds: no GPU named/);
});

test("recommend ranks a whole job as the CLI's --per-job", () => {
  const fromCli = JSON.parse(
    execFileSync(cli, ["recommend", "--model", "meta-llama/Llama-3.1-8B", "--per-job", "1M tokens", "--limit", "5", "--json"], { encoding: "utf8" }),
  );
  const r = full.recommend({ model: "meta-llama/Llama-3.1-8B" }, { limit: 5, per_job: "1M tokens" });
  assert.deepStrictEqual(r.jobs, fromCli.jobs);
  assert.equal(full.recommend({ model: "meta-llama/Llama-3.1-8B" }).jobs, undefined);
  assert.throws(() => full.recommend({ model: "meta-llama/Llama-3.1-8B" }, { per_job: "epoch:1M" }), /per_job: /);
});

test("launch writes the command the CLI writes, and readCommand reads it back", () => {
  const args = ["--model", "Qwen/Qwen3-32B", "--mode", "serve", "--engine", "vllm", "--gpu", "h100-sxm5-80gb", "--tp", "2", "--max-model-len", "32768"];
  const fromCli = JSON.parse(execFileSync(cli, ["launch", ...args, "--json"], { encoding: "utf8" }));
  const input = { model: "Qwen/Qwen3-32B", mode: "serve", engine: "vllm", gpu: "h100-sxm5-80gb", tp: 2, max_model_len: 32768 };
  const l = full.launch(input);
  assert.deepStrictEqual(l, fromCli);
  assert.deepStrictEqual(l.commands[0].slice(0, 5), ["vllm", "serve", "Qwen/Qwen3-32B", "--tensor-parallel-size", "2"]);
  const back = full.readCommand(`${l.commands[0].join(" ")} --port 8000`);
  assert.deepStrictEqual(back.not_read, ["--port", "8000"]);
  const again = full.estimate({ ...back.input, gpu: "h100-sxm5-80gb" });
  assert.deepStrictEqual(again, full.estimate(input));
  assert.throws(() => full.readCommand("docker run x"), (e) => e.kind === "unknown_name" && e.field === "command");
});

test("launch writes a fine-tuning run's stack files as the CLI does, and they read back into its estimate", () => {
  const input = { model: "meta-llama/Llama-3.1-8B", mode: "training", batch: 2, seq_len: 4096, lora_rank: 16, qlora: true, zero: 3, offload: "cpu", gpus: 4, gpu: "h100-sxm5-80gb" };
  const args = ["--model", "meta-llama/Llama-3.1-8B", "--mode", "training", "--batch", "2", "--seq-len", "4096", "--lora-rank", "16", "--qlora", "--zero", "3", "--offload", "cpu", "--gpus", "4", "--gpu", "h100-sxm5-80gb"];
  const fromCli = JSON.parse(execFileSync(cli, ["launch", ...args, "--json"], { encoding: "utf8" }));
  const l = full.launch(input);
  assert.deepStrictEqual(l, fromCli);
  assert.deepStrictEqual(l.files.map((f) => f.name), ["train.yaml", "ds_config.json"]);
  assert.deepStrictEqual(l.commands, [["trl", "sft", "--config", "train.yaml"]]);
  // The YAML, then the DeepSpeed JSON it names, read onto the card: the same estimate.
  const first = full.readTrainingConfig(l.files[0].text, { gpu: "h100-sxm5-80gb" });
  assert.deepStrictEqual(first.files, [{ key: "deepspeed", path: "ds_config.json" }]);
  const both = full.readTrainingConfig(l.files[1].text, first.input);
  assert.equal(full.estimate(both.input).peak_allocated_bytes, full.estimate(input).peak_allocated_bytes);
});

test("launch writes OpenRLHF's and Unsloth's commands as the CLI does", () => {
  const base = { model: "meta-llama/Llama-3.1-8B", mode: "training", gpu: "h100-sxm5-80gb", batch: 2, seq_len: 512, grad_checkpointing: "full" };
  const flags = ["--model", "meta-llama/Llama-3.1-8B", "--mode", "training", "--gpu", "h100-sxm5-80gb", "--batch", "2", "--seq-len", "512", "--grad-checkpointing"];
  // OpenRLHF's GRPO with vLLM on the policy's 4 GPUs: Ray's head, then `ray job submit`.
  const grpo = { ...base, stack: "openrlhf", gpus: 4, zero: 3, rl: "grpo", rollout: "colocate", num_generations: 8, max_completion_length: 1024, fused_optimizer: true };
  const grpoFlags = [...flags, "--stack", "openrlhf", "--gpus", "4", "--zero", "3", "--rl", "grpo", "--rollout", "colocate", "--num-generations", "8", "--max-completion-length", "1024", "--fused-optimizer"];
  const l = full.launch(grpo);
  assert.deepStrictEqual(l, JSON.parse(execFileSync(cli, ["launch", ...grpoFlags, "--json"], { encoding: "utf8" })));
  assert.deepStrictEqual(l.commands[0], ["ray", "start", "--head", "--port", "6379"]);
  assert.deepStrictEqual(l.commands[1].slice(0, 9), ["ray", "job", "submit", "--address", "http://127.0.0.1:8265", "--", "python3", "-m", "openrlhf.cli.train_ppo_ray"]);
  // 2 prompts × 8 samples per GPU: micro-batches of 16 sequences.
  const job = l.commands[1];
  assert.equal(job[job.indexOf("--train.micro_batch_size") + 1], "16");
  // Unsloth's unsloth-cli.py refuses AMP (the script trains bf16): the field is named.
  const unsloth = { ...base, seq_len: 2048, stack: "unsloth", lora_rank: 16, lora_targets: ["all-linear"] };
  assert.throws(() => full.launch(unsloth), (e) => e.kind === "unsupported" && e.field === "precision");
  assert.equal(full.launch({ ...unsloth, precision: "bf16" }).commands[0][1], "unsloth-cli.py");
});

test("readTrainingConfig reads a stack's file as the CLI's --config does", () => {
  const yaml = "model_name_or_path: Qwen/Qwen3-8B\nper_device_train_batch_size: 2\nmax_length: 2048\nuse_peft: true\nlora_r: 16\nload_in_4bit: true\nlearning_rate: 2.0e-4\n";
  const dir = mkdtempSync(path.join(tmpdir(), "vramfit-npm-"));
  const file = path.join(dir, "sft.yaml");
  writeFileSync(file, yaml);
  const fromCli = runCli(["--config", file]);
  const read = full.readTrainingConfig(yaml);
  assert.equal(read.format, "trl");
  assert.deepStrictEqual(read.not_read, ["learning_rate (line 7)"]);
  assert.deepStrictEqual(read.not_read, fromCli.config[0].not_read);
  assert.equal(full.estimate(read.input).peak_allocated_bytes, fromCli.peak_allocated_bytes);
  // Onto a given input: its card stays; the file's keys replace the rest.
  const onto = full.readTrainingConfig(yaml, { gpu: "rtx-4090", batch: 7 });
  assert.equal(onto.input.gpu, "rtx-4090");
  assert.equal(onto.input.batch, 2);
  // The object a DeepSpeed JSON parses to reads as its text does.
  const ds = { zero_optimization: { stage: 3, offload_param: { device: "cpu" }, offload_optimizer: { device: "cpu" } } };
  const asObject = full.readTrainingConfig(ds, read.input);
  assert.deepStrictEqual(asObject, full.readTrainingConfig(JSON.stringify(ds), read.input));
  assert.equal(asObject.input.zero, 3);
  assert.equal(asObject.input.offload, "cpu");
  assert.throws(
    () => full.readTrainingConfig("output_dir: o\nper_device_train_batch_size: x\n"),
    (e) => e.kind === "malformed" && e.field === "per_device_train_batch_size",
  );
});
