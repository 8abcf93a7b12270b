//! Ollama: llama.cpp underneath, with Ollama's own choices on top of it. The context it gives
//! llama.cpp is `num_ctx × OLLAMA_NUM_PARALLEL` (`llm/server.go`: `KvSize: opts.NumCtx *
//! numParallel`, `num_ctx` first clamped to the model's trained context); its KV cache is f16, or
//! `OLLAMA_KV_CACHE_TYPE` (q8_0, q4_0) with flash attention on; and it decides how many layers go
//! to the GPUs from its own estimate of each layer (`llm/memory.go`, `estimateGPULayers`):
//! `minimum memory + one layer as buffer + the layers that fit + the graph ≤ free memory`, the
//! output layer last. What runs is then llama.cpp's shape with that `-ngl`, and `ollama ps`
//! prints the share of Ollama's estimate left on the CPU: `48%/52% CPU/GPU`. That is Ollama up
//! to 0.24, its Go runner; from 0.30 (the default) it starts `llama-server`, whose own fit
//! places the layers (`server.rs`, the release in `version.rs`).

mod plan;
mod retry;
mod server;
mod sizing;
mod version;

pub use sizing::OLLAMA_BATCH;
pub(crate) use sizing::ollama_embedding_batch;
pub use version::OllamaVersion;
pub(in crate::estimate) use version::runs_llama_server;

use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::{OllamaLoad, Parts, Phase, Run, b, thousands};
use crate::precision::{KvDtype, Quantization};
use crate::throughput::Runtime;
use crate::units::{Bytes, GIB};
use alloc::vec;
use alloc::vec::Vec;

/// Ollama's decisions: llama.cpp's buffers, `num_ctx` per sequence, its own offload decision
/// from the free memory, `OLLAMA_KV_CACHE_TYPE` (f16, q8_0, q4_0).
pub(super) const RULES: Rules = Rules {
    name: "Ollama",
    peak: PeakSource::Llamacpp,
    kv_dtypes: Some(&[KvDtype::Auto, KvDtype::Fp16, KvDtype::Q8_0, KvDtype::Q4_0]),
    required: Required::Theory,
    context: Context::PerSequence { setting: "num_ctx" },
    past_trained: PastTrained::Unnoted,
    offload: LayerOffload::EngineDecides,
    output_layer_first: false,
    dequantizes_gguf: false,
    decompressed_mla: false,
    indexer_keys: super::engine::IndexerKeys::KvType,
    delta_net_with_plain_attention: false,
    gemma4_layers: false,
    pooled_indexer: false,
    step3p5_layers: false,
    compressed_cache: crate::estimate::engine::CompressedCache::Refused,
    gemma4_full_qkv: false,
    gemma3n_full_qkv: false,
    expert_parallel: ExpertParallel::None,
    fp32_auto: crate::estimate::engine::Fp32Auto::Keeps,
    native_kv_formats: false,
    flash_only_when_asked: true,
    expert_offload: false,
    unlike_cards: crate::estimate::UnlikeCards::OwnPlan,
    library_names: true,
    dp_attention: false,
    copies_share_requests: false,
    runtime: Runtime::Llamacpp,
    formats: Formats::Gguf,
    reads: CardTraits {
        workspace: false,
        vllm_defaults: false,
        memory: true,
    },
};

/// Ollama's default `num_ctx` (`docs/context-length.mdx`, v0.15.5 and later): 4096 below 24 GiB
/// of VRAM, 32768 below 48 GiB, else 262144 (v0.6.7 to v0.15.4: 4096; before: 2048), clamped to
/// the model's trained context as Ollama clamps it; 4096 without a card.
pub(super) fn default_num_ctx(vram: Option<u64>, trained: u64) -> u64 {
    let tier = match vram {
        Some(v) if v >= 48 * GIB => 262_144,
        Some(v) if v >= 24 * GIB => 32_768,
        _ => 4096,
    };
    if trained > 0 { tier.min(trained) } else { tier }
}

/// The memory Ollama keeps free on a CUDA or ROCm GPU beyond its estimate (`discover/gpu.go`:
/// `cudaMinimumMemory = 457 * format.MebiByte`).
pub const OLLAMA_MINIMUM_MEMORY: Bytes = Bytes::mib(457);

