//! Decoder-only language models: the `model_type`s that share Llama's layout (with each family's
//! defaults and differences), MoE and MLA blocks, and the layer types of hybrid attention.

use alloc::format;
use alloc::string::String;

use super::families::{bert, falcon, gpt2, vit, whisper};
use super::generic::generic;
use super::hybrid;
use super::plain::plain;
use super::resnet::resnet;
use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Family, MAX_DIM, MAX_LAYERS, Mla, Moe, Norm};

/// Per-`model_type` conventions of the transformers decoder classes.
#[derive(Clone, Copy)]
pub(super) struct Style {
    pub(super) gated: bool,
    pub(super) norm: Norm,
    pub(super) norms_per_layer: u64,
    pub(super) qkv_bias: bool,
    pub(super) o_bias: bool,
    pub(super) mlp_bias: bool,
    pub(super) tie_default: bool,
    pub(super) qk_norm: bool,
    pub(super) lm_head_bias: bool,
}

pub(super) const LLAMA: Style = Style {
    gated: true,
    norm: Norm::Rms,
    norms_per_layer: 2,
    qkv_bias: false,
    o_bias: false,
    mlp_bias: false,
    tie_default: false,
    qk_norm: false,
    lm_head_bias: false,
};

/// The architecture a decoder `model_type` declares, read from its config: the Llama-like layout
/// with the family's style, or the family's own reader, then the sliding window and the MoE or
/// MLA blocks of the families that have them.
pub(super) fn decoder(model_type: &str, c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    if let Some(a) = plain(model_type, c, notes)? {
        return Ok(a);
    }
    if let Some(a) = super::wrapped::decoder(model_type, c, notes)? {
        return Ok(a);
    }
    if model_type == "gemma3n_text" {
        return super::gemma3n::gemma3n(c, notes);
    }
    if model_type == "step3p5" {
        return super::step3p5::step3p5(c, notes);
    }
    if model_type == "deepseek_v4" {
        return super::compressed::deepseek_v4(c, notes);
    }
    let mut a = match llama_style(model_type, c)? {
        Some((style, defaults)) => common(c, style, defaults)?,
        None => other_family(model_type, c, notes)?,
    };
    sliding_window(model_type, c, &mut a)?;
    if a.sliding_window > 0 && a.sliding_layers == 0 {
        a.sliding_window = 0;
    }
    match model_type {
        "mixtral" => a.moe = Some(mixtral_moe(c, &a)?),
        "qwen2_moe" | "qwen3_moe" => a.moe = Some(qwen_moe(model_type, c, &a, notes)?),
        "qwen3_next" | "qwen3_5_moe_text" => {
            a.moe = Some(qwen_moe(model_type, c, &a, notes)?);
            hybrid::qwen3_next(c, &mut a, notes)?;
        }
        "qwen3_5_text" => hybrid::qwen3_next(c, &mut a, notes)?,
        "nemotron_h" => hybrid::nemotron_h(c, &mut a, notes)?,
        "granitemoehybrid" => hybrid::granite_hybrid(c, &mut a, notes)?,
        "falcon_h1" => hybrid::falcon_h1(c, &mut a, notes)?,
        "lfm2" => hybrid::lfm2(c, &mut a, notes)?,
        "olmo_hybrid" => hybrid::olmo_hybrid(c, &mut a, notes)?,
        "deepseek_v2" | "deepseek_v3" => deepseek(c, &mut a, notes)?,
        "kimi_linear" => {
            deepseek(c, &mut a, notes)?;
            super::linear::kimi_linear(c, &mut a, notes)?;
        }
        "glm5_next_text" => super::glm5_next::text(c, &mut a, notes)?,
        "deepseek_v32" | "glm_moe_dsa" => {
            deepseek(c, &mut a, notes)?;
            super::sparse::dsa(model_type, c, &mut a, notes)?;
        }
        "gpt_oss" => a.moe = Some(gpt_oss_moe(c, &a)?),
        "llama4_text" => llama4(c, &mut a, notes)?,
        "gemma4_text" => super::gemma4::gemma4(c, &mut a, notes)?,
        "gemma3_text" => super::gemma3::gemma3(c, &mut a, notes)?,
        "hunyuan_v1_moe" => super::hunyuan::hunyuan_moe(c, &mut a, notes)?,
        _ => {}
    }
    Ok(a)
}

