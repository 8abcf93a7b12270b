//! Weight bytes: every tensor in its stored format, sharded by tensor and pipeline parallelism.

use crate::model::{Architecture, Role, Tensor};
use crate::precision::{Dtype, GgmlType, GgufFileType, Quantization};

/// Whether a quantization format stores this tensor quantized.
///
/// Quantizers touch the 2-D projections inside the blocks. Embeddings, the LM head, norms,
/// biases and routers stay in the model dtype (bitsandbytes skips `lm_head`; GPTQ/AWQ/
/// compressed-tensors leave it out of their target list). MXFP4 as gpt-oss ships it covers
/// the routed experts only. GGUF quantizes the embedding and the head too (see [`gguf_type`]).
pub fn is_quantized(q: &Quantization, arch: &Architecture, t: &Tensor) -> bool {
    match q {
        Quantization::None => false,
        Quantization::Mxfp4 if arch.moe.is_some() => t.role.is_expert(),
        Quantization::Gguf { file_type } => gguf_type(*file_type, arch, t).is_some(),
        Quantization::Mlx { group_size, .. } => mlx_quantizes(*group_size, t),
        _ => t.role.is_block_linear(),
    }
}

/// Whether `mlx_lm.convert` quantizes this tensor: every module with `to_quantized` (`Linear`,
/// `Embedding`, the experts' `SwitchLinear`; the LM head and the embedding too) whose weight's
/// last axis — a projection's input, an embedding's width — is whole groups
/// (`mlx_lm.utils.quantize_model`'s predicate); norms and biases stay in the model dtype.
fn mlx_quantizes(group_size: u32, t: &Tensor) -> bool {
    let last = match t.role {
        Role::Embedding | Role::Positions => t.rows_out,
        _ => t.rows_in,
    };
    t.role != Role::Vector && t.rows_in > 1 && last.is_multiple_of(u64::from(group_size.max(1)))
}

/// llama.cpp's `use_more_bits(i, n)`: the first and last eighth of the layers and every third
/// one in between get more bits in the `_M` mixes.
const fn use_more_bits(i: u64, n: u64) -> bool {
    i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2
}

/// The ggml type llama.cpp's `llama_tensor_get_type` gives a tensor in a file of type `ft`, or
/// `None` for tensors kept in F32 (1-D norms and biases). Follows llama.cpp's `llama-quant.cpp`
/// for the types vramfit offers:
/// - the output matrix, and the token embedding when it is tied to it, in Q6_K below Q8_0
///   (Q8_0 when its rows are not whole blocks of the file's type);
/// - more bits for `attn_v`, `ffn_down` and `attn_output` by file type and layer, `attn_v` in Q5_K
///   for a 70B (80 layers with GQA, llama.cpp's `LLM_TYPE_70B` for Llama and Qwen2) where it
///   would be Q3_K or Q4_K, and `attn_k`, `attn_v` in Q8_0 and `attn_output` in Q5_K for an
///   8-expert MoE (Mixtral);
/// - the MoE router in F32, like the 1-D tensors;
/// - a tensor whose rows are not whole super-blocks of 256 falls back to a 32-block type
///   (Q2_K, Q3_K → IQ4_NL; Q4_K → Q5_0; Q5_K → Q5_1; Q6_K → Q8_0), or F16.
///
/// Not modelled: Falcon's own rules and fused `attn_qkv` tensors (phi-3, GPT-NeoX), which
/// llama.cpp gives a type of their own; vramfit counts q, k and v apart.
pub fn gguf_type(ft: GgufFileType, arch: &Architecture, t: &Tensor) -> Option<GgmlType> {
    use GgmlType as G;
    use GgufFileType as F;
    // The MoE router (`ffn_gate_inp`) stays F32: the converter writes it so and the quantizer
    // leaves it.
    // A vision tower's GGUF (llama.cpp's `mmproj-…-f16.gguf`, or beside the text in Ollama's
    // Gemma 3 files) keeps its matrices in F16.
    if t.role == Role::Vision {
        return Some(GgmlType::F16);
    }
    if t.rows_in <= 1 || t.role == Role::Vector || t.role == Role::Router {
        return None;
    }
    let base = ft.base();
    let n = arch.num_layers.max(1);
    let i = t.layer.unwrap_or(0);
    let gqa = arch.num_heads / arch.num_kv_heads.max(1);
    let experts8 = arch.moe.is_some_and(|m| m.num_experts == 8);
    // ggml's row (`ne[0]`): the input width of a projection, the model width of an embedding.
    let row = match t.role {
        Role::Embedding | Role::Positions => t.rows_out,
        _ => t.rows_in,
    };
    let output = || match ft {
        F::F16 => G::F16,
        F::Q8_0 => G::Q8_0,
        _ if !row.is_multiple_of(base.block().1) => G::Q8_0,
        _ => G::Q6_K,
    };
    let ty = match t.role {
        Role::LmHead => output(),
        Role::Embedding if arch.tied_embeddings => output(),
        Role::V => {
            let v = match ft {
                F::Q2_K => {
                    if gqa >= 4 {
                        G::Q4_K
                    } else {
                        G::Q3_K
                    }
                }
                F::Q3_K_M => {
                    if i < 2 {
                        G::Q5_K
                    } else {
                        G::Q4_K
                    }
                }
                F::Q3_K_L => G::Q5_K,
                F::Q4_K_M | F::Q5_K_M if use_more_bits(i, n) => G::Q6_K,
                F::Q4_K_S if i < 4 => G::Q5_K,
                _ => base,
            };
            let v = if n == 80 && gqa > 1 && matches!(v, G::Q3_K | G::Q4_K) {
                G::Q5_K
            } else {
                v
            };
            if experts8 { G::Q8_0 } else { v }
        }
        Role::K if experts8 => G::Q8_0,
        Role::Down | Role::ExpertDown => match ft {
            F::Q2_K => G::Q3_K,
            // llama.cpp keeps Q3_K for the other layers only in Falcon.
            F::Q3_K_M => {
                if i < n / 16 {
                    G::Q5_K
                } else {
                    G::Q4_K
                }
            }
            F::Q3_K_L => G::Q5_K,
            F::Q4_K_M | F::Q5_K_M if use_more_bits(i, n) => G::Q6_K,
            F::Q4_K_S if i < n / 8 => G::Q5_K,
            _ => base,
        },
        Role::O if experts8 => match ft {
            F::Q2_K | F::Q3_K_S | F::Q3_K_M | F::Q4_K_S | F::Q4_K_M => G::Q5_K,
            _ => base,
        },
        Role::O => match ft {
            F::Q2_K => G::Q3_K,
            F::Q3_K_M => G::Q4_K,
            F::Q3_K_L => G::Q5_K,
            _ => base,
        },
        _ => base,
    };
    Some(whole_blocks(ty, row))
}