impl Run<'_> {
    pub(super) fn ollama(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let trained = a.max_position_embeddings;
        let num_ctx = if trained > 0 {
            self.max_model_len.min(trained)
        } else {
            self.max_model_len
        };
        // An embedding model is always loaded with parallel 1 (`server/sched.go`, "Embedding
        // models should always be loaded with parallel=1", from v0.12.5 to v0.33.0).
        let parallel = if self.pooling { 1 } else { self.batch };
        if version::runs_llama_server(self.llamacpp_build) {
            let out = self.ollama_server(p, num_ctx, parallel);
            self.ollama_tag_note(p);
            self.ollama_embedding_note(p, ollama_embedding_batch(num_ctx));
            self.ollama_clamp_note(p);
            return out;
        }
        let context = num_ctx.saturating_mul(parallel);
        let gpus = (self.dp * self.pp).max(1) as usize;
        let (plan, chosen) = self.ollama_schedule(num_ctx, parallel, gpus);
        // What runs: llama.cpp with Ollama's -ngl, over the GPUs it used, with the context and
        // flash attention Ollama gives it; over unlike cards, the cards it chose in its order
        // with its layer counts as `--tensor-split` (`llm/server.go` passes `TensorSplit`).
        let used = plan.per_gpu.iter().filter(|n| **n > 0).count().max(1) as u64;
        let unlike = !chosen.is_empty();
        let run = super::Workload {
            max_model_len: context,
            gpu_layers: plan.layers,
            dp: if unlike { chosen.len() as u64 } else { used },
            pp: 1,
            ubatch: self.ollama_ubatch(context),
            // Ollama's Go runner ran its vendored llama.cpp (`llamacpp_build.rs`).
            llamacpp_build: super::LlamacppBuild::OLLAMA_VENDORED,
            device: chosen.first().cloned().or_else(|| self.device.clone()),
            tensor_split: if unlike {
                plan.per_gpu.iter().map(|n| *n as f32).collect()
            } else {
                Vec::new()
            },
            cards: chosen,
            ..self.w.clone()
        };
        let out = Run::new(&run, self.text).llamacpp(p);
        self.ollama_tag_note(p);
        self.ollama_embedding_note(p, run.ubatch);
        // Layers of the model as Ollama counts them: the blocks and the output, or a bare
        // count's assumed blocks.
        let model_layers = if self.cache_assumed() {
            self.cache_arch().num_layers
        } else {
            a.num_layers + 1
        };
        let requested = match self.num_gpu {
            Some(n) if self.cache_assumed() && n > 0 => model_layers,
            Some(n) => n,
            None => model_layers,
        };
        p.theory = Some(self.ollama_theory(num_ctx, parallel, gpus, &run));
        let cpu_percent = if plan.vram == 0 {
            100
        } else if plan.vram >= plan.total {
            0
        } else {
            libm::round((plan.total - plan.vram) as f64 / plan.total as f64 * 100.0) as u8
        };
        if self.text {
            self.ollama_notes(p, &plan, num_ctx, parallel, model_layers, cpu_percent);
            self.ollama_system_memory_note(p, plan.total.saturating_sub(plan.vram), false);
            self.ollama_gpus_note(p, &plan, &run, gpus);
        }
        p.ollama = Some(OllamaLoad {
            gpu_layers: plan.layers,
            requested_layers: requested,
            model_layers,
            vram_bytes: Bytes::new(plan.vram),
            total_bytes: Bytes::new(plan.total),
            cpu_percent,
            kv_bytes: Bytes::new(plan.kv),
            graph_bytes: Bytes::new(plan.graph),
            context,
            loaded_on: (gpus > 1 && used == 1)
                .then(|| {
                    run.device
                        .as_ref()
                        .map(|d| alloc::string::String::from(d.id))
                })
                .flatten(),
        });
        out
    }

    /// The ubatch Ollama gives llama.cpp for a context of `context` tokens: its `num_batch`
    /// (512), or an embedding model's 2,048 ([`sizing::OLLAMA_EMBEDDING_BATCH`]), at most the
    /// context.
    pub(super) fn ollama_ubatch(&self, context: u64) -> u64 {
        if self.pooling {
            ollama_embedding_batch(context)
        } else {
            OLLAMA_BATCH.min(context.max(1))
        }
    }

    /// An embedding model's run as Ollama makes it (none for a generating one).
    fn ollama_embedding_note(&self, p: &mut Parts, ub: u64) {
        if !self.pooling {
            return;
        }
        let asked = self.batch;
        p.note(
            "ollama_embedding",
            en!(
                "Ollama runs an embedding model (its GGUF names a pooling type) as llama-server --embedding with -np 1 whatever OLLAMA_NUM_PARALLEL ({asked} asked) and -b = -ub = min(2048, num_ctx) = {ub} (v0.33.0); its own plan of the offload still sizes the graph and a KV cache as for generation."
            ),
            zh!(
                "Ollama 把嵌入模型（其 GGUF 声明了池化类型）作为 llama-server --embedding 运行：无论 OLLAMA_NUM_PARALLEL（此处为 {asked}）如何都用 -np 1，-b = -ub = min(2048, num_ctx) = {ub}（v0.33.0）；它自己的卸载规划仍按生成的方式估算计算图与 KV 缓存。"
            ),
        );
    }

    /// The default tag a preset runs as, where the run names a preset.
    fn ollama_tag_note(&self, p: &mut Parts) {
        if let (Some(tag), Quantization::Gguf { file_type }) = (&self.ollama_tag, self.quantization)
        {
            let (name, ft) = (&self.model_name, file_type.name().to_ascii_uppercase());
            p.note(
                "ollama_default_tag",
                en!(
                    "Ollama runs {name} as {tag}, its default tag ({ft}), which `ollama run {tag}` pulls; name another tag (such as {tag}-q8_0) for another file."
                ),
                zh!(
                    "Ollama 以其默认标签 {tag}（{ft}）运行 {name}，即 `ollama run {tag}` 拉取的文件；要用其他文件请写其他标签（如 {tag}-q8_0）。"
                ),
            );
        }
    }

    /// `num_ctx` past the model's trained context, clamped as Ollama clamps it.
    fn ollama_clamp_note(&self, p: &mut Parts) {
        let trained = self.arch.max_position_embeddings;
        if trained > 0 && self.max_model_len > trained {
            p.note(
                "ollama_context_clamped",
                en!(
                    "num_ctx {} is past the model's trained context: Ollama clamps it to {trained} (\"requested context size too large for model\").",
                    self.max_model_len
                ),
                zh!(
                    "num_ctx {} 超过模型的训练上下文：Ollama 把它截到 {trained}（\"requested context size too large for model\"）。",
                    self.max_model_len
                ),
            );
        }
    }

    /// Ollama's choice of GPUs and its plan on them (`server/sched.go` `pickBestFitGPUs` at
    /// ollama/ollama 000ce02098f6bfea486601b5cae35ba38f8824fc, the same rule in the releases
    /// vramfit follows): the GPUs sorted by free memory, most first; the freest alone when the
    /// whole model fits it (`PredictServerFit` on one GPU), else every GPU. Gives the plan and,
    /// over cards that are not alike, the cards chosen in that order (empty over alike ones).
    fn ollama_schedule(
        &self,
        num_ctx: u64,
        parallel: u64,
        gpus: usize,
    ) -> (plan::Plan, Vec<super::Device>) {
        let mut cards = self.cards.clone();
        // Ollama reads each GPU's free memory (`FreeMemory`, less `OLLAMA_GPU_OVERHEAD` and
        // `MinimumMemory()` in `server/sched.go`): memory other programs hold is out of it.
        cards.sort_by_key(|d| core::cmp::Reverse(d.free()));
        let free: Vec<u64> = if cards.is_empty() {
            match &self.device {
                Some(d) => vec![d.free().get(); gpus],
                None => vec![u64::MAX; gpus],
            }
        } else {
            cards.iter().map(|d| d.free().get()).collect()
        };
        if free.len() > 1 {
            let one = self.ollama_plan(num_ctx, parallel, &free[..1]);
            if self.ollama_fits_fully(&one) {
                cards.truncate(1);
                return (one, cards);
            }
        }
        (self.ollama_plan(num_ctx, parallel, &free), cards)
    }

    /// The GPUs Ollama chose of several: the freest alone, or every one with its layers.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn ollama_gpus_note(
        &self,
        p: &mut Parts,
        plan: &plan::Plan,
        run: &super::Workload,
        gpus: usize,
    ) {
        let asked = if self.cards.is_empty() {
            gpus
        } else {
            self.cards.len()
        };
        // Nothing on any GPU: its estimate note says the CPU runs it all.
        if asked < 2 || plan.layers == 0 {
            return;
        }
        if plan.per_gpu.len() == 1 {
            let card = run.device.as_ref().map_or("", |d| d.id);
            p.note(
                "ollama_gpus",
                en!("Ollama loads it on one GPU ({card}) of the {asked}: it tries the GPUs by free memory, most first, and the freest holds the whole model (server/sched.go pickBestFitGPUs); OLLAMA_SCHED_SPREAD=1 spreads it over every GPU."),
                zh!("Ollama 只把它加载到 {asked} 块 GPU 中的一块（{card}）：它按空闲显存从多到少尝试各块 GPU，空闲最多的那块就能容纳整个模型（server/sched.go pickBestFitGPUs）；设置 OLLAMA_SCHED_SPREAD=1 会把它分布到所有 GPU。"),
            );
            return;
        }
        let split = |sep: &str| {
            let items: Vec<alloc::string::String> = plan
                .per_gpu
                .iter()
                .enumerate()
                .map(|(g, n)| {
                    let id = run
                        .cards
                        .get(g)
                        .or(run.device.as_ref())
                        .map_or("GPU", |d| d.id);
                    alloc::format!("{id} {n}")
                })
                .collect();
            items.join(sep)
        };
        p.note(
            "ollama_gpus",
            en!("No one GPU holds the whole model, so Ollama spreads its layers over all {asked} by free memory, most first, a layer at a time to each GPU with room (llm/memory.go): {}, which it hands llama.cpp as --tensor-split.", split(", ")),
            zh!("没有一块 GPU 能容纳整个模型，所以 Ollama 把各层分布到全部 {asked} 块 GPU 上，按空闲显存从多到少，逐层交给还有空间的 GPU（llm/memory.go）：{}，并以 --tensor-split 交给 llama.cpp。", split("，")),
        );
    }

    /// `PredictServerFit`: every layer and the output on the GPUs (or `num_gpu` of them).
    fn ollama_fits_fully(&self, plan: &plan::Plan) -> bool {
        let all = if self.cache_assumed() {
            self.cache_arch().num_layers
        } else {
            self.arch.num_layers + 1
        };
        let wanted = match self.num_gpu {
            Some(n) if !self.cache_assumed() => n,
            _ => all,
        };
        plan.layers > 0 && plan.layers >= wanted
    }

    /// What the run asks for on the GPUs (`num_gpu`, else every layer and the output), placed
    /// by Ollama on GPUs of unbounded memory: the memory it must see free on each to place
    /// them all, or what llama.cpp then holds, the larger (`M_theory`).
    fn ollama_theory(
        &self,
        num_ctx: u64,
        parallel: u64,
        gpus: usize,
        run: &super::Workload,
    ) -> u64 {
        let wanted = self.ollama_plan(num_ctx, parallel, &vec![u64::MAX; gpus]);
        let used_all = wanted.per_gpu.iter().filter(|n| **n > 0).count().max(1) as u64;
        let all = super::Workload {
            gpu_layers: wanted.layers,
            dp: used_all,
            ..run.clone()
        };
        let mut whole = Parts::new(false);
        let _ = Run::new(&all, false).llamacpp(&mut whole);
        // Ollama places a layer only where its estimate stays strictly under the free memory.
        let seen = wanted
            .allocations
            .iter()
            .max()
            .map_or(0, |m| m.saturating_add(1));
        let held = whole.sum_where(|k| k.is_llamacpp_buffer() || k == ComponentKind::CudaContext);
        seen.max(held)
    }

    /// Ollama's notes: its estimate and layer decision, the sliding window, a clamped context,
    /// no card.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn ollama_notes(
        &self,
        p: &mut Parts,
        plan: &plan::Plan,
        num_ctx: u64,
        parallel: u64,
        model_layers: u64,
        cpu_percent: u8,
    ) {
        let context = num_ctx.saturating_mul(parallel);
        let split = if cpu_percent == 0 {
            alloc::string::String::from("100% GPU")
        } else if cpu_percent == 100 {
            alloc::string::String::from("100% CPU")
        } else {
            alloc::format!("{cpu_percent}%/{}% CPU/GPU", 100 - cpu_percent)
        };
        let (layers, min, layer, output, graph, kv) = (
            plan.layers,
            b(OLLAMA_MINIMUM_MEMORY.get()),
            b(plan.layer),
            b(plan
                .output
                .saturating_add(plan.projector.0)
                .saturating_add(plan.projector.1)),
            b(plan.graph),
            b(plan.kv),
        );
        let (vram, total) = (b(plan.vram), b(plan.total));
        let ctx = thousands(context);
        let arch = self.ollama_gguf_arch().name();
        p.note(
            "ollama_offload",
            en!(
                "Ollama's estimate (llm/memory.go, sized as {arch}): {min} minimum + a {layer} layer as buffer + each layer (its weights and KV) + output {output} + graph {graph}, KV {kv} for {ctx} tokens (num_ctx {num_ctx} × {parallel} parallel). It puts {layers} of {model_layers} layers on the GPU: {vram} of {total}; ollama ps shows {split}."
            ),
            zh!(
                "Ollama 的估算（llm/memory.go，按 {arch} 计）：最低预留 {min} + 一层 {layer} 作缓冲 + 每一层（权重与 KV）+ 输出层 {output} + 计算图 {graph}，KV {kv} 对应 {ctx} 个 token（num_ctx {num_ctx} × 并行 {parallel}）。它把 {model_layers} 层中的 {layers} 层放到 GPU：{total} 中的 {vram}；ollama ps 显示 {split}。"
            ),
        );
        if let Some(window) = self.ollama_window_note(num_ctx, parallel) {
            p.note("ollama_sliding_window", window.0, window.1);
        }
        self.ollama_clamp_note(p);
        if self.device.is_none() {
            p.note(
                "ollama_no_device",
                alloc::string::String::from(en_str!("No GPU given: shown with every layer on the GPU; Ollama's split depends on the card's free memory.")),
                alloc::string::String::from(zh_str!("未指定显卡：按全部层都在 GPU 上显示；Ollama 的切分取决于显卡的空闲显存。")),
            );
        }
    }
}