/// The style (and the defaults, where the family has its own) of a `model_type` with Llama's
/// layout; `None` for the families read otherwise. `attention_bias` is read first, for every
/// `model_type`.
fn llama_style(model_type: &str, c: &Cfg) -> Result<Option<(Style, Option<Defaults>)>> {
    let attention_bias = c.b("attention_bias")?;
    let llama_like = |tie_default: bool| -> Result<Style> {
        let bias = attention_bias.unwrap_or(false);
        Ok(Style {
            qkv_bias: bias,
            o_bias: bias,
            mlp_bias: c.b("mlp_bias")?.unwrap_or(false),
            tie_default,
            ..LLAMA
        })
    };
    Ok(Some(match model_type {
        "llama" | "mistral" | "mixtral" | "granite" | "phi3" | "llama4_text"
        | "granitemoehybrid" | "falcon_h1" | "olmo_hybrid" => (llama_like(false)?, None),
        "qwen2" | "qwen2_moe" => (
            Style {
                qkv_bias: true,
                ..LLAMA
            },
            None,
        ),
        "qwen3" | "qwen3_moe" | "qwen3_next" | "hunyuan_v1_moe" => (
            Style {
                qk_norm: true,
                ..llama_like(false)?
            },
            None,
        ),
        "qwen3_5_text" | "qwen3_5_moe_text" => (
            Style {
                qk_norm: true,
                ..llama_like(false)?
            },
            Some(if model_type == "qwen3_5_text" {
                Defaults::QWEN3_5
            } else {
                Defaults::QWEN3_5_MOE
            }),
        ),
        // Nemotron-H: one norm per block, a non-gated squared-ReLU MLP.
        "nemotron_h" => (
            Style {
                gated: false,
                norms_per_layer: 1,
                ..llama_like(false)?
            },
            None,
        ),
        "lfm2" => (
            Style {
                qk_norm: true,
                tie_default: true,
                ..LLAMA
            },
            None,
        ),
        "gemma" => (
            Style {
                tie_default: true,
                ..LLAMA
            },
            Some(Defaults::GEMMA),
        ),
        "gemma2" => (
            Style {
                tie_default: true,
                norms_per_layer: 4,
                ..LLAMA
            },
            Some(Defaults::GEMMA2),
        ),
        "gemma3_text" => (
            Style {
                tie_default: true,
                norms_per_layer: 4,
                qk_norm: true,
                ..LLAMA
            },
            Some(Defaults::GEMMA3),
        ),
        "gemma4_text" => (
            Style {
                tie_default: true,
                norms_per_layer: 4,
                ..LLAMA
            },
            Some(Defaults::GEMMA4),
        ),
        "phi" => (
            Style {
                gated: false,
                norm: Norm::Layer,
                norms_per_layer: 1,
                qkv_bias: true,
                o_bias: true,
                mlp_bias: true,
                tie_default: false,
                qk_norm: false,
                lm_head_bias: true,
            },
            None,
        ),
        "gpt_neox" => {
            let bias = attention_bias.unwrap_or(true);
            (
                Style {
                    gated: false,
                    norm: Norm::Layer,
                    norms_per_layer: 2,
                    qkv_bias: bias,
                    o_bias: bias,
                    mlp_bias: true,
                    tie_default: false,
                    qk_norm: false,
                    lm_head_bias: false,
                },
                None,
            )
        }
        "deepseek_v2" | "deepseek_v3" => (llama_like(false)?, None),
        "deepseek_v32" => (llama_like(false)?, Some(Defaults::DEEPSEEK_V32)),
        "glm_moe_dsa" => (llama_like(false)?, Some(Defaults::GLM_MOE_DSA)),
        "kimi_linear" => (llama_like(false)?, Some(Defaults::KIMI_LINEAR)),
        "glm5_next_text" => (llama_like(false)?, Some(Defaults::GLM5_NEXT)),
        "gpt_oss" => (
            Style {
                qkv_bias: attention_bias.unwrap_or(true),
                o_bias: attention_bias.unwrap_or(true),
                ..LLAMA
            },
            None,
        ),
        _ => return Ok(None),
    }))
}

