//! Hybrid decoders: the per-layer pattern (`layer_types`, `layers_block_type`,
//! `hybrid_override_pattern`, `full_attention_interval`, `full_attn_idxs`) read into typed layer
//! kinds and counted, and the state mixer's shapes of each family (transformers 5.25.0's config
//! classes and their defaults).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Cfg, Notes};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Hybrid, LayerKind, MAX_LAYERS, StateMixer};

/// The layer kinds a config's pattern names, in order.
fn kinds_from_names(c: &Cfg, key: &str) -> Result<Option<Vec<LayerKind>>> {
    let Some(names) = c.arr(key)? else {
        return Ok(None);
    };
    if names.len() > MAX_LAYERS as usize {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            c.field(key),
            format!("{} entries", names.len()),
            format!("at most {MAX_LAYERS} entries"),
        ));
    }
    names
        .iter()
        .map(|v| {
            v.as_str()
                .and_then(LayerKind::from_config_name)
                .ok_or_else(|| unknown_kind(c, key, &format!("{v}")))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

fn unknown_kind(c: &Cfg, key: &str, name: &str) -> InputError {
    InputError::new(
        ErrorKind::Unsupported,
        c.field(key),
        format!("layer kind {name} is not modelled"),
        "full_attention, sliding_attention, linear_attention (mamba), conv, mlp, moe, hybrid",
    )
}

/// Nemotron-H's `hybrid_override_pattern`: one character per layer.
fn kinds_from_pattern(c: &Cfg, key: &str) -> Result<Option<Vec<LayerKind>>> {
    let Some(pattern) = c.str(key)? else {
        return Ok(None);
    };
    if pattern.len() > MAX_LAYERS as usize {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            c.field(key),
            format!("{} layers", pattern.len()),
            format!("at most {MAX_LAYERS} layers"),
        ));
    }
    pattern
        .chars()
        .map(|ch| match ch {
            'M' => Ok(LayerKind::State),
            '*' => Ok(LayerKind::FullAttention),
            '-' | 'E' => Ok(LayerKind::Ffn),
            other => Err(unknown_kind(c, key, &format!("'{other}'"))),
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// How many layers of each kind a pattern holds.
#[derive(Default)]
struct Counts {
    full: u64,
    sliding: u64,
    state: u64,
    ffn_only: u64,
    parallel: u64,
}

fn count(kinds: &[LayerKind]) -> Counts {
    let mut n = Counts::default();
    for k in kinds {
        match k {
            LayerKind::FullAttention => n.full += 1,
            LayerKind::SlidingAttention => n.sliding += 1,
            LayerKind::State => n.state += 1,
            LayerKind::Ffn => n.ffn_only += 1,
            LayerKind::Parallel => n.parallel += 1,
        }
    }
    n
}

/// The pattern's length must be the layer count.
fn check_len(c: &Cfg, key: &str, kinds: &[LayerKind], layers: u64) -> Result<()> {
    if kinds.len() as u64 == layers {
        return Ok(());
    }
    Err(InputError::new(
        ErrorKind::Conflict,
        c.field(key),
        format!("{} entries for num_hidden_layers = {layers}", kinds.len()),
        "one entry per layer",
    ))
}

/// Sets the layer counts of a stack whose layers each hold attention or the state mixer, and
/// an FFN: the attention layers' sliding count with them.
fn sequential(a: &mut Architecture, n: &Counts, mixer: Hybrid) {
    a.sliding_layers = n.sliding;
    a.hybrid = Some(Hybrid {
        state_layers: n.state,
        attention_layers: n.full + n.sliding,
        ffn_layers: a.num_layers,
        parallel: false,
        ..mixer
    });
}

fn note_layers(notes: &mut Notes, kind_en: &str, kind_zh: &str, state: u64, attention: u64) {
    notes.push(
        format!(
            "{state} {kind_en} layers keep a fixed-size state per sequence; only the {attention} attention layers keep a KV cache that grows with the context."
        ),
        format!(
            "{state} 个{kind_zh}层每条序列只保存固定大小的状态；只有 {attention} 个注意力层的 KV 缓存随上下文增长。"
        ),
    );
}

/// Qwen3-Next: Gated DeltaNet layers and gated full attention, every `full_attention_interval`-th
/// layer attending (`Qwen3NextConfig.__post_init__`).
pub(super) fn qwen3_next(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let kinds = match kinds_from_names(c, "layer_types")? {
        Some(k) => {
            check_len(c, "layer_types", &k, a.num_layers)?;
            k
        }
        None => {
            let interval = c.u("full_attention_interval")?.unwrap_or(4).max(1);
            (0..a.num_layers)
                .map(|i| {
                    if (i + 1) % interval == 0 {
                        LayerKind::FullAttention
                    } else {
                        LayerKind::State
                    }
                })
                .collect()
        }
    };
    let n = count(&kinds);
    if n.ffn_only + n.parallel > 0 {
        return Err(unknown_kind(c, "layer_types", "mlp or hybrid"));
    }
    a.gated_attention = true;
    if let Some(mtp) = c.opt(&["mtp_num_hidden_layers", "num_nextn_predict_layers"])?
        && mtp > 0
    {
        notes.push(
            format!(
                "The {mtp} multi-token-prediction layer(s) (mtp_num_hidden_layers) are not counted: transformers does not load them, and servers load them only for speculative decoding."
            ),
            format!(
                "{mtp} 个多 token 预测层（mtp_num_hidden_layers）不计入：transformers 不加载它们，推理服务只在投机解码时加载。"
            ),
        );
    }
    let mixer = Hybrid {
        mixer: StateMixer::GatedDeltaNet,
        heads: c.u("linear_num_value_heads")?.unwrap_or(32),
        groups: c.u("linear_num_key_heads")?.unwrap_or(16),
        state_size: c.u("linear_key_head_dim")?.unwrap_or(128),
        head_dim: c.u("linear_value_head_dim")?.unwrap_or(128),
        conv_kernel: c.u("linear_conv_kernel_dim")?.unwrap_or(4),
        ..Hybrid::default()
    };
    sequential(a, &n, mixer);
    note_layers(
        notes,
        "Gated DeltaNet (linear attention)",
        "Gated DeltaNet（线性注意力）",
        n.state,
        n.full + n.sliding,
    );
    Ok(())
}

/// The Mamba2 mixer's shapes under Granite's and Falcon-H1's keys: `mamba_d_head` "auto" is
/// the inner width over the heads.
fn mamba2_keys(c: &Cfg, inner: u64, heads_default: u64, state_default: u64) -> Result<Hybrid> {
    let heads = c.u("mamba_n_heads")?.unwrap_or(heads_default).max(1);
    let head_dim = match c.get("mamba_d_head") {
        Some(v) if v.is_string() => inner / heads,
        _ => c.u("mamba_d_head")?.unwrap_or(inner / heads),
    };
    Ok(Hybrid {
        mixer: StateMixer::Mamba2,
        heads,
        groups: c.u("mamba_n_groups")?.unwrap_or(1),
        state_size: c.u("mamba_d_state")?.unwrap_or(state_default),
        head_dim,
        conv_kernel: c.u("mamba_d_conv")?.unwrap_or(4),
        conv_bias: c.b("mamba_conv_bias")?.unwrap_or(true),
        proj_bias: c.b("mamba_proj_bias")?.unwrap_or(false),
        gated_norm: true,
        ..Hybrid::default()
    })
}

/// Nemotron-H: each layer one block, Mamba2 (`M`), attention (`*`), MLP (`-`) or MoE (`E`),
/// from `layers_block_type` or the older `hybrid_override_pattern`.
pub(super) fn nemotron_h(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let (key, kinds) = match kinds_from_names(c, "layers_block_type")? {
        Some(k) => ("layers_block_type", k),
        None => match kinds_from_pattern(c, "hybrid_override_pattern")? {
            Some(k) => ("hybrid_override_pattern", k),
            None => {
                return Err(InputError::new(
                    ErrorKind::ConfigJson,
                    c.field("hybrid_override_pattern"),
                    "missing (and no layers_block_type)",
                    "one character per layer: M (Mamba2), * (attention), - (MLP), E (MoE)",
                ));
            }
        },
    };
    // transformers takes the pattern's length as the layer count.
    a.num_layers = kinds.len() as u64;
    let n = count(&kinds);
    if n.parallel > 0 {
        return Err(unknown_kind(c, key, "hybrid"));
    }
    let heads = c.u("mamba_num_heads")?.unwrap_or(128);
    let mixer = Hybrid {
        mixer: StateMixer::Mamba2,
        state_layers: n.state,
        attention_layers: n.full + n.sliding,
        ffn_layers: n.ffn_only,
        parallel: false,
        heads,
        groups: c.u("n_groups")?.unwrap_or(8),
        state_size: c.u("ssm_state_size")?.unwrap_or(128),
        head_dim: c.u("mamba_head_dim")?.unwrap_or(64),
        conv_kernel: c.u("conv_kernel")?.unwrap_or(4),
        conv_bias: c.b("use_conv_bias")?.unwrap_or(true),
        proj_bias: c.b("use_bias")?.unwrap_or(false),
        gated_norm: true,
    };
    a.sliding_layers = n.sliding;
    a.hybrid = Some(mixer);
    let moe_layers = kinds.iter().filter(|k| **k == LayerKind::Ffn).count() as u64;
    if c.u("moe_latent_size")?.is_some() {
        return Err(InputError::new(
            ErrorKind::Unsupported,
            c.field("moe_latent_size"),
            "latent MoE projections are not modelled",
            "no moe_latent_size (Nemotron-H and Nemotron-3 Nano)",
        ));
    }
    if let Some(pattern) = c.str("hybrid_override_pattern")?
        && pattern.contains('E')
    {
        nemotron_moe(c, a, pattern, moe_layers)?;
    } else if c
        .arr("layers_block_type")?
        .is_some_and(|l| l.iter().any(|v| v.as_str() == Some("moe")))
    {
        let names = c.arr("layers_block_type")?.cloned().unwrap_or_default();
        let pattern: String = names
            .iter()
            .map(|v| if v.as_str() == Some("moe") { 'E' } else { '-' })
            .collect();
        nemotron_moe(c, a, &pattern, moe_layers)?;
    }
    note_layers(notes, "Mamba2", "Mamba2 ", n.state, n.full + n.sliding);
    Ok(())
}

/// Nemotron-H's MoE blocks (`E`): non-gated experts, a shared expert, a router; the MLP blocks
/// (`-`) are counted first among the FFN layers.
fn nemotron_moe(c: &Cfg, a: &mut Architecture, pattern: &str, ffn_layers: u64) -> Result<()> {
    let moe_blocks = pattern.chars().filter(|&ch| ch == 'E').count() as u64;
    let first_ffn = a.num_layers.saturating_sub(ffn_layers);
    a.moe = Some(crate::model::Moe {
        num_experts: c.req(&["n_routed_experts", "num_local_experts"], "routed experts")?,
        experts_per_token: c.u("num_experts_per_tok")?.unwrap_or(2),
        expert_intermediate_size: c.u("moe_intermediate_size")?.unwrap_or(7688),
        // `NemotronHMoE` always builds one shared MLP of this width.
        shared_intermediate_size: c.u("moe_shared_expert_intermediate_size")?.unwrap_or(7688),
        shared_expert_gate: false,
        first_dense_layers: first_ffn + ffn_layers.saturating_sub(moe_blocks),
        router_bias: false,
        expert_bias: false,
    });
    Ok(())
}

/// Granite 4 hybrid: Mamba2 and attention layers (`layer_types`), each with a shared MLP and,
/// when `num_local_experts` > 0, routed experts.
pub(super) fn granite_hybrid(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let kinds = match kinds_from_names(c, "layer_types")? {
        Some(k) => {
            check_len(c, "layer_types", &k, a.num_layers)?;
            k
        }
        None => alloc::vec![LayerKind::State; a.num_layers as usize],
    };
    let n = count(&kinds);
    if n.ffn_only + n.parallel > 0 {
        return Err(unknown_kind(c, "layer_types", "mlp or hybrid"));
    }
    let inner = c
        .u("mamba_expand")?
        .unwrap_or(2)
        .saturating_mul(a.hidden_size);
    let mixer = mamba2_keys(c, inner, 128, 256)?;
    sequential(a, &n, mixer);
    let shared = c.u("shared_intermediate_size")?.unwrap_or(1024);
    let experts = c.u("num_local_experts")?.unwrap_or(8);
    if experts > 0 {
        a.moe = Some(crate::model::Moe {
            num_experts: experts,
            experts_per_token: c.u("num_experts_per_tok")?.unwrap_or(2),
            expert_intermediate_size: a.intermediate_size,
            shared_intermediate_size: shared,
            shared_expert_gate: false,
            first_dense_layers: 0,
            router_bias: false,
            expert_bias: false,
        });
    } else {
        a.intermediate_size = shared;
    }
    note_layers(notes, "Mamba2", "Mamba2 ", n.state, n.full + n.sliding);
    Ok(())
}

/// Falcon-H1: every layer runs attention and a Mamba2 mixer side by side, then an MLP.
pub(super) fn falcon_h1(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let inner = match c.u("mamba_d_ssm")? {
        Some(d) => d,
        // The config class's default (1024) is used when the key is absent; `null` means
        // `mamba_expand × hidden_size`.
        None if c.obj.contains_key("mamba_d_ssm") => c
            .u("mamba_expand")?
            .unwrap_or(2)
            .saturating_mul(a.hidden_size),
        None => 1024,
    };
    let mut mixer = mamba2_keys(c, inner, 128, 256)?;
    mixer.gated_norm = c.b("mamba_rms_norm")?.unwrap_or(false);
    if c.b("projectors_bias")?.unwrap_or(false) != mixer.proj_bias {
        notes.push(
            String::from(
                "mamba_proj_bias and projectors_bias differ: both Mamba projections are counted with mamba_proj_bias (a difference of one bias vector per layer).",
            ),
            String::from(
                "mamba_proj_bias 与 projectors_bias 不同：两个 Mamba 投影都按 mamba_proj_bias 计算（每层差一个偏置向量）。",
            ),
        );
    }
    a.hybrid = Some(Hybrid {
        state_layers: a.num_layers,
        attention_layers: a.num_layers,
        ffn_layers: a.num_layers,
        parallel: true,
        ..mixer
    });
    notes.push(
        format!(
            "Every one of the {} layers runs attention and a Mamba2 mixer side by side: each keeps a KV cache and a fixed-size state.",
            a.num_layers
        ),
        format!(
            "{} 层每层都并行运行注意力与 Mamba2：每层既有 KV 缓存，也有固定大小的状态。",
            a.num_layers
        ),
    );
    Ok(())
}

/// LFM2: short-convolution layers and attention layers (`layer_types` or `full_attn_idxs`), each
/// with a SwiGLU whose width transformers adjusts (`Lfm2MLP`).
pub(super) fn lfm2(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let kinds = match kinds_from_names(c, "layer_types")? {
        Some(k) => {
            check_len(c, "layer_types", &k, a.num_layers)?;
            k
        }
        None => {
            let full = c.u_arr("full_attn_idxs")?;
            (0..a.num_layers)
                .map(|i| match &full {
                    Some(idx) if !idx.contains(&i) => LayerKind::State,
                    _ => LayerKind::FullAttention,
                })
                .collect()
        }
    };
    let n = count(&kinds);
    if n.ffn_only + n.parallel > 0 {
        return Err(unknown_kind(c, "layer_types", "mlp or hybrid"));
    }
    if let Some(ff) = c.u("block_ff_dim")? {
        a.intermediate_size = ff;
    }
    if let Some(tie) = c.b("tie_embedding")? {
        a.tied_embeddings = tie;
    }
    if c.b("block_auto_adjust_ff_dim")?.unwrap_or(true) {
        let multiple = c.u("block_multiple_of")?.unwrap_or(256).max(1);
        let multiplier = match c.get("block_ffn_dim_multiplier") {
            Some(v) => v.as_f64().unwrap_or(1.0),
            None => 1.0,
        };
        let ff = (2 * a.intermediate_size) / 3;
        let ff = libm::trunc(multiplier * ff as f64);
        let ff = if ff.is_finite() && ff >= 0.0 && ff < (1u64 << 40) as f64 {
            ff as u64
        } else {
            u64::MAX
        };
        a.intermediate_size = ff.div_ceil(multiple).saturating_mul(multiple);
    }
    let conv_bias = c.b("conv_bias")?.unwrap_or(false);
    let mixer = Hybrid {
        mixer: StateMixer::ShortConv,
        conv_kernel: c.u("conv_L_cache")?.unwrap_or(3),
        conv_bias,
        proj_bias: conv_bias,
        ..Hybrid::default()
    };
    sequential(a, &n, mixer);
    note_layers(
        notes,
        "short-convolution",
        "短卷积",
        n.state,
        n.full + n.sliding,
    );
    Ok(())
}

/// OLMo Hybrid (`OlmoHybridConfig`, transformers 5.24.0): Gated DeltaNet layers with separate
/// q, k, v, a, b and g projections (as many weights as Qwen3-Next's fused ones) and OLMo 3's
/// attention layers (q and k norms over the whole projection, no output gate), from
/// `layer_types` or by default every 4th layer attending (the last when none would). The
/// linear heads default to the attention heads, their key width to `0.75 × hidden / heads`
/// and their value width to twice that; transformers refuses a stack of one kind alone.
pub(super) fn olmo_hybrid(c: &Cfg, a: &mut Architecture, notes: &mut Notes) -> Result<()> {
    let kinds = match kinds_from_names(c, "layer_types")? {
        Some(k) => {
            check_len(c, "layer_types", &k, a.num_layers)?;
            k
        }
        None => {
            let mut k: Vec<LayerKind> = (0..a.num_layers)
                .map(|i| {
                    if i % 4 == 3 {
                        LayerKind::FullAttention
                    } else {
                        LayerKind::State
                    }
                })
                .collect();
            if let Some(last) = k.last_mut()
                && a.num_layers < 4
            {
                *last = LayerKind::FullAttention;
            }
            k
        }
    };
    let n = count(&kinds);
    if n.ffn_only + n.parallel + n.sliding > 0 {
        return Err(unknown_kind(
            c,
            "layer_types",
            "sliding_attention, mlp or hybrid",
        ));
    }
    if n.state == 0 || n.full == 0 {
        let missing = if n.state == 0 {
            "linear_attention"
        } else {
            "full_attention"
        };
        return Err(input_error!(
            ConfigJson,
            c.field("layer_types"),
            ["no {missing} layer: OLMo Hybrid needs both kinds"],
            ["没有 {missing} 层：OLMo Hybrid 两种层都需要"],
            ["at least one linear_attention and one full_attention layer"],
            ["至少一个 linear_attention 层和一个 full_attention 层"],
        ));
    }
    let heads = c.u("linear_num_value_heads")?.unwrap_or(a.num_heads);
    let groups = c.u("linear_num_key_heads")?.unwrap_or(a.num_heads);
    // int(0.75 * hidden_size / linear_num_key_heads), in integers.
    let key = match c.u("linear_key_head_dim")? {
        Some(k) => k,
        None => a.hidden_size.saturating_mul(3) / groups.max(1).saturating_mul(4),
    };
    let mixer = Hybrid {
        mixer: StateMixer::GatedDeltaNet,
        heads,
        groups,
        state_size: key,
        head_dim: c
            .u("linear_value_head_dim")?
            .unwrap_or(key.saturating_mul(2)),
        conv_kernel: c.u("linear_conv_kernel_dim")?.unwrap_or(4),
        ..Hybrid::default()
    };
    sequential(a, &n, mixer);
    // q_norm and k_norm span the whole projection in the attention layers alone.
    let per_layer = a
        .num_heads
        .saturating_add(a.num_kv_heads)
        .saturating_mul(a.head_dim);
    let norms = per_layer.saturating_mul(n.full);
    a.extra_params = a.extra_params.saturating_add(norms);
    notes.push(
        format!(
            "The attention layers' q_norm and k_norm span the whole projection ({per_layer} weights a layer): their {norms} weights over {} layers are counted as extra parameters, kept unquantized like every norm.",
            n.full
        ),
        format!(
            "注意力层的 q_norm 与 k_norm 覆盖整个投影（每层 {per_layer} 个权重）：{} 层共 {norms} 个权重计为额外参数，与所有归一化层一样不量化。",
            n.full
        ),
    );
    note_layers(
        notes,
        "Gated DeltaNet (linear attention)",
        "Gated DeltaNet（线性注意力）",
        n.state,
        n.full,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::parse_config;
    use crate::model::Architecture;
    use alloc::{format, string::String, vec::Vec};

    /// The configs of `tests/reference/hybrid_reference.py`, and what transformers 5.25.0 counted
    /// there (`tests/reference/hybrid-reference.csv`): parameters on the meta device, and for the
    /// tiny models the cache a prefill of 2 sequences of 5 tokens left (KV, convolution and
    /// recurrent bytes, bf16 activations).
    const QWEN3_NEXT_80B: &str = r#"{"model_type": "qwen3_next", "vocab_size": 151936,
        "hidden_size": 2048, "intermediate_size": 5120, "num_hidden_layers": 48,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
        "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_num_key_heads": 16, "linear_num_value_heads": 32, "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512, "num_experts": 512, "num_experts_per_tok": 10,
        "full_attention_interval": 4, "decoder_sparse_step": 1, "mlp_only_layers": [],
        "tie_word_embeddings": false, "max_position_embeddings": 262144}"#;
    const QWEN3_NEXT_TINY: &str = r#"{"model_type": "qwen3_next", "vocab_size": 128,
        "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
        "linear_conv_kernel_dim": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 16,
        "linear_num_key_heads": 2, "linear_num_value_heads": 4, "moe_intermediate_size": 32,
        "shared_expert_intermediate_size": 48, "num_experts": 4, "num_experts_per_tok": 2,
        "full_attention_interval": 2, "decoder_sparse_step": 1, "mlp_only_layers": [],
        "tie_word_embeddings": false}"#;
    const NEMOTRON_H_8B: &str = r#"{"model_type": "nemotron_h", "vocab_size": 131072,
        "hidden_size": 4096, "intermediate_size": 21504, "num_hidden_layers": 52,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8,
        "conv_kernel": 4,
        "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
        "tie_word_embeddings": false, "max_position_embeddings": 8192}"#;
    const NEMOTRON_H_TINY: &str = r#"{"model_type": "nemotron_h", "vocab_size": 128,
        "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 6,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
        "mamba_num_heads": 8, "mamba_head_dim": 8, "ssm_state_size": 16, "n_groups": 2,
        "conv_kernel": 4, "hybrid_override_pattern": "M-M*-M", "tie_word_embeddings": false}"#;
    const GRANITE_4_H_TINY: &str = r#"{"model_type": "granitemoehybrid", "vocab_size": 100352,
        "hidden_size": 1536, "intermediate_size": 512, "num_hidden_layers": 40,
        "num_attention_heads": 12, "num_key_value_heads": 4, "num_local_experts": 64,
        "num_experts_per_tok": 6, "shared_intermediate_size": 1024, "mamba_n_heads": 48,
        "mamba_n_groups": 1, "mamba_d_state": 128, "mamba_d_head": 64, "mamba_d_conv": 4,
        "mamba_expand": 2, "layer_types": ["mamba", "mamba", "mamba", "mamba", "mamba",
        "attention", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba",
        "mamba", "attention", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba",
        "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba",
        "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba"],
        "tie_word_embeddings": true}"#;
    const GRANITE_TINY: &str = r#"{"model_type": "granitemoehybrid", "vocab_size": 128,
        "hidden_size": 64, "intermediate_size": 32, "num_hidden_layers": 4,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_local_experts": 4,
        "num_experts_per_tok": 2, "shared_intermediate_size": 48, "mamba_n_heads": 8,
        "mamba_n_groups": 1, "mamba_d_state": 16, "mamba_d_head": 16, "mamba_d_conv": 4,
        "mamba_expand": 2, "layer_types": ["mamba", "attention", "mamba", "mamba"],
        "tie_word_embeddings": true}"#;
    const FALCON_H1_0_5B: &str = r#"{"model_type": "falcon_h1", "vocab_size": 32784,
        "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 36,
        "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
        "mamba_d_ssm": 1536, "mamba_n_heads": 24, "mamba_d_head": 64, "mamba_n_groups": 1,
        "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2,
        "tie_word_embeddings": false}"#;
    const FALCON_H1_TINY: &str = r#"{"model_type": "falcon_h1", "vocab_size": 128,
        "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 3,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "mamba_d_ssm": 64,
        "mamba_n_heads": 8, "mamba_d_head": 8, "mamba_n_groups": 1, "mamba_d_state": 16,
        "mamba_d_conv": 4, "mamba_expand": 2, "tie_word_embeddings": false}"#;
    const LFM2_1_2B: &str = r#"{"model_type": "lfm2", "vocab_size": 65536,
        "hidden_size": 2048, "intermediate_size": 12288, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "conv_L_cache": 3,
        "block_multiple_of": 256, "block_ffn_dim_multiplier": 1.0,
        "block_auto_adjust_ff_dim": true, "full_attn_idxs": [2, 5, 8, 10, 12, 14],
        "tie_word_embeddings": true}"#;
    const LFM2_TINY: &str = r#"{"model_type": "lfm2", "vocab_size": 128, "hidden_size": 64,
        "intermediate_size": 192, "num_hidden_layers": 4, "num_attention_heads": 4,
        "num_key_value_heads": 2, "conv_L_cache": 3, "block_multiple_of": 32,
        "block_ffn_dim_multiplier": 1.0, "block_auto_adjust_ff_dim": true,
        "full_attn_idxs": [1, 3], "tie_word_embeddings": true}"#;

    fn arch(json: &str) -> Architecture {
        parse_config(json).unwrap().arch
    }

    /// The cache of `batch` sequences of `seq` tokens as transformers keeps it: bf16 K and V in
    /// the attention layers; per state layer a bf16 convolution state of the whole kernel and an
    /// fp32 recurrent state. `(kv, conv, recurrent)` bytes.
    fn hf_cache(a: &Architecture, batch: u64, seq: u64) -> (u64, u64, u64) {
        let kv = a.attention_layers() * a.kv_elements_per_token_layer() * seq * batch * 2;
        let h = a.hybrid.unwrap();
        let s = h.state_elements(a.hidden_size);
        let layers = a.state_layers();
        (
            kv,
            layers * s.conv * batch * 2,
            layers * s.recurrent * batch * 4,
        )
    }

    /// transformers 5.x saves Nemotron-H with `layers_block_type` in its own names
    /// (`linear_attention` for Mamba2, `full_attention`, `mlp`, `moe`) and no
    /// `num_hidden_layers` (a property there, the list's length): the 8B read that way is the
    /// 8B read from its `hybrid_override_pattern`, 8,100,852,736 parameters (meta count).
    #[test]
    fn nemotron_h_as_transformers_5_saves_it() {
        let pattern = "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-";
        let names: Vec<String> = pattern
            .chars()
            .map(|ch| match ch {
                'M' => String::from("\"linear_attention\""),
                '*' => String::from("\"full_attention\""),
                _ => String::from("\"mlp\""),
            })
            .collect();
        let json = NEMOTRON_H_8B
            .replace(r#""num_hidden_layers": 52,"#, "")
            .replace(
                &format!(r#""hybrid_override_pattern": "{pattern}""#),
                &format!(r#""layers_block_type": [{}]"#, names.join(", ")),
            );
        assert!(!json.contains("num_hidden_layers") && json.contains("layers_block_type"));
        assert_eq!(arch(&json), arch(NEMOTRON_H_8B));
        assert_eq!(arch(&json).params(), 8_100_852_736);
    }

    #[test]
    fn parameters_match_transformers_meta_count() {
        for (json, params) in [
            (QWEN3_NEXT_80B, 79_674_391_296),
            (QWEN3_NEXT_TINY, 216_752),
            (NEMOTRON_H_8B, 8_100_852_736),
            (NEMOTRON_H_TINY, 106_568),
            (GRANITE_4_H_TINY, 6_939_037_248),
            (GRANITE_TINY, 241_512),
            (FALCON_H1_0_5B, 521_411_104),
            (FALCON_H1_TINY, 155_048),
            (LFM2_1_2B, 1_170_340_608),
            (LFM2_TINY, 164_864),
        ] {
            assert_eq!(arch(json).params(), params, "{json}");
        }
    }

    #[test]
    fn caches_match_transformers_tensors() {
        for (json, cache) in [
            (QWEN3_NEXT_TINY, (2560, 3072, 8192)),
            (NEMOTRON_H_TINY, (1280, 6144, 24576)),
            (GRANITE_4_H_TINY, (81920, 1_916_928, 113_246_208)),
            (GRANITE_TINY, (1280, 7680, 49152)),
            (FALCON_H1_TINY, (3840, 4608, 24576)),
            (LFM2_TINY, (2560, 1536, 0)),
        ] {
            assert_eq!(hf_cache(&arch(json), 2, 5), cache, "{json}");
        }
    }

    #[test]
    fn layer_kinds_are_counted() {
        let a = arch(QWEN3_NEXT_80B);
        let h = a.hybrid.unwrap();
        assert_eq!(
            (h.attention_layers, h.state_layers, h.ffn_layers),
            (12, 36, 48)
        );
        let a = arch(NEMOTRON_H_8B);
        let h = a.hybrid.unwrap();
        assert_eq!(
            (h.attention_layers, h.state_layers, h.ffn_layers),
            (4, 24, 24)
        );
        let a = arch(LFM2_1_2B);
        assert_eq!(a.intermediate_size, 8192);
        let h = a.hybrid.unwrap();
        assert_eq!((h.attention_layers, h.state_layers), (6, 10));
    }

    #[test]
    fn unknown_layer_kinds_name_the_field() {
        let e = parse_config(
            r#"{"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "intermediate_size": 8, "vocab_size": 8,
            "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 8,
            "layer_types": ["linear_attention", "indexed_attention"]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "config.json: layer_types");
        assert!(e.problem.contains("indexed_attention"), "{}", e.problem);
        let e = parse_config(
            r#"{"model_type": "qwen3_next", "hidden_size": 64, "num_hidden_layers": 3,
            "num_attention_heads": 4, "intermediate_size": 8, "vocab_size": 8,
            "num_experts": 2, "num_experts_per_tok": 1, "moe_intermediate_size": 8,
            "layer_types": ["linear_attention", "full_attention"]}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "config.json: layer_types");
        let e = parse_config(
            r#"{"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "intermediate_size": 8, "vocab_size": 8,
            "hybrid_override_pattern": "M?"}"#,
        )
        .unwrap_err();
        assert_eq!(e.field, "config.json: hybrid_override_pattern");
    }

    /// The hybrid presets (`data/models/*.toml`) hold what this reader reads from their configs,
    /// with the trained context the test configs leave out.
    #[test]
    fn presets_carry_the_hybrid_stack() {
        for (id, json) in [
            ("Qwen/Qwen3-Next-80B-A3B-Instruct", QWEN3_NEXT_80B),
            ("nvidia/Nemotron-H-8B-Base-8K", NEMOTRON_H_8B),
            ("ibm-granite/granite-4.0-h-tiny", GRANITE_4_H_TINY),
            ("tiiuae/Falcon-H1-0.5B-Instruct", FALCON_H1_0_5B),
            ("LiquidAI/LFM2-1.2B", LFM2_1_2B),
        ] {
            let preset = crate::presets::presets()
                .iter()
                .find(|p| p.id == id)
                .unwrap();
            let read = Architecture {
                max_position_embeddings: preset.arch.max_position_embeddings,
                ..arch(json)
            };
            assert_eq!(preset.arch, read, "{id}");
            assert!(preset.arch.hybrid.is_some(), "{id}");
            assert_eq!(preset.params, read.params(), "{id}");
        }
    }
}
