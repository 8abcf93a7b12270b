//! Any decoder config: a `model_type` vramfit does not name is read as a Llama-layout decoder
//! from the keys every transformers decoder config shares (layers, width, FFN width, heads,
//! KV heads, head width, vocabulary, tying, biases, the common MoE keys, `layer_types` and
//! `sliding_window`), with a note naming the keys read and those ignored. It is refused only
//! when those shapes cannot be read, naming the key.
//!
//! What the Llama layout leaves out is small beside the weights (extra norms, a router's
//! score-correction bias: under 0.01 % of OLMo 2 7B and GLM-4 9B,
//! `tests/reference/decoder-reference.csv`); where the reader has to guess, it guesses the
//! larger memory (untied embeddings, every layer attending over the whole context).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::decoder::{LLAMA, Style, common};
use super::{Cfg, Notes, SUPPORTED_MODEL_TYPES};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, LayerKind, MAX_LAYERS, Moe};

/// The keys the generic reader reads (besides `model_type`, `torch_dtype` and
/// `quantization_config`, which every config's reader reads).
const READ: &[&str] = &[
    "num_hidden_layers",
    "hidden_size",
    "intermediate_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "tie_word_embeddings",
    "attention_bias",
    "mlp_bias",
    "max_position_embeddings",
    "num_experts",
    "num_local_experts",
    "n_routed_experts",
    "moe_num_experts",
    "num_experts_per_tok",
    "moe_k",
    "moe_topk",
    "moe_intermediate_size",
    "shared_expert_intermediate_size",
    "n_shared_experts",
    "moe_num_shared_experts",
    "first_k_dense_replace",
    "layer_types",
    "sliding_window",
    "use_sliding_window",
];

/// Keys that say nothing about memory (token ids, initialisation, norms' epsilon, rotary
/// frequencies, dropout, bookkeeping): neither read nor listed as ignored.
const NOT_MEMORY: &[&str] = &[
    "model_type",
    "torch_dtype",
    "dtype",
    "quantization_config",
    "architectures",
    "auto_map",
    "transformers_version",
    "_name_or_path",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "hidden_act",
    "initializer_range",
    "rms_norm_eps",
    "layer_norm_eps",
    "layer_norm_epsilon",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "partial_rotary_factor",
    "attention_dropout",
    "hidden_dropout",
    "embd_pdrop",
    "resid_pdrop",
    "attn_pdrop",
    "use_cache",
    "output_router_logits",
    "router_aux_loss_coef",
    "norm_topk_prob",
    "routed_scaling_factor",
    "id2label",
    "label2id",
    "tokenizer_class",
    "pretraining_tp",
    "generation_config",
    "use_bfloat16",
];

/// A `model_type` vramfit does not name, read as a Llama-layout decoder (nested under
/// `text_config` when the top level has no `hidden_size`).
pub(super) fn generic(model_type: &str, c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    let name_like = |ch: char| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-';
    if model_type.is_empty() || model_type.len() > 64 || !model_type.chars().all(name_like) {
        let shown: String = model_type.chars().take(32).collect();
        return Err(input_error!(
            ConfigJson,
            c.field("model_type"),
            ["`{shown}` is not a model_type name"],
            ["`{shown}` 不是 model_type 名称"],
            ["letters, digits, _ and -: one of {SUPPORTED_MODEL_TYPES}, or a decoder's own"],
            ["字母、数字、_ 与 -：以下之一 {SUPPORTED_MODEL_TYPES}，或解码器自己的名称"],
        ));
    }
    if c.b("is_encoder_decoder")?.unwrap_or(false) {
        return Err(input_error!(
            Unsupported,
            c.field("is_encoder_decoder"),
            ["`{model_type}` is an encoder-decoder, which vramfit does not read generically"],
            ["`{model_type}` 是编码器-解码器模型，vramfit 不按通用方式读取"],
            [
                "a decoder-only config, or one of {SUPPORTED_MODEL_TYPES}; for another model, enter its parameter count instead"
            ],
            [
                "仅解码器模型的 config，或以下之一：{SUPPORTED_MODEL_TYPES}；其他模型请改为输入参数量"
            ],
        ));
    }
    if c.get("hidden_size").is_none()
        && let Some(text) = c.child("text_config")?
    {
        notes.push(
            String::from(
                "Only text_config is read: the vision or audio encoder and its projector are not counted, so the weights are low by their size (often 0.3 to 1 billion parameters).",
            ),
            String::from(
                "只读取 text_config：视觉或音频编码器及其投影层没有计入，权重因此少算了它们的大小（常为 3 亿到 10 亿个参数）。",
            ),
        );
        return generic(model_type, &text, notes);
    }
    if let Some(a) = super::wrapped::latent_attention(model_type, c, notes)? {
        return Ok(a);
    }
    let a = read(c, notes).map_err(|e| needs(model_type, e))?;
    note_fields(model_type, c, notes);
    Ok(a)
}

