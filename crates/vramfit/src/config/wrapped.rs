//! Language models that are an existing family's layout under a new `model_type` (issue 42),
//! read by that family's rules with their own class defaults filled in for the keys a file leaves
//! out (transformers 5.24):
//! - `qwen3_vl_text` (Qwen3-VL's language model, `Qwen3VLTextConfig`): Qwen3's layout (q/k norms,
//!   no biases); its interleaved multimodal rotary embedding (`mrope_section`) has no weights.
//! - `qwen3_vl_moe_text` (`Qwen3VLMoeTextConfig`): Qwen3-MoE's experts, with the same
//!   `decoder_sparse_step` and `mlp_only_layers`; no sliding window (the class sets it to none).
//! - `mistral4` (`Mistral4Config`, Mistral Small 4): DeepSeek-V3's latent attention and experts
//!   (one shared expert of `moe_intermediate_size` by default), its router a plain softmax with no
//!   score-correction bias, so `topk_method` is not read.
//!
//! The decoder of the family whose layout each shares reads them, from a copy of the file's keys
//! with the class defaults added where a key is absent (a key set to `null` stays unset, as
//! transformers keeps it).

use alloc::string::String;

use serde_json::{Map, Value};

use super::decoder::decoder as family_decoder;
use super::{Cfg, Notes};
use crate::error::Result;
use crate::model::Architecture;

/// `Qwen3VLTextConfig`'s defaults (the keys the 4B and 8B files also write).
const QWEN3_VL_TEXT: &[(&str, u64)] = &[
    ("vocab_size", 151_936),
    ("hidden_size", 4096),
    ("intermediate_size", 22_016),
    ("num_hidden_layers", 32),
    ("num_attention_heads", 32),
    ("head_dim", 128),
    ("max_position_embeddings", 128_000),
];

/// `Qwen3VLMoeTextConfig`'s defaults; `head_dim` is derived from the width and heads when
/// absent, as its `__post_init__` does.
const QWEN3_VL_MOE_TEXT: &[(&str, u64)] = &[
    ("vocab_size", 151_936),
    ("hidden_size", 2048),
    ("intermediate_size", 5632),
    ("num_hidden_layers", 24),
    ("num_attention_heads", 16),
    ("num_key_value_heads", 16),
    ("max_position_embeddings", 128_000),
    ("decoder_sparse_step", 1),
    ("moe_intermediate_size", 1408),
    ("num_experts_per_tok", 4),
    ("num_experts", 60),
];

/// `Mistral4Config`'s defaults: Mistral Small 4's text model (its docstring checkpoint,
/// `mistralai/Mistral-Small-4-119B-2603`).
const MISTRAL4: &[(&str, u64)] = &[
    ("vocab_size", 131_072),
    ("hidden_size", 4096),
    ("intermediate_size", 12_288),
    ("moe_intermediate_size", 2048),
    ("num_hidden_layers", 36),
    ("num_attention_heads", 32),
    ("n_shared_experts", 1),
    ("n_routed_experts", 128),
    ("kv_lora_rank", 256),
    ("q_lora_rank", 1024),
    ("qk_rope_head_dim", 64),
    ("v_head_dim", 128),
    ("qk_nope_head_dim", 64),
    ("num_experts_per_tok", 4),
    ("first_k_dense_replace", 0),
    ("max_position_embeddings", 1_048_576),
];

/// The architecture of a `model_type` this module reads, or `None` for any other.
pub(super) fn decoder(
    model_type: &str,
    c: &Cfg,
    notes: &mut Notes,
) -> Result<Option<Architecture>> {
    // Qwen3VLMoeTextConfig ties by default (a wrapper's own flag decides for the whole model).
    let (family, defaults, tied, dropped): (&str, &[(&str, u64)], bool, &[&str]) = match model_type
    {
        "qwen3_vl_text" => ("qwen3", QWEN3_VL_TEXT, false, &["use_sliding_window"]),
        "qwen3_vl_moe_text" => (
            "qwen3_moe",
            QWEN3_VL_MOE_TEXT,
            true,
            &["use_sliding_window"],
        ),
        "mistral4" => ("deepseek_v3", MISTRAL4, false, &["topk_method"]),
        _ => return Ok(None),
    };
    let mut obj = with_defaults(c.obj, defaults, dropped);
    if !obj.contains_key("tie_word_embeddings") {
        obj.insert(String::from("tie_word_embeddings"), Value::Bool(tied));
    }
    let filled = Cfg {
        obj: &obj,
        prefix: c.prefix.clone(),
    };
    family_decoder(family, &filled, notes).map(Some)
}

/// A copy of `obj` with each default set where its key is absent and the `dropped` keys removed
/// (keys the family's reader would read but this class ignores).
fn with_defaults(
    obj: &Map<String, Value>,
    defaults: &[(&str, u64)],
    dropped: &[&str],
) -> Map<String, Value> {
    let mut out = obj.clone();
    for (key, value) in defaults {
        if !out.contains_key(*key) {
            out.insert(String::from(*key), Value::from(*value));
        }
    }
    for key in dropped {
        out.remove(*key);
    }
    out
}

