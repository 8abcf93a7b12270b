//! Activation memory: what a forward pass keeps for backward (training) or holds at once
//! (inference), counted tensor by tensor from the layer's operations.

use crate::model::{Architecture, Role};
#[cfg(feature = "training")]
use crate::model::{Family, Norm};

/// Which weights receive gradients; decides which inputs autograd must save.
#[derive(Clone, Copy, Debug)]
pub struct Trainable {
    /// All weights (full fine-tuning).
    pub all: bool,
    /// LoRA targets as a set of [`role_bit`]s (ignored when `all`).
    pub lora_mask: u32,
    /// LoRA rank (0 without adapters).
    pub lora_rank: u64,
    /// Bytes per element of the adapters: 4 where PEFT keeps them in fp32 (its default,
    /// `autocast_adapter_dtype=True`, whatever the base's dtype), 2 where DeepSpeed holds the
    /// whole model in 16 bits.
    pub adapter_bytes: u64,
    /// LoRA's dropout is on (`lora_dropout` above 0): each adapter drops its input first.
    pub lora_dropout: bool,
}

impl Trainable {
    /// Whether the projection `role` needs its input saved: its weight trains, or a LoRA adapter
    /// sits on it (the adapter's A matrix needs the same input).
    pub fn saves_input(&self, role: Role) -> bool {
        self.all || self.lora_mask & role_bit(role) != 0
    }
}

#[cfg(feature = "training")]
/// How a training forward pass computes: what decides which tensors autograd saves, and in which
/// dtype.
#[derive(Clone, Copy, Debug)]
pub struct Compute {
    /// Bytes per element of the compute dtype: 2 for bf16/fp16 (autocast included), 4 for fp32.
    pub act: u64,
    /// Bytes per element of the residual stream, the dtype of the weights: 4 when they are fp32
    /// (under autocast too), else `act`.
    pub resid: u64,
    /// CUDA autocast is on: matmuls in 16 bits, and its fp32 list (`layer_norm`, `pow`, the
    /// losses…) in fp32, whatever the weights' dtype.
    pub autocast: bool,
    /// The attention kernel.
    pub kernel: Kernel,
    /// Tensor-parallel size.
    pub tp: u64,
}

/// A bit per projection role, for LoRA target sets.
pub const fn role_bit(role: Role) -> u32 {
    match role {
        Role::Q | Role::QA | Role::QB => 1,
        Role::K => 2,
        Role::V => 4,
        Role::KvA | Role::KvB => 6,
        Role::O => 8,
        Role::Gate | Role::ExpertGate => 16,
        Role::Up | Role::ExpertUp => 32,
        Role::Down | Role::ExpertDown => 64,
        _ => 0,
    }
}

/// Attention kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// FlashAttention / SDPA's flash or memory-efficient kernels: no `S × S` matrix is kept.
    Flash,
    /// Eager attention: the `heads × S × S` probabilities are materialised.
    Eager,
}

/// The FFN width a token passes through: dense width, or for MoE the routed experts it visits
/// plus the shared experts.
pub fn token_ffn_width(arch: &Architecture) -> u64 {
    match arch.moe {
        Some(m) => m.expert_intermediate_size * m.experts_per_token + m.shared_intermediate_size,
        None => arch.widest_ffn(),
    }
}

/// Width of the attention output (`heads × head_dim`, or `heads × v_head_dim` for MLA).
pub fn attn_width(arch: &Architecture) -> u64 {
    match arch.mla {
        Some(m) => arch.num_heads * m.v_head_dim,
        None => arch.num_heads * arch.widest_head().0,
    }
}

/// Width of q plus k plus v as the attention kernel sees them.
pub fn qkv_width(arch: &Architecture) -> u64 {
    match arch.mla {
        // MLA decompresses to full per-head keys and values for the kernel during training.
        Some(m) => arch.num_heads * (2 * (m.qk_nope_head_dim + m.qk_rope_head_dim) + m.v_head_dim),
        None => {
            let (head_dim, kv_heads) = arch.widest_head();
            (arch.num_heads + 2 * kv_heads) * head_dim
        }
    }
}

#[cfg(feature = "training")]
/// Whether the kernel's q is a view of a fused q, k, v projection's output, which then stays
/// alive whole: a decoder without rotary embeddings (learned positions, GPT-2's `c_attn`) splits
/// the fused output into views and passes q on as it is; a rotary decoder writes a new q.
pub fn fused_qkv_view(arch: &Architecture) -> bool {
    arch.family == Family::CausalLm && arch.learned_positions > 0 && arch.mla.is_none()
}