/// The architecture of a supported `model_type` without Llama's layout, from its family's
/// reader; any other is read as a Llama-layout decoder ([`generic`]).
fn other_family(model_type: &str, c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    Ok(match model_type {
        "gpt2" => gpt2(c)?,
        "falcon" => falcon(c, false)?,
        // The configs Falcon shipped before transformers adopted it (trust_remote_code):
        // RefinedWeb is the 40B/180B layout, RefinedWebModel the 7B one.
        "RefinedWeb" => falcon(c, true)?,
        "RefinedWebModel" => falcon(c, false)?,
        "bert" => bert(c, false)?,
        "roberta" | "xlm-roberta" => bert(c, true)?,
        "vit" => vit(c)?,
        "whisper" => whisper(c, notes)?,
        "resnet" => resnet(c)?,
        other => generic(other, c, notes)?,
    })
}

/// Sets the sliding window of the families that have one, and how many layers use it.
fn sliding_window(model_type: &str, c: &Cfg, a: &mut Architecture) -> Result<()> {
    match model_type {
        "mistral" | "mixtral" | "phi3" => {
            if let Some(w) = c.u("sliding_window")? {
                a.sliding_window = w;
                a.sliding_layers = a.num_layers;
            }
        }
        "qwen2" | "qwen2_moe" | "qwen3" | "qwen3_moe" => {
            if c.b("use_sliding_window")?.unwrap_or(false)
                && let Some(w) = c.u("sliding_window")?
            {
                // transformers: layers from `max_window_layers` on use the window.
                let from = c.u("max_window_layers")?.unwrap_or(a.num_layers);
                a.sliding_window = w;
                a.sliding_layers = a.num_layers.saturating_sub(from);
            }
        }
        "gemma2" => {
            a.sliding_window = c.u("sliding_window")?.unwrap_or(4096);
            a.sliding_layers = match layer_types(c)? {
                Some(n) => n,
                None => a.num_layers.div_ceil(2),
            };
        }
        "gemma3_text" => {
            a.sliding_window = c.u("sliding_window")?.unwrap_or(4096);
            a.sliding_layers = match layer_types(c)? {
                Some(n) => n,
                None => {
                    let pattern = c.u("sliding_window_pattern")?.unwrap_or(6).max(1);
                    a.num_layers - a.num_layers / pattern
                }
            };
        }
        "gpt_oss" => {
            a.sliding_window = c.u("sliding_window")?.unwrap_or(128);
            a.sliding_layers = match layer_types(c)? {
                Some(n) => n,
                None => a.num_layers / 2,
            };
            // One learned attention-sink logit per head and layer.
            a.extra_params = a.num_heads.saturating_mul(a.num_layers);
        }
        _ => {}
    }
    Ok(())
}

/// Mixtral's experts: every layer is MoE, each expert as wide as the dense FFN would be.
fn mixtral_moe(c: &Cfg, a: &Architecture) -> Result<Moe> {
    Ok(Moe {
        num_experts: c.req(&["num_local_experts"], "routed experts")?,
        experts_per_token: c.req(&["num_experts_per_tok"], "experts per token")?,
        expert_intermediate_size: a.intermediate_size,
        shared_intermediate_size: 0,
        shared_expert_gate: false,
        first_dense_layers: 0,
        router_bias: false,
        expert_bias: false,
    })
}

