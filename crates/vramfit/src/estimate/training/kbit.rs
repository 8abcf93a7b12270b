//! LoRA over a base quantized on load (bitsandbytes NF4 or LLM.int8(), torchao NF4, HQQ): what
//! PEFT's `prepare_model_for_kbit_training` upcasts, and the buffer each matmul materialises.
//!
//! - PEFT 0.21.2 `prepare_model_for_kbit_training` (`peft/utils/other.py`) casts every fp16/bf16
//!   parameter that is not a `Params4bit` to fp32 for any base that is not GPTQ, AQLM, EETQ, HQQ
//!   or torchao: the embeddings, the norms and the LM head (which bitsandbytes leaves unquantized,
//!   `llm_int8_skip_modules`), for an 8-bit base as for a 4-bit one (`Int8Params` are int8, so
//!   they stay). An HQQ or torchao base is not upcast.
//! - bitsandbytes 0.50.2 `MatMul4Bit` (`autograd/_functions.py`) dequantizes the 4-bit weight to
//!   16 bits in forward and again in backward.
//! - bitsandbytes 0.50.2 `MatMul8bitLt` (`autograd/_functions.py`): forward quantizes the input
//!   row-wise (`int8_vectorwise_quant`: `CA` int8 of tokens × in, fp32 `SCA` per token, the
//!   outlier columns over `threshold=6.0`) and multiplies it with the int8 weight `CB` into an
//!   int32 accumulator of tokens × out (`int8_linear_matmul`, `backends/cuda/ops.py`) before
//!   `int8_mm_dequant` writes the 16-bit output; backward computes the input's gradient with
//!   `CB.to(dtype_A, copy=True).mul_(SCB / 127)`, a 16-bit copy of the whole weight. For a frozen
//!   weight (LoRA's base) it saves `(None, subA, A)`: the input, which `nn.Linear` saves too, and
//!   the outlier columns `subA` (a few columns in practice, not counted).
//! - torchao 0.18 `LinearNF4` (`quantization/quantize_/workflows/nf4/nf4_tensor.py`) computes with
//!   `weight.to(dtype)` in forward and backward; eager, `get_original_weight` holds both nibble
//!   halves as int64, each looked up and scaled in 16 bits, the stacked result and the dequantized
//!   scalers at once: 2 × (n/2 × 8) + 4 × (n/2 × 2) + 2n + n/64 × 2 = 14n + n/32 bytes
//!   (`tests/reference/quantized_base_buffers.py` measures exactly that). Under `torch.compile`
//!   the dequantization is one kernel writing the 16-bit weight: 2n.
//! - hqq 0.2.8 `HQQLinear.dequantize` (`core/quantize.py`): the codes unpacked into the compute
//!   dtype, minus the zero, times the scale: three 16-bit tensors of the weight, 6n bytes, in
//!   forward and backward (measured the same); 2n compiled.

use super::super::Run;
use crate::estimate::{ComponentKind, Parts, b, weights};
use crate::precision::Quantization;

/// A LoRA base quantized on load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum QuantizedBase {
    /// bitsandbytes NF4 (`load_in_4bit`; QLoRA).
    BnbNf4,
    /// bitsandbytes LLM.int8() (`load_in_8bit`).
    BnbInt8,
    /// torchao's `NF4Tensor` (torchtune's QLoRA).
    TorchaoNf4,
    /// HQQ.
    Hqq,
}

impl QuantizedBase {
    /// PEFT's `prepare_model_for_kbit_training` upcasts the other parameters of this base.
    pub(super) fn peft_upcasts(self) -> bool {
        matches!(self, QuantizedBase::BnbNf4 | QuantizedBase::BnbInt8)
    }
}

