//! A config.json's weight dtype: its `torch_dtype` (or `dtype`), the language model's where a
//! multimodal config's outer one names none, and fp32 where none names one.

use alloc::format;

use super::{Cfg, Notes};
use crate::error::Result;
use crate::precision::Dtype;

/// The dtype read, or fp32 with a note where neither `top` nor `text` has the key and the
/// checkpoint is not quantized: the checkpoints that name none (GPT-2, BERT) are fp32,
/// transformers loads the weights' own dtype, and vLLM and SGLang take float32 for such a config
/// (`_find_dtype`, `_get_and_verify_dtype`) before running it in 16 bits. A quantized checkpoint
/// that names none (gpt-oss's MXFP4) keeps its other tensors in 16 bits: `None`, the 16-bit
/// default. A key naming no dtype keeps the reader's note and `None`.
pub(super) fn or_fp32(
    dtype: Option<Dtype>,
    quantized: bool,
    top: &Cfg,
    text: Option<&Cfg>,
    notes: &mut Notes,
) -> Result<Option<Dtype>> {
    let declared = names_dtype(top)? || text.map_or(Ok(false), names_dtype)?;
    if dtype.is_some() || declared || quantized {
        return Ok(dtype);
    }
    notes.push(
        "config.json names no torch_dtype: the weights are taken as fp32, the dtype of the checkpoints that name none (GPT-2, BERT) and what vLLM and SGLang assume then; transformers loads the weights' own dtype, vLLM and SGLang run them in 16 bits. Give dtype if yours are 16-bit.".into(),
        "config.json 未写 torch_dtype：权重按 fp32 计，这是不写它的检查点（GPT-2、BERT）的数据类型，也是 vLLM 与 SGLang 此时的假定；transformers 按权重本身的数据类型加载，vLLM 与 SGLang 以 16 位运行。若你的权重是 16 位，请给出 dtype。".into(),
    );
    Ok(Some(Dtype::Fp32))
}

/// Whether `c` has a `torch_dtype` (or `dtype`) key, whatever it names.
fn names_dtype(c: &Cfg) -> Result<bool> {
    Ok(c.str("torch_dtype")?.or(c.str("dtype")?).is_some())
}

pub(super) fn read_dtype(c: &Cfg, notes: &mut Notes) -> Result<Option<Dtype>> {
    let Some(s) = c.str("torch_dtype")?.or(c.str("dtype")?) else {
        return Ok(None);
    };
    match Dtype::parse("config.json: torch_dtype", s) {
        Ok(d) => Ok(Some(d)),
        Err(_) => {
            notes.push(
                format!("torch_dtype `{s}` is not a weight dtype; choose the precision yourself."),
                format!("torch_dtype `{s}` 不是权重数据类型；请自行选择精度。"),
            );
            Ok(None)
        }
    }
}
