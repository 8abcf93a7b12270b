//! What every run shape shares: the dispatch from the mode and engine to a run shape, the KV
//! cache, the weights' formula, the CUDA context and the cuBLAS workspace.

use super::ComponentKind;
use super::{
    Context, Estimate, Formula, Parts, PastTrained, Run, Workload, b, guide_bytes_per_param,
    thousands, weights,
};
use crate::model::Family;
use crate::precision::{Dtype, KvDtype, Quantization};
use crate::units::{Bytes, MIB, short};
use alloc::format;
use alloc::string::String;

/// CUDA context of a PyTorch process with lazy module loading: 0.51 GiB, measured on H100 with
/// vLLM 0.19 (`init_cuda_memory_gib` in the calibration data). PyTorch PR #86509 measured 287 MB
/// lazy and 667 MB eager on an older stack.
pub const CUDA_CONTEXT: Bytes = Bytes::new(547_608_330); // 0.51 GiB

/// cuBLAS workspace per handle and stream: 8 MiB + 128 KiB by default before Hopper, 32 MiB on
/// Hopper and newer (PyTorch's `CUBLAS_WORKSPACE_CONFIG` defaults). Allocated through the caching
/// allocator, so it counts in `max_memory_allocated`.
pub const fn cublas_workspace(hopper: bool) -> Bytes {
    if hopper {
        Bytes::mib(32)
    } else {
        Bytes::new(8 * MIB + 128 * 1024)
    }
}

impl Workload {
    /// The estimate, every part with its formula and note, in the languages the crate is built
    /// with. Cannot fail: the workload was validated.
    pub fn estimate(&self) -> Estimate {
        Run::new(self, true).estimate()
    }

    /// The same estimate with its numbers alone: every figure as [`Workload::estimate`] gives it,
    /// and no text (empty formulas and notes, no notes or differences), for sweeps that show a
    /// number per cell and ask for the working of the one a user opens.
    pub fn figures(&self) -> Estimate {
        Run::new(self, false).estimate()
    }

    /// How tensor parallelism cuts the weights over a group's GPUs (SGLang's DP attention
    /// included).
    pub(super) fn tp_split(&self) -> super::weights::TpSplit {
        super::weights::TpSplit {
            tp: self.tp,
            attention_groups: self.dp_attention,
        }
    }
}