/// The Llama-layout architecture from the shared keys.
fn read(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
    // A stack whose every layer is MoE names no dense FFN width (Solar Open's
    // `SolarOpenConfig` has no `intermediate_size`): none is built, so the experts' width
    // stands in for the key `common` reads.
    let all_moe = c.get("intermediate_size").is_none()
        && c.u("first_k_dense_replace")?.unwrap_or(0) == 0
        && c.get("mlp_only_layers").is_none()
        && c.opt(&["n_routed_experts", "num_experts", "num_local_experts"])?
            .is_some_and(|e| e > 0);
    let owned = match c.u("moe_intermediate_size")? {
        Some(width) if all_moe => {
            let mut obj = c.obj.clone();
            obj.insert(String::from("intermediate_size"), width.into());
            Some(obj)
        }
        _ => None,
    };
    let filled = owned.as_ref().map(|obj| Cfg {
        obj,
        prefix: c.prefix.clone(),
    });
    let c = filled.as_ref().unwrap_or(c);
    let attention_bias = c.b("attention_bias")?.unwrap_or(false);
    let mut a = common(
        c,
        Style {
            qkv_bias: attention_bias,
            o_bias: attention_bias,
            mlp_bias: c.b("mlp_bias")?.unwrap_or(false),
            ..LLAMA
        },
        None,
    )?;
    if c.b("tie_word_embeddings")?.is_none() {
        notes.push(
            String::from(
                "tie_word_embeddings is absent: the LM head is counted as its own matrix (untied), the larger of the two.",
            ),
            String::from("没有 tie_word_embeddings：LM 头按独立矩阵（不共享）计算，取两者中较大的一种。"),
        );
    }
    let window = c.u("sliding_window")?.unwrap_or(0);
    match attention_layer_types(c, a.num_layers)? {
        Some(sliding) => {
            a.sliding_window = window;
            a.sliding_layers = if window > 0 { sliding } else { 0 };
        }
        None if window > 0 && c.b("use_sliding_window")? != Some(false) => notes.push(
            format!(
                "sliding_window {window} is not applied: without layer_types the layers it covers are unknown, so every layer keeps the whole context (the KV cache may be larger than the model needs)."
            ),
            format!(
                "未采用 sliding_window {window}：没有 layer_types 无法得知哪些层使用窗口，因此每层都按完整上下文计算（KV 缓存可能比模型实际需要的大）。"
            ),
        ),
        None => {}
    }
    a.moe = moe(c, &a)?;
    Ok(a)
}

/// The experts, when the config names a routed-expert count above 0: each as wide as
/// `moe_intermediate_size` (else `intermediate_size`), the shared experts' width, and the
/// leading dense layers (`first_k_dense_replace`); every other layer is counted as MoE.
fn moe(c: &Cfg, a: &Architecture) -> Result<Option<Moe>> {
    let experts = c.opt(&[
        "num_experts",
        "num_local_experts",
        "n_routed_experts",
        "moe_num_experts",
    ])?;
    let Some(experts) = experts.filter(|&e| e > 0) else {
        return Ok(None);
    };
    let width = c.u("moe_intermediate_size")?.unwrap_or(a.intermediate_size);
    let shared = match c.u("shared_expert_intermediate_size")? {
        Some(s) => s,
        None => c
            .opt(&["n_shared_experts", "moe_num_shared_experts"])?
            .unwrap_or(0)
            .saturating_mul(width),
    };
    // Aria's text model (`AriaTextConfig`) names its experts `moe_num_experts` and its top-k
    // `moe_topk`, with `moe_num_shared_experts` shared MLPs of the experts' width: the standard
    // layout. `moe_topk` is read only beside `moe_num_experts`: Hunyuan-MoE's `num_experts`
    // with `moe_topk` builds a shared MLP that no key names and an fp32 router, which its own
    // reader (`config/hunyuan.rs`) counts.
    let per_token: &[&str] = if c.get("moe_num_experts").is_some() {
        &["num_experts_per_tok", "moe_k", "moe_topk"]
    } else {
        &["num_experts_per_tok", "moe_k"]
    };
    Ok(Some(Moe {
        num_experts: experts,
        experts_per_token: c.req(per_token, "experts per token")?,
        expert_intermediate_size: width,
        shared_intermediate_size: shared,
        shared_expert_gate: false,
        first_dense_layers: c.u("first_k_dense_replace")?.unwrap_or(0).min(a.num_layers),
        router_bias: false,
        expert_bias: false,
    }))
}