/// Kimi K2.5's released checkpoint quantizes its routed experts alone (compressed-tensors INT4,
/// groups of 32) and keeps attention, the shared experts and the dense layer in bf16: its
/// `quantization_config.ignore` names them (`re:.*self_attn.*`, …). vramfit holds one format per
/// checkpoint, so this is refused by name rather than counted as one format: INT4 everywhere
/// would under-count the bf16 attention and shared experts (about 13 GB of Kimi K2.5's
/// 595 GB), bf16 everywhere over-count 3.5 times.
pub(super) fn refuse_experts_only_quantization(c: &Cfg) -> Result<()> {
    let Some(q) = c.child("quantization_config")? else {
        return Ok(());
    };
    let Some(ignore) = q.arr("ignore")? else {
        return Ok(());
    };
    let keeps_attention = ignore
        .iter()
        .filter_map(|v| v.as_str())
        .any(|pattern| pattern.contains("self_attn"));
    if keeps_attention {
        return Err(input_error!(
            Unsupported,
            q.field("ignore"),
            [
                "quantizes the routed experts only (attention and the shared experts stay in the model dtype): one format per module is not modelled yet"
            ],
            ["只量化路由专家（注意力与共享专家保持模型数据类型）：尚不支持按模块区分格式"],
            [
                "the config without quantization_config (the weights in the model dtype), or the checkpoint's parameter count with its size"
            ],
            ["去掉 quantization_config 的配置（按模型数据类型计权重），或填检查点的参数量与大小"],
        ));
    }
    Ok(())
}

/// A `model_type` vramfit does not name whose config declares `kv_lora_rank`: multi-head latent
/// attention, read by DeepSeek-V3's rules (the latent and the rotary key cached, the q/kv
/// low-rank projections, `n_routed_experts` experts after the dense layers) rather than as a
/// Llama layout, whose full K and V would overstate the cache many times. GLM-4.7-Flash
/// (`glm4_moe_lite`) is one: transformers 5.x writes its dense layers as `mlp_layer_types`
/// (`dense` then `sparse`) and its router keeps a score-correction bias, and its `head_dim` is
/// the query-key width `qk_nope_head_dim + qk_rope_head_dim`.
pub(super) fn latent_attention(
    model_type: &str,
    c: &Cfg,
    notes: &mut Notes,
) -> Result<Option<Architecture>> {
    if c.get("kv_lora_rank").is_none_or(Value::is_null) {
        return Ok(None);
    }
    // Layers of another kind (linear or indexed attention) are not DeepSeek-V3's: the generic
    // reader refuses them by `layer_types`.
    if let Some(Value::Array(kinds)) = c.get("layer_types")
        && kinds
            .iter()
            .any(|k| !matches!(k.as_str(), Some("full_attention" | "sliding_attention")))
    {
        return Ok(None);
    }
    let mut obj = c.obj.clone();
    if !obj.contains_key("first_k_dense_replace")
        && let Some(Value::Array(kinds)) = obj.get("mlp_layer_types")
    {
        let dense = kinds
            .iter()
            .take_while(|k| k.as_str() == Some("dense"))
            .count();
        obj.insert(String::from("first_k_dense_replace"), Value::from(dense));
    }
    if !obj.contains_key("head_dim")
        && let (Some(nope), Some(rope)) = (c.u("qk_nope_head_dim")?, c.u("qk_rope_head_dim")?)
    {
        obj.insert(
            String::from("head_dim"),
            Value::from(nope.saturating_add(rope)),
        );
    }
    if model_type == "glm4_moe_lite" && !obj.contains_key("topk_method") {
        // `Glm4MoeLiteTopkRouter` always holds `e_score_correction_bias`.
        obj.insert(String::from("topk_method"), Value::from("noaux_tc"));
    }
    let filled = Cfg {
        obj: &obj,
        prefix: c.prefix.clone(),
    };
    let a = family_decoder("deepseek_v3", &filled, notes)?;
    notes.push(
        alloc::format!(
            "`{model_type}` declares kv_lora_rank: read as DeepSeek-V3's multi-head latent attention (the {}-wide latent and the {}-wide rotary key cached per token and layer) with its experts; keys DeepSeek-V3's config does not have are not read.",
            c.u("kv_lora_rank")?.unwrap_or(0),
            c.u("qk_rope_head_dim")?.unwrap_or(0)
        ),
        alloc::format!(
            "`{model_type}` 声明了 kv_lora_rank：按 DeepSeek-V3 的多头潜在注意力读取（每个 token 每层缓存 {} 宽的潜在向量与 {} 宽的旋转键）及其专家；DeepSeek-V3 配置中没有的键不读取。",
            c.u("kv_lora_rank")?.unwrap_or(0),
            c.u("qk_rope_head_dim")?.unwrap_or(0)
        ),
    );
    Ok(Some(a))
}