#[cfg(test)]
mod schedule_tests;
#[cfg(test)]
mod tests {
    use super::super::{Engine, EstimateInput, estimate};
    use super::super::{HardwareInput, ModelInput, RunInput, ServingInput};
    use super::*;
    use crate::units::MIB;

    /// A preset typed with Ollama is what `ollama run` pulls: its default tag (qwen3:32b, in
    /// Q4_K_M), not the 16-bit checkpoint; the estimate says so. A file type asked for stays.
    #[test]
    fn a_preset_with_ollama_runs_as_its_default_tag() {
        let run = |model: &str, q: Quantization| {
            estimate(&EstimateInput {
                model: ModelInput {
                    model: Some(model.into()),
                    quantization: q,
                    ..Default::default()
                },
                run: RunInput {
                    engine: Engine::Ollama,
                    ..Default::default()
                },
                serving: ServingInput {
                    max_model_len: Some(8192.0),
                    ..Default::default()
                },
                hardware: HardwareInput {
                    gpu: Some("rtx-4090".into()),
                    ..Default::default()
                },
                ..Default::default()
            })
            .unwrap()
        };
        let by_id = run("Qwen/Qwen3-32B", Quantization::None);
        let by_tag = run("qwen3:32b", Quantization::None);
        assert_eq!(by_id.required_bytes, by_tag.required_bytes);
        assert_eq!(by_id.weights_bytes, by_tag.weights_bytes);
        let note = by_id.notes.iter().find(|n| n.key == "ollama_default_tag");
        assert!(
            note.unwrap()
                .en
                .contains("qwen3:32b, its default tag (Q4_K_M)")
        );
        let q8 = crate::precision::GgufFileType::Q8_0;
        let asked = run("Qwen/Qwen3-32B", Quantization::Gguf { file_type: q8 });
        assert!(asked.weights_bytes > by_id.weights_bytes);
        assert!(!asked.notes.iter().any(|n| n.key == "ollama_default_tag"));
    }