/// Qwen2-MoE's and Qwen3-MoE's experts, with the layers that stay dense (every layer off the
/// `decoder_sparse_step`, and those `mlp_only_layers` names) moved to the front.
fn qwen_moe(model_type: &str, c: &Cfg, a: &Architecture, notes: &mut Notes) -> Result<Moe> {
    let moe = Moe {
        // transformers 5.x's Qwen MoE configs save `num_local_experts` (`num_experts` is an
        // alias there); files written before say `num_experts`.
        num_experts: c.req(&["num_experts", "num_local_experts"], "routed experts")?,
        experts_per_token: c.req(&["num_experts_per_tok"], "experts per token")?,
        expert_intermediate_size: c.req(&["moe_intermediate_size"], "expert FFN width")?,
        shared_intermediate_size: c.u("shared_expert_intermediate_size")?.unwrap_or(0),
        shared_expert_gate: matches!(model_type, "qwen2_moe" | "qwen3_next" | "qwen3_5_moe_text"),
        first_dense_layers: 0,
        router_bias: false,
        expert_bias: false,
    };
    if model_type == "qwen3_5_moe_text" {
        // Qwen3.5-MoE has no dense layers: its config class drops decoder_sparse_step and
        // mlp_only_layers.
        return Ok(moe);
    }
    let step = c.u("decoder_sparse_step")?.unwrap_or(1).max(1);
    let dense_only = c.u_arr("mlp_only_layers")?.unwrap_or_default();
    let dense = (0..a.num_layers)
        .filter(|l| dense_only.contains(l) || (l + 1) % step != 0)
        .count() as u64;
    Ok(dense_layers(moe, dense, a.num_layers, notes))
}

/// DeepSeek-V2's and V3's multi-head latent attention, their experts when the config has them,
/// and notes on what is counted differently from the config.
fn deepseek(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let rope = c.req(&["qk_rope_head_dim"], "rotary key width")?;
    let nope = c.req(&["qk_nope_head_dim"], "non-rotary key width")?;
    a.mla = Some(Mla {
        q_lora_rank: c.u("q_lora_rank")?.unwrap_or(0),
        kv_lora_rank: c.req(&["kv_lora_rank"], "cached latent width")?,
        qk_rope_head_dim: rope,
        qk_nope_head_dim: nope,
        v_head_dim: c.req(&["v_head_dim"], "value head width")?,
    });
    a.head_dim = rope.saturating_add(nope);
    a.num_kv_heads = a.num_heads;
    if let Some(experts) = c.u("n_routed_experts")? {
        let expert = c.req(&["moe_intermediate_size"], "expert FFN width")?;
        a.moe = Some(Moe {
            num_experts: experts,
            experts_per_token: c.req(&["num_experts_per_tok"], "experts per token")?,
            expert_intermediate_size: expert,
            shared_intermediate_size: c.u("n_shared_experts")?.unwrap_or(0).saturating_mul(expert),
            shared_expert_gate: false,
            first_dense_layers: c.u("first_k_dense_replace")?.unwrap_or(0),
            router_bias: c.str("topk_method")? == Some("noaux_tc"),
            expert_bias: false,
        });
        if c.u("moe_layer_freq")?.unwrap_or(1) != 1 {
            notes.push(
                String::from(
                    "moe_layer_freq is not 1: every layer after first_k_dense_replace is counted as MoE.",
                ),
                String::from(
                    "moe_layer_freq 不为 1：first_k_dense_replace 之后的每一层都按 MoE 层计算。",
                ),
            );
        }
    }
    note_mtp_layers(c, notes)
}

/// The note on a checkpoint's multi-token-prediction layers (`num_nextn_predict_layers`), not
/// counted: transformers does not build them, and inference loads them only for speculative
/// decoding.
pub(super) fn note_mtp_layers(c: &Cfg, notes: &mut Notes) -> Result<()> {
    if let Some(n) = c.u("num_nextn_predict_layers")?
        && n > 0
    {
        notes.push(
            format!(
                "The {n} multi-token-prediction layer(s) (num_nextn_predict_layers) are not counted: transformers does not build them and inference loads them only for speculative decoding."
            ),
            format!(
                "{n} 个多 token 预测层（num_nextn_predict_layers）不计入：transformers 不构建它们，推理只在投机解码时加载。"
            ),
        );
    }
    Ok(())
}

/// gpt-oss's experts: every layer is MoE, with biases on the router and the experts.
fn gpt_oss_moe(c: &Cfg, a: &Architecture) -> Result<Moe> {
    Ok(Moe {
        num_experts: c.req(&["num_local_experts"], "routed experts")?,
        experts_per_token: c.req(
            &["num_experts_per_tok", "experts_per_token"],
            "experts per token",
        )?,
        expert_intermediate_size: a.intermediate_size,
        shared_intermediate_size: 0,
        shared_expert_gate: false,
        first_dense_layers: 0,
        router_bias: true,
        expert_bias: true,
    })
}

