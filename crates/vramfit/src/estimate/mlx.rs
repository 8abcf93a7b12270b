//! mlx-lm on Apple silicon (`mlx_lm.generate`, `mlx_lm.server`): the weights in MLX's formats,
//! the KV cache as `mlx_lm/models/cache.py` grows it, the prompt's forward in steps of
//! `--prefill-step-size`, all within the unified memory the GPU may wire (Metal's
//! `recommendedMaxWorkingSetSize`, or `iogpu.wired_limit_mb`).
//!
//! Read from mlx-lm at d78bf58 (2026-08-22) and mlx 0.32:
//! - `KVCache.update_and_fetch` allocates keys and values in steps of 256 tokens
//!   (`n_steps = (step + S − 1) // step`, trimming to the tokens held and concatenating a new
//!   step when a chunk does not fit): after `T` tokens it holds `⌈T / 256⌉ × 256` when every
//!   prompt step is whole steps of 256 (2048, the default), at most `T + 255` otherwise. While it
//!   concatenates, one layer's old buffer is alive beside the new one.
//! - `RotatingKVCache(max_size=--max-kv-size, keep=4)`: a prompt step concatenates onto the last
//!   `max_size − 1` tokens (`_update_concat`: up to `max_size − 1 + S`), decoding writes in place,
//!   growing by 256 up to `max_size`.
//! - `QuantizedKVCache(group_size, bits)`: packed codes, a scale and a bias per group in the
//!   keys' dtype, in steps of 256; `maybe_quantize_kv_cache` converts each layer's cache once
//!   `offset ≥ quantized_kv_start` (checked after each prompt step and each token), the 16-bit
//!   cache and its quantized copy alive together until evaluated.
//! - `generate_step` runs the prompt but its last token in steps of `prefill_step_size`
//!   (`mx.eval` of the caches only: a step's logits are never computed), then one token at a time.
//! - mlx's `scaled_dot_product_attention` fuses a prompt step's attention for head sizes 64, 80
//!   and 128 (`sdpa_full_supported_head_dim`); other head sizes materialize the scores.

// The run shape's own (the `mlx` feature); the rules are in every build.
#[cfg(feature = "mlx")]
use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
#[cfg(feature = "mlx")]
use super::{Parts, Phase, Run, activations, b, thousands};
use crate::precision::KvDtype;
use crate::throughput::Runtime;

/// mlx-lm's decisions: its own Metal buffers, the prompt and generated tokens of each sequence
/// (`--max-kv-size` aside), the model's dtype or `--kv-bits` for the KV cache, MLX's formats.
pub(super) const RULES: Rules = Rules {
    name: "mlx-lm",
    peak: PeakSource::Mlx,
    kv_dtypes: Some(&[KvDtype::Auto]),
    required: Required::Total,
    context: Context::Prompt,
    past_trained: PastTrained::Unnoted,
    offload: LayerOffload::None,
    output_layer_first: false,
    dequantizes_gguf: false,
    decompressed_mla: true,
    indexer_keys: super::engine::IndexerKeys::ActivationDtype,
    expert_parallel: ExpertParallel::None,
    fp32_auto: crate::estimate::engine::Fp32Auto::Keeps,
    native_kv_formats: false,
    flash_only_when_asked: false,
    expert_offload: false,
    library_names: false,
    dp_attention: false,
    copies_share_requests: false,
    // mlx-lm's model registry (`mlx_lm/models/`) is not checked for OLMo Hybrid: refused, the
    // safe side.
    delta_net_with_plain_attention: false,
    // Nor for Gemma 4's text stack.
    gemma4_layers: false,
    pooled_indexer: false,
    step3p5_layers: false,
    compressed_cache: crate::estimate::engine::CompressedCache::Refused,
    gemma4_full_qkv: false,
    gemma3n_full_qkv: false,
    // One Mac's unified memory: several unlike devices (mlx's distributed pipeline) are not
    // followed.
    unlike_cards: super::engine::UnlikeCards::NotFollowed,
    runtime: Runtime::Mlx,
    formats: Formats::Mlx,
    reads: CardTraits {
        workspace: false,
        vllm_defaults: false,
        memory: false,
    },
};

