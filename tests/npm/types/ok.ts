// A consumer that uses every function of the package; must compile under `tsc --strict`.
import { estimate, gpus, models, offers, platforms, solve, version } from "vramfit";
import {
  diagnose,
  estimate as estimateFull,
  fetchModel,
  repoId,
  parseConfig,
  parseGgufHeader,
  parseSafetensorsHeader,
  planMig,
  recommend,
  safetensorsHeaderLength,
  searchModels,
} from "vramfit/full";
import type {
  Diagnosis,
  Estimate,
  EstimateInput,
  GgufHeader,
  Gpu,
  MigResult,
  Offer,
  ParsedConfig,
  Platform,
  Preset,
  Quantization,
  Recommendation,
  SafetensorsHeader,
  Solutions,
} from "vramfit";
import type { FetchModelOptions, FoundModel, HubError } from "vramfit/full";
import "vramfit/widget";
import type { VramfitCalculator, VramfitChangeEvent } from "vramfit/widget";

const q: Quantization = { format: "gguf", file_type: "Q4_K_M" };
const input: EstimateInput = {
  model: "meta-llama/Llama-3.1-8B",
  mode: "serve",
  engine: "vllm",
  batch: 4,
  seq_len: 8192,
  gpu: "h100-sxm5-80gb",
  quantization: { format: "gptq", bits: 4, group_size: 128 },
  lora_targets: ["q_proj"],
  max_model_len: null,
};
const e: Estimate = estimate(input);
const sameEstimate: Estimate = estimateFull(input);
const total: number = e.total_bytes + e.peak_allocated_bytes + e.kv_bytes_per_token;
const parts: string[] = e.components.map((c) => `${c.key} ${c.bytes} ${c.formula}`);
const fits: boolean | undefined = e.fit?.fits;
const concurrency: number | null = e.max_concurrency;
const s: Solutions = solve(input);
const maxBatch: number | null = s.max_batch;
const r: Recommendation = recommend(input, { currency: "CNY", limit: 3, provider: [] });
const r2: Recommendation = recommend({ params: "7B" });
const cheapest: number | undefined = r.options[0]?.price_per_hour;
const m: MigResult = planMig("a100-sxm4-80gb", [{ memory: "36GiB", name: "debug" }, { model: "Qwen/Qwen2.5-7B-Instruct" }], { max_cards: 2 });
const slices: string[] = m.plan.cards.flatMap((c) => c.slices.map((x) => x.profile));
const d: Diagnosis = diagnose("CUDA out of memory");
const kind: "capacity" | "fragmentation" | "leak" | "unknown" = d.kind;
const cfg: ParsedConfig = parseConfig("{}");
const again: Estimate = estimate({ arch: cfg.arch, dtype: cfg.dtype, quantization: cfg.quantization ?? q });
const bytes = new Uint8Array(8);
const n: number = safetensorsHeaderLength(bytes);
const st: SafetensorsHeader = parseSafetensorsHeader(bytes);
const gg: GgufHeader = parseGgufHeader(bytes);
const g: Gpu[] = gpus();
const ms: Preset[] = models();
const found: Preset[] = searchModels("llama");
const o: Offer[] = offers();
const p: Platform[] = platforms();
const v: string = version();
// A model looked up on a hub, estimated as served.
const options: FetchModelOptions = { endpoint: "https://www.modelscope.cn", hub: "modelscope", file: "Q8_0", timeout: 10_000 };
const looked: Promise<number> = fetchModel(repoId("https://huggingface.co/Qwen/Qwen3-0.6B-FP8"), options).then((hm: FoundModel) => {
  const served: Estimate = estimateFull({ ...hm.input, mode: "serve", gpu: "h100-sxm5-80gb" });
  const exact: number | undefined = hm.checkpoint?.bytes;
  return served.weights_bytes - (exact ?? 0) + hm.bytes_read + hm.files_read.length;
}, (e: HubError) => (e.kind === "hub" ? e.status ?? (e.failure === "timeout" ? 408 : 0) : 0));
// An Ollama registry tag, run on Ollama.
const tag: Promise<string | undefined> = fetchModel("llama3.1:8b", { hub: "ollama" }).then((m) => m.input.engine);
// A quantization as the CLI spells it.
const byName: Estimate = estimate({ params: "7B", quantization: "gguf-q4_k_m" });

const el: VramfitCalculator = document.createElement("vramfit-calculator");
el.setAttribute("model", ms[0]?.id ?? "");
el.addEventListener("vramfit-change", (ev: VramfitChangeEvent) => {
  const detail: Estimate = ev.detail;
  console.log(detail.total_bytes);
});
const current: Estimate | null = el.estimate;
const err: string | null = el.error;

console.log(looked, tag, total, parts, fits, concurrency, maxBatch, r2, cheapest, slices, kind, again, n, st, gg, g, found, o, p, v, byName, current, err);