#[cfg(feature = "training")]
/// What a set of projections reading one input saves for backward: each one's own copy
/// (`own`, bytes per token), and whether they also keep the input itself (`shared`, counted once
/// however many read it).
///
/// `modules` says, per module, whether it trains (its weight, or a LoRA adapter on it), `width` is
/// the input's width and `x` its bytes per element.
/// - A projection whose weight trains saves its input: the input itself, or under autocast over
///   an fp32 input its own 16-bit cast (autocast caches the casts of weights, not of
///   activations).
/// - A LoRA adapter's `lora_A` saves its input and `lora_B` `lora_A`'s output (rank wide). PEFT
///   casts the input to the adapter's dtype for each adapted module (`_cast_input_dtype`): with
///   fp32 adapters over a 16-bit input each module makes and keeps its own fp32 copy; under
///   autocast that copy is cast back to 16 bits for `lora_A`, which keeps that cast instead. The
///   frozen base projection keeps nothing.
/// - With LoRA dropout (`lora_B(lora_A(dropout(x)))`, PEFT's `Linear.forward` and torchtune's
///   `LoRALinear`) each adapted module's `native_dropout` keeps its bool mask (1 byte per input
///   element) and `lora_A` keeps the dropout's output (adapter dtype; under autocast its 16-bit
///   cast) instead of the shared input: its own copy even where the dtypes match.
fn projection_inputs(
    modules: &[bool],
    width: u64,
    x: u64,
    c: &Compute,
    train: &Trainable,
) -> (u64, bool) {
    let (mut own, mut shared) = (0u64, false);
    for _ in modules.iter().filter(|t| **t) {
        if train.all {
            if c.autocast && x != c.act {
                own += c.act * width;
            } else {
                shared = true;
            }
        } else {
            let ab = train.adapter_bytes;
            let copies = x != ab || c.autocast && ab != c.act;
            let copy_bytes = if c.autocast { c.act } else { ab };
            if train.lora_dropout {
                own += (copy_bytes + 1) * width;
            } else if copies {
                own += copy_bytes * width;
            } else {
                shared = true;
            }
            own += copy_bytes * train.lora_rank;
        }
    }
    (own, shared)
}