/// `--prefill-step-size`'s default in `mlx_lm.generate` and `mlx_lm.server` (`generate.py`,
/// `server.py` at d78bf58).
pub const MLX_PREFILL_STEP_SIZE: u64 = 2048;

/// MLX's buffers outside the parts counted here (the prompt's token array, RoPE tables, the
/// allocator's rounding to pages). Fitted so that mlx-lm's published peak for a 4-bit Mistral
/// 7B with a 33,898-token prompt on an M2 Ultra is not under-counted (ml-explore/mlx-lm pull
/// 40, 2025-03-20: "Peak memory: 9.111 GB"; test `mistral_peak_of_mlx_lm_pull_40`).
#[cfg(feature = "mlx")]
pub const MLX_EXTRA: crate::units::Bytes = crate::units::Bytes::new(160 << 20); // 160 MiB

/// The step `KVCache`, `RotatingKVCache` and `QuantizedKVCache` grow by (`step = 256`).
#[cfg(feature = "mlx")]
pub const MLX_KV_STEP: u64 = 256;

/// Tokens a `KVCache` (or `QuantizedKVCache`) of one sequence holds room for after `tokens`
/// tokens, the prompt taken in steps of `prefill_step`: whole steps of 256 when every prompt
/// step is (exact), else the bound `tokens + 255` (each growth leaves under 256 unused).
#[cfg(feature = "mlx")]
pub fn kv_capacity(tokens: u64, prefill_step: u64) -> u64 {
    if prefill_step.is_multiple_of(MLX_KV_STEP) {
        tokens.div_ceil(MLX_KV_STEP).saturating_mul(MLX_KV_STEP)
    } else {
        tokens.saturating_add(MLX_KV_STEP - 1)
    }
}

/// Tokens a `RotatingKVCache(max_size)` holds at its largest over a prompt of `prompt` tokens
/// (all but the last in steps of `prefill_step`) and `tokens` in all. A prompt step appends
/// its tokens to what the buffer holds, trimmed to the last `max_size − 1` (`_update_concat`):
/// the buffer is every token so far until the step after it reaches `max_size − 1`, then
/// `max_size − 1` and a step. Decoding writes in place, growing the buffer by 256 up to
/// `max_size`.
#[cfg(feature = "mlx")]
pub fn rotating_capacity(prompt: u64, tokens: u64, max_size: u64, prefill_step: u64) -> u64 {
    let chunked = prompt.saturating_sub(1);
    let step = prefill_step.max(1);
    let kept = max_size.saturating_sub(1);
    // The tokens when the buffer first holds `max_size − 1` or more: whole steps until then.
    let grown = kept.div_ceil(step).max(1).saturating_mul(step).min(chunked);
    // A later step appends to `max_size − 1`: a whole step where one is left, else the rest.
    let after = chunked.saturating_sub(grown);
    let prefill = if after > 0 {
        grown.max(kept.saturating_add(step.min(after)))
    } else {
        grown
    };
    // Decoding from `chunked` tokens: in place, grown by 256 until `max_size`.
    let decode = if chunked >= max_size {
        max_size
    } else {
        let grown = tokens
            .saturating_sub(chunked)
            .div_ceil(MLX_KV_STEP)
            .saturating_mul(MLX_KV_STEP);
        chunked.saturating_add(grown).min(max_size)
    };
    prefill.max(decode)
}

/// The offset at which `maybe_quantize_kv_cache` converts the cache: the first offset at or
/// past `start` among the prompt steps' (`step`, `2·step`, …, `prompt − 1`) and then each
/// token's; `None` when the run never reaches it.
#[cfg(feature = "mlx")]
pub fn quantized_at(start: u64, prompt: u64, tokens: u64, step: u64) -> Option<u64> {
    let chunked = prompt.saturating_sub(1);
    let step = step.max(1);
    let at = if chunked > 0 && start <= chunked {
        start
            .div_ceil(step)
            .max(1)
            .saturating_mul(step)
            .min(chunked)
    } else {
        start.max(chunked.saturating_add(1))
    };
    (at <= tokens).then_some(at)
}

