//! LoRA over a bitsandbytes base (QLoRA's NF4, or LLM.int8()): what PEFT's
//! `prepare_model_for_kbit_training` upcasts, and the buffer each matmul materialises.
//!
//! - PEFT 0.21.2 `prepare_model_for_kbit_training` (`peft/utils/other.py`) casts every fp16/bf16
//!   parameter that is not a `Params4bit` to fp32 for any base that is not GPTQ, AQLM, EETQ, HQQ
//!   or torchao: the embeddings, the norms and the LM head (which bitsandbytes leaves unquantized,
//!   `llm_int8_skip_modules`), for an 8-bit base as for a 4-bit one (`Int8Params` are int8, so
//!   they stay).
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

use super::super::Run;
use crate::estimate::weights;
use crate::precision::Quantization;

/// A LoRA base that bitsandbytes quantized on load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KbitBase {
    /// NF4 (`load_in_4bit`; QLoRA).
    Nf4,
    /// LLM.int8() (`load_in_8bit`).
    Int8,
}

impl Run<'_> {
    /// The bitsandbytes base a LoRA run trains over, if any: QLoRA's NF4, LoRA over a `bnb-nf4`
    /// base, or LoRA over a `bnb-int8` one.
    pub(super) fn kbit_base(&self) -> Option<KbitBase> {
        if self.lora_rank == 0 {
            return None;
        }
        match self.quantization {
            Quantization::BnbNf4 { .. } => Some(KbitBase::Nf4),
            Quantization::BnbInt8 => Some(KbitBase::Int8),
            _ => None,
        }
    }

    /// The largest transient of one quantized matmul: NF4's weight dequantized to 16 bits
    /// (forward and backward alike); for int8 the larger of backward's 16-bit copy of the weight
    /// and forward's int8 input with its int32 accumulator, `tokens × (in + 4 × out)`. Counted
    /// beside the end of forward's tensors, as if alive with the loss's: over by at most this
    /// buffer where the loss's tensors are the larger.
    pub(super) fn dequant_buffer(&self) -> u64 {
        let Some(base) = self.kbit_base() else {
            return 0;
        };
        let copy = weights::largest(&self.arch, |t| {
            if t.role.is_block_linear() {
                t.rows_in * t.rows_out
            } else {
                0
            }
        }) * 2;
        match base {
            KbitBase::Nf4 => copy,
            KbitBase::Int8 => {
                let tokens = self.batch.saturating_mul(self.main_seq());
                let forward = weights::largest(&self.arch, |t| {
                    if t.role.is_block_linear() {
                        tokens
                            .saturating_mul(t.rows_in.saturating_add(t.rows_out.saturating_mul(4)))
                    } else {
                        0
                    }
                });
                copy.max(forward)
            }
        }
    }
}