/// `layer_types` of a stack of attention layers alone: how many slide, after checking its
/// length and refusing the kinds whose shapes a generic reader cannot know (linear attention,
/// state-space and convolution layers keep a state of their family's own shape).
pub(super) fn attention_layer_types(c: &Cfg, layers: u64) -> Result<Option<u64>> {
    let Some(types) = c.arr("layer_types")? else {
        return Ok(None);
    };
    if types.len() as u64 != layers || types.len() as u64 > MAX_LAYERS {
        return Err(input_error!(
            Conflict,
            c.field("layer_types"),
            ["{} entries for num_hidden_layers = {layers}", types.len()],
            ["{} 项，而 num_hidden_layers = {layers}", types.len()],
            "one entry per layer",
            "每层一项",
        ));
    }
    let mut sliding = 0;
    for t in types {
        match t.as_str().and_then(LayerKind::from_config_name) {
            Some(LayerKind::FullAttention) => {}
            Some(LayerKind::SlidingAttention) => sliding += 1,
            _ => {
                return Err(input_error!(
                    Unsupported,
                    c.field("layer_types"),
                    ["layer kind {t} is not modelled for this model_type"],
                    ["此 model_type 的层类型 {t} 未建模"],
                    "full_attention or sliding_attention",
                    "full_attention 或 sliding_attention",
                ));
            }
        }
    }
    Ok(Some(sliding))
}

/// A missing shape, said as what the generic reading needs: the kind is `Unsupported`, as for a
/// model vramfit cannot read, whose faces offer the parameter count instead.
fn needs(model_type: &str, e: InputError) -> InputError {
    if e.kind != ErrorKind::ConfigJson || !e.problem.starts_with("missing") {
        return e;
    }
    input_error!(
        Unsupported,
        e.field.clone(),
        [
            "missing: `{model_type}` is not a model_type vramfit names, and read as a Llama-layout decoder it needs this key"
        ],
        ["缺失：vramfit 未专门支持 `{model_type}`，按 Llama 结构的解码器读取时需要此键"],
        [
            "{}; or one of {SUPPORTED_MODEL_TYPES}; for another model, enter its parameter count instead",
            e.accepted
        ],
        [
            "{}；或以下之一：{SUPPORTED_MODEL_TYPES}；其他模型请改为输入参数量",
            e.zh().accepted
        ],
    )
}