#[cfg(feature = "training")]
/// Bytes saved for backward per token per block, and per sequence per block for the `S × S`
/// part, in training.
///
/// Operation by operation, for HF's modelling code:
/// - an RMSNorm keeps its fp32 copy of the input (4·h) and, when its weight trains, the
///   normalised tensor (resid·h); a LayerNorm (`native_layer_norm`) keeps only its input, under
///   autocast its fp32 cast (4·h, `layer_norm` is on autocast's fp32 list), else the residual
///   itself (resid·h);
/// - the projections keep their inputs as [`projection_inputs`] says;
/// - SDPA's kernels (cuDNN, flash, memory-efficient) keep q, k and v at their own KV heads (they
///   take grouped-query attention natively; k and v are the cache's concatenated copies), the
///   output (o_proj reads it as a view: the kernel writes it in B, S, H, D order) and an fp32
///   log-sum-exp per head; where q is a view of a fused projection ([`fused_qkv_view`]) that
///   whole output stays alive. Eager attention keeps q and k, v expanded to every query head
///   (`repeat_kv`), o_proj's contiguous copy of the output when o_proj saves its input, and per
///   head per query–key pair the fp32 softmax output, and what the second matmul reads (its
///   16-bit cast, or the dropout's output) with the dropout's bool mask;
/// - the gated FFN keeps the gate output (for SiLU), the SiLU output and the up output; a plain
///   FFN the up output (for GELU). A tanh-GELU built from elementary ops (`gelu_new`) keeps x (for
///   `pow`), tanh's output, 0.5·x and 1 + tanh; under autocast `pow` runs in fp32, so x's fp32
///   cast, tanh and 1 + tanh are fp32 (12·i) and 0.5·x 16-bit, and down_proj casts the fp32
///   product back;
/// - Qwen3's RMSNorm on every head of q and k keeps fp32 copies of q and k, and the normalised
///   tensors when its weights train;
/// - with dropout (BERT, GPT-2, ViT, Whisper train with 0.1) a bool mask after the attention
///   output and after the FFN: SDPA drops the attention probabilities inside the kernel.
///
/// Under tensor parallelism `tp` (Megatron-style, without sequence parallelism) the kernel's and
/// the FFN's tensors are split across GPUs; the norms and the projections' replicated inputs are not.
pub fn training_per_token(arch: &Architecture, c: &Compute, train: &Trainable) -> (u64, u64) {
    let h = arch.hidden_size;
    let tp = c.tp.max(1);
    let (act, resid) = (c.act, c.resid);
    let i = token_ffn_width(arch).div_ceil(tp);
    let norms = arch.norms_per_layer.max(1);
    let layer_norm = arch.norm == Norm::Layer;
    let mut b = 0u64;
    // Norms.
    b += norms
        * if layer_norm {
            if c.autocast { 4 * h } else { resid * h }
        } else {
            4 * h + if train.all { resid * h } else { 0 }
        };
    // The norms' output, which the projections read: fp32 from a LayerNorm under autocast or on
    // an fp32 residual stream.
    let norm_out = if layer_norm && c.autocast { 4 } else { resid };
    // q, k, v (or MLA's down-projections): one module when they are fused.
    let fused = fused_qkv_view(arch);
    let (qkv, shared) = match arch.mla {
        Some(m) => {
            let q = if m.q_lora_rank > 0 { Role::QA } else { Role::Q };
            projection_inputs(
                &[train.saves_input(q), train.saves_input(Role::KvA)],
                h,
                norm_out,
                c,
                train,
            )
        }
        None if fused => projection_inputs(
            &[[Role::Q, Role::K, Role::V]
                .iter()
                .any(|r| train.saves_input(*r))],
            h,
            norm_out,
            c,
            train,
        ),
        None => projection_inputs(
            &[Role::Q, Role::K, Role::V].map(|r| train.saves_input(r)),
            h,
            norm_out,
            c,
            train,
        ),
    };
    b += qkv + if shared { norm_out * h } else { 0 };
    // The attention kernel.
    let eager = c.kernel == Kernel::Eager;
    let kernel = match arch.mla {
        // MLA decompresses to full per-head keys and values for the kernel.
        Some(_) => act * qkv_width(arch) + 4 * arch.num_heads,
        None if eager => act * 3 * arch.num_heads * arch.head_dim,
        None => {
            let q = if fused {
                qkv_width(arch)
            } else {
                arch.num_heads * arch.head_dim
            };
            act * (q + 2 * arch.num_kv_heads * arch.head_dim + attn_width(arch))
                + 4 * arch.num_heads
        }
    };
    b += kernel.div_ceil(tp);
    if arch.qk_norm && arch.mla.is_none() {
        let qk = (arch.num_heads + arch.num_kv_heads) * arch.head_dim;
        b += (4 * qk + if train.all { act * qk } else { 0 }).div_ceil(tp);
    }
    // o_proj reads the attention output: a view of the kernel's output, or eager attention's
    // contiguous copy of it.
    let (o, shared) = projection_inputs(
        &[train.saves_input(Role::O)],
        attn_width(arch).div_ceil(tp),
        act,
        c,
        train,
    );
    b += o + if shared && eager {
        (act * attn_width(arch)).div_ceil(tp)
    } else {
        0
    };
    // FFN inputs.
    let ffn_modules = if arch.gated_ffn {
        [train.saves_input(Role::Gate), train.saves_input(Role::Up)]
    } else {
        [false, train.saves_input(Role::Up)]
    };
    let (up, shared) = projection_inputs(&ffn_modules, h, norm_out, c, train);
    b += up + if shared { norm_out * h } else { 0 };
    // The activation, and down_proj's input (its product, in fp32 from gelu_new under autocast).
    let gelu_fp32 = arch.composite_gelu && c.autocast;
    b += if arch.gated_ffn {
        3 * act * i
    } else if gelu_fp32 {
        12 * i + act * i
    } else if arch.composite_gelu {
        4 * act * i
    } else {
        act * i
    };
    let (down, shared) = projection_inputs(
        &[train.saves_input(Role::Down)],
        i,
        if gelu_fp32 { 4 } else { act },
        c,
        train,
    );
    b += down + if shared { act * i } else { 0 };
    if let Some(m) = arch.moe {
        // Router logits (fp32) and routing weights.
        b += 4 * m.num_experts + 8 * m.experts_per_token;
        // Transformers' sparse MoE block gathers each routed slot's tokens into a tensor of its
        // own: the experts' gate and up projections save it (under autocast over an fp32 input,
        // each its own cast), once per slot where a dense FFN saves its input once. The routing
        // multiply saves every slot's expert output, and under autocast the router its own cast
        // of the input.
        let k = m.experts_per_token;
        let casts = c.autocast && norm_out != act;
        let up_inputs = ffn_modules.iter().filter(|t| **t).count() as u64;
        if up_inputs > 0 {
            b += act * h * k.saturating_sub(1) * if casts { up_inputs } else { 1 };
        }
        if train.all {
            b += act * h * (k + u64::from(casts));
        }
    }
    let dropout = arch.training_dropout;
    if dropout {
        b += 2 * h;
    }
    // Per sequence: eager attention's fp32 softmax output, what the second matmul reads (its
    // 16-bit cast; with dropout, the dropout's output) and the dropout's mask.
    let s2 = if eager {
        let read = if dropout || act != 4 { act } else { 0 };
        (arch.num_heads * (4 + read + u64::from(dropout))).div_ceil(tp)
    } else {
        0
    };
    (b, s2)
}