/// llama.cpp's fallback for a row that is not a whole number of the type's blocks.
fn whole_blocks(ty: GgmlType, row: u64) -> GgmlType {
    use GgmlType as G;
    if row.is_multiple_of(ty.block().1) {
        return ty;
    }
    let alt = match ty {
        G::Q2_K | G::Q3_K => G::IQ4_NL,
        G::Q4_K => G::Q5_0,
        G::Q5_K => G::Q5_1,
        G::Q6_K => G::Q8_0,
        other => other,
    };
    if row.is_multiple_of(alt.block().1) {
        alt
    } else {
        G::F16
    }
}

/// Bytes of one tensor (all its copies) in the model dtype `dtype` under quantization `q`.
pub fn tensor_bytes(q: &Quantization, arch: &Architecture, dtype: Dtype, t: &Tensor) -> u64 {
    let n = t.numel();
    let plain = n.saturating_mul(dtype.bits() as u64) / 8;
    if let Quantization::Gguf { file_type } = q {
        // GGUF stores 1-D tensors in F32.
        return match gguf_type(*file_type, arch, t) {
            Some(ty) => ty
                .bytes_for(t.rows_in.saturating_mul(t.rows_out))
                .saturating_mul(t.count),
            None => n.saturating_mul(4),
        };
    }
    if !is_quantized(q, arch, t) {
        return plain;
    }
    let rows_out = t.rows_out.saturating_mul(t.count);
    let groups = |g: u32| n.div_ceil(g as u64);
    match *q {
        // One byte per weight and an fp32 scale per output channel.
        Quantization::Fp8 | Quantization::W8a8 => n + rows_out * 4,
        // Half a byte per weight and a 16-bit scale per group (symmetric: no zero points).
        Quantization::W4a16 { group_size } => n.div_ceil(2) + groups(group_size) * 2,
        // bits/8 per weight, per group an fp16 scale and a packed zero, an int32 g_idx per input row.
        Quantization::Gptq { bits, group_size } => {
            let b = bits as u64;
            (n * b).div_ceil(8)
                + groups(group_size) * 2
                + (groups(group_size) * b).div_ceil(8)
                + t.rows_in.saturating_mul(t.count) * 4
        }
        // 4 bits per weight, per group an fp16 scale and a packed 4-bit zero.
        Quantization::Awq { group_size } => {
            n.div_ceil(2) + groups(group_size) * 2 + groups(group_size).div_ceil(2)
        }
        // int8 weights, one fp32 scale (SCB) per output row.
        Quantization::BnbInt8 => n + rows_out * 4,
        // NF4: 4 bits, one absmax per 64 weights: fp32, or int8 plus an fp32 per 256 absmax.
        Quantization::BnbNf4 { double_quant } => {
            let blocks = n.div_ceil(64);
            n.div_ceil(2)
                + if double_quant {
                    blocks + blocks.div_ceil(256) * 4
                } else {
                    blocks * 4
                }
        }
        // E2M1 nibbles plus one E8M0 byte per 32.
        Quantization::Mxfp4 => n.div_ceil(2) + n.div_ceil(32),
        // torchao 0.18 `NF4Tensor.from_tensor`: per tensor, nibbles, an int8 scaler per 64, a
        // factor per 256 scalers and the mean in the weights' dtype, and the 16-entry NF4 table.
        Quantization::TorchaoNf4 => {
            let per = t.rows_in.saturating_mul(t.rows_out);
            let d = dtype.bits() as u64 / 8;
            (per.div_ceil(2) + per.div_ceil(64) + per.div_ceil(64 * 256) * d + d + 16 * d)
                .saturating_mul(t.count)
        }
        // hqq 0.2.8 (`bitpack.py`, `axis=0` as LLaMA-Factory sets it): codes packed along each
        // group of `g` (3 bits: ⌈g / 10⌉ int32 per group), a 16-bit scale and zero per group.
        Quantization::Hqq { bits, group_size } => {
            let g = group_size as u64;
            let codes = match bits {
                3 => groups(group_size) * g.div_ceil(10) * 4,
                1 | 2 | 4 => (n * bits as u64).div_ceil(8),
                _ => n,
            };
            codes + groups(group_size) * 4
        }
        // MLX (`mx.quantize`, mlx 0.32): `bits`-bit codes packed in uint32 words along each
        // row (whole groups, so whole words), per group a scale and a bias in the weights'
        // dtype (affine) or one 8-bit scale (mxfp4, nvfp4, mxfp8).
        Quantization::Mlx {
            mode,
            bits,
            group_size,
        } => {
            let d = dtype.bits() as u64 / 8;
            (n * bits as u64).div_ceil(8) + groups(group_size) * mode.group_bytes(d)
        }
        Quantization::None | Quantization::Gguf { .. } => plain,
    }
}