/// The note that says how the config was read: the keys read, and those present but ignored.
fn note_fields(model_type: &str, c: &Cfg, notes: &mut Notes) {
    let read: Vec<&str> = READ
        .iter()
        .copied()
        .filter(|k| c.get(k).is_some())
        .collect();
    let ignored: Vec<&str> = c
        .obj
        .iter()
        .filter(|(k, v)| {
            !v.is_null() && !READ.contains(&k.as_str()) && !NOT_MEMORY.contains(&k.as_str())
        })
        .map(|(k, _)| k.as_str())
        .collect();
    let read = read.join(", ");
    let ignored = if ignored.is_empty() {
        String::from("none")
    } else {
        ignored.join(", ")
    };
    let ignored_zh = if ignored == "none" { "无" } else { &ignored };
    notes.push(
        format!(
            "model_type `{model_type}` is not one vramfit names: it is read as a Llama-layout decoder (gated FFN, RMSNorm, two norms a layer, no biases unless attention_bias or mlp_bias) from {read}. Ignored: {ignored}. Extra norms or biases the family adds are not counted (about 0.01 % of the weights in OLMo 2 and GLM-4); the checkpoint's safetensors header gives the exact count."
        ),
        format!(
            "vramfit 未专门支持 model_type `{model_type}`：按 Llama 结构的解码器（门控 FFN、RMSNorm、每层两个归一化层、除 attention_bias 或 mlp_bias 外无偏置）读取，读取的键：{read}。忽略的键：{ignored_zh}。该系列额外的归一化层或偏置未计入（OLMo 2 与 GLM-4 中约占权重的 0.01 %）；检查点的 safetensors 头给出准确参数量。"
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::parse_config;
    use crate::error::ErrorKind;

    /// The configs of `tests/reference/decoder_reference.py`, with what transformers 5.25.0
    /// counted on the meta device (`tests/reference/decoder-reference.csv`): the parameters and
    /// the persistent buffers a checkpoint holds beside them (`state_dict`).
    const OLMO3_7B: &str = r#"{"model_type": "olmo3", "vocab_size": 100278, "hidden_size": 4096,
        "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 32, "max_position_embeddings": 65536, "sliding_window": 4096,
        "tie_word_embeddings": false}"#;
    const SMOLLM3_3B: &str = r#"{"model_type": "smollm3", "vocab_size": 128256,
        "hidden_size": 2048, "intermediate_size": 11008, "num_hidden_layers": 36,
        "num_attention_heads": 16, "num_key_value_heads": 4, "max_position_embeddings": 65536,
        "tie_word_embeddings": true}"#;
    const SEED_OSS_36B: &str = r#"{"model_type": "seed_oss", "vocab_size": 155136,
        "hidden_size": 5120, "intermediate_size": 27648, "num_hidden_layers": 64,
        "num_attention_heads": 80, "num_key_value_heads": 8, "head_dim": 128,
        "attention_bias": true, "attention_out_bias": false, "max_position_embeddings": 524288,
        "tie_word_embeddings": false}"#;
    const GLM4_5_AIR: &str = r#"{"model_type": "glm4_moe", "vocab_size": 151552,
        "hidden_size": 4096, "intermediate_size": 10944, "num_hidden_layers": 46,
        "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128,
        "moe_intermediate_size": 1408, "n_routed_experts": 128, "num_experts_per_tok": 8,
        "n_shared_experts": 1, "first_k_dense_replace": 1, "attention_bias": true,
        "use_qk_norm": false, "tie_word_embeddings": false, "num_nextn_predict_layers": 1}"#;
    const GLM4_5: &str = r#"{"model_type": "glm4_moe", "vocab_size": 151552,
        "hidden_size": 5120, "intermediate_size": 12288, "num_hidden_layers": 92,
        "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128,
        "moe_intermediate_size": 1536, "n_routed_experts": 160, "num_experts_per_tok": 8,
        "n_shared_experts": 1, "first_k_dense_replace": 3, "attention_bias": true,
        "use_qk_norm": true, "tie_word_embeddings": false}"#;
    const ERNIE4_5_21B: &str = r#"{"model_type": "ernie4_5_moe", "vocab_size": 103424,
        "hidden_size": 2560, "intermediate_size": 12288, "num_hidden_layers": 28,
        "num_attention_heads": 20, "num_key_value_heads": 4, "moe_intermediate_size": 1536,
        "moe_k": 6, "moe_num_experts": 64, "moe_num_shared_experts": 2,
        "moe_layer_start_index": 1, "moe_layer_end_index": -1, "moe_layer_interval": 1,
        "use_bias": false, "tie_word_embeddings": true}"#;
    const MINIMAX_M2: &str = r#"{"model_type": "minimax_m2", "vocab_size": 200064,
        "hidden_size": 3072, "intermediate_size": 1536, "num_hidden_layers": 62,
        "num_attention_heads": 48, "num_key_value_heads": 8, "head_dim": 128,
        "num_local_experts": 256, "num_experts_per_tok": 8, "tie_word_embeddings": false}"#;
    const STARCODER: &str = r#"{"model_type": "gpt_bigcode", "vocab_size": 49152,
        "n_embd": 6144, "n_head": 48, "n_layer": 40, "n_positions": 8192, "n_inner": 24576,
        "multi_query": true}"#;
    const ERNIE4_5_0_3B: &str = r#"{"model_type": "ernie4_5", "vocab_size": 103424,
        "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 18,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128,
        "use_bias": false, "tie_word_embeddings": true}"#;
    const OLMO2_7B: &str = r#"{"model_type": "olmo2", "vocab_size": 100352, "hidden_size": 4096,
        "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 32, "tie_word_embeddings": false}"#;
    const GLM4_9B: &str = r#"{"model_type": "glm4", "vocab_size": 151552, "hidden_size": 4096,
        "intermediate_size": 13696, "num_hidden_layers": 40, "num_attention_heads": 32,
        "num_key_value_heads": 2, "head_dim": 128, "attention_bias": true,
        "tie_word_embeddings": false}"#;

    fn params(json: &str) -> u64 {
        parse_config(json).unwrap().arch.params()
    }

    /// The plain decoders read by name: exactly transformers' count (with the routers'
    /// score-correction buffers of GLM-4.5 and MiniMax-M2, which the checkpoint holds).
    #[test]
    fn named_decoders_match_transformers() {
        for (json, count) in [
            (OLMO3_7B, 7_298_011_136),
            (SMOLLM3_3B, 3_075_098_624),
            (SEED_OSS_36B, 36_151_104_512),
            (GLM4_5_AIR, 106_852_251_264),
            (GLM4_5, 352_797_829_024),
            (ERNIE4_5_21B, 21_825_437_888),
            (MINIMAX_M2, 228_689_764_864),
            (STARCODER, 15_517_456_384),
        ] {
            assert_eq!(params(json), count, "{json}");
        }
    }

    /// Their caches: OLMo 3 slides 24 of 32 layers over 4,096 tokens; StarCoder keeps one KV
    /// head; GLM-4.5-Air keeps 8 of 128.
    #[test]
    fn named_decoders_keep_their_caches() {
        let a = parse_config(OLMO3_7B).unwrap().arch;
        assert_eq!((a.sliding_window, a.sliding_layers), (4096, 24));
        let a = parse_config(STARCODER).unwrap().arch;
        assert_eq!((a.num_kv_heads, a.kv_elements_per_token_layer()), (1, 256));
        let a = parse_config(GLM4_5_AIR).unwrap().arch;
        assert_eq!(a.kv_elements_per_token_layer(), 2 * 8 * 128);
        // SmolLM3 with its window on: the NoPE layers (every 4th) slide.
        let json = SMOLLM3_3B.replace(
            r#""tie_word_embeddings": true"#,
            r#""tie_word_embeddings": true, "use_sliding_window": true, "sliding_window": 4096"#,
        );
        let a = parse_config(&json).unwrap().arch;
        assert_eq!((a.sliding_window, a.sliding_layers), (4096, 9));
    }

    /// Types vramfit does not name, read generically: ERNIE 4.5 0.3B has Llama's layout and
    /// comes out exact; OLMo 2 (q/k norms over the projection) and GLM-4 (four norms a layer, no
    /// output bias) within 0.01 %; and the named configs read as if unnamed, each within 0.05 %.
    #[test]
    fn any_decoder_config_is_read_as_llama_layout() {
        assert_eq!(params(ERNIE4_5_0_3B), 360_748_032);
        for (json, count) in [
            (OLMO2_7B, 7_298_617_344u64),
            (GLM4_9B, 9_400_279_040),
            (OLMO3_7B, 7_298_011_136),
            (SMOLLM3_3B, 3_075_098_624),
            (SEED_OSS_36B, 36_151_104_512),
            (GLM4_5_AIR, 106_852_251_264),
            (MINIMAX_M2, 228_689_764_864),
        ] {
            let json = json.replacen(r#""model_type": ""#, r#""model_type": "unnamed_"#, 1);
            let cfg = parse_config(&json).unwrap();
            let off = cfg.arch.params().abs_diff(count) as f64 / count as f64;
            assert!(off < 5e-4, "{json}: {} against {count}", cfg.arch.params());
            assert!(
                cfg.notes.iter().any(|n| n.contains("Llama-layout")),
                "{:?}",
                cfg.notes
            );
            assert_eq!(cfg.notes.len(), cfg.notes_zh.len());
        }
        // The note names what was read and what was not.
        let cfg = parse_config(&GLM4_5_AIR.replace("glm4_moe", "glm_unnamed")).unwrap();
        let note = cfg
            .notes
            .iter()
            .find(|n| n.contains("Llama-layout"))
            .unwrap();
        assert!(
            note.contains("n_routed_experts, num_experts_per_tok"),
            "{note}"
        );
        assert!(
            note.contains("Ignored: num_nextn_predict_layers, use_qk_norm."),
            "{note}"
        );
        let moe = cfg.arch.moe.unwrap();
        assert_eq!((moe.num_experts, moe.first_dense_layers), (128, 1));
        // Read by the generic reader, the MTP layer is ignored; read as glm4_moe, it is the
        // layer SGLang's NEXTN drafts with (`num_nextn_predict_layers` 1 in both configs).
        assert_eq!(cfg.arch.mtp_layers, 0);
        assert_eq!(parse_config(GLM4_5_AIR).unwrap().arch.mtp_layers, 1);
        // Multimodal wrappers are read from text_config, saying the encoder is not counted.
        let wrapped =
            alloc::format!(r#"{{"model_type": "new_vl", "text_config": {ERNIE4_5_0_3B}}}"#);
        let cfg = parse_config(&wrapped).unwrap();
        assert_eq!(cfg.arch.params(), 360_748_032);
        assert!(cfg.notes[0].contains("not counted"), "{:?}", cfg.notes);
    }

    /// Refused only when the shapes cannot be read, naming the key.
    #[test]
    fn unreadable_shapes_name_the_key() {
        let e = parse_config(r#"{"model_type": "mamba", "hidden_size": 768, "vocab_size": 10}"#)
            .unwrap_err();
        assert_eq!(e.field, "config.json: num_attention_heads");
        assert!(e.problem.contains("`mamba`"), "{}", e.problem);
        assert!(e.accepted.contains("parameter count"), "{}", e.accepted);
        let e = parse_config(r#"{"model_type": "t5", "is_encoder_decoder": true}"#).unwrap_err();
        assert_eq!(e.field, "config.json: is_encoder_decoder");
        let e = parse_config(&OLMO2_7B.replace("}", r#", "layer_types": ["linear_attention"]}"#))
            .unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.kind),
            ("config.json: layer_types", ErrorKind::Conflict)
        );
        let types = alloc::vec!["\"mamba\""; 32].join(", ");
        let e = parse_config(
            &OLMO2_7B.replace("}", &alloc::format!(r#", "layer_types": [{types}]}}"#)),
        )
        .unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.kind),
            ("config.json: layer_types", ErrorKind::Unsupported)
        );
        // A window without layer_types is not applied, and the note says so.
        let cfg = parse_config(&OLMO2_7B.replace("}", r#", "sliding_window": 4096}"#)).unwrap();
        assert_eq!(cfg.arch.sliding_layers, 0);
        assert!(
            cfg.notes
                .iter()
                .any(|n| n.contains("sliding_window 4096 is not applied"))
        );
    }

    /// Aria's text model (`aria_text`) read generically by its own MoE keys, exact against
    /// transformers 5.25.0's `AriaTextForCausalLM` on the meta device
    /// (`tests/reference/decoder-reference.csv`): its class defaults (18,517,069,824) and a tiny
    /// config (608,640). The tiny one by hand: embeddings and the
    /// untied head 2 × 1,000 × 64 = 128,000; a layer's attention q and o 64 × 64 each, k and v
    /// 64 × 2 heads × 16 each = 12,288, the router 5 × 64 = 320, 5 experts 3 × 64 × 96 = 92,160,
    /// 3 shared MLPs of the experts' width 3 × 64 × 288 = 55,296, two norms 128: 160,192, × 3 =
    /// 480,576; final norm 64: 608,640. (Hunyuan-MoE, `num_experts` with `moe_topk`, has its own
    /// reader, `config/hunyuan.rs`.)
    #[test]
    fn aria_text_reads_its_moe_keys() {
        // `AriaTextConfig`'s defaults as transformers writes them (tests/corpus).
        let defaults = r#"{"model_type": "aria_text", "vocab_size": 32000, "hidden_size": 4096,
            "intermediate_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 32, "head_dim": 128, "moe_num_experts": 8, "moe_topk": 2,
            "moe_num_shared_experts": 2, "tie_word_embeddings": false}"#;
        assert_eq!(params(defaults), 18_517_069_824);
        let tiny = r#"{"model_type": "aria_text", "vocab_size": 1000, "hidden_size": 64,
            "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4,
            "num_key_value_heads": 2, "moe_num_experts": 5, "moe_topk": 2,
            "moe_num_shared_experts": 3, "tie_word_embeddings": false}"#;
        let layer = 2 * 64 * 64 + 2 * 64 * 32 + 5 * 64 + 5 * 3 * 64 * 96 + 3 * 64 * 288 + 128;
        assert_eq!(layer, 160_192);
        assert_eq!(params(tiny), 2 * 1000 * 64 + 3 * layer + 64);
        assert_eq!(params(tiny), 608_640);
        let a = parse_config(tiny).unwrap().arch;
        let moe = a.moe.unwrap();
        assert_eq!((moe.num_experts, moe.experts_per_token), (5, 2));
    }
}