impl Run<'_> {
    /// Whether the run keeps a KV cache for this architecture: a generative decoder does; a
    /// bidirectional decoder (EmbeddingGemma) is an encoder to every engine but transformers,
    /// whose model still fills the DynamicCache its config's use_cache asks for
    /// (`Gemma3TextModel.forward` makes one when given none).
    pub(super) fn keeps_kv_cache(&self, a: &crate::model::Architecture) -> bool {
        a.is_generative() || (a.bidirectional && self.w.runner() == super::Runner::Transformers)
    }

    /// Activation dtype bytes for inference.
    pub(super) fn act_bytes(&self) -> u64 {
        if self.dtype == Dtype::Fp32 { 4 } else { 2 }
    }

    /// KV elements per token summed over the layers on this GPU, for `context` tokens, and the
    /// KV-cache bytes for `seqs` sequences of `context` tokens.
    pub(super) fn kv_bytes(
        &self,
        seqs: u64,
        context: u64,
        layers: u64,
        decompressed_mla: bool,
    ) -> (u64, Formula) {
        self.kv_bytes_held(seqs, context, layers, decompressed_mla, 0)
    }

    /// [`Run::kv_bytes`] with the sliding layers holding at least `prompt` tokens: transformers'
    /// `DynamicSlidingWindowLayer` keeps a slice of the prompt's keys and values, so until the
    /// first decode step its storage is the whole prompt's (checked with real tensors in
    /// `tests/reference/gemma4-reference.csv`).
    pub(super) fn kv_bytes_held(
        &self,
        seqs: u64,
        context: u64,
        layers: u64,
        decompressed_mla: bool,
        prompt: u64,
    ) -> (u64, Formula) {
        let a = self.cache_arch();
        if !a.is_detailed() {
            return (
                0,
                formula!(self.text; text "not counted: a parameter count alone does not give the layers, KV heads or head size", "未计入：仅凭参数量无法得知层数、KV 头数与注意力头维度"),
            );
        }
        if !self.keeps_kv_cache(a) {
            return (
                0,
                formula!(self.text; text "no KV cache (not a generative decoder)", "没有 KV 缓存（不是生成式解码器）"),
            );
        }
        if let Some(c) = a.compressed {
            return self.compressed_cache(c, seqs, context, layers, prompt);
        }
        // transformers 5.24 keeps the latent compressed in a DSA model (`DynamicIndexedLayer`)
        // and in Kimi-Linear's MLA layers (checked tensor by tensor in
        // tests/reference/attention-reference.csv).
        let decompressed_mla = decompressed_mla && a.indexer.is_none() && a.hybrid.is_none();
        let tp_kv = match a.mla {
            Some(_) if !decompressed_mla => 1,
            _ => self.tp.min(a.num_kv_heads.max(1)),
        };
        let per_layer = match a.mla {
            Some(m) if decompressed_mla => {
                a.num_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim)
            }
            _ => a.kv_elements_per_token_layer(),
        } / tp_kv;
        let (global, local) = a.stage_layers(layers);
        let local_ctx = context.min(if a.sliding_window > 0 {
            a.sliding_window.max(prompt)
        } else {
            context
        });
        // Gemma 4's full-attention layers cache at their own head width and KV heads.
        let full_per = match a.layer_shapes {
            Some(s) if a.mla.is_none() => {
                a.kv_elements_full_layer() / self.tp.min(s.full_kv_heads.max(1))
            }
            _ => per_layer,
        };
        let elems = seqs.saturating_mul(
            global
                .saturating_mul(context)
                .saturating_mul(full_per)
                .saturating_add(local.saturating_mul(local_ctx).saturating_mul(per_layer)),
        );
        let fp8_latent = self.dsa_fp8_latent(decompressed_mla);
        let bytes = match fp8_latent {
            Some(per) => per.saturating_mul(seqs).saturating_mul(
                global
                    .saturating_mul(context)
                    .saturating_add(local.saturating_mul(local_ctx)),
            ),
            None => self.kv_dtype.bytes_for(elems, self.act_kv_dtype()),
        };
        let (indexer, indexer_text) = self.indexer_cache(seqs, context, layers);
        if !self.text {
            return (bytes.saturating_add(indexer), Formula::default());
        }
        let per = match a.mla {
            Some(m) if !decompressed_mla && self.text => Formula::same(format!(
                "(kv_lora_rank {} + rope {})",
                m.kv_lora_rank, m.qk_rope_head_dim
            )),
            Some(_) => formula!(self.text;
                [
                    "{} heads × (nope + rope + v) (HF caches MLA decompressed)",
                    a.num_heads
                ],
                [
                    "{} 个头 × (nope + rope + v)（HF 缓存解压后的 MLA）",
                    a.num_heads
                ]
            ),
            None if self.cache_assumed() => formula!(self.text;
                ["2 × {} kv heads × {} head_dim (assumed)", a.num_kv_heads, a.head_dim],
                ["2 × {} 个 KV 头 × {} head_dim（假定）", a.num_kv_heads, a.head_dim]
            ),
            None => formula!(self.text;
                ["2 × {} kv heads × {} head_dim", a.num_kv_heads, a.head_dim],
                ["2 × {} 个 KV 头 × {} head_dim", a.num_kv_heads, a.head_dim]
            ),
        };
        // Step 3.5's full and sliding layers cache at the same width: the plain formula.
        if let Some(s) = a.layer_shapes.filter(|s| !s.head_gate) {
            let text = self.layer_shapes_kv_text(
                s,
                bytes,
                seqs,
                (global, local),
                (context, local_ctx),
                prompt,
            );
            return (bytes, text);
        }
        let tp_text = if tp_kv > 1 {
            format!(" / tp {tp_kv}")
        } else {
            String::new()
        };
        let window = self.kv_window_text((global, local), (context, local_ctx), prompt);
        let dtype = match fp8_latent {
            Some(per_token) => formula!(self.text;
                ["{per_token} B (fp8 in FlashMLA's layout, with scales)"],
                ["{per_token} B（FlashMLA 布局的 fp8，含缩放因子）"]
            ),
            None => Formula::same(self.kv_dtype_name()),
        };
        let latent_size = if indexer > 0 {
            format!(" ({})", b(bytes))
        } else {
            String::new()
        };
        let size = b(bytes.saturating_add(indexer));
        (
            bytes.saturating_add(indexer),
            formula!(self.text;
                [
                    "{}{tp_text} × {seqs} seq{} × {}{latent_size}{} = {size}",
                    per.en,
                    window.en,
                    dtype.en,
                    indexer_text.en
                ],
                [
                    "{}{tp_text} × {seqs} 条序列{} × {}{latent_size}{} = {size}",
                    per.zh,
                    window.zh,
                    dtype.zh,
                    indexer_text.zh
                ]
            ),
        )
    }

    /// The layers and tokens of [`Run::kv_bytes_held`]'s formula: the full and sliding layers'
    /// tokens, and that the sliding layers hold the prompt where they do.
    fn kv_window_text(
        &self,
        (global, local): (u64, u64),
        (context, local_ctx): (u64, u64),
        prompt: u64,
    ) -> Formula {
        let a = self.cache_arch();
        if local > 0 && prompt > a.sliding_window && local_ctx > a.sliding_window {
            formula!(self.text;
                [
                    " ({global} global layers × {context} tokens + {local} sliding layers × {local_ctx} tokens, the prompt's storage, held until the first decode step)"
                ],
                [
                    " ({global} 个全局层 × {context} token + {local} 个滑动窗口层 × {local_ctx} token，即提示词的存储，保留到第一步解码)"
                ]
            )
        } else if local > 0 {
            formula!(self.text;
                [
                    " ({global} global layers × {context} tokens + {local} sliding layers × {local_ctx} tokens)"
                ],
                [
                    " ({global} 个全局层 × {context} token + {local} 个滑动窗口层 × {local_ctx} token)"
                ]
            )
        } else {
            // The stage's attention layers: a hybrid's state layers keep no KV cache.
            let attending = global + local;
            formula!(self.text;
                [" × {attending} layers × {context} tokens"],
                [" × {attending} 层 × {context} token"]
            )
        }
    }

    /// The formula of Gemma 4's cache ([`LayerShapes`](crate::model::LayerShapes)): its full and
    /// sliding layers at their own widths.
    fn layer_shapes_kv_text(
        &self,
        s: crate::model::LayerShapes,
        bytes: u64,
        seqs: u64,
        (global, local): (u64, u64),
        (context, local_ctx): (u64, u64),
        prompt: u64,
    ) -> Formula {
        let a = self.cache_arch();
        let per = b(bytes);
        let dtype = self.kv_dtype_name();
        let (fkv, fhd, kv, hd) = (s.full_kv_heads, s.full_head_dim, a.num_kv_heads, a.head_dim);
        let held = if prompt > a.sliding_window && local_ctx > a.sliding_window {
            formula!(self.text;
                text "; the sliding layers hold the prompt's storage until the first decode step",
                "；滑动窗口层保留提示词的存储，直到第一步解码"
            )
        } else {
            Formula::default()
        };
        formula!(self.text;
            [
                "{seqs} seq × (2 × {fkv} kv heads × {fhd} global_head_dim × {global} full layers × {context} tokens + 2 × {kv} kv heads × {hd} head_dim × {local} sliding layers × {local_ctx} tokens){tp} × {dtype} = {per} (KV-shared layers keep none){}",
                held.en,
                tp = tp_note(self.tp, fkv, kv)
            ],
            [
                "{seqs} 条序列 × (2 × {fkv} 个 KV 头 × {fhd} global_head_dim × {global} 个全局层 × {context} token + 2 × {kv} 个 KV 头 × {hd} head_dim × {local} 个滑动窗口层 × {local_ctx} token){tp} × {dtype} = {per}（共享 KV 的层不保留缓存）{}",
                held.zh,
                tp = tp_note(self.tp, fkv, kv)
            ]
        )
    }

    /// The note of a decoder known by its parameter count alone: the shape its KV cache is
    /// counted for, what a full-attention model of that size would keep, and how to count it
    /// exactly.
    fn note_assumed_cache(&self, parts: &mut Parts) {
        if !self.text {
            return;
        }
        let a = self.cache_arch();
        let params = self.arch.opaque_params;
        let elems = a.kv_elements_per_token_layer().saturating_mul(a.num_layers);
        let mha = crate::model::Architecture::assumed_mha_elements_per_token(params);
        let dtype = self.kv_dtype_name();
        let per = |e: u64| b(self.kv_dtype.bytes_for(e, self.act_kv_dtype()));
        let (layers, heads, dim) = (a.num_layers, a.num_kv_heads, a.head_dim);
        let (assumed, full) = (per(elems), per(mha));
        // The ratio to the nearest tenth.
        let tenths = (mha.saturating_mul(20) / elems.max(1)).div_ceil(2);
        let ratio = format!("{}.{}", tenths / 10, tenths % 10);
        let p = thousands(params);
        parts.note(
            "kv_assumed_shape",
            en!("Only the parameter count ({p}) is known: the KV cache is counted for a typical shape assumed from it, {layers} layers × {heads} KV heads × {dim} head size (grouped-query attention as in Llama 3 and Qwen; layers = ⌈28.5 × ⁴√(parameters in billions)⌉), {assumed} a token at {dtype}, at least what the catalog's dense grouped-query models of that size keep. An older model with full multi-head attention (a KV head per query head, as Llama 2) keeps about {ratio}× as much, {full} a token; the activations that grow with the context are not counted either. Give the model's id, its config.json or a hub repo for its exact cache."),
            zh!("只知道参数量（{p}）：KV 缓存按由它假定的典型形状计算，{layers} 层 × {heads} 个 KV 头 × {dim} 头维度（分组查询注意力，如 Llama 3 与 Qwen；层数 = ⌈28.5 × ⁴√(以十亿计的参数量)⌉），每个 token {assumed}（{dtype}），不少于目录中同等规模的稠密分组查询注意力模型。较老的全多头注意力模型（每个查询头一个 KV 头，如 Llama 2）约需 {ratio} 倍，每个 token {full}；随上下文增长的激活值也没有计入。请给出模型 id、config.json 或模型仓库以得到精确的缓存。"),
        );
    }

    pub(super) fn act_kv_dtype(&self) -> Dtype {
        if self.dtype == Dtype::Fp32 {
            Dtype::Fp32
        } else if self.dtype == Dtype::Fp16 {
            Dtype::Fp16
        } else {
            Dtype::Bf16
        }
    }

    pub(super) fn kv_dtype_name(&self) -> String {
        match self.kv_dtype {
            KvDtype::Auto => format!(
                "{} B ({})",
                self.act_kv_dtype().bits() / 8,
                self.act_kv_dtype()
            ),
            KvDtype::Fp8 => String::from("1 B (fp8)"),
            KvDtype::Fp16 | KvDtype::Bf16 => format!("2 B ({})", self.kv_dtype.name()),
            KvDtype::Q8_0 => String::from("34/32 B (q8_0)"),
            KvDtype::Q4_0 => String::from("18/32 B (q4_0)"),
            KvDtype::Nvfp4 => String::from("9/16 B (nvfp4)"),
        }
    }

    pub(super) fn weights_formula(&self, bytes: u64) -> Formula {
        if !self.text {
            return Formula::default();
        }
        let a = &self.arch;
        let p = thousands(self.params());
        let size = b(bytes);
        let mut s = if !a.is_detailed() && self.quantization != Quantization::None {
            // A bare parameter count: the guide's bytes per parameter of the format.
            let per = short(guide_bytes_per_param(self.dtype, &self.quantization));
            let q = self.quantization.name();
            formula!(self.text;
                ["{p} params × {per} B ({q}) = {size}"],
                ["{p} 个参数 × {per} B ({q}) = {size}"]
            )
        } else if self.quantization == Quantization::None {
            let (per, d) = (self.dtype.bits() / 8, self.dtype);
            formula!(self.text;
                ["{p} params × {per} B ({d}) = {size}"],
                ["{p} 个参数 × {per} B ({d}) = {size}"]
            )
        } else {
            let q = a
                .tensors()
                .iter()
                .filter(|t| weights::is_quantized(&self.quantization, a, t))
                .map(|t| t.numel())
                .fold(0u64, u64::saturating_add);
            let kept = thousands(self.params().saturating_sub(q));
            let (q, name, d) = (thousands(q), self.quantization.name(), self.dtype);
            formula!(self.text;
                ["{q} quantized weights ({name}, with scales) + {kept} kept in {d} = {size}"],
                ["{q} 个量化权重 ({name}，含缩放因子) + {kept} 个参数保留为 {d} = {size}"]
            )
        };
        if self.tp > 1 || self.pp > 1 {
            let (tp, pp) = (self.tp, self.pp);
            s = formula!(self.text;
                ["{}, on the busiest of tp {tp} × pp {pp} shards", s.en],
                ["{}，在 tp {tp} × pp {pp} 个分片中最重的一个上", s.zh]
            );
        }
        s
    }

    /// The estimate: its parts and notes. Cannot fail: the workload was validated.
    pub(super) fn estimate(&self) -> Estimate {
        let mut parts = Parts::new(self.text);
        let (phase, trainable, cpu) = self.runner().run(self, &mut parts);
        self.note_past_trained_context(&mut parts);
        self.note_copies(&mut parts);
        if self.cache_assumed() && self.mode != super::Mode::Training {
            self.note_assumed_cache(&mut parts);
        } else if !self.arch.is_detailed() && self.text {
            parts.note(
                "kv_not_counted",
                en!("A parameter count alone gives the weights, not the model's layers, KV heads or head size: the KV cache and the activations that grow with the context are not counted, and a long context needs more than shown. Give the model's id, its config.json or a hub repo to count them."),
                zh!("仅凭参数量只能算出权重，无法得知模型的层数、KV 头数与注意力头维度：随上下文增长的 KV 缓存与激活值没有计入，长上下文需要的显存比显示的多。请给出模型 id、config.json 或模型仓库以计入它们。"),
            );
        }
        if self.vllm_downcast && self.text {
            if self.rules().fp32_auto == super::engine::Fp32Auto::Fp16Always {
                parts.note(
                    "tei_downcast",
                    en!("The checkpoint is fp32: Text Embeddings Inference runs it in float16 unless --dtype float32 is given."),
                    zh!("检查点为 fp32：除非给出 --dtype float32，Text Embeddings Inference 以 float16 运行。"),
                );
            } else if self.rules().fp32_auto == super::engine::Fp32Auto::Sglang {
                parts.note(
                    "sglang_downcast",
                    en!("The checkpoint is fp32: SGLang's dtype \"auto\" runs it in {} (bf16 for Gemma, the same 2 bytes a weight; pass --dtype float32 to keep it).", self.dtype),
                    zh!("检查点为 fp32：SGLang 的 dtype \"auto\" 以 {} 运行（Gemma 为 bf16，每个权重同为 2 字节；传 --dtype float32 可保持 fp32）。", self.dtype),
                );
            } else {
                parts.note(
                    "vllm_downcast",
                    en!("The checkpoint is fp32: vLLM's dtype \"auto\" runs it in {} (pass --dtype float32 to keep it).", self.dtype),
                    zh!("检查点为 fp32：vLLM 的 dtype \"auto\" 以 {} 运行（传 --dtype float32 可保持 fp32）。", self.dtype),
                );
            }
        }
        if let Some(im) = self.images().filter(|_| self.text) {
            let (n, w, h, each, all) = (
                im.per_request,
                im.width,
                im.height,
                im.tokens_each,
                thousands(im.tokens()),
            );
            parts.note(
                "images",
                en!("Each prompt holds {n} image(s) of {w} × {h} pixels, {each} tokens each by the model's own rule (its markers included): {all} tokens counted in seq_len, so the KV cache and the activations grow by them."),
                zh!("每个提示词含 {n} 张 {w} × {h} 像素的图像，按模型自己的规则每张 {each} 个 token（含起止标记）：共 {all} 个 token 计入 seq_len，KV 缓存与激活值随之增长。"),
            );
            if self.arch.vision_tower.is_none() {
                parts.note(
                    "images_tower",
                    en!("This model's vision tower has no modelled activation peak: its forward over the images, and in vLLM's start-up profile the encoder's own activations beyond its outputs, are not counted, so the total is low by them."),
                    zh!("该模型的视觉编码器没有建模的激活峰值：它对图像的前向，以及 vLLM 启动剖析中编码器输出之外的自身激活，均未计入，总量因此偏低。"),
                );
            }
        }
        if let Some(towers) = self.text_only_towers.filter(|_| self.text) {
            let towers = thousands(towers);
            parts.note(
                "language_model_only",
                en!("Language model only (vLLM --language-model-only, or --limit-mm-per-prompt with every modality at 0): vLLM builds no encoder tower and profiles no encoder, so the towers' {towers} parameters are left out of the weights and no image, video or audio is taken."),
                zh!("仅语言模型（vLLM --language-model-only，或 --limit-mm-per-prompt 把每个模态设为 0）：vLLM 不构建编码器、不剖析编码器，因此编码器的 {towers} 个参数不计入权重，也不接受图像、视频或音频。"),
            );
        }
        if let Some(ft) = self.gguf_dequantized.filter(|_| self.text) {
            parts.note(
                "gguf_dequantized",
                en!(
                    "Hugging Face transformers dequantizes a GGUF checkpoint as it loads it (`from_pretrained(gguf_file=…)`): the weights are counted in {} (its own default without torch_dtype is fp32). llama.cpp (engine llamacpp) keeps gguf-{}.",
                    self.dtype,
                    ft.name()
                ),
                zh!(
                    "Hugging Face transformers 加载 GGUF 检查点时会反量化（`from_pretrained(gguf_file=…)`）：权重按 {} 计算（未指定 torch_dtype 时默认 fp32）。llama.cpp（引擎 llamacpp）保持 gguf-{}。",
                    self.dtype,
                    ft.name()
                ),
            );
        }
        self.finish(parts, phase, trainable, cpu)
    }

    /// A note when copies of a server share the requests asked for: the figures are one copy's
    /// (its share of the requests), the speed's tokens per second all of them together.
    fn note_copies(&self, p: &mut Parts) {
        if self.copies <= 1 || !self.text {
            return;
        }
        let (requests, copies, each, engine) =
            (self.requests, self.copies, self.batch, self.rules().name);
        p.note(
            "copies_share_requests",
            en!(
                "{requests} requests at once over {copies} copies of the server ({engine}'s data parallel): each copy holds ceil({requests} / {copies}) = {each}. The memory, its pool and the time per step are one copy's (every GPU's the same); the tokens per second count every copy."
            ),
            zh!(
                "{requests} 个并发请求由 {copies} 份服务副本分担（{engine} 的数据并行）：每份承担 ceil({requests} / {copies}) = {each} 个。显存、KV 池与每步时间按一份副本计（每个 GPU 相同）；每秒 token 数计入全部副本。"
            ),
        );
    }

    /// A note when a sequence is longer than the model's `max_position_embeddings`: vLLM refuses
    /// such a `max_model_len`; elsewhere learned position embeddings (GPT-2, BERT) fail there and
    /// rotary ones run untrained that far. llama.cpp only warns, and is not noted.
    pub(super) fn note_past_trained_context(&self, p: &mut Parts) {
        let trained = self.arch.max_position_embeddings;
        let rules = self.rules();
        // llama.cpp only warns; Ollama clamps num_ctx to the trained context and says so in its
        // own note.
        let context = match rules.context {
            Context::Sequence => self.seq_len,
            Context::Prompt => self.seq_len.saturating_add(self.new_tokens),
            Context::PerSequence { .. } | Context::Shared { .. } => self.max_model_len,
        };
        if !self.text
            || trained == 0
            || context <= trained
            || rules.past_trained == PastTrained::Unnoted
        {
            return;
        }
        let (n, limit) = (thousands(context), thousands(trained));
        if rules.past_trained == PastTrained::RefusedUnlessSglangOverwrite {
            p.note(
                "sglang_beyond_context",
                en!(
                    "context_length {n} is past the model's max_position_embeddings {limit}: SGLang refuses to start unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1, and quality past the trained context is not assured."
                ),
                zh!(
                    "context_length {n} 超过模型的 max_position_embeddings {limit}：除非设置 SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1，SGLang 会拒绝启动；超出训练长度后的效果也没有保证。"
                ),
            );
        } else if rules.past_trained == PastTrained::RefusedUnlessVllmAllowLong {
            p.note(
                "vllm_beyond_context",
                en!(
                    "max_model_len {n} is past the model's max_position_embeddings {limit}: vLLM refuses to start unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (or a rope_scaling that extends the context), and quality past the trained context is not assured."
                ),
                zh!(
                    "max_model_len {n} 超过模型的 max_position_embeddings {limit}：除非设置 VLLM_ALLOW_LONG_MAX_MODEL_LEN=1（或用 rope_scaling 扩展上下文），vLLM 会拒绝启动；超出训练长度后的效果也没有保证。"
                ),
            );
        } else {
            p.note(
                "beyond_context",
                en!(
                    "{n} tokens per sequence is past the model's max_position_embeddings {limit}: a model with learned position embeddings (GPT-2, BERT) fails there, a rotary one runs but is not trained that far. The memory shown is for {n} tokens."
                ),
                zh!(
                    "每条序列 {n} 个 token，超过模型的 max_position_embeddings {limit}：使用可学习位置编码的模型（GPT-2、BERT）会直接出错，旋转位置编码的模型能运行，但没有在这么长的上下文上训练过。显示的显存按 {n} 个 token 计算。"
                ),
            );
        }
    }

    /// Tokens per sequence through the main stack: a ViT sees its patches and class token,
    /// `(image / patch)² + 1` (its learned positions), whatever `seq_len` says.
    pub(super) fn main_seq(&self) -> u64 {
        if self.arch.family == Family::Vit && self.arch.encoder_positions > 0 {
            self.arch.encoder_positions
        } else {
            self.seq_len
        }
    }

    /// Whisper's encoder: its layers and the fixed frames it runs (1,500 for 30 s of audio).
    pub(super) fn encoder_stack(&self) -> (u64, u64) {
        if self.arch.family == Family::Whisper {
            (self.arch.encoder_layers, self.arch.encoder_positions.max(1))
        } else {
            (0, 0)
        }
    }

    /// Whisper's cross-attention: every decoder layer projects the encoder's frames to keys and
    /// values once and keeps them for the whole generation (`EncoderDecoderCache`'s cross cache;
    /// vLLM's `CrossAttentionSpec`). Elements per sequence over `layers` decoder layers, after
    /// tensor parallelism; 0 for every other family.
    pub(super) fn cross_kv_elements(&self, layers: u64) -> u64 {
        let (_, frames) = self.encoder_stack();
        if frames == 0 || !self.arch.is_generative() {
            return 0;
        }
        let tp_kv = self.tp.min(self.arch.num_kv_heads.max(1));
        (self.arch.kv_elements_per_token_layer() / tp_kv)
            .saturating_mul(frames)
            .saturating_mul(layers)
    }

    #[cfg(feature = "training")]
    /// A convolutional network's training activations from its per-image counts: what autograd
    /// saves for each image of the batch, and the max-pooling indices (int64).
    pub(super) fn image_training_bytes(&self, act: u64) -> u64 {
        let a = &self.arch;
        self.batch.saturating_mul(
            a.image_activations
                .saturating_mul(act)
                .saturating_add(a.image_indices.saturating_mul(8)),
        )
    }

    /// A convolutional network's inference working set: the widest point of one forward pass.
    pub(super) fn image_inference_bytes(&self) -> u64 {
        self.batch
            .saturating_mul(self.arch.image_working)
            .saturating_mul(self.act_bytes())
    }

    /// Bytes per token of a serving engine's forward over a batch of tokens (vLLM's profile run,
    /// SGLang's prefill chunk, TensorRT-LLM's profile): one block's inference working set per
    /// token, its 8 hidden-wide fp32 temporaries replaced by two in the activation dtype.
    pub(super) fn serving_forward_per_token(&self) -> u64 {
        let (a, act) = (&self.arch, self.act_bytes());
        let (per_tok, _) = super::activations::inference_per_token(a, act);
        per_tok.saturating_sub(8 * a.hidden_size) + 2 * act * a.hidden_size
    }

    /// A serving engine's weights on its busiest GPU: tensor and pipeline parallel, the routed
    /// experts over `ep` GPUs of the tensor × data parallel group (vLLM, SGLang, TensorRT-LLM
    /// load them alike); the guide's `P × b` for a bare parameter count.
    pub(super) fn serving_weights(&self) -> u64 {
        let a = &self.arch;
        if a.is_detailed() && self.ep <= 1 && self.dp_attention <= 1 {
            // Without expert parallelism or DP attention this is `per_gpu_weight_bytes`, which
            // the run's one walk over the tensors already summed.
            self.weight_split().all
        } else if a.is_detailed() {
            weights::per_gpu_weight_bytes_ep(
                a,
                self.dtype,
                &self.quantization,
                (self.tp_split(), self.pp),
                self.ep,
                self.tp * self.dp,
            )
        } else {
            self.opaque_weights()
        }
    }

    /// Weights of a model known by its parameter count only: `P × b` (the guide's rule), split
    /// evenly over tensor and pipeline parallel shards.
    pub(super) fn opaque_weights(&self) -> u64 {
        let p = self.params() as f64 * guide_bytes_per_param(self.dtype, &self.quantization);
        Bytes::from_f64(p / (self.tp * self.pp) as f64).get()
    }

    pub(super) fn hopper(&self) -> bool {
        self.device.as_ref().is_none_or(|d| d.hopper_or_newer)
    }

    pub(super) fn context_and_workspace(&self, p: &mut Parts) {
        p.add(
            ComponentKind::CudaContext,
            CUDA_CONTEXT.get(),
            false,
            formula!(self.text; text "CUDA context with lazy module loading: 0.51 GiB (measured, H100, PyTorch 2 / vLLM 0.19)", "CUDA 上下文（模块延迟加载）：0.51 GiB (实测，H100, PyTorch 2 / vLLM 0.19)"),
            en_str!("Driver and kernel images; outside PyTorch's allocator, visible in nvidia-smi."),
            zh_str!("驱动与内核镜像；不经 PyTorch 分配器，nvidia-smi 可见。"),
        );
        let ws = cublas_workspace(self.hopper()).get();
        p.add(
            ComponentKind::Workspace,
            ws,
            true,
            formula!(self.text;
                [
                    "cuBLAS workspace: {} per handle and stream ({})",
                    b(ws),
                    if self.hopper() {
                        "Hopper or newer"
                    } else {
                        "before Hopper"
                    }
                ],
                [
                    "cuBLAS 工作区：{}，每个 handle 与 stream 各一份（{}）",
                    b(ws),
                    if self.hopper() {
                        "Hopper 及更新的架构"
                    } else {
                        "Hopper 之前的架构"
                    }
                ]
            ),
            en_str!("Allocated through PyTorch's caching allocator."),
            zh_str!("经 PyTorch 缓存分配器分配。"),
        );
    }
}

/// The tensor-parallel split of a Gemma 4 cache's heads, as the formula shows it (a build
/// without text writes no formula).
#[cfg(any(feature = "en", feature = "zh"))]
fn tp_note(tp: u64, full_kv_heads: u64, kv_heads: u64) -> String {
    let (full, sliding) = (tp.min(full_kv_heads.max(1)), tp.min(kv_heads.max(1)));
    match (full, sliding) {
        (1, 1) => String::new(),
        (f, s) if f == s => format!(" / tp {f}"),
        (f, s) => format!(" (full / tp {f}, sliding / tp {s})"),
    }
}
