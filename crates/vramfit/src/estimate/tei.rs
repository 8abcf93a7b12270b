//! Hugging Face Text Embeddings Inference (TEI: `text-embeddings-router`, the
//! `ghcr.io/huggingface/text-embeddings-inference` image) serving an embedding, reranking or
//! classification model on one GPU: the weights in `--dtype`, the activations of the warmup's
//! forward over `--max-batch-tokens`, the CUDA context. No KV cache, no sampler, no PyTorch.
//!
//! Read in huggingface/text-embeddings-inference at v1.9.3 (06670157fb6c1523482219bdb2d1660277d38088):
//! - `router/src/main.rs`: `--max-batch-tokens` 16,384 by default, `--max-batch-requests` none,
//!   `--max-client-batch-size` 32, `--max-concurrent-requests` 512, `--dtype float16|float32`
//!   (`backends/src/dtype.rs`: float16 by default on the CUDA build, bfloat16 only in the Python
//!   backend), `--auto-truncate` true.
//! - `backends/src/lib.rs` `Backend::warmup`: on a GPU (a model that is not padded) the router
//!   runs one batch of `max_batch_tokens` tokens at start, in requests of `max_input_length`
//!   (the sentence-transformers `max_seq_length`, else `max_position_embeddings` less RoBERTa's
//!   offset, cut to `max_batch_tokens`): the largest forward it will ever run, so a card that
//!   survives the warmup serves any batch.
//! - `backends/candle/src/lib.rs`: on CUDA with `float16` BERT, RoBERTa, XLM-RoBERTa (bge-m3),
//!   GTE, ModernBERT, Qwen2, Qwen3 (Qwen3-Embedding) and Mistral run their `Flash*` models —
//!   `flash_attn_varlen` over the unpadded tokens, no n² scores; in `float32` (and Gemma3,
//!   EmbeddingGemma, which it runs in float32 only) the plain candle models pad the batch to its
//!   longest request and hold the attention scores.
//! - candle's CUDA tensors are `cudarc` allocations freed when the last handle drops: no caching
//!   allocator, so no reserve beyond the tensors alive at the peak ([`PeakSource::Candle`]).
//!
//! What is alive at the peak was read in `backends/candle/src/models/flash_bert.rs` and
//! `flash_qwen3.rs` at that tag and is counted in [`per_token_elements`].

use super::EstimateInput;
use super::PeakSource;
use super::engine::{
    CardTraits, CompressedCache, Context, ExpertParallel, Formats, Fp32Auto, IndexerKeys,
    LayerOffload, PastTrained, Required, Rules, UnlikeCards,
};
#[cfg(feature = "tei")]
use super::{ComponentKind, Parts, Phase, Run, b, cublas_workspace, thousands};
use crate::error::Result;
use crate::model::{Architecture, Family};
use crate::precision::{Dtype, KvDtype, Quantization};
use crate::throughput::Runtime;
use crate::units::Bytes;

/// TEI's decisions: one GPU, pooling runs only, float16 whatever the checkpoint unless
/// `--dtype float32`, its peak its own tensors.
pub(super) const RULES: Rules = Rules {
    name: "Text Embeddings Inference",
    peak: PeakSource::Candle,
    // No KV cache at all: `Auto` alone, so that any other `kv_dtype` is refused.
    kv_dtypes: Some(&[KvDtype::Auto]),
    required: Required::Total,
    context: Context::Prompt,
    past_trained: PastTrained::Unnoted,
    offload: LayerOffload::None,
    output_layer_first: false,
    dequantizes_gguf: false,
    decompressed_mla: false,
    indexer_keys: IndexerKeys::Widest,
    delta_net_with_plain_attention: false,
    gemma4_layers: false,
    pooled_indexer: false,
    step3p5_layers: false,
    compressed_cache: CompressedCache::Refused,
    gemma4_full_qkv: false,
    gemma3n_full_qkv: false,
    expert_parallel: ExpertParallel::None,
    fp32_auto: Fp32Auto::Fp16Always,
    native_kv_formats: false,
    flash_only_when_asked: false,
    expert_offload: false,
    unlike_cards: UnlikeCards::NotFollowed,
    library_names: false,
    dp_attention: false,
    copies_share_requests: false,
    runtime: Runtime::Batched,
    formats: Formats::Checkpoint,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: false,
        memory: false,
    },
};

/// `--max-batch-tokens` when not given (`router/src/main.rs` at v1.9.3: `default_value =
/// "16384"`).
pub const TEI_MAX_BATCH_TOKENS: u64 = 16_384;

