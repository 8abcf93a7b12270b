//! The families whose config keys differ from Llama's: GPT-2, GPT-BigCode, Falcon, BERT, ViT and
//! Whisper.

use alloc::string::String;

use super::decoder::{dim, width_and_heads};
use super::{Cfg, Notes};
use crate::error::Result;
use crate::model::{Architecture, Family, Norm};

pub(super) fn gpt2(c: &Cfg) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        ("n_embd", c.req(&["n_embd"], "the model width")?),
        ("n_head", c.req(&["n_head"], "attention heads")?),
    )?;
    let positions = c.req(&["n_positions", "n_ctx"], "the context length")?;
    Ok(Architecture {
        vocab_size: c.req(&["vocab_size"], "vocabulary size")?,
        num_layers: c.req(&["n_layer"], "transformer blocks")?,
        learned_positions: positions,
        max_position_embeddings: positions,
        ..gpt2_layout(c, hidden, heads)?
    })
}

/// GPT-2's block: biased projections, a 4× non-gated FFN (`n_inner`), two LayerNorms, tied.
fn gpt2_layout(c: &Cfg, hidden: u64, heads: u64) -> Result<Architecture> {
    Ok(Architecture {
        family: Family::CausalLm,
        hidden_size: hidden,
        num_heads: heads,
        num_kv_heads: heads,
        head_dim: hidden / heads,
        intermediate_size: c.u("n_inner")?.unwrap_or(hidden.saturating_mul(4)),
        tied_embeddings: c.b("tie_word_embeddings")?.unwrap_or(true),
        qkv_bias: true,
        o_bias: true,
        mlp_bias: true,
        norm: Norm::Layer,
        norms_per_layer: 2,
        ..Architecture::default()
    })
}

/// GPT-BigCode (StarCoder): GPT-2's layout with multi-query attention (`multi_query`, default
/// true): `c_attn` projects the queries and one key and one value head, with biases.
pub(super) fn gpt_bigcode(c: &Cfg) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        ("n_embd", c.u("n_embd")?.unwrap_or(768)),
        ("n_head", c.u("n_head")?.unwrap_or(12)),
    )?;
    let positions = c
        .opt(&["n_positions", "max_position_embeddings"])?
        .unwrap_or(1024);
    let kv_heads = if c.b("multi_query")?.unwrap_or(true) {
        1
    } else {
        heads
    };
    Ok(Architecture {
        num_layers: c.opt(&["n_layer", "num_hidden_layers"])?.unwrap_or(12),
        num_kv_heads: kv_heads,
        vocab_size: c.u("vocab_size")?.unwrap_or(50_257),
        learned_positions: positions,
        max_position_embeddings: positions,
        ..gpt2_layout(c, hidden, heads)?
    })
}

pub(super) fn falcon(c: &Cfg, refined_web: bool) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        (
            "hidden_size",
            c.opt(&["hidden_size", "n_embed"])?.unwrap_or(4544),
        ),
        (
            "num_attention_heads",
            c.opt(&["num_attention_heads", "n_head"])?.unwrap_or(71),
        ),
    )?;
    let new_arch = c.b("new_decoder_architecture")?.unwrap_or(refined_web);
    let kv = if new_arch {
        c.opt(&["num_kv_heads", "n_head_kv"])?.unwrap_or(heads)
    } else if c.b("multi_query")?.unwrap_or(true) {
        1
    } else {
        heads
    };
    // The new architecture has ln_attn and ln_mlp; the old parallel block one input_layernorm.
    let norms = if new_arch {
        c.u("num_ln_in_parallel_attn")?.unwrap_or(2)
    } else if c.b("parallel_attn")?.unwrap_or(true) {
        1
    } else {
        2
    };
    let bias = c.b("bias")?.unwrap_or(false);
    Ok(Architecture {
        family: Family::CausalLm,
        vocab_size: c.u("vocab_size")?.unwrap_or(65_024),
        hidden_size: hidden,
        num_layers: c.opt(&["num_hidden_layers", "n_layer"])?.unwrap_or(32),
        num_heads: heads,
        num_kv_heads: kv,
        head_dim: c.u("head_dim")?.unwrap_or(hidden / heads),
        intermediate_size: c.u("ffn_hidden_size")?.unwrap_or(hidden.saturating_mul(4)),
        tied_embeddings: c.b("tie_word_embeddings")?.unwrap_or(true),
        qkv_bias: bias,
        o_bias: bias,
        mlp_bias: bias,
        norm: Norm::Layer,
        norms_per_layer: norms,
        max_position_embeddings: c.u("max_position_embeddings")?.unwrap_or(2048),
        ..Architecture::default()
    })
}

