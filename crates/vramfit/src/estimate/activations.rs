//! Activation memory: what a forward pass keeps for backward (training) or holds at once
//! (inference), counted tensor by tensor from the layer's operations.

use crate::model::{Architecture, Role};

/// Which weights receive gradients; decides which inputs autograd must save.
#[derive(Clone, Copy, Debug)]
pub struct Trainable {
    /// All weights (full fine-tuning).
    pub all: bool,
    /// LoRA targets as a set of [`role_bit`]s (ignored when `all`).
    pub lora_mask: u32,
}

impl Trainable {
    /// Whether the projection `role` needs its input saved: its weight trains, or a LoRA adapter
    /// sits on it (the adapter's A matrix needs the same input).
    pub fn saves_input(&self, role: Role) -> bool {
        self.all || self.lora_mask & role_bit(role) != 0
    }
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
        None => arch.intermediate_size,
    }
}

/// Width of the attention output (`heads × head_dim`, or `heads × v_head_dim` for MLA).
pub fn attn_width(arch: &Architecture) -> u64 {
    match arch.mla {
        Some(m) => arch.num_heads * m.v_head_dim,
        None => arch.num_heads * arch.head_dim,
    }
}

/// Width of q plus k plus v as the attention kernel sees them.
pub fn qkv_width(arch: &Architecture) -> u64 {
    match arch.mla {
        // MLA decompresses to full per-head keys and values for the kernel during training.
        Some(m) => arch.num_heads * (2 * (m.qk_nope_head_dim + m.qk_rope_head_dim) + m.v_head_dim),
        None => (arch.num_heads + 2 * arch.num_kv_heads) * arch.head_dim,
    }
}

/// Bytes saved for backward per token per block, and per sequence per block for the `S × S`
/// part, in training.
///
/// `act` is the activation dtype's size (2 for bf16/fp16 compute, 4 for fp32). Operation by
/// operation, for a pre-norm block (HF's Llama-style modelling code):
/// - each RMSNorm/LayerNorm upcasts to fp32 and keeps that fp32 input (4·h), and its bf16
///   output when its own weight trains (`act·h`);
/// - q/k/v, o, gate/up and down projections keep their input only if that weight (or a LoRA
///   adapter on it) trains — a frozen `y = W x` needs only `W` for the input gradient;
/// - the attention kernel keeps q, k, v and its output (flash: plus an fp32 log-sum-exp per head);
///   eager attention also keeps the softmax output (fp32, 4 bytes) and its cast (act bytes) per
///   head per query–key pair;
/// - the gated FFN keeps the gate output (for SiLU), the SiLU output and the up output (for the
///   product); a plain FFN keeps the up output (for GELU);
/// - encoder families (BERT, ViT, Whisper) train with dropout 0.1: one byte per mask element.
///
/// Under tensor parallelism `tp` (Megatron-style, without sequence parallelism) the kernel's and
/// the FFN's tensors are split across GPUs; the norms and the projections' replicated inputs are not.
pub fn training_per_token(
    arch: &Architecture,
    act: u64,
    train: &Trainable,
    kernel: Kernel,
    tp: u64,
    amp: bool,
) -> (u64, u64) {
    let h = arch.hidden_size;
    let tp = tp.max(1);
    let i = token_ffn_width(arch).div_ceil(tp);
    let norms = arch.norms_per_layer.max(1);
    // Under autocast the residual stream stays fp32 (the weights are fp32): a norm's output keeps
    // fp32, and every projection casts its fp32 input to 16 bits on its own (autocast caches the
    // casts of weights, not of activations), so q, k and v each save a separate copy.
    let resid = if amp { 4 } else { act };
    let mut b = 0u64;
    // Norms: the fp32 copy of the input, and the output when the norm's weight trains.
    b += norms * (4 * h + if train.all { resid * h } else { 0 });
    // Projection inputs.
    let q_role = if arch.mla.is_some_and(|m| m.q_lora_rank > 0) {
        Role::QA
    } else {
        Role::Q
    };
    let qkv_inputs = [q_role, Role::K, Role::V]
        .iter()
        .filter(|r| train.saves_input(**r))
        .count() as u64;
    if qkv_inputs > 0 {
        b += act * h * if amp { qkv_inputs } else { 1 };
    }
    // The kernel saves q, k and v — k and v expanded to every query head under grouped-query
    // attention (repeat_kv, or SDPA's own expansion for the kernels without native GQA) — its
    // output and an fp32 log-sum-exp per head; HF then makes the output contiguous for o_proj,
    // a second copy that o_proj saves.
    let kv_saved = match arch.mla {
        Some(_) => qkv_width(arch) - attn_width(arch),
        None => 3 * arch.num_heads * arch.head_dim,
    };
    b += (act * (kv_saved + attn_width(arch)) + 4 * arch.num_heads).div_ceil(tp);
    if train.saves_input(Role::O) {
        b += (act * attn_width(arch)).div_ceil(tp);
    }
    // FFN.
    let up_inputs = [Role::Gate, Role::Up]
        .iter()
        .filter(|r| train.saves_input(**r) && (arch.gated_ffn || **r == Role::Up))
        .count() as u64;
    if up_inputs > 0 {
        b += act * h * if amp { up_inputs } else { 1 };
    }
    b += act * i * if arch.gated_ffn { 3 } else { 1 };
    if arch.composite_gelu {
        // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))): tanh's output, 0.5·x and (1 + tanh) are saved.
        b += 3 * act * i;
    }
    if train.saves_input(Role::Down) {
        b += act * i;
    }
    if let Some(m) = arch.moe {
        // Router logits (fp32) and routing weights.
        b += 4 * m.num_experts + 8 * m.experts_per_token;
        // Transformers' sparse MoE block gathers each routed slot's tokens into a tensor of its
        // own: the experts' gate and up projections save it (under autocast, each its own cast),
        // once per slot where a dense FFN saves its input once. The routing multiply saves every
        // slot's expert output, and under autocast the router its own cast of the input.
        let k = m.experts_per_token;
        if up_inputs > 0 {
            b += act * h * k.saturating_sub(1) * if amp { up_inputs } else { 1 };
        }
        if train.all {
            b += act * h * (k + u64::from(amp));
        }
    }
    let dropout = arch.training_dropout;
    if dropout {
        // Masks after the attention output and the FFN output, and on the attention probabilities'
        // path outside fused kernels: one byte per element.
        b += 3 * h;
    }
    // Per sequence: eager attention's probabilities, fp32 softmax output + its cast, + dropout mask.
    let s2 = match kernel {
        Kernel::Flash => 0,
        // In fp32, softmax(dtype=float32).to(fp32) returns the same tensor: no second copy.
        Kernel::Eager => (arch.num_heads
            * (4 + if act == 4 { 0 } else { act } + if dropout { 1 } else { 0 }))
        .div_ceil(tp),
    };
    (b, s2)
}