/// The CUDA context of the `text-embeddings-router` process: no measurement of TEI's own is
/// published, so the eager-loading figure of a PyTorch process (667 MB, PyTorch PR #86509),
/// which loads more kernels than candle's build holds, is taken: 0.11 GiB above the lazy
/// 0.51 GiB measured with vLLM 0.19 ([`super::CUDA_CONTEXT`]), the safe side.
pub const TEI_CUDA_CONTEXT: Bytes = Bytes::new(667_000_000);

/// Whether TEI runs this model's flash path: `float16` (its `Flash*` models; `float32` runs the
/// padded candle models).
#[cfg(feature = "tei")]
pub(super) const fn tei_flash(dtype: Dtype) -> bool {
    matches!(dtype, Dtype::Fp16)
}

/// Elements alive per token at the widest point of one layer of TEI's flash forward, the
/// larger of the attention's and the MLP's:
///
/// - BERT family (`flash_bert.rs`, post-norm): attention = the embedding output the model
///   keeps + the layer's input + the fused qkv `W` + a contiguous copy of q, k, v (`W`, the safe
///   side: the chunks may be passed as views) + the attention output `q` + the dense output +
///   the norm's output = `4h + 2W + q`; MLP = the embedding output + the residual + the
///   intermediate before and after its activation = `2h + 2I`.
/// - A decoder (`flash_qwen3.rs`, pre-norm): attention = the caller's hidden state and
///   residual + the normed input + q, k, v (`W`) + q_norm's and k_norm's outputs (`q + kv`) + the
///   attention output `q` + o_proj's output = `4h + W + 2q + kv`; MLP = the caller's two + the
///   normed input + the attention output, its residual sum and its norm + gate_up (`2I`) +
///   the activation (`I`) + the product (`I`) + down_proj's output = `7h + 4I` (`7h + 2I` for
///   an ungated MLP).
#[cfg(feature = "tei")]
pub(super) fn per_token_elements(a: &Architecture) -> u64 {
    let (h, i) = (a.hidden_size, a.intermediate_size);
    let q = a.num_heads.saturating_mul(a.head_dim);
    let kv = a.num_kv_heads.saturating_mul(a.head_dim);
    let w = q.saturating_add(kv.saturating_mul(2));
    let (attn, mlp) = if a.family == Family::Bert {
        (4 * h + 2 * w + q, 2 * h + 2 * i)
    } else {
        let up = if a.gated_ffn { 4 * i } else { 2 * i };
        (4 * h + w + 2 * q + kv, 7 * h + up)
    };
    attn.max(mlp)
}

/// What a TEI run holds, numbers alone.
#[cfg(feature = "tei")]
struct Figures {
    weights: u64,
    /// The token ids, types and positions of the warmup batch (u32 each) and a decoder's rotary
    /// cos and sin tables.
    inputs: u64,
    /// The widest layer's tensors over the warmup batch (padded where the path pads).
    layer: u64,
    /// The padded path's attention scores: the scores, the masked scores and the softmax, each
    /// `requests × heads × L × L` f32; 0 on the flash path.
    scores: u64,
    /// Requests the warmup splits `max_batch_tokens` into, and the longest one `L`.
    requests: u64,
    longest: u64,
    /// Tokens the forward runs: `max_batch_tokens`, or `requests × L` padded.
    tokens: u64,
    context: u64,
    workspace: u64,
}