impl Run<'_> {
    /// The quantized base a LoRA run trains over, if any.
    pub(super) fn quantized_base(&self) -> Option<QuantizedBase> {
        if self.lora_rank == 0 {
            return None;
        }
        match self.quantization {
            Quantization::BnbNf4 { .. } => Some(QuantizedBase::BnbNf4),
            Quantization::BnbInt8 => Some(QuantizedBase::BnbInt8),
            Quantization::TorchaoNf4 => Some(QuantizedBase::TorchaoNf4),
            Quantization::Hqq { .. } => Some(QuantizedBase::Hqq),
            _ => None,
        }
    }

    /// `prepare_model_for_kbit_training` runs (the stack calls it) and upcasts this base.
    pub(super) fn kbit_upcast(&self) -> bool {
        self.regimes.kbit_upcast
            && self
                .quantized_base()
                .is_some_and(QuantizedBase::peft_upcasts)
    }

    /// The largest transient of one quantized matmul ([the module's sources](self)): for the
    /// largest block matrix of n weights, bitsandbytes NF4's 16-bit copy (2n); for int8 the larger
    /// of backward's 16-bit copy and forward's int8 input with its int32 accumulator,
    /// `tokens × (in + 4 × out)`; torchao NF4's 14n + n/32 eager, HQQ's 6n eager, 2n compiled.
    /// Counted beside the end of forward's tensors, as if alive with the loss's: over by at most
    /// this buffer where the loss's tensors are the larger.
    pub(super) fn dequant_buffer(&self) -> u64 {
        let Some(base) = self.quantized_base() else {
            return 0;
        };
        let n = weights::largest(&self.arch, |t| {
            if t.role.is_block_linear() {
                t.rows_in * t.rows_out
            } else {
                0
            }
        });
        let compiled = self.regimes.compile;
        match base {
            QuantizedBase::BnbNf4 => n * 2,
            QuantizedBase::TorchaoNf4 if compiled => n * 2,
            QuantizedBase::TorchaoNf4 => n.saturating_mul(14) + n.div_ceil(32),
            QuantizedBase::Hqq if compiled => n * 2,
            QuantizedBase::Hqq => n.saturating_mul(6),
            QuantizedBase::BnbInt8 => {
                let tokens = self.batch.saturating_mul(self.main_seq());
                let forward = weights::largest(&self.arch, |t| {
                    if t.role.is_block_linear() {
                        tokens
                            .saturating_mul(t.rows_in.saturating_add(t.rows_out.saturating_mul(4)))
                    } else {
                        0
                    }
                });
                (n * 2).max(forward)
            }
        }
    }
}

impl Run<'_> {
    /// The [`dequant_buffer`](Run::dequant_buffer) as a part, worded by the base.
    pub(super) fn add_dequant_part(&self, bytes: u64, p: &mut Parts) {
        let Some(base) = self.quantized_base().filter(|_| bytes > 0) else {
            return;
        };
        let compiled = self.regimes.compile;
        let (formula, en, zh) = match base {
            QuantizedBase::BnbInt8 => (
                formula!(self.text;
                    ["largest int8 matmul's buffer: max(16-bit weight copy, input int8 + int32 output) = {}", b(bytes)],
                    ["最大的 int8 矩阵乘缓冲：max(16 位权重副本, int8 输入 + int32 输出) = {}", b(bytes)]
                ),
                en_str!(
                    "bitsandbytes' int8 matmul accumulates in int32 and, for the input's gradient, copies the int8 weight to 16 bits."
                ),
                zh_str!(
                    "bitsandbytes 的 int8 矩阵乘以 int32 累加；求输入梯度时把 int8 权重复制为 16 位。"
                ),
            ),
            QuantizedBase::TorchaoNf4 | QuantizedBase::Hqq if !compiled => (
                formula!(self.text;
                    let per = if base == QuantizedBase::Hqq { "6" } else { "14.03" };
                    ["largest matrix dequantized eagerly, {per} B per weight = {}", b(bytes)],
                    ["最大的矩阵以 eager 方式反量化，每权重 {per} B = {}", b(bytes)]
                ),
                en_str!(
                    "Eager dequantization holds its intermediates (torchao NF4: both nibble halves as int64; HQQ: three 16-bit copies); torch.compile fuses them into the 16-bit weight."
                ),
                zh_str!(
                    "eager 反量化会同时保留中间张量（torchao NF4：两半 4 位码各为 int64；HQQ：三份 16 位副本）；torch.compile 将其融合为一份 16 位权重。"
                ),
            ),
            QuantizedBase::BnbNf4 => (
                formula!(self.text;
                    ["largest matrix dequantized to bf16 = {}", b(bytes)],
                    ["最大的矩阵反量化为 bf16 = {}", b(bytes)]
                ),
                en_str!("bitsandbytes dequantizes a 4-bit weight to compute with it."),
                zh_str!("bitsandbytes 计算时将 4 位权重反量化。"),
            ),
            QuantizedBase::TorchaoNf4 | QuantizedBase::Hqq => (
                formula!(self.text;
                    ["largest matrix dequantized to bf16 = {}", b(bytes)],
                    ["最大的矩阵反量化为 bf16 = {}", b(bytes)]
                ),
                en_str!("Under torch.compile the dequantization writes the 16-bit weight alone."),
                zh_str!("在 torch.compile 下，反量化只写出一份 16 位权重。"),
            ),
        };
        p.add(ComponentKind::DequantBuffer, bytes, true, formula, en, zh);
    }
}