/// What an mlx-lm run holds, with no text.
#[cfg(feature = "mlx")]
struct Figures {
    weights: u64,
    /// The KV cache at its largest (the conversion to `--kv-bits` included), with one layer's
    /// old buffer alive while it grows.
    kv: u64,
    /// Tokens the largest cache holds room for, per sequence.
    kv_tokens: u64,
    /// The 16-bit cache's bytes per token (all layers, all sequences): the quantized cache's
    /// source.
    per_token_16: u64,
    /// One prompt step's forward: the widest block's tensors, and the attention scores where
    /// mlx does not fuse them.
    activations: u64,
    /// The scores among them.
    scores: u64,
    /// One layer's keys and values copied contiguous for the attention, among them.
    gathered: u64,
    /// The last token's logits and their log-softmax.
    logits: u64,
    /// The tokens of a prompt step.
    step: u64,
}

#[cfg(feature = "mlx")]
impl Run<'_> {
    /// mlx-lm's run: its figures, then their components with the text.
    pub(super) fn mlx(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let f = self.mlx_figures();
        self.add_mlx_parts(p, &f);
        #[cfg(feature = "moments")]
        {
            p.start_up = Some(super::moments::MLX_START_UP);
        }
        (Phase::Prefill, 0, 0)
    }

    /// Elements of keys and values per token over every layer of one sequence, split into the
    /// layers attending over the whole context and those within a sliding window; MLA cached
    /// decompressed (mlx-lm's DeepSeek models cache every head's keys and values: the safe
    /// side).
    fn mlx_kv_elements(&self) -> (u64, u64) {
        let a = self.cache_arch();
        if !a.is_generative() {
            return (0, 0);
        }
        let per_layer = match a.mla {
            Some(m) => a.num_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim),
            None => a.kv_elements_per_token_layer(),
        };
        let (global, local) = a.stage_layers(a.num_layers);
        (per_layer * global, per_layer * local)
    }

    fn mlx_figures(&self) -> Figures {
        let a = self.cache_arch();
        let act = self.act_bytes();
        let tokens = self.seq_len.saturating_add(self.new_tokens);
        let step = self.max_num_batched_tokens.min(self.seq_len.max(1)).max(1);
        let s = &self.mlx;
        let (global, local) = self.mlx_kv_elements();
        // Room per sequence: the whole stack's cache, or the rotating one. Sliding-window
        // layers are counted whole too: mlx-lm keeps a window only where a model's own
        // `make_cache` says so (Gemma 3, gpt-oss, a Llama `layer_types`), not for Mistral's
        // `sliding_window` (its `llama.py` makes every layer full attention): the safe side.
        let full = match s.max_kv_size {
            Some(m) => rotating_capacity(self.seq_len, tokens, m, step),
            None => kv_capacity(tokens, self.max_num_batched_tokens),
        };
        let window = full;
        let elements_at = |room: u64, win: u64| {
            (global.saturating_mul(room))
                .saturating_add(local.saturating_mul(win))
                .saturating_mul(self.batch)
        };
        let elems = elements_at(full, window);
        let layers = a.attention_layers().max(1);
        let kv = match s.kv_bits {
            None => {
                let cache = elems.saturating_mul(act);
                // One layer's buffer copied while it grows.
                cache.saturating_add(cache / layers)
            }
            Some(bits) => {
                let q = |e: u64| {
                    e.saturating_mul(u64::from(bits)).div_ceil(8)
                        + e.div_ceil(s.kv_group_size).saturating_mul(2 * act)
                };
                match quantized_at(s.quantized_kv_start, self.seq_len, tokens, step) {
                    // Before it reaches `quantized_kv_start`, the 16-bit cache alone.
                    None => {
                        let cache = elems.saturating_mul(act);
                        cache.saturating_add(cache / layers)
                    }
                    Some(at) => {
                        let room = kv_capacity(at, self.max_num_batched_tokens);
                        let e = elements_at(room, room.min(window));
                        let conversion = e.saturating_mul(act).saturating_add(q(e));
                        let last = q(elems).saturating_add(q(elems) / layers);
                        conversion.max(last)
                    }
                }
            }
        };
        let (per_token, _) = activations::inference_per_token(&self.arch, act);
        let fused = matches!(a.head_dim, 64 | 80 | 128) && a.mla.is_none();
        let scores = if fused || !a.is_generative() {
            0
        } else {
            // The scores and their softmax, every query head, over the prompt so far.
            (2 * act)
                .saturating_mul(self.arch.num_heads)
                .saturating_mul(step)
                .saturating_mul(self.seq_len)
                .saturating_mul(self.batch)
        };
        // The keys and values one layer attends over, read from the cache's room as a strided
        // slice and copied contiguous for the attention kernel: one layer at the context.
        let gathered = elements_at(kv_capacity(self.seq_len, self.max_num_batched_tokens), 1)
            .saturating_mul(act)
            / layers;
        let activations = per_token
            .saturating_mul(step)
            .saturating_mul(self.batch)
            .saturating_add(scores)
            .saturating_add(gathered)
            .saturating_add(MLX_EXTRA.get());
        Figures {
            weights: self.serving_weights(),
            kv,
            kv_tokens: full,
            per_token_16: elements_at(1, 1).saturating_mul(act),
            activations,
            scores,
            gathered,
            logits: self
                .batch
                .saturating_mul(self.arch.vocab_size)
                .saturating_mul(2 * act),
            step,
        }
    }

    fn add_mlx_parts(&self, p: &mut Parts, f: &Figures) {
        p.add(
            ComponentKind::Weights,
            f.weights,
            false,
            self.weights_formula(f.weights),
            en_str!("Weights as mlx-lm loads them: MLX's quantized formats keep a scale and a bias per group (affine) or one 8-bit scale (mxfp4, nvfp4, mxfp8), the embedding and the LM head quantized too."),
            zh_str!("mlx-lm 加载的权重：MLX 的量化格式每组保存一个缩放与一个偏置（affine）或一个 8 位缩放（mxfp4、nvfp4、mxfp8），嵌入层与 LM head 同样量化。"),
        );
        self.add_mlx_kv(p, f);
        p.add(
            ComponentKind::Activations,
            f.activations,
            false,
            formula!(self.text;
                let (step, batch, scores, gathered, extra, size) = (thousands(f.step), self.batch, b(f.scores), b(f.gathered), b(MLX_EXTRA.get()), b(f.activations));
                ["one prompt step of --prefill-step-size {step} tokens × {batch} sequences through the widest block + attention scores {scores} + one layer's keys and values gathered for attention {gathered} + MLX's other buffers {extra} (fitted) = {size}"],
                ["一个 --prefill-step-size {step} 个 token 的提示词步 × {batch} 条序列经过最宽的块 + 注意力分数 {scores} + 为注意力收集的一层键值 {gathered} + MLX 的其他缓冲 {extra}（拟合） = {size}"]
            ),
            en_str!("mlx fuses a prompt step's attention for head sizes 64, 80 and 128; others hold the scores of every head over the prompt. Counted beside the whole KV cache: the safe side."),
            zh_str!("mlx 对头维度 64、80、128 的提示词步融合注意力计算；其他头维度会保存每个头在整个提示词上的注意力分数。与完整 KV 缓存同时计入：偏安全。"),
        );
        p.add(
            ComponentKind::Logits,
            f.logits,
            false,
            formula!(self.text;
                let (batch, vocab, act, size) = (self.batch, self.arch.vocab_size, self.act_bytes(), b(f.logits));
                ["{batch} × {vocab} vocab × {act} B × 2 (logits and log-probabilities of the last token) = {size}"],
                ["{batch} × {vocab} 词表 × {act} B × 2（最后一个 token 的 logits 与对数概率） = {size}"]
            ),
            en_str!("mlx-lm computes the logits of the last token only: a prompt step evaluates the caches alone."),
            zh_str!("mlx-lm 只计算最后一个 token 的 logits：提示词步只求值缓存。"),
        );
        self.mlx_notes(p, f);
    }

    fn add_mlx_kv(&self, p: &mut Parts, f: &Figures) {
        let s = &self.mlx;
        let formula = match s.kv_bits {
            None => formula!(self.text;
                let (room, per, size) = (thousands(f.kv_tokens), thousands(f.per_token_16), b(f.kv));
                ["{room} tokens (steps of 256) × {per} B per token + one layer's copy while it grows = {size}"],
                ["{room} 个 token（每步 256） × 每 token {per} B + 增长时一层的副本 = {size}"]
            ),
            Some(bits) => formula!(self.text;
                let (room, per, group, start, size) = (thousands(f.kv_tokens), thousands(f.per_token_16), s.kv_group_size, thousands(s.quantized_kv_start), b(f.kv));
                ["{room} tokens (steps of 256) × {per} B per 16-bit token at {bits} bits + a scale and a bias per {group}, the 16-bit cache alive beside its copy at --quantized-kv-start {start} = {size}"],
                ["{room} 个 token（每步 256） × 每 token {per} B（16 位）按 {bits} 位 + 每 {group} 个一个缩放与偏置，16 位缓存在 --quantized-kv-start {start} 时与其量化副本同时存在 = {size}"]
            ),
        };
        p.add(
            ComponentKind::KvCache,
            f.kv,
            false,
            formula,
            en_str!("mlx-lm's KVCache grows in steps of 256 tokens, copying the old buffer into the new one layer by layer."),
            zh_str!("mlx-lm 的 KVCache 以 256 个 token 为一步增长，逐层把旧缓冲区复制进新缓冲区。"),
        );
    }

    /// The notes: the wired limit and mlx-lm's warning at 90 % of it; `--max-kv-size` where a
    /// model's own cache ignores it.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn mlx_notes(&self, p: &mut Parts, f: &Figures) {
        let Some(d) = self.device.as_ref() else {
            return;
        };
        let limit = d.memory.get();
        if let Some(wired) = self.mlx.wired_limit {
            let mb = wired.get() / crate::units::MIB;
            p.note(
                "mlx_wired_limit",
                en!("The GPU may wire {} (sudo sysctl iogpu.wired_limit_mb={mb}) in place of Metal's recommendedMaxWorkingSetSize; macOS and the applications open keep the rest (at least 4 GiB counted).", b(wired.get())),
                zh!("GPU 可锁定 {}（sudo sysctl iogpu.wired_limit_mb={mb}），取代 Metal 的 recommendedMaxWorkingSetSize；其余留给 macOS 与已打开的应用（至少按 4 GiB 计）。", b(wired.get())),
            );
        }
        // `mlx_lm.generate.wired_limit`: "[WARNING] Generating with a model that requires …"
        // once the model passes 0.9 × max_recommended_working_set_size.
        if f.weights.saturating_mul(10) > limit.saturating_mul(9) {
            p.note(
                "mlx_working_set",
                en!("The weights ({}) pass 90 % of the GPU's working set ({}): mlx-lm warns that generation can be slow. Raise the limit with sudo sysctl iogpu.wired_limit_mb=N (wired_limit_mb), below the Mac's RAM.", b(f.weights), b(limit)),
                zh!("权重（{}）超过 GPU 工作集（{}）的 90 %：mlx-lm 会警告生成可能变慢。可用 sudo sysctl iogpu.wired_limit_mb=N（wired_limit_mb）提高上限，但须低于 Mac 的内存。", b(f.weights), b(limit)),
            );
        }
    }
}