/// BERT and RoBERTa/XLM-RoBERTa encoders (`model_type` `bert`, `roberta`, `xlm-roberta`): word,
/// learned position and token-type embeddings with a LayerNorm, post-LN blocks with biased
/// projections and a GELU FFN, no LM head. `BertModel`/`XLMRobertaModel` end in the pooler
/// (`dense` h × h with its bias), which sentence-transformers loads with the model; a
/// `*ForSequenceClassification` (a reranker: bge-reranker-v2-m3) has no pooler but a classifier
/// whose `dense` has the pooler's shape, and its `out_proj` (h × labels + labels, the labels
/// `id2label`'s, 2 by default) counted in `extra_params`. RoBERTa's positions start after its
/// `pad_token_id` (transformers 5.24 `create_position_ids_from_input_ids`: `padding_idx + 1`),
/// so `max_position_embeddings` 8,194 holds 8,192 tokens.
pub(super) fn bert(c: &Cfg, roberta: bool) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        ("hidden_size", c.u("hidden_size")?.unwrap_or(768)),
        (
            "num_attention_heads",
            c.u("num_attention_heads")?.unwrap_or(12),
        ),
    )?;
    let positions = c.u("max_position_embeddings")?.unwrap_or(512);
    let tokens = if roberta {
        let pad = c.u("pad_token_id")?.unwrap_or(1);
        positions.saturating_sub(pad.saturating_add(1)).max(1)
    } else {
        positions
    };
    let labels = match c.get("id2label") {
        Some(serde_json::Value::Object(m)) => m.len() as u64,
        _ => 2,
    };
    let classifier = c.arr("architectures")?.is_some_and(|a| {
        a.iter().any(|v| {
            v.as_str()
                .is_some_and(|s| s.ends_with("ForSequenceClassification"))
        })
    });
    let out_proj = if classifier {
        hidden.saturating_mul(labels).saturating_add(labels)
    } else {
        0
    };
    Ok(Architecture {
        family: Family::Bert,
        vocab_size: c.u("vocab_size")?.unwrap_or(30_522),
        hidden_size: hidden,
        num_layers: c.u("num_hidden_layers")?.unwrap_or(12),
        num_heads: heads,
        num_kv_heads: heads,
        head_dim: hidden / heads,
        intermediate_size: c.u("intermediate_size")?.unwrap_or(3072),
        qkv_bias: true,
        o_bias: true,
        mlp_bias: true,
        norm: Norm::Layer,
        norms_per_layer: 2,
        learned_positions: positions,
        max_position_embeddings: tokens,
        num_labels: c.u("type_vocab_size")?.unwrap_or(2),
        extra_params: out_proj,
        ..Architecture::default()
    })
}

pub(super) fn vit(c: &Cfg) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        ("hidden_size", c.u("hidden_size")?.unwrap_or(768)),
        (
            "num_attention_heads",
            c.u("num_attention_heads")?.unwrap_or(12),
        ),
    )?;
    let patch = dim(c, "patch_size", c.u("patch_size")?.unwrap_or(16), 1, 4096)?;
    let image = dim(
        c,
        "image_size",
        c.u("image_size")?.unwrap_or(224),
        1,
        1 << 16,
    )?;
    let side = image / patch;
    let bias = c.b("qkv_bias")?.unwrap_or(true);
    Ok(Architecture {
        family: Family::Vit,
        hidden_size: hidden,
        num_layers: c.u("num_hidden_layers")?.unwrap_or(12),
        num_heads: heads,
        num_kv_heads: heads,
        head_dim: hidden / heads,
        intermediate_size: c.u("intermediate_size")?.unwrap_or(3072),
        qkv_bias: bias,
        o_bias: true,
        mlp_bias: true,
        norm: Norm::Layer,
        norms_per_layer: 2,
        input_features: patch,
        encoder_positions: side * side + 1,
        num_labels: c.num_labels()?,
        ..Architecture::default()
    })
}

pub(super) fn whisper(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        ("d_model", c.req(&["d_model"], "the model width")?),
        (
            "decoder_attention_heads",
            c.req(&["decoder_attention_heads"], "decoder attention heads")?,
        ),
    )?;
    let ffn = c.req(&["decoder_ffn_dim"], "decoder FFN width")?;
    if c.u("encoder_ffn_dim")?.is_some_and(|e| e != ffn)
        || c.u("encoder_attention_heads")?.is_some_and(|e| e != heads)
    {
        notes.push(
            String::from(
                "The encoder's heads or FFN width differ from the decoder's; the decoder's are used for both.",
            ),
            String::from("编码器的注意力头数或 FFN 宽度与解码器不同；两者都按解码器的计算。"),
        );
    }
    let positions = c.u("max_target_positions")?.unwrap_or(448);
    Ok(Architecture {
        family: Family::Whisper,
        vocab_size: c.req(&["vocab_size"], "vocabulary size")?,
        hidden_size: hidden,
        num_layers: c.req(&["decoder_layers"], "decoder blocks")?,
        encoder_layers: c.req(&["encoder_layers"], "encoder blocks")?,
        num_heads: heads,
        num_kv_heads: heads,
        head_dim: hidden / heads,
        intermediate_size: ffn,
        tied_embeddings: true,
        qkv_bias: true,
        o_bias: true,
        mlp_bias: true,
        norm: Norm::Layer,
        norms_per_layer: 2,
        learned_positions: positions,
        max_position_embeddings: positions,
        encoder_positions: c.u("max_source_positions")?.unwrap_or(1500),
        input_features: c.u("num_mel_bins")?.unwrap_or(80),
        ..Architecture::default()
    })
}