/// Without vramfit's feature `tei` (the site's calculator builds) no run reaches here: the
/// input is refused as `unsupported` (`Runner::built`) and the page hands it to the full build.
#[cfg(feature = "tei")]
impl Run<'_> {
    /// TEI's run shape: one forward of the warmup, the model resident.
    pub(super) fn tei(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let f = self.tei_figures();
        self.add_tei_parts(p, &f);
        (Phase::Prefill, 0, 0)
    }

    fn tei_figures(&self) -> Figures {
        let a = &self.arch;
        let e = self.dtype.bits() as u64 / 8;
        let t = self.max_num_batched_tokens.max(1);
        // `max_input_length`: the trained context (RoBERTa's offset not taken off: longer, the
        // safe side for the padded scores), cut to `max_batch_tokens` by `--auto-truncate`.
        let longest = match a.max_position_embeddings {
            0 => t,
            trained => trained.min(t),
        };
        let requests = t.div_ceil(longest);
        let flash = tei_flash(self.dtype);
        let tokens = if flash {
            t
        } else {
            requests.saturating_mul(longest)
        };
        let ids = if a.family == Family::Bert { 3 } else { 2 };
        let rotary = if a.family == Family::Bert {
            0
        } else {
            a.max_position_embeddings
                .saturating_mul(a.head_dim)
                .saturating_mul(e)
        };
        let scores = if flash {
            0
        } else {
            requests
                .saturating_mul(a.num_heads)
                .saturating_mul(longest.saturating_mul(longest))
                .saturating_mul(3 * 4)
        };
        Figures {
            weights: self.weight_split().all,
            inputs: tokens.saturating_mul(ids * 4).saturating_add(rotary),
            layer: tokens
                .saturating_mul(per_token_elements(a))
                .saturating_mul(e),
            scores,
            requests,
            longest,
            tokens,
            context: TEI_CUDA_CONTEXT.get(),
            workspace: cublas_workspace(self.hopper()).get(),
        }
    }

    fn add_tei_parts(&self, p: &mut Parts, f: &Figures) {
        p.add(
            ComponentKind::Weights,
            f.weights,
            false,
            self.weights_formula(f.weights),
            en_str!("Weights as TEI's candle backend loads them from safetensors, cast to --dtype (float16 unless --dtype float32); no LM head is built for a decoder."),
            zh_str!("TEI 的 candle 后端从 safetensors 加载并转换为 --dtype 的权重（除非 --dtype float32，否则为 float16）；解码器不构建 LM head。"),
        );
        let e = self.dtype.bits() / 8;
        let per = per_token_elements(&self.arch);
        let activations = f.inputs.saturating_add(f.layer).saturating_add(f.scores);
        p.add(
            ComponentKind::Activations,
            activations,
            false,
            if f.scores == 0 {
                formula!(self.text;
                    let (t, per, inputs, size) = (thousands(f.tokens), thousands(per), b(f.inputs), b(activations));
                    ["warmup of --max-batch-tokens {t} tokens, unpadded (flash attention): {t} × {per} values alive in the widest layer × {e} B + token ids and rotary tables {inputs} = {size}"],
                    ["预热 --max-batch-tokens {t} 个 token，不填充（flash attention）：{t} × 最宽一层中存活的 {per} 个值 × {e} B + token id 与旋转位置表 {inputs} = {size}"]
                )
            } else {
                formula!(self.text;
                    let (n, l, t, per, heads, scores, inputs, size) = (f.requests, thousands(f.longest), thousands(f.tokens), thousands(per), self.arch.num_heads, b(f.scores), b(f.inputs), b(activations));
                    ["warmup padded to {n} requests × {l} tokens = {t}: {t} × {per} values × {e} B + 3 × {n} × {heads} heads × {l}² scores × 4 B ({scores}) + token ids {inputs} = {size}"],
                    ["预热填充为 {n} 个请求 × {l} 个 token = {t}：{t} × {per} 个值 × {e} B + 3 × {n} × {heads} 个头 × {l}² 个分数 × 4 B（{scores}）+ token id {inputs} = {size}"]
                )
            },
            en_str!("TEI runs one batch of --max-batch-tokens at start (its warmup) to check that the card holds it; the batches it serves never exceed it. With float16 the flash models take the tokens unpadded; float32 (and Gemma3) pads every request to the longest and holds the scores, the mask and the softmax."),
            zh_str!("TEI 启动时运行一个 --max-batch-tokens 的批（预热），以确认显卡容得下；之后服务的批不会超过它。float16 时 flash 模型不填充 token；float32（以及 Gemma3）把每个请求填充到最长并保存分数、掩码与 softmax。"),
        );
        p.add(
            ComponentKind::CudaContext,
            f.context,
            false,
            formula!(self.text; text "CUDA context: 667 MB (a PyTorch process loading its kernels eagerly, PyTorch PR #86509; none published for TEI)", "CUDA 上下文：667 MB（PyTorch 进程立即加载内核时的实测，PyTorch PR #86509；TEI 没有公开的测量）"),
            en_str!("The text-embeddings-router process's driver state and kernels: 0.11 GiB above the 0.51 GiB measured for a lazily loading PyTorch process, the safe side."),
            zh_str!("text-embeddings-router 进程的驱动状态与内核：比模块延迟加载的 PyTorch 进程实测的 0.51 GiB 多 0.11 GiB，偏安全。"),
        );
        p.add(
            ComponentKind::Workspace,
            f.workspace,
            false,
            formula!(self.text; let ws = b(f.workspace); ["cuBLAS workspace: {ws}"], ["cuBLAS 工作区：{ws}"]),
            en_str!("cuBLAS's own workspace for candle's matrix products."),
            zh_str!("cuBLAS 为 candle 的矩阵乘法分配的工作区。"),
        );
        p.note(
            "tei_memory",
            en!("Text Embeddings Inference keeps no KV cache and no caching allocator (candle frees each tensor when it is dropped): what the card holds is the model, the CUDA context and the warmup's forward over --max-batch-tokens, whatever the requests' lengths; --max-concurrent-requests and --max-client-batch-size queue requests, they add no GPU memory."),
            zh!("Text Embeddings Inference 没有 KV 缓存，也没有缓存分配器（candle 在张量释放时即归还显存）：显卡上只有模型、CUDA 上下文和 --max-batch-tokens 的预热前向，与请求长度无关；--max-concurrent-requests 与 --max-client-batch-size 只让请求排队，不占显存。"),
        );
        if self.seq_len > self.max_num_batched_tokens {
            let (s, t) = (self.seq_len, self.max_num_batched_tokens);
            p.note(
                "tei_truncate",
                en!("An input of {s} tokens exceeds --max-batch-tokens {t}: TEI truncates it to {t} tokens (--auto-truncate true, its default) or refuses to start (--auto-truncate false)."),
                zh!("{s} 个 token 的输入超过 --max-batch-tokens {t}：TEI 会把它截断为 {t} 个 token（--auto-truncate true，默认），或拒绝启动（--auto-truncate false）。"),
            );
        }
    }
}