    fn ollama(model: &str) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Ollama,

                // Ollama up to 0.24: its Go runner and its own layer plan.
                engine_version: Some("0.24.0".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn num_ctx_defaults_by_vram_and_stops_at_the_trained_context() {
        assert_eq!(default_num_ctx(None, 131_072), 4096);
        assert_eq!(default_num_ctx(Some(23 * GIB), 131_072), 4096);
        assert_eq!(default_num_ctx(Some(24 * GIB), 131_072), 32_768);
        assert_eq!(default_num_ctx(Some(80 * GIB), 131_072), 131_072);
        assert_eq!(default_num_ctx(Some(80 * GIB), 0), 262_144);
    }

    /// llama3.2:3b (Q4_K_M) at num_ctx 2048 × 4 parallel on a card with 78.6 GiB free: Ollama's
    /// log (github.com/ollama/ollama/issues/8098, 2024-12-15) prints KV 896.0 MiB, graph full
    /// 424.0 MiB and partial 570.7 MiB, and all 29 layers offloaded. By hand:
    ///
    /// ```text
    /// KV      = 8192 × 2 × 8 heads × 128 × 2 B × 28 layers = 939,524,096 B = 896 MiB
    /// full    = max(4 × 512 × (1 + 4 × 3072 + 8192 × 25), 4 × 512 × (3072 + 128,256))
    ///         = 444,598,272 B = 424.0 MiB
    /// partial = 4 × 512 × 3072 + max(4 × 512 × (1 + 3072 + 8192) + 3072² × 9/16
    ///           + 4 × 8192 × (512 × 24 + 128 × 8),
    ///           4 × 512 × (3072 + 128,256) + 3072 × 128,256 × 105/128)
    ///         = 598,456,320 B = 570.7 MiB
    /// ```
    #[test]
    fn the_graph_and_kv_estimates_are_ollamas_own() {
        let i = {
            let mut input = ollama("llama3.2:3b");
            input.run.batch = 4.0;
            input.run.seq_len = 1024.0;
            input.serving.max_model_len = Some(2048.0);
            input.hardware.gpu_memory = Some("78.6GiB".into());
            input
        };
        let w = i.resolve().unwrap();
        let run = Run::new(&w, false);
        let plan = run.ollama_plan(2048, 4, &[Bytes::from_f64(78.6 * GIB as f64).get()]);
        assert_eq!(plan.kv, 939_524_096);
        assert_eq!(plan.kv / MIB, 896);
        assert_eq!(
            run.ollama_graph(2048, 4, plan.kv),
            (598_456_320, 444_598_272)
        );
        assert_eq!(plan.graph, 444_598_272);
        assert_eq!(plan.layers, 29);
        let e = estimate(&i).unwrap();
        let load = e.ollama.unwrap();
        assert_eq!(
            (load.gpu_layers, load.model_layers, load.cpu_percent),
            (29, 29, 0)
        );
        assert_eq!(load.context, 8192);
    }

    /// The split `ollama ps` prints, by hand: llama3.1:70b (Q4_K_M) at num_ctx 4096 on one
    /// 24 GiB card puts only some of its 81 layers on the GPU, and the rest of Ollama's estimate
    /// is the CPU's share: round((total − vram) / total × 100).
    #[test]
    fn a_model_larger_than_the_card_is_split_as_ollama_ps_prints_it() {
        let i = {
            let mut input = ollama("llama3.1:70b");
            input.hardware.gpu_memory = Some("24GiB".into());
            input.serving.max_model_len = Some(4096.0);
            input
        };
        let e = estimate(&i).unwrap();
        let load = e.ollama.unwrap();
        assert!(load.gpu_layers > 0 && load.gpu_layers < 81, "{load:?}");
        let want = libm::round(
            (load.total_bytes.get() - load.vram_bytes.get()) as f64 / load.total_bytes.get() as f64
                * 100.0,
        ) as u8;
        assert_eq!(load.cpu_percent, want);
        // Ollama's estimate on the GPU stays within the card; llama.cpp's buffers follow its -ngl.
        assert!(load.vram_bytes.get() < 24 * GIB);
        assert!(e.total_bytes.get() < 24 * GIB, "{:?}", e.total_bytes);
        // The 42.5 GB of Q4_K_M weights are split between the two: 39.6 GiB in all.
        assert!(e.cpu_bytes.get() + e.weights_bytes.get() > 39 * GIB);
        assert!(e.cpu_bytes.get() > 15 * GIB);
        // What running 100 % on the GPU needs: the whole 70B model, over 40 GiB.
        assert!(e.required_bytes.get() > 40 * GIB);
        let fit = e.fit.unwrap();
        assert!(!fit.fits);
        assert_eq!(fit.reason.unwrap().key, "ollama_partial_offload");
    }

    /// Gemma 3 12B (gemma3:12b, Q4_K_M) at num_ctx 8192 on one sequence, by hand from Ollama's
    /// `GraphSize` and `VisionGraphSize` (v0.12.5); Ollama's log of this load
    /// (github.com/ollama/ollama/pull/12000, 2025-08-22) prints KV 992.0 MiB, graph full
    /// 519.5 MiB and partial 1.3 GiB, projector 795.9 MiB and graph 1.0 GiB:
    ///
    /// ```text
    /// per token per layer = (256 + 256) × 8 KV heads × 2 B = 8192 B
    /// KV      = 8 global layers × 8192 × 8192 + 40 sliding × (1 × 1024 + 512) × 8192
    ///         = 536,870,912 + 503,316,480 = 1,040,187,392 B = 992.0 MiB
    ///           (at the whole context, as vramfit had it: 48 × 8192 × 8192 = 3.0 GiB)
    /// full    = max(4 × 512 × (3840 + 262,144), 4 × 512 × (2 + 8192 + 8192 × 16 + 2 × 3840
    ///           + 2 × 256 × 16)) = 544,735,232 B = 519.5 MiB
    /// partial = max(4 × 3840 × 512 + 3840 × 262,144 × 105/128 + 4 × 262,144 × 512, …)
    ///         = 1,370,488,832 B = 1.28 GiB
    /// vision  = F16 matrices 416,466,432 × 2 + F32 vectors 399,600 × 4 = 834,531,264 B
    ///         = 795.9 MiB; its graph 4 × (896² × 3 + 1152 × 14 + 4096² × 16)
    ///         = 1,083,440,128 B = 1.0 GiB
    /// ```
    #[test]
    fn gemma3_sliding_layers_are_sized_at_their_window() {
        let i = {
            let mut input = ollama("google/gemma-3-12b-it");
            input.model.quantization = Quantization::Gguf {
                file_type: crate::precision::GgufFileType::Q4_K_M,
            };
            input.serving.max_model_len = Some(8192.0);
            input
        };
        let w = i.resolve().unwrap();
        let run = Run::new(&w, false);
        assert_eq!(run.ollama_gguf_arch(), sizing::GgufArch::Gemma3);
        let (kv, whole) = run.ollama_kv_layers(8192, 1);
        assert_eq!(kv.iter().sum::<u64>(), 1_040_187_392);
        assert_eq!(whole, 48 * 8192 * 8192);
        assert_eq!((kv[0], kv[5]), (1536 * 8192, 8192 * 8192));
        assert_eq!(
            run.ollama_graph(8192, 1, whole),
            (1_370_488_832, 544_735_232)
        );
        assert_eq!(run.ollama_projector(), (834_531_264, 1_083_440_128));
        // Two sequences: the window doubles, the batch does not.
        let (two, _) = run.ollama_kv_layers(8192, 2);
        assert_eq!(two[0], (2 * 1024 + 512) * 8192);
        let e = estimate(&i).unwrap();
        assert_eq!(e.ollama.unwrap().kv_bytes.get(), 1_040_187_392);
        let note = e.notes.iter().find(|n| n.key == "ollama_sliding_window");
        assert!(
            note.unwrap().en.contains("1 × 1024 + batch 512 = 1536"),
            "{note:?}"
        );
    }

    /// Gemma 2 slides too, but Ollama sizes its every layer at the whole context (`GraphSize`
    /// keeps the window for gemma3 alone), with the Gemmas' graph; the note says so.
    #[test]
    fn gemma2_is_sized_at_the_whole_context() {
        let i = {
            let mut input = ollama("google/gemma-2-9b-it");
            input.model.quantization = Quantization::Gguf {
                file_type: crate::precision::GgufFileType::Q4_0,
            };
            input.serving.max_model_len = Some(8192.0);
            input
        };
        let w = i.resolve().unwrap();
        let run = Run::new(&w, false);
        assert_eq!(run.ollama_gguf_arch(), sizing::GgufArch::Gemma2);
        // 42 layers × 8192 × (256 + 256) × 8 KV heads × 2 B.
        let (kv, _) = run.ollama_kv_layers(8192, 1);
        assert_eq!(kv.iter().sum::<u64>(), 42 * 8192 * 8192);
        let e = estimate(&i).unwrap();
        let note = e.notes.iter().find(|n| n.key == "ollama_sliding_window");
        assert!(note.unwrap().en.contains("whole context"), "{note:?}");
    }

    /// gpt-oss: Ollama sizes its even layers at `num_parallel × 4096 + batch` and, without flash
    /// attention, its graph from the whole-context KV: `2 × 64 / 8 × KV / 6` (v0.11.5 to v0.12.x).
    /// At num_ctx 8192: (12 × 4608 + 12 × 8192) × 2048 B = 300.0 MiB, as Ollama 0.11's log
    /// prints it (github.com/ollama/ollama/issues/11711, 2025-08-06).
    #[test]
    fn gpt_oss_even_layers_are_sized_at_4096() {
        let i = {
            let mut input = ollama("openai/gpt-oss-20b");
            input.serving.max_model_len = Some(8192.0);
            input
        };
        let w = i.resolve().unwrap();
        let run = Run::new(&w, false);
        assert_eq!(run.ollama_gguf_arch(), sizing::GgufArch::GptOss);
        let (kv, whole) = run.ollama_kv_layers(8192, 1);
        assert_eq!(kv.iter().sum::<u64>(), 314_572_800);
        assert_eq!(whole, 24 * 8192 * 2048);
        assert_eq!(run.ollama_graph(8192, 1, whole), (16 * whole / 6, 0));
    }

    #[test]
    fn num_parallel_multiplies_the_context_and_the_kv() {
        let one = estimate(&{
            let mut input = ollama("llama3.1:8b");
            input.serving.max_model_len = Some(8192.0);
            input
        })
        .unwrap();
        let four = estimate(&{
            let mut input = ollama("llama3.1:8b");
            input.serving.max_model_len = Some(8192.0);
            input.run.batch = 4.0;
            input
        })
        .unwrap();
        // 8192 × 4 = 32,768 cells × 128 KiB (f16, 8 KV heads × 128 × 2 × 32 layers × 2 B).
        assert_eq!(one.kv_cache_bytes.get(), 8192 * 131_072);
        assert_eq!(four.kv_cache_bytes.get(), 4 * 8192 * 131_072);
        assert_eq!(four.ollama.unwrap().context, 32_768);
    }

    #[test]
    fn a_quantized_kv_cache_needs_flash_attention() {
        let q8 = {
            let mut input = ollama("llama3.1:8b");
            input.run.kv_dtype = KvDtype::Q8_0;
            input
        };
        let e = q8.resolve().unwrap_err();
        assert_eq!(e.field, "kv_dtype");
        assert!(e.accepted.contains("flash"), "{e}");
        let ok = estimate(&EstimateInput {
            run: RunInput {
                attention: super::super::AttentionImpl::Flash,
                ..q8.run
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..q8.serving
            },
            ..q8
        })
        .unwrap();
        // q8_0 as llama.cpp stores it: 34 bytes per 32 values, 8192 × 65,536 values.
        assert_eq!(ok.kv_cache_bytes.get(), 8192 * 65_536 / 32 * 34);
    }
}