/// Llama 4's experts (one shared expert, the interleaved dense layers with their own width) and
/// its chunked attention, counted as a sliding window.
fn llama4(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let expert = a.intermediate_size;
    let moe = Moe {
        num_experts: c.req(&["num_local_experts"], "routed experts")?,
        experts_per_token: c.req(&["num_experts_per_tok"], "experts per token")?,
        expert_intermediate_size: expert,
        shared_intermediate_size: expert,
        shared_expert_gate: false,
        first_dense_layers: 0,
        router_bias: false,
        expert_bias: false,
    };
    // Dense layers use `intermediate_size_mlp`; MoE layers are every `step`-th.
    a.intermediate_size = c.u("intermediate_size_mlp")?.unwrap_or(expert);
    let dense = match c.u_arr("moe_layers")? {
        Some(layers) => a.num_layers.saturating_sub(layers.len() as u64),
        None => {
            let step = c.u("interleave_moe_layer_step")?.unwrap_or(1).max(1);
            a.num_layers - a.num_layers / step
        }
    };
    a.moe = Some(dense_layers(moe, dense, a.num_layers, notes));
    // Chunked local attention on the RoPE layers (`no_rope_layers[i] == 1`; by default
    // three of every four): a token sees at most `attention_chunk_size` keys there,
    // which bounds the KV cache like a sliding window of that width.
    if let Some(chunk) = c.u("attention_chunk_size")? {
        let chunked = match c.u_arr("no_rope_layers")? {
            Some(flags) => flags.iter().filter(|&&f| f == 1).count() as u64,
            None => {
                let interval = c.u("no_rope_layer_interval")?.unwrap_or(4).max(1);
                a.num_layers - a.num_layers / interval
            }
        };
        a.sliding_window = chunk;
        a.sliding_layers = chunked.min(a.num_layers);
        notes.push(
            format!(
                "Chunked attention (attention_chunk_size {chunk}) on {chunked} layers is counted as a sliding window of {chunk} tokens; the other layers are global."
            ),
            format!(
                "{chunked} 层的分块注意力（attention_chunk_size {chunk}）按 {chunk} 个 token 的滑动窗口计算；其余层为全局注意力。"
            ),
        );
    }
    Ok(())
}

/// Moves `dense` layers to the front: the parameter count is the same wherever they sit.
pub(super) fn dense_layers(mut moe: Moe, dense: u64, layers: u64, notes: &mut Notes) -> Moe {
    if dense > 0 && dense < layers {
        notes.push(
            format!(
                "{dense} of {layers} layers have a dense FFN; they are counted as the first {dense} (the total is exact, the per-layer placement is not)."
            ),
            format!(
                "{layers} 层中有 {dense} 层为稠密 FFN；按前 {dense} 层计算（总数准确，逐层位置不准确）。"
            ),
        );
    }
    moe.first_dense_layers = dense;
    moe
}

/// `layer_types`: how many are `sliding_attention`.
pub(super) fn layer_types(c: &Cfg) -> Result<Option<u64>> {
    let Some(types) = c.arr("layer_types")? else {
        return Ok(None);
    };
    Ok(Some(
        types
            .iter()
            .filter(|t| t.as_str() == Some("sliding_attention"))
            .count() as u64,
    ))
}

/// Class defaults for keys that real files omit.
#[derive(Clone, Copy)]
pub(super) struct Defaults {
    vocab_size: u64,
    hidden_size: u64,
    intermediate_size: u64,
    num_layers: u64,
    num_heads: u64,
    num_kv_heads: u64,
    head_dim: u64,
    max_position_embeddings: u64,
}