/// A lookup rather than a matrix multiplication: the input embedding (unless tied to the head,
/// whose multiplication it then is) and learned positions.
pub(super) fn is_lookup(t: &Tensor, tied: bool) -> bool {
    (t.role == Role::Embedding && !tied) || t.role == Role::Positions
}

/// Whether a forward pass over text tokens multiplies by `t`: not a lookup ([`is_lookup`]) and
/// not the vision tower, which runs once per image, not per token.
pub(super) fn read_per_token(t: &Tensor, tied: bool) -> bool {
    !is_lookup(t, tied) && t.role != Role::Vision
}

/// Which share of a tensor one GPU holds under tensor parallelism `tp`.
///
/// 2-D tensors are split `tp` ways (Megatron/vLLM column and row parallel, vocab-parallel
/// embedding and head); K and V are split by at most `num_kv_heads` ways, since vLLM replicates KV
/// heads when `tp` exceeds them; 1-D tensors are replicated, and so are MLA's down-projections
/// and the MoE router (vLLM's `deepseek_v2.py`: `fused_qkv_a_proj` with `disable_tp`,
/// `kv_a_proj_with_mqa` and the `gate` as `ReplicatedLinear`; Megatron's "duplicated" layers).
pub fn tp_divisor(arch: &Architecture, t: &Tensor, tp: u64) -> u64 {
    if t.role == Role::Vector || t.rows_in <= 1 {
        return 1;
    }
    match t.role {
        Role::K | Role::V => tp.min(arch.num_kv_heads.max(1)),
        Role::QA | Role::KvA | Role::Router | Role::Indexer => 1,
        _ => tp,
    }
}

/// How tensor parallelism cuts the tensors over the GPUs of a group: `tp` ways ([`tp_divisor`]),
/// and under SGLang's DP attention (`attention_groups` > 1) the attention block over
/// `tp / attention_groups` GPUs and the embedding whole on each (SGLang's models build their
/// attention with `attn_tp_size` and the embedding as `VocabParallelEmbedding(enable_tp=not
/// is_dp_attention_enabled())`); the MLP, the experts and the LM head stay split `tp` ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpSplit {
    /// The tensor-parallel size.
    pub tp: u64,
    /// SGLang's DP attention groups (1: none).
    pub attention_groups: u64,
}