/// TEI's checks on an input, made where the pooling run is resolved: one GPU, `--dtype`
/// float16 or float32, the checkpoint's own weights, a model with layers.
pub(super) fn check_input(input: &EstimateInput, arch: &Architecture) -> Result<()> {
    if let Some(d) = input.run.dtype
        && !matches!(d, Dtype::Fp16 | Dtype::Fp32)
    {
        return Err(input_error!(
            Unsupported,
            "dtype",
            [
                "Text Embeddings Inference's --dtype takes float16 or float32 on a GPU, not {d} (bfloat16 is its Python backend's alone)"
            ],
            [
                "Text Embeddings Inference 在 GPU 上的 --dtype 只接受 float16 或 float32，不接受 {d}（bfloat16 仅属于其 Python 后端）"
            ],
            "fp16 (float16) or fp32 (float32)",
            "fp16（float16）或 fp32（float32）",
        ));
    }
    if input.model.quantization != Quantization::None {
        return Err(input_error!(
            Unsupported,
            "quantization",
            "Text Embeddings Inference loads a checkpoint's float weights (safetensors) and casts them to --dtype; it loads no quantized format",
            "Text Embeddings Inference 加载检查点的浮点权重（safetensors）并转换为 --dtype；不加载任何量化格式",
            "none",
            "none",
        ));
    }
    let gpus = input.placement.gpus.unwrap_or(1.0);
    if input.placement.tp != 1.0 || input.placement.pp != 1.0 || gpus != 1.0 {
        return Err(input_error!(
            Unsupported,
            "gpus",
            "Text Embeddings Inference runs a model on one GPU (no tensor or pipeline parallelism): start one server per GPU",
            "Text Embeddings Inference 在一块 GPU 上运行模型（没有张量或流水线并行）：每块 GPU 启动一个服务",
            "gpus 1, tp 1, pp 1",
            "gpus 1、tp 1、pp 1",
        ));
    }
    if !matches!(arch.family, Family::Bert | Family::CausalLm) || !arch.is_detailed() {
        return Err(input_error!(
            Unsupported,
            "model",
            "Text Embeddings Inference runs text encoders (BERT, RoBERTa, XLM-RoBERTa …) and decoder embedding models (Qwen3, Mistral, Gemma3 …), given with their layers",
            "Text Embeddings Inference 运行文本编码器（BERT、RoBERTa、XLM-RoBERTa 等）与解码器嵌入模型（Qwen3、Mistral、Gemma3 等），需给出其层结构",
            "a text encoder or decoder by id, config.json or hub repo",
            "通过 id、config.json 或模型仓库给出的文本编码器或解码器",
        ));
    }
    if arch.moe.is_some() || arch.mla.is_some() || arch.hybrid.is_some() {
        return Err(input_error!(
            Unsupported,
            "model",
            "Text Embeddings Inference's candle backend builds no mixture-of-experts, MLA or hybrid layers",
            "Text Embeddings Inference 的 candle 后端不构建混合专家、MLA 或混合层",
            "a dense text encoder or decoder",
            "稠密的文本编码器或解码器",
        ));
    }
    Ok(())
}