#[cfg(feature = "training")]
/// What a Whisper decoder layer's cross-attention saves for backward, beside
/// [`training_per_token`]'s self-attention and FFN: per decoder token, and per encoder frame.
///
/// Per token, as a self-attention sub-block without k and v: its LayerNorm's input, q_proj's
/// input, the kernel's q, output and fp32 log-sum-exp per head, o_proj's input as
/// [`training_per_token`] counts it, and the dropout mask. Per frame: the kernel's k and v, and
/// the copies of the encoder's output that k_proj and v_proj each save (under autocast over fp32
/// weights, their casts; without, the encoder's output itself, one tensor for every layer and
/// not counted here).
pub fn cross_attention_training(arch: &Architecture, c: &Compute, train: &Trainable) -> (u64, u64) {
    let h = arch.hidden_size;
    let tp = c.tp.max(1);
    let (act, resid) = (c.act, c.resid);
    let layer_norm = arch.norm == Norm::Layer;
    let mut token = if layer_norm {
        if c.autocast { 4 * h } else { resid * h }
    } else {
        4 * h + if train.all { resid * h } else { 0 }
    };
    let norm_out = if layer_norm && c.autocast { 4 } else { resid };
    let (q, shared) = projection_inputs(&[train.saves_input(Role::Q)], h, norm_out, c, train);
    token += q + if shared { norm_out * h } else { 0 };
    let eager = c.kernel == Kernel::Eager;
    token += (act * 2 * attn_width(arch) + 4 * arch.num_heads).div_ceil(tp);
    let (o, shared) = projection_inputs(
        &[train.saves_input(Role::O)],
        attn_width(arch).div_ceil(tp),
        act,
        c,
        train,
    );
    token += o + if shared && eager {
        (act * attn_width(arch)).div_ceil(tp)
    } else {
        0
    };
    if arch.training_dropout {
        token += h;
    }
    let (casts, _) = projection_inputs(
        &[train.saves_input(Role::K), train.saves_input(Role::V)],
        h,
        resid,
        c,
        train,
    );
    let frame = (act * 2 * attn_width(arch)).div_ceil(tp) + casts;
    (token, frame)
}

/// Bytes of the largest set of tensors alive at once inside one block during an inference
/// forward pass, per token, with the FFN's activation a fused kernel (vLLM); and per head per
/// query–key pair what eager attention holds at once.
///
/// The residual stream and the norm output (act·2h) plus the norm's fp32 temporaries (4·2h), and
/// the larger of: q, k, v and the attention output; or the FFN's gate, up and activated outputs
/// (3 × width, one expert at a time for MoE; a plain FFN's up and activated outputs, 2 × width).
///
/// Eager attention's softmax (`dtype=float32`) first casts 16-bit scores to fp32, so the scores
/// (act), their fp32 copy and the fp32 probabilities are alive together (4 + 4 + act); on fp32
/// scores there is no copy (4 + act).
pub fn inference_per_token(arch: &Architecture, act: u64) -> (u64, u64) {
    let copy = if act == 4 { 0 } else { 4 };
    (
        block_per_token(arch, act, false),
        arch.num_heads * (4 + copy + act),
    )
}

/// [`inference_per_token`] as PyTorch runs HF's modelling code, op by op: a tanh-GELU built from
/// elementary ops (`gelu_new`: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))) holds four FFN-wide
/// tensors at once: x, 0.5·x, a temporary of the tanh chain and the product.
pub fn hf_inference_per_token(arch: &Architecture, act: u64) -> (u64, u64) {
    let (_, s2) = inference_per_token(arch, act);
    (block_per_token(arch, act, arch.composite_gelu), s2)
}

fn block_per_token(arch: &Architecture, act: u64, composite_gelu: bool) -> u64 {
    let h = arch.hidden_size;
    let ffn = match arch.moe {
        // Tokens reach experts in turn; the shared expert runs on every token.
        Some(m) => m.expert_intermediate_size.max(m.shared_intermediate_size),
        None => arch.widest_ffn(),
    };
    let mlp = ffn
        * if arch.gated_ffn {
            3
        } else if composite_gelu {
            4
        } else {
            2
        };
    let attn = qkv_width(arch) + attn_width(arch);
    act * (2 * h + attn.max(mlp)) + 8 * h
}