impl TpSplit {
    /// Plain tensor parallelism over `tp` GPUs.
    pub const fn plain(tp: u64) -> Self {
        TpSplit {
            tp,
            attention_groups: 1,
        }
    }

    /// The ways tensor `t` is split.
    pub fn divisor(self, arch: &Architecture, t: &Tensor) -> u64 {
        if self.attention_groups > 1 {
            if t.role == Role::Embedding {
                return 1;
            }
            if t.role.is_attention() {
                return tp_divisor(arch, t, (self.tp / self.attention_groups).max(1));
            }
        }
        tp_divisor(arch, t, self.tp)
    }
}

/// The pipeline stage (0-based) that holds a tensor when `layers` blocks are split over `pp`
/// stages as vLLM's `get_pp_indices` splits them: `layers / pp` each, the remainder one more
/// each to the stages before the last, counting back from it (28 layers over 3: 9, 10, 9); the
/// embedding on the first stage and the head and final norm on the last.
pub fn pp_stage(t: &Tensor, layers: u64, pp: u64) -> u64 {
    let pp = pp.max(1);
    match t.layer {
        Some(l) => layer_stage(l, layers, pp),
        None => match t.role {
            Role::Embedding | Role::Positions | Role::Other | Role::Vision => 0,
            _ => pp - 1,
        },
    }
}

/// The stage of block `l` of `layers` over `pp` stages, as [`pp_stage`] splits them.
pub fn layer_stage(l: u64, layers: u64, pp: u64) -> u64 {
    let pp = pp.max(1);
    let l = l.min(layers.saturating_sub(1));
    let (base, rem) = (layers / pp, layers % pp);
    // Stages `first..pp - 1` hold base + 1 layers; those before them, base.
    let first = pp - 1 - rem;
    let before = first * base;
    if l < before {
        l / base.max(1)
    } else {
        (first + (l - before) / (base + 1)).min(pp - 1)
    }
}

/// The most loaded GPU's share of a per-tensor quantity `f` (bytes, parameters): per pipeline
/// stage, the sum of every tensor's share under tensor parallelism; the largest stage. `f` must
/// not depend on a tensor's block index (see [`busiest_gpu_by_block`]).
pub fn busiest_gpu<F: Fn(&Tensor) -> u64>(arch: &Architecture, tp: u64, pp: u64, f: F) -> u64 {
    busiest(arch, TpSplit::plain(tp), pp, None, &f)
}

/// [`busiest_gpu`] for a quantity that differs from block to block for the tensors where
/// `by_block` says so (a GGUF file's types for some roles): those are evaluated block by block.
pub fn busiest_gpu_by_block<F: Fn(&Tensor) -> u64, B: Fn(&Tensor) -> bool>(
    arch: &Architecture,
    tp: u64,
    pp: u64,
    by_block: B,
    f: F,
) -> u64 {
    busiest(arch, TpSplit::plain(tp), pp, Some(&by_block), &f)
}

/// Whether llama.cpp's type for a tensor of `role` depends on its block ([`gguf_type`]: more
/// bits for `attn_v` and `ffn_down` in some blocks).
pub fn gguf_type_by_block(role: Role) -> bool {
    matches!(role, Role::V | Role::Down | Role::ExpertDown)
}

/// The sum of a per-tensor quantity over the whole model; `f` must not depend on a tensor's
/// block index.
#[cfg(feature = "training")]
pub fn total<F: Fn(&Tensor) -> u64>(arch: &Architecture, f: F) -> u64 {
    let mut sum = 0u64;
    arch.visit_grouped(|t, n| sum = sum.saturating_add(f(&t).saturating_mul(n)));
    sum
}

/// The largest value of a per-tensor quantity over the model's tensors.
#[cfg(feature = "training")]
pub fn largest<F: Fn(&Tensor) -> u64>(arch: &Architecture, f: F) -> u64 {
    let mut max = 0u64;
    arch.visit_grouped(|t, _| max = max.max(f(&t)));
    max
}

/// The quantities [`busiest_each`] sums in one walk.
const K: usize = 3;

/// Which tensors differ from block to block ([`busiest_gpu_by_block`]); `None`: none does, and
/// the walk asks nothing of each tensor (every format but GGUF).
type ByBlock<'a> = Option<&'a dyn Fn(&Tensor) -> bool>;

/// The roles whose GGUF type differs from block to block, where the format is GGUF.
pub(super) fn gguf_by_block(q: &Quantization) -> ByBlock<'static> {
    let by_block: &dyn Fn(&Tensor) -> bool = &|t| gguf_type_by_block(t.role);
    matches!(q, Quantization::Gguf { .. }).then_some(by_block)
}

