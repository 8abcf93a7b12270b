//! Gemma 3's text stack where it departs from a causal decoder: `use_bidirectional_attention`
//! (EmbeddingGemma, `google/embeddinggemma-300m`, a `gemma3_text` config naming
//! `Gemma3TextModel`). transformers (`modeling_gemma3.py`, `Gemma3TextModel.forward`) lets every
//! token see every other through an `or_mask_function` over the causal masks, the sliding layers
//! within the window both ways; `Gemma3TextConfig` makes that window's bounds exclusive,
//! `sliding_window // 2 + 1`. The model still fills the `DynamicCache` that `use_cache` asks for
//! (the forward makes one when it is given none). vLLM reads the flag as `is_causal = False`
//! (`Gemma3TextModelConfig.verify_and_update_model_config`,
//! vllm/model_executor/models/config.py), which makes every layer `EncoderOnlyAttention`: no
//! KV-cache spec, no pool.

use alloc::format;

use super::{Cfg, Notes};
use crate::error::Result;
use crate::model::Architecture;

/// Reads `use_bidirectional_attention` of a `gemma3_text` config whose shared keys and window
/// have been read: sets [`Architecture::bidirectional`] and the window as transformers narrows
/// it, and says so.
#[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
pub(super) fn gemma3(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    if !c.b("use_bidirectional_attention")?.unwrap_or(false) {
        return Ok(());
    }
    a.bidirectional = true;
    let given = a.sliding_window;
    if given > 0 {
        a.sliding_window = given / 2 + 1;
    }
    let window = a.sliding_window;
    notes.push(
        format!(
            "use_bidirectional_attention: every token attends to the whole input (the sliding layers {window} tokens each way, sliding_window {given} halved as transformers does): an encoder. vLLM (EncoderOnlyAttention), llama.cpp (gemma-embedding) and Text Embeddings Inference keep no KV cache for it and pool it; transformers still fills the DynamicCache of its use_cache."
        ),
        format!(
            "use_bidirectional_attention：每个 token 关注整个输入（滑动窗口层向两侧各 {window} 个 token，即 transformers 将 sliding_window {given} 减半）：这是编码器。vLLM（EncoderOnlyAttention）、llama.cpp（gemma-embedding）与 Text Embeddings Inference 不为它保留 KV 缓存并对其做池化；transformers 仍按 use_cache 填充 DynamicCache。"
        ),
    );
    Ok(())
}
