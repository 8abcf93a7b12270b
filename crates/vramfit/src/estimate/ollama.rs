//! Ollama: llama.cpp underneath, with Ollama's own choices on top of it. The context it gives
//! llama.cpp is `num_ctx × OLLAMA_NUM_PARALLEL` (`llm/server.go`: `KvSize: opts.NumCtx *
//! numParallel`, `num_ctx` first clamped to the model's trained context); its KV cache is f16, or
//! `OLLAMA_KV_CACHE_TYPE` (q8_0, q4_0) with flash attention on; and it decides how many layers go
//! to the GPUs from its own estimate of each layer (`llm/memory.go`, `estimateGPULayers`):
//! `minimum memory + one layer as buffer + the layers that fit + the graph ≤ free memory`, the
//! output layer last. What runs is then llama.cpp's shape with that `-ngl`, and `ollama ps`
//! prints the share of Ollama's estimate left on the CPU: `48%/52% CPU/GPU`.

use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::{OllamaLoad, Parts, Phase, Run, b, thousands};
use crate::model::Role;
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
    expert_parallel: ExpertParallel::None,
    downcasts_fp32: false,
    native_kv_formats: false,
    flash_only_when_asked: true,
    expert_offload: false,
    library_names: true,
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
/// The batch Ollama estimates the graph for and gives llama.cpp (`num_batch`, default 512).
pub const OLLAMA_BATCH: u64 = 512;

/// Ollama's own estimate of a load and the layers it offloads (`estimateGPULayers`).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Plan {
    /// Layers on the GPUs, the output layer counting as one.
    pub(super) layers: u64,
    /// Layers on each GPU.
    pub(super) per_gpu: Vec<u64>,
    /// Ollama's estimate on each GPU.
    pub(super) allocations: Vec<u64>,
    /// `memory.required.partial`: what the GPUs hold.
    pub(super) vram: u64,
    /// `memory.required.full`: the whole model loaded.
    pub(super) total: u64,
    /// `memory.required.kv`.
    pub(super) kv: u64,
    /// The graph it counted (full or partial offload).
    pub(super) graph: u64,
    /// One block and its KV (`blk.0`), as Ollama sizes a layer.
    pub(super) layer: u64,
    /// The output layer (`output_norm` and `output`, or `token_embd` when tied).
    pub(super) output: u64,
}