fn busiest(
    arch: &Architecture,
    split: TpSplit,
    pp: u64,
    by_block: ByBlock<'_>,
    f: &dyn Fn(&Tensor) -> u64,
) -> u64 {
    let [most, ..] = busiest_each(arch, (split, pp), &mut |_, _| {}, by_block, &|t| {
        [f(t), 0, 0]
    });
    most
}

/// [`busiest`] of three per-tensor quantities at once, in one walk over the tensors: for each,
/// the largest stage's sum, as three calls of [`busiest`] give them (the memory estimate's
/// weights and the speed model's dense and routed weights). `seen` is shown every tensor as
/// [`Architecture::visit_grouped`] gives it, for sums over the whole model in the same walk.
/// One compiled copy serves every caller (closures by reference): the WebAssembly modules
/// carry it once.
pub(super) fn busiest_each(
    arch: &Architecture,
    (split, pp): (TpSplit, u64),
    seen: &mut dyn FnMut(&Tensor, u64),
    by_block: ByBlock<'_>,
    f: &dyn Fn(&Tensor) -> [u64; K],
) -> [u64; K] {
    let pp = pp.max(1);
    // One stage needs no allocation.
    let mut one = [[0u64; K]];
    let mut many = alloc::vec::Vec::new();
    let stages: &mut [[u64; K]] = if pp == 1 {
        &mut one
    } else {
        many.resize(pp.min(1024) as usize, [0u64; K]);
        &mut many
    };
    let layers = if arch.family == crate::model::Family::Whisper {
        arch.num_layers + arch.encoder_layers
    } else {
        arch.num_layers
    };
    let mut add_to = |stage: u64, x: [u64; K], n: u64| {
        if let Some(slot) = stages.get_mut(stage as usize) {
            for (s, x) in slot.iter_mut().zip(x) {
                *s = s.saturating_add(x.saturating_mul(n));
            }
        }
    };
    arch.visit_grouped(|t, n| {
        seen(&t, n);
        let share = |t: &Tensor| {
            // Without tensor parallelism every share is the whole tensor.
            if split.tp <= 1 {
                return f(t);
            }
            let d = split.divisor(arch, t);
            f(t).map(|x| x.div_ceil(d))
        };
        match t.layer {
            // `n` blocks from `l` on, each evaluated on its own or in its own stage.
            Some(l) if n > 1 && (pp > 1 || by_block.is_some_and(|b| b(&t))) => {
                let x = share(&t);
                for b in l..l + n {
                    let x = if by_block.is_some_and(|b| b(&t)) {
                        share(&Tensor {
                            layer: Some(b),
                            ..t
                        })
                    } else {
                        x
                    };
                    add_to(layer_stage(b, layers, pp), x, 1);
                }
            }
            // One stage holds every tensor.
            _ if pp == 1 => add_to(0, share(&t), n),
            _ => add_to(pp_stage(&t, layers, pp), share(&t), n),
        }
    });
    let mut most = [0u64; K];
    for stage in stages.iter() {
        for (m, x) in most.iter_mut().zip(stage) {
            *m = (*m).max(*x);
        }
    }
    most
}

/// Weight bytes on the most loaded GPU (`busiest_gpu` of [`tensor_bytes`]).
pub fn per_gpu_weight_bytes(
    arch: &Architecture,
    dtype: Dtype,
    q: &Quantization,
    tp: u64,
    pp: u64,
) -> u64 {
    if !arch.is_detailed() {
        return 0;
    }
    let bytes = |t: &Tensor| tensor_bytes(q, arch, dtype, t);
    if matches!(q, Quantization::Gguf { .. }) {
        busiest_gpu_by_block(arch, tp, pp, |t| gguf_type_by_block(t.role), bytes)
    } else {
        busiest_gpu(arch, tp, pp, bytes)
    }
}