impl Defaults {
    /// transformers `GemmaConfig` (the 7B).
    const GEMMA: Defaults = Defaults {
        vocab_size: 256_000,
        hidden_size: 3072,
        intermediate_size: 24_576,
        num_layers: 28,
        num_heads: 16,
        num_kv_heads: 16,
        head_dim: 256,
        max_position_embeddings: 8192,
    };
    /// transformers `Gemma2Config` (the 9B).
    const GEMMA2: Defaults = Defaults {
        vocab_size: 256_000,
        hidden_size: 3584,
        intermediate_size: 14_336,
        num_layers: 42,
        num_heads: 16,
        num_kv_heads: 8,
        head_dim: 256,
        max_position_embeddings: 8192,
    };
    /// transformers `Qwen3_5TextConfig` (the 9B).
    const QWEN3_5: Defaults = Defaults {
        vocab_size: 248_320,
        hidden_size: 4096,
        intermediate_size: 12_288,
        num_layers: 32,
        num_heads: 16,
        num_kv_heads: 4,
        head_dim: 256,
        max_position_embeddings: 32_768,
    };
    /// transformers `Qwen3_5MoeTextConfig` (the 35B-A3B): no dense FFN, so no
    /// `intermediate_size`.
    const QWEN3_5_MOE: Defaults = Defaults {
        vocab_size: 248_320,
        hidden_size: 2048,
        intermediate_size: 0,
        num_layers: 40,
        num_heads: 16,
        num_kv_heads: 2,
        head_dim: 256,
        max_position_embeddings: 32_768,
    };
    /// transformers `DeepseekV32Config` (DeepSeek-V3.2-Exp; `head_dim` is replaced by the MLA
    /// widths).
    const DEEPSEEK_V32: Defaults = Defaults {
        vocab_size: 129_280,
        hidden_size: 7168,
        intermediate_size: 18_432,
        num_layers: 61,
        num_heads: 128,
        num_kv_heads: 128,
        head_dim: 192,
        max_position_embeddings: 163_840,
    };
    /// transformers `GlmMoeDsaConfig` (GLM-5).
    const GLM_MOE_DSA: Defaults = Defaults {
        vocab_size: 154_880,
        hidden_size: 6144,
        intermediate_size: 12_288,
        num_layers: 78,
        num_heads: 64,
        num_kv_heads: 64,
        head_dim: 256,
        max_position_embeddings: 202_752,
    };
    /// transformers `Glm5NextTextConfig` (the docstring's zai-org/GLM-5.3-Flash); its
    /// `head_dim` is the rotary width, 0, set from the MLA widths by `glm5_next::text`.
    const GLM5_NEXT: Defaults = Defaults {
        vocab_size: 154_880,
        hidden_size: 4096,
        intermediate_size: 12_288,
        num_layers: 45,
        num_heads: 64,
        num_kv_heads: 64,
        head_dim: 256,
        max_position_embeddings: 1_048_576,
    };
    /// transformers `KimiLinearConfig` (Kimi-Linear-48B-A3B).
    const KIMI_LINEAR: Defaults = Defaults {
        vocab_size: 163_840,
        hidden_size: 2304,
        intermediate_size: 9216,
        num_layers: 27,
        num_heads: 32,
        num_kv_heads: 32,
        head_dim: 192,
        max_position_embeddings: 1_048_576,
    };
    /// transformers `Gemma4TextConfig` (the docstring's google/gemma-4-e2b-it).
    const GEMMA4: Defaults = Defaults {
        vocab_size: 262_144,
        hidden_size: 2304,
        intermediate_size: 9216,
        num_layers: 30,
        num_heads: 8,
        num_kv_heads: 4,
        head_dim: 256,
        max_position_embeddings: 131_072,
    };
    /// transformers `Gemma3nTextConfig` (google/gemma-3n-E4B's text model).
    pub(super) const GEMMA3N: Defaults = Defaults {
        vocab_size: 262_400,
        hidden_size: 2048,
        intermediate_size: 16_384,
        num_layers: 35,
        num_heads: 8,
        num_kv_heads: 2,
        head_dim: 256,
        max_position_embeddings: 32_768,
    };
    /// transformers `Gemma3TextConfig`.
    const GEMMA3: Defaults = Defaults {
        vocab_size: 262_208,
        hidden_size: 2304,
        intermediate_size: 9216,
        num_layers: 26,
        num_heads: 8,
        num_kv_heads: 4,
        head_dim: 256,
        max_position_embeddings: 131_072,
    };
}