impl Run<'_> {
    /// Ollama's per-layer KV estimate: `context × (key + value length) × KV heads × bytes`, 2 B
    /// (f16), 1 B (q8_0) or 0.5 B (q4_0) per element (`kvCacheBytesPerElement`), MLA counted as
    /// its GGUF declares it (a key and value per head).
    fn ollama_kv_layer(&self, context: u64) -> u64 {
        // The model's, or for a bare parameter count the shape assumed for its cache.
        let a = self.cache_arch();
        let per_token = match a.mla {
            Some(m) => (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) * a.num_heads,
            None => 2 * a.head_dim * a.num_kv_heads,
        };
        let elems = context.saturating_mul(per_token);
        match self.kv_dtype {
            KvDtype::Q8_0 => elems,
            KvDtype::Q4_0 => elems / 2,
            _ => elems.saturating_mul(2),
        }
    }

    /// Ollama's graph estimate (`GGML.GraphSize`) for a partial and a full offload, by the GGUF
    /// architecture: `llama` and `qwen2` have formulas of their own; any other falls back to
    /// `GQA × KV / 6` for both.
    fn ollama_graph(&self, context: u64, kv_total: u64) -> (u64, u64) {
        let a = &self.arch;
        let (bt, e, c) = (context.min(OLLAMA_BATCH), a.hidden_size, context);
        let (h, hkv, hd, v) = (a.num_heads, a.num_kv_heads.max(1), a.head_dim, a.vocab_size);
        match self.ollama_arch {
            "llama" => {
                let full = (4 * bt * (1 + 4 * e + c * (1 + h))).max(4 * bt * (e + v));
                let partial = 4 * bt * e
                    + (4 * bt * (1 + e + c.max(e)) + e * e * 9 / 16 + 4 * c * (bt * h + hd * hkv))
                        .max(4 * bt * (e + v) + e * v * 105 / 128);
                (partial, full)
            }
            "qwen2" => {
                let full = (4 * bt * (e + v)).max(4 * bt * (1 + 2 * e + c + c * h));
                let partial = (4 * bt * (e + v) + e * v * 105 / 128)
                    .max(4 * (bt * (1 + 2 * e + c * (1 + h)) + e * (1 + c)));
                (partial, full)
            }
            _ => {
                let g = h / hkv * kv_total / 6;
                (g, g)
            }
        }
    }

    /// Ollama's decision for `context` tokens of KV over GPUs of `free` bytes each
    /// (`estimateGPULayers`, with no projector and `OLLAMA_GPU_OVERHEAD` 0): the GPUs that hold the
    /// graph, the minimum, a buffer layer and one more; then each block in turn on the next GPU
    /// with room; then the output layer.
    pub(super) fn ollama_plan(&self, context: u64, free: &[u64]) -> Plan {
        let a = &self.arch;
        // A bare parameter count: the blocks of the shape assumed for its cache, each an equal
        // share of the weights with its layer of KV, and no output layer of its own.
        let bare = self.cache_assumed();
        let blocks = if bare {
            self.cache_arch().num_layers as usize
        } else {
            a.num_layers as usize
        };
        let mut block = vec![0u64; blocks];
        let mut output = 0u64;
        let mut embedding = 0u64;
        for t in a.tensors() {
            let bytes = self.gguf_tensor_bytes(&t);
            match t.layer {
                Some(l) if (l as usize) < blocks => {
                    block[l as usize] = block[l as usize].saturating_add(bytes)
                }
                Some(_) => {}
                None if t.role == Role::LmHead || t.role == Role::Vector => {
                    output = output.saturating_add(bytes)
                }
                None if t.role == Role::Embedding => embedding = embedding.saturating_add(bytes),
                None => {}
            }
        }
        if !a.is_detailed() {
            // A bare parameter count: the guide's bytes spread evenly over the blocks.
            let all = self.opaque_weights();
            block = vec![all.div_ceil(blocks.max(1) as u64); blocks];
        }
        // `output`, or `token_embd` when the model has none (tied embeddings).
        if a.tied_embeddings {
            output = output.saturating_add(embedding);
        }
        let kv_layer = self.ollama_kv_layer(context);
        let kv = kv_layer.saturating_mul(self.cache_arch().num_layers);
        let (mut partial, mut full) = self.ollama_graph(context, kv);
        if full == 0 {
            full = partial;
        }
        if partial == 0 {
            partial = full;
        }
        if free.len() > 1 {
            full = partial;
        }
        let graph_max = partial.max(full);
        let min = OLLAMA_MINIMUM_MEMORY.get();
        let first = block.first().copied().unwrap_or(0).saturating_add(kv_layer);
        let mut alloc = vec![0u64; free.len()];
        let mut counts = vec![0u64; free.len()];
        let mut with_space: Vec<usize> = Vec::new();
        for (i, &f) in free.iter().enumerate() {
            if f >= graph_max
                .saturating_add(min)
                .saturating_add(first.saturating_mul(2))
            {
                with_space.push(i);
                alloc[i] = min.saturating_add(first);
            }
        }
        // A bare count's num_gpu is 0 or 1 (its one block as llama.cpp runs it): none, or all.
        let limit = match self.num_gpu {
            Some(n) if bare && n > 0 => Some(blocks as u64),
            n => n,
        };
        let mut count = 0u64;
        let mut layer = first;
        for (i, w) in block.iter().enumerate() {
            layer = w.saturating_add(kv_layer);
            if limit.is_some_and(|n| count >= n) {
                continue;
            }
            let mut j = with_space.len();
            while j > 0 {
                let g = with_space[i % j];
                let used = alloc[g].saturating_add(graph_max);
                if free[g] > used.saturating_add(layer) {
                    alloc[g] = alloc[g].saturating_add(layer);
                    counts[g] += 1;
                    count += 1;
                    break;
                }
                with_space.remove(i % j);
                j -= 1;
            }
        }
        let mut fully = count >= blocks as u64;
        let mut overflow = if fully {
            0
        } else {
            layer.saturating_mul(blocks as u64 - count)
        };
        if output > 0 && limit.is_none_or(|n| count < n) {
            let mut j = with_space.len();
            while j > 0 {
                let g = with_space[count as usize % j];
                let used = alloc[g].saturating_add(graph_max);
                if free[g] > used.saturating_add(output) {
                    alloc[g] = alloc[g].saturating_add(output);
                    counts[g] += 1;
                    count += 1;
                    break;
                }
                j -= 1;
            }
            if count < blocks as u64 + 1 {
                fully = false;
                overflow = overflow.saturating_add(output);
            }
        }
        let graph = if fully { full } else { partial };
        for (g, n) in counts.iter().enumerate() {
            if *n > 0 {
                alloc[g] = alloc[g].saturating_add(graph);
            }
        }
        let placed: u64 = alloc.iter().fold(0, |x, y| x.saturating_add(*y));
        let vram = if count == 0 { 0 } else { placed };
        Plan {
            layers: count,
            per_gpu: counts,
            allocations: alloc,
            vram,
            total: placed.saturating_add(overflow),
            kv,
            graph,
            layer: first,
            output,
        }
    }

    pub(super) fn ollama(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let trained = a.max_position_embeddings;
        let num_ctx = if trained > 0 {
            self.max_model_len.min(trained)
        } else {
            self.max_model_len
        };
        let parallel = self.batch;
        let context = num_ctx.saturating_mul(parallel);
        let gpus = (self.dp * self.pp).max(1) as usize;
        let free = match &self.device {
            Some(d) => vec![d.memory.get(); gpus],
            None => vec![u64::MAX; gpus],
        };
        let plan = self.ollama_plan(context, &free);
        // What runs: llama.cpp with Ollama's -ngl, over the GPUs it used, with the context and
        // flash attention Ollama gives it.
        let used = plan.per_gpu.iter().filter(|n| **n > 0).count().max(1) as u64;
        let run = super::Workload {
            max_model_len: context,
            gpu_layers: plan.layers,
            dp: used,
            pp: 1,
            ubatch: OLLAMA_BATCH.min(context.max(1)),
            ..self.w.clone()
        };
        let out = Run::new(&run, self.text).llamacpp(p);
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
        // What the run asks for on the GPUs (num_gpu, else every layer and the output), placed
        // by Ollama on GPUs of unbounded memory: the memory it must see free on each to place
        // them all, and what llama.cpp then holds.
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
        let wanted = self.ollama_plan(context, &vec![u64::MAX; gpus]);
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
        p.theory = Some(seen.max(held));
        let cpu_percent = if plan.vram == 0 {
            100
        } else if plan.vram >= plan.total {
            0
        } else {
            libm::round((plan.total - plan.vram) as f64 / plan.total as f64 * 100.0) as u8
        };
        if self.text {
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
                b(plan.output),
                b(plan.graph),
                b(plan.kv),
            );
            let (vram, total) = (b(plan.vram), b(plan.total));
            let ctx = thousands(context);
            p.note(
                "ollama_offload",
                en!(
                    "Ollama's estimate (llm/memory.go): {min} minimum + a {layer} layer as buffer + each layer (its weights and KV) + output {output} + graph {graph}, KV {kv} for {ctx} tokens (num_ctx {num_ctx} × {parallel} parallel). It puts {layers} of {model_layers} layers on the GPU: {vram} of {total}; ollama ps shows {split}."
                ),
                zh!(
                    "Ollama 的估算（llm/memory.go）：最低预留 {min} + 一层 {layer} 作缓冲 + 每一层（权重与 KV）+ 输出层 {output} + 计算图 {graph}，KV {kv} 对应 {ctx} 个 token（num_ctx {num_ctx} × 并行 {parallel}）。它把 {model_layers} 层中的 {layers} 层放到 GPU：{total} 中的 {vram}；ollama ps 显示 {split}。"
                ),
            );
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
            if self.device.is_none() {
                p.note(
                    "ollama_no_device",
                    alloc::string::String::from(en_str!("No GPU given: shown with every layer on the GPU; Ollama's split depends on the card's free memory.")),
                    alloc::string::String::from(zh_str!("未指定显卡：按全部层都在 GPU 上显示；Ollama 的切分取决于显卡的空闲显存。")),
                );
            }
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
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Engine, EstimateInput, estimate};
    use super::*;
    use crate::units::MIB;

    /// A preset typed with Ollama is what `ollama run` pulls: its default tag (qwen3:32b, in
    /// Q4_K_M), not the 16-bit checkpoint; the estimate says so. A file type asked for stays.
    #[test]
    fn a_preset_with_ollama_runs_as_its_default_tag() {
        let run = |model: &str, q: Quantization| {
            estimate(&EstimateInput {
                model: Some(model.into()),
                engine: Engine::Ollama,
                quantization: q,
                gpu: Some("rtx-4090".into()),
                max_model_len: Some(8192.0),
                ..EstimateInput::default()
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
            model: Some(model.into()),
            engine: Engine::Ollama,
            ..EstimateInput::default()
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
        let i = EstimateInput {
            batch: 4.0,
            seq_len: 1024.0,
            max_model_len: Some(2048.0),
            gpu_memory: Some("78.6GiB".into()),
            ..ollama("llama3.2:3b")
        };
        let w = i.resolve().unwrap();
        let run = Run::new(&w, false);
        let plan = run.ollama_plan(8192, &[Bytes::from_f64(78.6 * GIB as f64).get()]);
        assert_eq!(plan.kv, 939_524_096);
        assert_eq!(plan.kv / MIB, 896);
        assert_eq!(run.ollama_graph(8192, plan.kv), (598_456_320, 444_598_272));
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
        let i = EstimateInput {
            gpu_memory: Some("24GiB".into()),
            max_model_len: Some(4096.0),
            ..ollama("llama3.1:70b")
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

    #[test]
    fn num_parallel_multiplies_the_context_and_the_kv() {
        let one = estimate(&EstimateInput {
            max_model_len: Some(8192.0),
            ..ollama("llama3.1:8b")
        })
        .unwrap();
        let four = estimate(&EstimateInput {
            max_model_len: Some(8192.0),
            batch: 4.0,
            ..ollama("llama3.1:8b")
        })
        .unwrap();
        // 8192 × 4 = 32,768 cells × 128 KiB (f16, 8 KV heads × 128 × 2 × 32 layers × 2 B).
        assert_eq!(one.kv_cache_bytes.get(), 8192 * 131_072);
        assert_eq!(four.kv_cache_bytes.get(), 4 * 8192 * 131_072);
        assert_eq!(four.ollama.unwrap().context, 32_768);
    }

    #[test]
    fn a_quantized_kv_cache_needs_flash_attention() {
        let q8 = EstimateInput {
            kv_dtype: KvDtype::Q8_0,
            ..ollama("llama3.1:8b")
        };
        let e = q8.resolve().unwrap_err();
        assert_eq!(e.field, "kv_dtype");
        assert!(e.accepted.contains("flash"), "{e}");
        let ok = estimate(&EstimateInput {
            attention: super::super::AttentionImpl::Flash,
            max_model_len: Some(8192.0),
            ..q8
        })
        .unwrap();
        // q8_0 as llama.cpp stores it: 34 bytes per 32 values, 8192 × 65,536 values.
        assert_eq!(ok.kv_cache_bytes.get(), 8192 * 65_536 / 32 * 34);
    }
}