/// Weight bytes on the most loaded GPU with expert parallelism: the routed experts divided over
/// `ep` of the `group` GPUs of a pipeline stage (each holds `experts / ep` whole experts, each split
/// `group / ep` ways), every other tensor sharded as `split` cuts it ([`TpSplit`]: by `tp` as in
/// [`per_gpu_weight_bytes`], the attention and the embedding apart under SGLang's DP attention).
/// `ep` 1 without DP attention is [`per_gpu_weight_bytes`] itself.
pub fn per_gpu_weight_bytes_ep(
    arch: &Architecture,
    dtype: Dtype,
    q: &Quantization,
    (split, pp): (TpSplit, u64),
    ep: u64,
    group: u64,
) -> u64 {
    if (ep <= 1 && split.attention_groups <= 1) || !arch.is_detailed() {
        return per_gpu_weight_bytes(arch, dtype, q, split.tp, pp);
    }
    let ep = ep.max(1);
    let moe_tp = (group / ep).max(1);
    let tp = split.tp.max(1);
    // `busiest` divides an expert tensor by `tp`: its share is given times `tp`, exactly undone.
    let bytes = |t: &Tensor| {
        if t.role.is_expert() {
            let mine = Tensor {
                count: t.count / ep,
                ..*t
            };
            tensor_bytes(q, arch, dtype, &mine)
                .div_ceil(moe_tp)
                .saturating_mul(tp)
        } else {
            tensor_bytes(q, arch, dtype, t)
        }
    };
    busiest(arch, split, pp, gguf_by_block(q), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn llama8b() -> Architecture {
        crate::model::tests::llama31_8b()
    }

    #[test]
    fn bf16_weights_are_two_bytes_per_param() {
        let a = llama8b();
        assert_eq!(
            per_gpu_weight_bytes(&a, Dtype::Bf16, &Quantization::None, 1, 1),
            2 * 8_030_261_248
        );
    }

    #[test]
    fn fp8_keeps_embeddings_and_head_in_bf16() {
        let a = llama8b();
        // Hand: block linears 32 × 218,103,808 = 6,979,321,856 weights at 1 byte, plus fp32 scales
        // per output row: per layer (4096 + 1024 + 1024 + 4096 + 14336 + 14336 + 4096) × 4 =
        // 172,032 B × 32 = 5,505,024; embedding + head 2 × 525,336,576 × 2 B = 2,101,346,304;
        // norms (65 × 4096) × 2 B = 532,480. Sum 9,086,705,664.
        let got = per_gpu_weight_bytes(&a, Dtype::Bf16, &Quantization::Fp8, 1, 1);
        assert_eq!(got, 9_086_705_664);
    }

    #[test]
    fn tensor_parallel_splits_matrices_not_vectors() {
        let a = llama8b();
        let full = per_gpu_weight_bytes(&a, Dtype::Bf16, &Quantization::None, 1, 1);
        let tp2 = per_gpu_weight_bytes(&a, Dtype::Bf16, &Quantization::None, 2, 1);
        // Vectors (norms): 65 × 4096 × 2 B = 532,480 stay whole on each GPU.
        assert_eq!(tp2, (full - 532_480) / 2 + 532_480);
        // tp = 16 > 8 KV heads: K and V are split 8 ways only.
        let tp16 = per_gpu_weight_bytes(&a, Dtype::Bf16, &Quantization::None, 16, 1);
        let kv = 32 * 2 * 4096 * 1024 * 2;
        assert_eq!(tp16, (full - 532_480 - kv) / 16 + kv / 8 + 532_480);
    }

    #[test]
    fn pipeline_stage_holds_its_layers_and_the_embedding() {
        let a = llama8b();
        // pp = 4: stage 0 = 8 layers (8 × 218,112,000 params) + embedding 525,336,576 = 2,270,232,576 params;
        // the last stage = 8 layers + head 525,336,576 + final norm 4,096 = 2,270,236,672: the busiest.
        assert_eq!(
            per_gpu_weight_bytes(&a, Dtype::Bf16, &Quantization::None, 1, 4),
            2 * 2_270_236_672
        );
    }

    #[test]
    fn gguf_q4_k_m_mixes_types_like_llama_cpp() {
        let a = llama8b();
        // Layers with more bits for n = 32: i < 4, i >= 28, and (i - 4) % 3 == 2 → 4 + 4 + 8 = 16.
        assert_eq!((0..32).filter(|&i| use_more_bits(i, 32)).count(), 16);
        let b = per_gpu_weight_bytes(
            &a,
            Dtype::Bf16,
            &Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            1,
            1,
        );
        // Hand: embedding Q4_K 525,336,576 × 144/256 = 295,501,824; head Q6_K × 210/256 = 430,940,160;
        // per layer q,k,o (16,777,216 + 4,194,304 + 16,777,216) and gate, up (2 × 58,720,256) in Q4_K
        // = 155,189,248 × 0.5625 = 87,293,952; v (4,194,304) and down (58,720,256): Q6_K in 16 layers,
        // Q4_K in 16: 62,914,560 × (210 + 144)/256 × 16 = 1,391,984,640 … summed below.
        let q4 = |n: u64| n / 256 * 144;
        let q6 = |n: u64| n / 256 * 210;
        let layer_base = q4(16_777_216 * 2 + 4_194_304 + 58_720_256 * 2);
        let expect = q4(525_336_576)
            + q6(525_336_576)
            + 32 * layer_base
            + 16 * q6(62_914_560)
            + 16 * q4(62_914_560)
            + (65 * 4096) * 4;
        assert_eq!(b, expect);
        // Published: bartowski's Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf is 4.92 GB; ours 4.92e9 ± 1 %.
        assert!((b as f64 / 4.92e9 - 1.0).abs() < 0.01, "{b}");
    }

    fn preset(id: &str) -> Architecture {
        crate::presets::find(id).expect("a preset").arch
    }

    fn first(arch: &Architecture, role: Role) -> Tensor {
        arch.tensors()
            .into_iter()
            .find(|t| t.role == role)
            .expect("a tensor of that role")
    }

    fn gguf_file(arch: &Architecture, ft: GgufFileType) -> u64 {
        per_gpu_weight_bytes(
            arch,
            Dtype::Bf16,
            &Quantization::Gguf { file_type: ft },
            1,
            1,
        )
    }

    #[test]
    fn gguf_tied_embedding_takes_the_output_type() {
        // Llama-3.2-1B ties its embedding to the head: with no output.weight, llama.cpp gives
        // token_embd the output's type, Q6_K below Q8_0.
        let a = preset("meta-llama/Llama-3.2-1B");
        assert!(a.tied_embeddings);
        let emb = first(&a, Role::Embedding);
        assert_eq!(
            gguf_type(GgufFileType::Q4_K_M, &a, &emb),
            Some(GgmlType::Q6_K)
        );
        // 128,256 × 2048 = 262,668,288 weights × 210/256 B = 215,470,080 B.
        let q = Quantization::Gguf {
            file_type: GgufFileType::Q4_K_M,
        };
        assert_eq!(tensor_bytes(&q, &a, Dtype::Bf16, &emb), 215_470_080);
        // Published: bartowski's Llama-3.2-1B-Instruct-Q4_K_M.gguf, 0.81 GB with its metadata
        // (the tokenizer); ours within 2 %.
        let b = gguf_file(&a, GgufFileType::Q4_K_M);
        assert!((b as f64 / 0.81e9 - 1.0).abs() < 0.02, "{b}");
        // An untied model's embedding keeps the file's base type (Llama-3.1-8B: Q4_K).
        let l = llama8b();
        assert_eq!(
            gguf_type(GgufFileType::Q4_K_M, &l, &first(&l, Role::Embedding)),
            Some(GgmlType::Q4_K)
        );
    }

    #[test]
    fn gguf_rows_off_the_super_block_fall_back() {
        // Qwen2.5-0.5B: hidden 896 = 3.5 × 256, so every matrix read along the hidden width
        // falls back to a 32-block type: Q4_K → Q5_0, Q6_K → Q8_0; the tied embedding, whose
        // row is 896 too, takes Q8_0 by the output rule. ffn_down reads 4864 = 19 × 256: k-quants.
        let a = preset("Qwen/Qwen2.5-0.5B");
        assert_eq!(a.hidden_size, 896);
        let ty = |role| gguf_type(GgufFileType::Q4_K_M, &a, &first(&a, role));
        assert_eq!(ty(Role::Q), Some(GgmlType::Q5_0));
        // Layer 0 is among use_more_bits' layers: attn_v Q6_K → Q8_0, ffn_down Q6_K kept.
        assert_eq!(ty(Role::V), Some(GgmlType::Q8_0));
        assert_eq!(ty(Role::Down), Some(GgmlType::Q6_K));
        assert_eq!(ty(Role::Embedding), Some(GgmlType::Q8_0));
        assert_eq!(whole_blocks(GgmlType::Q3_K, 896), GgmlType::IQ4_NL);
        assert_eq!(whole_blocks(GgmlType::Q5_K, 896), GgmlType::Q5_1);
        assert_eq!(whole_blocks(GgmlType::Q4_K, 100), GgmlType::F16);
        // Published: Qwen's own qwen2.5-0.5b-instruct-q4_k_m.gguf, 0.398 GB with metadata.
        let b = gguf_file(&a, GgufFileType::Q4_K_M);
        assert!((b as f64 / 0.398e9 - 1.0).abs() < 0.02, "{b}");
    }

    #[test]
    fn gguf_q3_k_m_and_the_70b_and_8_expert_rules() {
        // Q3_K_M: ffn_down in Q5_K for the first n/16 layers and Q4_K for every other one (Q3_K
        // stays only in Falcon).
        let a = llama8b();
        let down = |l: u64| Tensor {
            layer: Some(l),
            ..first(&a, Role::Down)
        };
        assert_eq!(
            gguf_type(GgufFileType::Q3_K_M, &a, &down(1)),
            Some(GgmlType::Q5_K)
        );
        assert_eq!(
            gguf_type(GgufFileType::Q3_K_M, &a, &down(5)),
            Some(GgmlType::Q4_K)
        );
        // Published: bartowski's Meta-Llama-3.1-8B-Instruct-Q3_K_M.gguf, 4.02 GB; ours within 1 %.
        let b = gguf_file(&a, GgufFileType::Q3_K_M);
        assert!((b as f64 / 4.02e9 - 1.0).abs() < 0.01, "{b}");
        // A 70B (80 layers, GQA): attn_v's Q4_K becomes Q5_K. Published Q3_K_M: 34.27 GB.
        let big = preset("meta-llama/Llama-3.1-70B");
        let v = Tensor {
            layer: Some(10),
            ..first(&big, Role::V)
        };
        assert_eq!(
            gguf_type(GgufFileType::Q3_K_M, &big, &v),
            Some(GgmlType::Q5_K)
        );
        let b = gguf_file(&big, GgufFileType::Q3_K_M);
        assert!((b as f64 / 34.27e9 - 1.0).abs() < 0.01, "{b}");
        // Mixtral's 8 experts: attn_k and attn_v in Q8_0, attn_output in Q5_K.
        let m = preset("mistralai/Mixtral-8x7B-v0.1");
        let ty = |role| gguf_type(GgufFileType::Q4_K_M, &m, &first(&m, role));
        assert_eq!(ty(Role::K), Some(GgmlType::Q8_0));
        assert_eq!(ty(Role::V), Some(GgmlType::Q8_0));
        assert_eq!(ty(Role::O), Some(GgmlType::Q5_K));
    }

    #[test]
    fn nf4_double_quant_bits() {
        let t = Tensor {
            role: Role::Q,
            layer: Some(0),
            rows_in: 4096,
            rows_out: 4096,
            count: 1,
        };
        let a = llama8b();
        let b = tensor_bytes(
            &Quantization::BnbNf4 { double_quant: true },
            &a,
            Dtype::Bf16,
            &t,
        );
        // 16,777,216 weights: 8,388,608 B of nibbles + 262,144 int8 absmax + 1,024 fp32 = 8,651,776 B.
        assert_eq!(b, 8_388_608 + 262_144 + 1_024 * 4);
        let g = tensor_bytes(
            &Quantization::Gptq {
                bits: 4,
                group_size: 128,
            },
            &a,
            Dtype::Bf16,
            &t,
        );
        // 8,388,608 + 131,072 groups × 2 B + 131,072 × 4 bits = 65,536 B + 4096 rows × 4 B g_idx.
        assert_eq!(g, 8_388_608 + 262_144 + 65_536 + 16_384);
    }

    /// The grouped walk over the tensors (blocks alike visited once) sums to what the walk block
    /// by block does, for every preset, under tensor and pipeline parallelism, and finds the
    /// same largest tensor.
    #[test]
    fn grouped_blocks_sum_as_block_by_block() {
        for p in crate::presets::presets() {
            let a = &p.arch;
            let by_block: u64 = a.tensors().iter().map(Tensor::numel).sum();
            assert_eq!(total(a, Tensor::numel), by_block, "{}", p.id);
            let widest = a.tensors().iter().map(|t| t.rows_in).max().unwrap_or(0);
            assert_eq!(largest(a, |t| t.rows_in), widest, "{}", p.id);
            for (tp, pp) in [(1, 1), (2, 1), (1, 2), (1, 3), (4, 5), (8, 7)] {
                let f = |t: &Tensor| t.numel() * 2 + t.rows_out;
                assert_eq!(
                    busiest_gpu(a, tp, pp, f),
                    busiest_gpu_by_block(a, tp, pp, |_| true, f),
                    "{} tp {tp} pp {pp}",
                    p.id
                );
                // A GGUF file's bytes, the block-dependent roles block by block, against every
                // tensor block by block.
                for ft in GgufFileType::ALL {
                    let q = Quantization::Gguf { file_type: ft };
                    let bytes = |t: &Tensor| tensor_bytes(&q, a, Dtype::Bf16, t);
                    assert_eq!(
                        per_gpu_weight_bytes(a, Dtype::Bf16, &q, tp, pp),
                        busiest_gpu_by_block(a, tp, pp, |_| true, bytes),
                        "{} {ft:?} tp {tp} pp {pp}",
                        p.id
                    );
                }
            }
        }
    }
}