/// Checks a width before it is used as a divisor or multiplied.
pub(super) fn dim(c: &Cfg, key: &str, v: u64, lo: u64, hi: u64) -> Result<u64> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(InputError::new(
            ErrorKind::OutOfRange,
            c.field(key),
            format!("{v} is out of range"),
            format!("an integer from {lo} to {hi}"),
        ))
    }
}

/// The model width and the attention heads under their config keys, each checked against its range.
pub(super) fn width_and_heads(
    c: &Cfg,
    hidden: (&str, u64),
    heads: (&str, u64),
) -> Result<(u64, u64)> {
    Ok((
        dim(c, hidden.0, hidden.1, 1, MAX_DIM)?,
        dim(c, heads.0, heads.1, 1, 1 << 14)?,
    ))
}

/// The keys every decoder-only config shares.
pub(super) fn common(c: &Cfg, s: Style, d: Option<Defaults>) -> Result<Architecture> {
    let pick = |keys: &[&str], what: &str, default: Option<u64>| -> Result<u64> {
        match (c.opt(keys)?, default) {
            (Some(v), _) | (None, Some(v)) => Ok(v),
            (None, None) => c.req(keys, what),
        }
    };
    let hidden = pick(
        &["hidden_size"],
        "the model width",
        d.map(|d| d.hidden_size),
    )?;
    let hidden = dim(c, "hidden_size", hidden, 1, MAX_DIM)?;
    let heads = pick(
        &["num_attention_heads"],
        "attention heads",
        d.map(|d| d.num_heads),
    )?;
    let heads = dim(c, "num_attention_heads", heads, 1, 1 << 14)?;
    let head_dim = match c.u("head_dim")?.or(d.map(|d| d.head_dim)) {
        Some(h) => h,
        None => {
            if hidden % heads != 0 {
                return Err(InputError::new(
                    ErrorKind::ConfigJson,
                    c.field("head_dim"),
                    format!(
                        "missing, and hidden_size {hidden} is not a multiple of num_attention_heads {heads}"
                    ),
                    "head_dim, or a hidden_size divisible by num_attention_heads",
                ));
            }
            hidden / heads
        }
    };
    // Checked here because MoE layer patterns are enumerated per layer. transformers 5.x writes
    // Nemotron-H's config without `num_hidden_layers` (a property there: the length of
    // `layers_block_type`), so that list's length stands in for it.
    let listed = match c.arr("layers_block_type")? {
        Some(l) => Some(l.len() as u64),
        None => c.str("hybrid_override_pattern")?.map(|p| p.len() as u64),
    };
    let layers = pick(
        &["num_hidden_layers"],
        "transformer blocks",
        d.map(|d| d.num_layers).or(listed),
    )?;
    let layers = dim(c, "num_hidden_layers", layers, 1, MAX_LAYERS)?;
    Ok(Architecture {
        family: Family::CausalLm,
        vocab_size: pick(&["vocab_size"], "vocabulary size", d.map(|d| d.vocab_size))?,
        hidden_size: hidden,
        num_layers: layers,
        num_heads: heads,
        num_kv_heads: c
            .u("num_key_value_heads")?
            .or(d.map(|d| d.num_kv_heads))
            .unwrap_or(heads),
        head_dim,
        intermediate_size: pick(
            &["intermediate_size", "block_ff_dim"],
            "the FFN width",
            d.map(|d| d.intermediate_size),
        )?,
        gated_ffn: s.gated,
        tied_embeddings: c.b("tie_word_embeddings")?.unwrap_or(s.tie_default),
        qkv_bias: s.qkv_bias,
        o_bias: s.o_bias,
        mlp_bias: s.mlp_bias,
        lm_head_bias: s.lm_head_bias,
        norm: s.norm,
        norms_per_layer: s.norms_per_layer,
        qk_norm: s.qk_norm,
        max_position_embeddings: c
            .u("max_position_embeddings")?
            .or(d.map(|d| d.max_position_embeddings))
            .unwrap_or(0),
        ..Architecture::default()
    })
}