/// What a Whisper decoder layer's cross-attention saves for backward, beside
/// [`training_per_token`]'s self-attention and FFN: per decoder token, and per encoder frame.
///
/// Per token, as a self-attention sub-block without k and v: its norm (fp32 copy of the input,
/// and the output when the norm trains), q_proj's input, the kernel's q, output and fp32
/// log-sum-exp per head, o_proj's contiguous input, and the dropout mask. Per frame: the kernel's
/// k and v, and, under autocast, the casts of the encoder's fp32 output that k_proj and v_proj
/// each save (without autocast they save the encoder's output itself, one tensor for every layer).
pub fn cross_attention_training(
    arch: &Architecture,
    act: u64,
    train: &Trainable,
    tp: u64,
    amp: bool,
) -> (u64, u64) {
    let h = arch.hidden_size;
    let tp = tp.max(1);
    let resid = if amp { 4 } else { act };
    let mut token = 4 * h + if train.all { resid * h } else { 0 };
    if train.saves_input(Role::Q) {
        token += act * h;
    }
    token += (act * 2 * attn_width(arch) + 4 * arch.num_heads).div_ceil(tp);
    if train.saves_input(Role::O) {
        token += (act * attn_width(arch)).div_ceil(tp);
    }
    if arch.training_dropout {
        token += h;
    }
    let casts = if amp {
        [Role::K, Role::V]
            .iter()
            .filter(|r| train.saves_input(**r))
            .count() as u64
    } else {
        0
    };
    let frame = (act * 2 * attn_width(arch)).div_ceil(tp) + casts * act * h;
    (token, frame)
}

/// Bytes of the largest set of tensors alive at once inside one block during an inference
/// forward pass, per token (and per head per query–key pair for eager attention).
///
/// The residual stream and the norm output (act·2h) plus the norm's fp32 temporaries (4·2h), and
/// the larger of: q, k, v and the attention output; or the FFN's gate, up and activated outputs
/// (3 × width, one expert at a time for MoE).
pub fn inference_per_token(arch: &Architecture, act: u64) -> (u64, u64) {
    let h = arch.hidden_size;
    let ffn = match arch.moe {
        // Tokens reach experts in turn; the shared expert runs on every token.
        Some(m) => m.expert_intermediate_size.max(m.shared_intermediate_size),
        None => arch.intermediate_size,
    };
    let mlp = ffn * if arch.gated_ffn { 3 } else { 2 };
    let attn = qkv_width(arch) + attn_width(arch);
    (
        act * (2 * h + attn.max(mlp)) + 8 * h,
        arch.num_heads * (4 + act),
    )
}
