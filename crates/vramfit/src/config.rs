//! Hugging Face `config.json` import: the architecture, dtype and quantization of a checkpoint.
//!
//! The reader knows the defaults of each `model_type`'s transformers config class, because real
//! files omit keys that equal them (Gemma 3's `text_config` often lists only four). Vision towers
//! of multimodal checkpoints (Gemma 3, Llama 4, Mistral 3) are counted into
//! [`Architecture::extra_params`] from their `vision_config`.
//!
//! The input is untrusted: its length and nesting are capped before it is parsed, every number
//! is range-checked, and the result is validated with [`Architecture::validate`]. Errors name the
//! key as `config.json: <key>`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value};

use crate::error::{InputError, Result};
use crate::model::{Architecture, Family, MAX_DIM, MAX_LAYERS, Mla, Moe, Norm};
use crate::precision::{Dtype, Quantization};

/// Largest `config.json` accepted, in bytes (real ones are a few KiB; ViT's and ResNet's with
/// 1000 ImageNet labels are about 70 KiB).
pub const MAX_CONFIG_BYTES: usize = 4 << 20;

/// Deepest nesting of objects and arrays accepted (real files nest 3 or 4 levels).
pub const MAX_CONFIG_DEPTH: usize = 32;

/// The `model_type`s understood, as listed in errors.
pub const SUPPORTED_MODEL_TYPES: &str = "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, gemma3_text, phi, phi3, gpt2, gpt_neox, falcon (and RefinedWeb), granite, deepseek_v2, deepseek_v3, gpt_oss, llama4, llama4_text, mistral3, bert, vit, whisper, resnet";

/// What a `config.json` says about memory.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ParsedConfig {
    /// The architecture, validated.
    pub arch: Architecture,
    /// `torch_dtype` (or `dtype`), when it names a dtype.
    pub dtype: Option<Dtype>,
    /// `model_type` of the file (the outer one for multimodal checkpoints).
    pub model_type: String,
    /// `quantization_config`, when the checkpoint is quantized.
    pub quantization: Option<Quantization>,
    /// Assumptions made while reading, one sentence each, for the user to check.
    pub notes: Vec<String>,
    /// The same assumptions in Chinese, one for one with `notes`, as [`parse_config`] writes
    /// them (the site shows them). Not in the JSON, which keeps `notes` only: a `ParsedConfig`
    /// read back from JSON has none, so a reader falls back to `notes` when the lengths differ.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub notes_zh: Vec<String>,
}

/// Assumptions made while reading, in English and Chinese.
#[derive(Default)]
struct Notes {
    en: Vec<String>,
    zh: Vec<String>,
}

impl Notes {
    fn push(&mut self, en: String, zh: String) {
        self.en.push(en);
        self.zh.push(zh);
    }
}

/// Parses a Hugging Face `config.json`.
///
/// ```
/// let cfg = vramfit::config::parse_config(r#"{
///     "model_type": "llama", "vocab_size": 128256, "hidden_size": 4096,
///     "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
///     "intermediate_size": 14336, "torch_dtype": "bfloat16"
/// }"#).unwrap();
/// assert_eq!(cfg.arch.params(), 8_030_261_248);
/// ```
pub fn parse_config(json: &str) -> Result<ParsedConfig> {
    if json.len() > MAX_CONFIG_BYTES {
        return Err(InputError::new(
            "config.json",
            format!("the file is {} bytes", json.len()),
            "a config.json of at most 4 MiB (real ones are a few KiB)",
        ));
    }
    check_depth(json)?;
    let root: Value = serde_json::from_str(json).map_err(|e| {
        InputError::new(
            "config.json",
            format!("not valid JSON: {e}"),
            "a Hugging Face config.json (one JSON object)",
        )
    })?;
    let Value::Object(root) = root else {
        return Err(InputError::new(
            "config.json",
            "the top level is not a JSON object",
            "a Hugging Face config.json (one JSON object)",
        ));
    };
    let top = Cfg {
        obj: &root,
        prefix: String::new(),
    };
    let model_type = match top.str("model_type")? {
        Some(t) => t.to_string(),
        None => {
            return Err(InputError::new(
                "config.json: model_type",
                "missing",
                format!("one of {SUPPORTED_MODEL_TYPES}"),
            ));
        }
    };
    let mut notes = Notes::default();
    let mut dtype = read_dtype(&top, &mut notes)?;
    let mut quantization = read_quantization(&top, &mut notes)?;
    let (arch, prefix) = match model_type.as_str() {
        "gemma3" | "llama4" | "mistral3" => {
            let text = top.child("text_config")?.ok_or_else(|| {
                InputError::new(
                    "config.json: text_config",
                    "missing",
                    "the language model's config, as an object",
                )
            })?;
            if dtype.is_none() {
                dtype = read_dtype(&text, &mut notes)?;
            }
            if quantization.is_none() {
                quantization = read_quantization(&text, &mut notes)?;
            }
            let inner = match model_type.as_str() {
                "gemma3" => "gemma3_text",
                "llama4" => "llama4_text",
                _ => text.str("model_type")?.unwrap_or("mistral"),
            };
            let mut arch = decoder(inner, &text, &mut notes)?;
            let vision = top.child("vision_config")?;
            let extra = match (model_type.as_str(), vision) {
                ("gemma3", Some(v)) => siglip_params(&v, arch.hidden_size)?,
                ("llama4", Some(v)) => llama4_vision_params(&v, arch.hidden_size)?,
                ("mistral3", Some(v)) => pixtral_params(&top, &v, arch.hidden_size)?,
                _ => {
                    notes.push(
                        String::from("No vision_config: only the language model is counted."),
                        String::from("没有 vision_config：只计算语言模型。"),
                    );
                    0
                }
            };
            if extra > 0 {
                notes.push(
                    format!(
                        "The vision tower and projector ({extra} parameters, from vision_config) are counted as extra parameters in the model dtype."
                    ),
                    format!(
                        "视觉编码器与投影层（{extra} 个参数，来自 vision_config）按模型的数据类型计为额外参数。"
                    ),
                );
            }
            arch.extra_params = arch.extra_params.saturating_add(extra);
            (arch, "config.json: text_config.")
        }
        other => (decoder(other, &top, &mut notes)?, "config.json: "),
    };
    let mut arch = arch;
    let text_cfg = if prefix == "config.json: " {
        None
    } else {
        top.child("text_config")?
    };
    let cfg = text_cfg.as_ref().unwrap_or(&top);
    // Dropout during training: GPT-2's resid_pdrop, BERT/ViT's hidden_dropout_prob, Whisper's dropout.
    let mut dropout = false;
    for key in [
        "resid_pdrop",
        "hidden_dropout_prob",
        "hidden_dropout",
        "dropout",
    ] {
        if let Some(Value::Number(n)) = cfg.get(key) {
            dropout |= n.as_f64().is_some_and(|x| x > 0.0);
        }
    }
    arch.training_dropout = dropout;
    let act = cfg.str("hidden_act")?.or(cfg.str("activation_function")?);
    arch.composite_gelu = matches!(act, Some("gelu_new" | "gelu_fast"));
    arch.validate("config.json").map_err(|e| {
        let key = e.field.strip_prefix("config.json.").unwrap_or(&e.field);
        InputError::new(
            format!("{prefix}{}", config_key(key)),
            e.problem,
            e.accepted,
        )
    })?;
    Ok(ParsedConfig {
        arch,
        dtype,
        model_type,
        quantization,
        notes: notes.en,
        notes_zh: notes.zh,
    })
}

/// The `config.json` key behind an [`Architecture`] field, for error messages.
fn config_key(field: &str) -> &str {
    match field {
        "num_layers" => "num_hidden_layers",
        "num_heads" => "num_attention_heads",
        "num_kv_heads" => "num_key_value_heads",
        "moe.num_experts" => "num_experts",
        "moe.experts_per_token" => "num_experts_per_tok",
        "moe.expert_intermediate_size" => "moe_intermediate_size",
        "moe.first_dense_layers" => "first_k_dense_replace",
        "mla.kv_lora_rank" => "kv_lora_rank",
        "mla.q_lora_rank" => "q_lora_rank",
        other => other,
    }
}

/// Refuses nesting deeper than [`MAX_CONFIG_DEPTH`] before the JSON parser sees it.
fn check_depth(json: &str) -> Result<()> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in json.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_CONFIG_DEPTH {
                    return Err(InputError::new(
                        "config.json",
                        format!("objects and arrays are nested more than {MAX_CONFIG_DEPTH} deep"),
                        "a Hugging Face config.json (nested 3 or 4 levels)",
                    ));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// One JSON object of the config, with the key path used in error messages.
struct Cfg<'a> {
    obj: &'a Map<String, Value>,
    prefix: String,
}

impl<'a> Cfg<'a> {
    fn field(&self, key: &str) -> String {
        format!("config.json: {}{key}", self.prefix)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        match self.obj.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => Some(v),
        }
    }

    fn child(&self, key: &str) -> Result<Option<Cfg<'a>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(obj)) => Ok(Some(Cfg {
                obj,
                prefix: format!("{}{key}.", self.prefix),
            })),
            Some(_) => Err(InputError::new(
                self.field(key),
                "is not an object",
                "a JSON object",
            )),
        }
    }

    /// A non-negative integer (an integral float such as `4096.0` is accepted too).
    fn u(&self, key: &str) -> Result<Option<u64>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        if let Some(n) = v.as_u64() {
            return Ok(Some(n));
        }
        if let Some(f) = v.as_f64()
            && f >= 0.0
            && f <= (1u64 << 53) as f64
            && libm::trunc(f) == f
        {
            return Ok(Some(f as u64));
        }
        Err(InputError::new(
            self.field(key),
            format!("`{v}` is not a non-negative integer"),
            "a non-negative integer",
        ))
    }

    /// The first of `keys` that is present, or a "missing" error naming the first.
    fn req(&self, keys: &[&str], what: &str) -> Result<u64> {
        for k in keys {
            if let Some(n) = self.u(k)? {
                return Ok(n);
            }
        }
        Err(InputError::new(
            self.field(keys.first().copied().unwrap_or("?")),
            "missing",
            format!("a positive integer: {what}"),
        ))
    }

    fn opt(&self, keys: &[&str]) -> Result<Option<u64>> {
        for k in keys {
            if let Some(n) = self.u(k)? {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }

    fn b(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(InputError::new(
                self.field(key),
                format!("`{v}` is not true or false"),
                "true or false",
            )),
        }
    }

    fn str(&self, key: &str) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(v) => Err(InputError::new(
                self.field(key),
                format!("`{v}` is not a string"),
                "a string",
            )),
        }
    }

    fn arr(&self, key: &str) -> Result<Option<&'a Vec<Value>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(v) => Err(InputError::new(
                self.field(key),
                format!("`{v}` is not an array"),
                "a JSON array",
            )),
        }
    }

    /// An array of non-negative integers.
    fn u_arr(&self, key: &str) -> Result<Option<Vec<u64>>> {
        let Some(a) = self.arr(key)? else {
            return Ok(None);
        };
        if a.len() > MAX_LAYERS as usize {
            return Err(InputError::new(
                self.field(key),
                format!("{} entries", a.len()),
                format!("at most {MAX_LAYERS} entries"),
            ));
        }
        a.iter()
            .map(|v| {
                v.as_u64().ok_or_else(|| {
                    InputError::new(
                        self.field(key),
                        format!("`{v}` is not a non-negative integer"),
                        "an array of non-negative integers",
                    )
                })
            })
            .collect::<Result<Vec<u64>>>()
            .map(Some)
    }

    /// Label count as transformers derives it: `id2label`'s size, else `num_labels`, else 2.
    fn num_labels(&self) -> Result<u64> {
        if let Some(Value::Object(m)) = self.get("id2label") {
            return Ok(m.len() as u64);
        }
        Ok(self.u("num_labels")?.unwrap_or(2))
    }
}

fn read_dtype(c: &Cfg, notes: &mut Notes) -> Result<Option<Dtype>> {
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

fn read_quantization(c: &Cfg, notes: &mut Notes) -> Result<Option<Quantization>> {
    let Some(q) = c.child("quantization_config")? else {
        return Ok(None);
    };
    let method = q.str("quant_method")?.unwrap_or("").to_ascii_lowercase();
    let group = |keys: &[&str], default: u64| -> Result<u32> {
        for k in keys {
            match q.get(k) {
                Some(v) if v.as_i64() == Some(-1) => {
                    // One group per input row: its scales cost about what groups of a few
                    // thousand weights cost; the largest group we model is the honest bound.
                    return Ok(4096);
                }
                Some(_) => {
                    let g = q.u(k)?.unwrap_or(default);
                    return u32::try_from(g).map_err(|_| {
                        InputError::new(q.field(k), format!("{g} is out of range"), "8 to 4096")
                    });
                }
                None => {}
            }
        }
        Ok(default as u32)
    };
    let quant = match method.as_str() {
        "gptq" => {
            let bits = q.u("bits")?.unwrap_or(4);
            let bits = u8::try_from(bits).unwrap_or(u8::MAX);
            let group_size = group(&["group_size"], 128)?;
            Quantization::Gptq { bits, group_size }
        }
        "awq" => {
            let bits = q.opt(&["bits", "w_bit"])?.unwrap_or(4);
            if bits != 4 {
                return Err(InputError::new(
                    q.field("bits"),
                    format!("{bits}-bit AWQ is not modelled"),
                    "4",
                ));
            }
            Quantization::Awq {
                group_size: group(&["group_size", "q_group_size"], 128)?,
            }
        }
        "bitsandbytes" => {
            if q.b("load_in_4bit")?.unwrap_or(false) {
                if q.str("bnb_4bit_quant_type")? == Some("fp4") {
                    notes.push(
                        String::from(
                            "bitsandbytes FP4 is stored like NF4 (4 bits + block absmax); sized as NF4.",
                        ),
                        String::from(
                            "bitsandbytes FP4 的存储方式与 NF4 相同（4 位 + 分块 absmax），按 NF4 计算大小。",
                        ),
                    );
                }
                Quantization::BnbNf4 {
                    double_quant: q.b("bnb_4bit_use_double_quant")?.unwrap_or(false),
                }
            } else if q.b("load_in_8bit")?.unwrap_or(false) {
                Quantization::BnbInt8
            } else {
                return Err(InputError::new(
                    q.field("load_in_4bit"),
                    "neither load_in_4bit nor load_in_8bit is true",
                    "load_in_4bit or load_in_8bit set to true",
                ));
            }
        }
        "compressed-tensors" => compressed_tensors(&q)?,
        "fp8" => {
            if q.get("weight_block_size").is_some() {
                notes.push(
                    String::from(
                        "Block-wise FP8 (weight_block_size) is sized as FP8 with per-channel scales; the block scales add about 0.02 %.",
                    ),
                    String::from(
                        "分块 FP8（weight_block_size）按逐通道缩放的 FP8 计算大小；分块缩放因子约多占 0.02 %。",
                    ),
                );
            }
            Quantization::Fp8
        }
        "mxfp4" => Quantization::Mxfp4,
        other => {
            return Err(InputError::new(
                q.field("quant_method"),
                format!("`{other}` is not supported"),
                "gptq, awq, bitsandbytes, compressed-tensors, fp8, mxfp4",
            ));
        }
    };
    quant.validate(q.field("").trim_end_matches('.'))?;
    Ok(Some(quant))
}

/// compressed-tensors: the first config group's weight scheme decides the format.
fn compressed_tensors(q: &Cfg) -> Result<Quantization> {
    let accepted = "a config group with 8-bit float weights (FP8), 8-bit int weights (W8A8) or 4-bit int weights (W4A16)";
    let groups = q
        .child("config_groups")?
        .ok_or_else(|| InputError::new(q.field("config_groups"), "missing", accepted))?;
    let first = groups
        .obj
        .iter()
        .find_map(|(k, v)| v.is_object().then_some(k.as_str()))
        .ok_or_else(|| InputError::new(groups.field(""), "has no group", accepted))?;
    let group = groups
        .child(first)?
        .ok_or_else(|| InputError::new(groups.field(first), "missing", accepted))?;
    let w = group
        .child("weights")?
        .ok_or_else(|| InputError::new(group.field("weights"), "missing", accepted))?;
    let bits = w.u("num_bits")?.unwrap_or(0);
    let kind = w.str("type")?.unwrap_or("int");
    Ok(match (bits, kind) {
        (8, "float") => Quantization::Fp8,
        (8, "int") => Quantization::W8a8,
        (4, "int") => Quantization::W4a16 {
            group_size: u32::try_from(w.u("group_size")?.unwrap_or(128)).unwrap_or(u32::MAX),
        },
        _ => {
            return Err(InputError::new(
                w.field("num_bits"),
                format!("{bits}-bit {kind} weights are not modelled"),
                accepted,
            ));
        }
    })
}

/// Per-`model_type` conventions of the transformers decoder classes.
#[derive(Clone, Copy)]
struct Style {
    gated: bool,
    norm: Norm,
    norms_per_layer: u64,
    qkv_bias: bool,
    o_bias: bool,
    mlp_bias: bool,
    tie_default: bool,
    qk_norm: bool,
    lm_head_bias: bool,
}

const LLAMA: Style = Style {
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

fn decoder(model_type: &str, c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
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
    let mut a = match model_type {
        "llama" | "mistral" | "mixtral" | "granite" | "phi3" | "llama4_text" => {
            common(c, llama_like(false)?, None)?
        }
        "qwen2" | "qwen2_moe" => common(
            c,
            Style {
                qkv_bias: true,
                ..LLAMA
            },
            None,
        )?,
        "qwen3" | "qwen3_moe" => common(
            c,
            Style {
                qk_norm: true,
                ..llama_like(false)?
            },
            None,
        )?,
        "gemma" => common(
            c,
            Style {
                tie_default: true,
                ..LLAMA
            },
            Some(Defaults::GEMMA),
        )?,
        "gemma2" => common(
            c,
            Style {
                tie_default: true,
                norms_per_layer: 4,
                ..LLAMA
            },
            Some(Defaults::GEMMA2),
        )?,
        "gemma3_text" => common(
            c,
            Style {
                tie_default: true,
                norms_per_layer: 4,
                qk_norm: true,
                ..LLAMA
            },
            Some(Defaults::GEMMA3),
        )?,
        "phi" => common(
            c,
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
        )?,
        "gpt_neox" => {
            let bias = attention_bias.unwrap_or(true);
            common(
                c,
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
            )?
        }
        "deepseek_v2" | "deepseek_v3" => common(c, llama_like(false)?, None)?,
        "gpt_oss" => common(
            c,
            Style {
                qkv_bias: attention_bias.unwrap_or(true),
                o_bias: attention_bias.unwrap_or(true),
                ..LLAMA
            },
            None,
        )?,
        "gpt2" => gpt2(c)?,
        "falcon" => falcon(c, false)?,
        // The configs Falcon shipped before transformers adopted it (trust_remote_code):
        // RefinedWeb is the 40B/180B layout, RefinedWebModel the 7B one.
        "RefinedWeb" => falcon(c, true)?,
        "RefinedWebModel" => falcon(c, false)?,
        "bert" => bert(c)?,
        "vit" => vit(c)?,
        "whisper" => whisper(c, notes)?,
        "resnet" => resnet(c)?,
        other => {
            return Err(InputError::new(
                c.field("model_type"),
                format!("`{other}` is not supported"),
                format!(
                    "one of {SUPPORTED_MODEL_TYPES}; for another model, enter its parameter count instead"
                ),
            ));
        }
    };
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
    if a.sliding_window > 0 && a.sliding_layers == 0 {
        a.sliding_window = 0;
    }
    match model_type {
        "mixtral" => {
            a.moe = Some(Moe {
                num_experts: c.req(&["num_local_experts"], "routed experts")?,
                experts_per_token: c.req(&["num_experts_per_tok"], "experts per token")?,
                expert_intermediate_size: a.intermediate_size,
                shared_intermediate_size: 0,
                shared_expert_gate: false,
                first_dense_layers: 0,
                router_bias: false,
                expert_bias: false,
            });
        }
        "qwen2_moe" | "qwen3_moe" => {
            let moe = Moe {
                num_experts: c.req(&["num_experts"], "routed experts")?,
                experts_per_token: c.req(&["num_experts_per_tok"], "experts per token")?,
                expert_intermediate_size: c.req(&["moe_intermediate_size"], "expert FFN width")?,
                shared_intermediate_size: c.u("shared_expert_intermediate_size")?.unwrap_or(0),
                shared_expert_gate: model_type == "qwen2_moe",
                first_dense_layers: 0,
                router_bias: false,
                expert_bias: false,
            };
            let step = c.u("decoder_sparse_step")?.unwrap_or(1).max(1);
            let dense_only = c.u_arr("mlp_only_layers")?.unwrap_or_default();
            let dense = (0..a.num_layers)
                .filter(|l| dense_only.contains(l) || (l + 1) % step != 0)
                .count() as u64;
            a.moe = Some(dense_layers(moe, dense, a.num_layers, notes));
        }
        "deepseek_v2" | "deepseek_v3" => {
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
                    shared_intermediate_size: c
                        .u("n_shared_experts")?
                        .unwrap_or(0)
                        .saturating_mul(expert),
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
            if let Some(n) = c.u("num_nextn_predict_layers")?
                && n > 0
            {
                notes.push(
                    format!(
                        "The {n} multi-token-prediction layer(s) (num_nextn_predict_layers) are not counted: inference loads them only for speculative decoding."
                    ),
                    format!(
                        "{n} 个多 token 预测层（num_nextn_predict_layers）不计入：推理只在投机解码时加载它们。"
                    ),
                );
            }
        }
        "gpt_oss" => {
            a.moe = Some(Moe {
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
            });
        }
        "llama4_text" => {
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
        }
        _ => {}
    }
    Ok(a)
}

/// Moves `dense` layers to the front: the parameter count is the same wherever they sit.
fn dense_layers(mut moe: Moe, dense: u64, layers: u64, notes: &mut Notes) -> Moe {
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
fn layer_types(c: &Cfg) -> Result<Option<u64>> {
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
struct Defaults {
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
fn dim(c: &Cfg, key: &str, v: u64, lo: u64, hi: u64) -> Result<u64> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(InputError::new(
            c.field(key),
            format!("{v} is out of range"),
            format!("an integer from {lo} to {hi}"),
        ))
    }
}

/// The model width and the attention heads under their config keys, each checked against its range.
fn width_and_heads(c: &Cfg, hidden: (&str, u64), heads: (&str, u64)) -> Result<(u64, u64)> {
    Ok((
        dim(c, hidden.0, hidden.1, 1, MAX_DIM)?,
        dim(c, heads.0, heads.1, 1, 1 << 14)?,
    ))
}

/// The keys every decoder-only config shares.
fn common(c: &Cfg, s: Style, d: Option<Defaults>) -> Result<Architecture> {
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
    // Checked here because MoE layer patterns are enumerated per layer.
    let layers = pick(
        &["num_hidden_layers"],
        "transformer blocks",
        d.map(|d| d.num_layers),
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
            &["intermediate_size"],
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

fn gpt2(c: &Cfg) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        ("n_embd", c.req(&["n_embd"], "the model width")?),
        ("n_head", c.req(&["n_head"], "attention heads")?),
    )?;
    let positions = c.req(&["n_positions", "n_ctx"], "the context length")?;
    Ok(Architecture {
        family: Family::CausalLm,
        vocab_size: c.req(&["vocab_size"], "vocabulary size")?,
        hidden_size: hidden,
        num_layers: c.req(&["n_layer"], "transformer blocks")?,
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
        learned_positions: positions,
        max_position_embeddings: positions,
        ..Architecture::default()
    })
}

fn falcon(c: &Cfg, refined_web: bool) -> Result<Architecture> {
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

fn bert(c: &Cfg) -> Result<Architecture> {
    let (hidden, heads) = width_and_heads(
        c,
        ("hidden_size", c.u("hidden_size")?.unwrap_or(768)),
        (
            "num_attention_heads",
            c.u("num_attention_heads")?.unwrap_or(12),
        ),
    )?;
    let positions = c.u("max_position_embeddings")?.unwrap_or(512);
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
        max_position_embeddings: positions,
        num_labels: c.u("type_vocab_size")?.unwrap_or(2),
        ..Architecture::default()
    })
}

fn vit(c: &Cfg) -> Result<Architecture> {
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

fn whisper(c: &Cfg, notes: &mut Notes) -> Result<Architecture> {
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

/// The side of the square image a ResNet's per-image counts are for: its image processor's
/// 224 × 224 (the config itself names no size).
const RESNET_IMAGE: u64 = 224;

/// Bytes alive during an inference pass, followed allocation by allocation.
#[derive(Default)]
struct Alive {
    now: u64,
    peak: u64,
}

impl Alive {
    fn alloc(&mut self, n: u64) {
        self.now = self.now.saturating_add(n);
        self.peak = self.peak.max(self.now);
    }
    fn free(&mut self, n: u64) {
        self.now = self.now.saturating_sub(n);
    }
    /// transformers' `ResNetConvLayer` on an input that its caller holds: the convolution's
    /// output, the BatchNorm's beside it, then (with an activation) ReLU's beside that; each
    /// replaced tensor freed once the next exists; the output is left alive.
    fn conv_layer(&mut self, out: u64, act: bool) {
        self.alloc(out);
        self.alloc(out);
        self.free(out);
        if act {
            self.alloc(out);
            self.free(out);
        }
    }
}

/// ResNet (`ResNetForImageClassification`): convolutions without biases, BatchNorm weight and
/// bias (the running statistics are buffers, not parameters), a linear classifier; and, per
/// 224 × 224 image, what training saves for backward and what inference holds at its widest.
///
/// Training saves each convolution's input, each BatchNorm's input (the convolution's output),
/// each ReLU's output, the max-pool's input and int64 indices, the pooling's input and the
/// classifier's; a block's last BatchNorm output, added to in place, is saved by nothing.
/// Inference follows transformers' modules as Python holds their tensors: the image throughout,
/// a stage's input through the stage (`ResNetStage`'s argument), a block's input through the
/// block (`residual`), and within a `ResNetConvLayer` at most two of its tensors at once.
fn resnet(c: &Cfg) -> Result<Architecture> {
    let emb = dim(
        c,
        "embedding_size",
        c.u("embedding_size")?.unwrap_or(64),
        1,
        1 << 16,
    )?;
    let channels = dim(c, "num_channels", c.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let hidden = c
        .u_arr("hidden_sizes")?
        .unwrap_or_else(|| alloc::vec![256, 512, 1024, 2048]);
    let depths = c
        .u_arr("depths")?
        .unwrap_or_else(|| alloc::vec![3, 4, 6, 3]);
    if hidden.len() != depths.len() || hidden.is_empty() || hidden.len() > 16 {
        return Err(InputError::new(
            c.field("depths"),
            format!(
                "{} stage depths for {} hidden sizes",
                depths.len(),
                hidden.len()
            ),
            "one depth per entry of hidden_sizes, 1 to 16 stages",
        ));
    }
    let bottleneck = match c.str("layer_type")?.unwrap_or("bottleneck") {
        "bottleneck" => true,
        "basic" => false,
        other => {
            return Err(InputError::new(
                c.field("layer_type"),
                format!("`{other}` is not a ResNet layer type"),
                "bottleneck or basic",
            ));
        }
    };
    let first_stride = c.b("downsample_in_first_stage")?.unwrap_or(false);
    let in_bottleneck = c.b("downsample_in_bottleneck")?.unwrap_or(false);
    let labels = dim(c, "id2label", c.num_labels()?, 0, MAX_DIM)?;
    let bn = |n: u64| 2 * n;
    let mut total = channels * emb * 49 + bn(emb);
    let mut inp = emb;
    // Per image: the stem's 7×7 stride-2 convolution and 3×3 stride-2 max-pool.
    let half = |s: u64| s.div_ceil(2);
    let mut side = half(half(RESNET_IMAGE));
    let stem = emb * half(RESNET_IMAGE) * half(RESNET_IMAGE);
    let pooled = emb * side * side;
    let image = channels * RESNET_IMAGE * RESNET_IMAGE;
    let mut saved = image + 2 * stem + pooled;
    let indices = pooled;
    let mut live = Alive::default();
    live.alloc(image);
    // (On CUDA the max-pool also computes int64 indices in inference, for an instant.)
    live.conv_layer(stem, true);
    live.alloc(pooled);
    live.free(stem);
    for (stage, (&out, &depth)) in hidden.iter().zip(&depths).enumerate() {
        let out = dim(c, "hidden_sizes", out, 4, 1 << 16)?;
        let depth = dim(c, "depths", depth, 1, 1024)?;
        let stage_input = inp * side * side;
        for block in 0..depth {
            let strided = block == 0 && (stage > 0 || first_stride);
            let s_in = side;
            let s_out = if strided { half(side) } else { side };
            let block_input = inp * s_in * s_in;
            let o = out * s_out * s_out;
            total += if bottleneck {
                let mid = out / 4;
                inp * mid + bn(mid) + 9 * mid * mid + bn(mid) + mid * out + bn(out)
            } else {
                9 * inp * out + bn(out) + 9 * out * out + bn(out)
            };
            // The main path's layers: (output elements, ReLU after it).
            let layers: alloc::vec::Vec<(u64, bool)> = if bottleneck {
                let mid = out / 4;
                let s1 = if in_bottleneck { s_out } else { s_in };
                alloc::vec![
                    (mid * s1 * s1, true),
                    (mid * s_out * s_out, true),
                    (o, false)
                ]
            } else {
                alloc::vec![(o, true), (o, false)]
            };
            // Training: each convolution's output (a BatchNorm's input), each ReLU's output,
            // the block's final ReLU output; the next convolution's input is one of these.
            saved += layers
                .iter()
                .map(|&(n, act)| if act { 2 * n } else { n })
                .sum::<u64>()
                + o;
            // `nn.Sequential` frees a layer's input once the next layer has returned; the
            // first one's is the block's input, which `residual` holds.
            let mut prev = 0;
            for &(n, act) in &layers {
                live.conv_layer(n, act);
                live.free(prev);
                prev = n;
            }
            let shortcut = inp != out || strided;
            if shortcut {
                total += inp * out + bn(out);
                saved += o;
                live.conv_layer(o, false);
            }
            // `+= residual` in place, then the ReLU beside it.
            live.alloc(o);
            live.free(prev);
            if shortcut {
                live.free(o);
            }
            if block > 0 {
                live.free(block_input);
            }
            inp = out;
            side = s_out;
        }
        live.free(stage_input);
    }
    // The pooling reads the last ReLU's output; the classifier saves its pooled input.
    saved += inp;
    Ok(Architecture {
        image_size: RESNET_IMAGE,
        image_activations: saved,
        image_indices: indices,
        image_working: live.peak,
        ..Architecture::opaque(total + inp * labels + labels)
    })
}

/// SigLIP vision tower (`vision_use_head` false) plus Gemma 3's projector into `text_hidden`.
fn siglip_params(v: &Cfg, text_hidden: u64) -> Result<u64> {
    let h = dim(
        v,
        "hidden_size",
        v.u("hidden_size")?.unwrap_or(768),
        1,
        1 << 16,
    )?;
    let inter = dim(
        v,
        "intermediate_size",
        v.u("intermediate_size")?.unwrap_or(3072),
        1,
        1 << 18,
    )?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(12),
        0,
        256,
    )?;
    let patch = dim(v, "patch_size", v.u("patch_size")?.unwrap_or(16), 1, 1024)?;
    let image = dim(
        v,
        "image_size",
        v.u("image_size")?.unwrap_or(224),
        1,
        1 << 14,
    )?;
    let channels = dim(v, "num_channels", v.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let side = image / patch;
    let embeddings = channels * patch * patch * h + h + side * side * h;
    let layer = 4 * (h * h + h) + (h * inter + inter) + (inter * h + h) + 4 * h;
    let post_norm = 2 * h;
    // Gemma3MultiModalProjector: mm_input_projection_weight (h × text) and mm_soft_emb_norm (h).
    let projector = h * text_hidden + h;
    Ok(embeddings + layers * layer + post_norm + projector)
}

/// Llama 4 vision encoder, pixel-shuffle adapter and projector into `text_hidden`.
fn llama4_vision_params(v: &Cfg, text_hidden: u64) -> Result<u64> {
    let h = dim(
        v,
        "hidden_size",
        v.u("hidden_size")?.unwrap_or(768),
        1,
        1 << 16,
    )?;
    let inter = dim(
        v,
        "intermediate_size",
        v.u("intermediate_size")?.unwrap_or(5632),
        1,
        1 << 18,
    )?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(34),
        0,
        256,
    )?;
    let patch = dim(v, "patch_size", v.u("patch_size")?.unwrap_or(14), 1, 1024)?;
    let image = dim(
        v,
        "image_size",
        v.u("image_size")?.unwrap_or(448),
        1,
        1 << 14,
    )?;
    let channels = dim(v, "num_channels", v.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let proj_in = dim(
        v,
        "projector_input_dim",
        v.u("projector_input_dim")?.unwrap_or(4096),
        1,
        1 << 18,
    )?;
    let proj_out = dim(
        v,
        "projector_output_dim",
        v.u("projector_output_dim")?.unwrap_or(4096),
        1,
        1 << 18,
    )?;
    let out = dim(
        v,
        "vision_output_dim",
        v.u("vision_output_dim")?.unwrap_or(7680),
        1,
        1 << 18,
    )?;
    let side = image / patch;
    let embeddings = channels * patch * patch * h + h + (side * side + 1) * h;
    let norms = 2 * (2 * h);
    let layer = 4 * (h * h + h) + (h * inter + inter) + (inter * h + h) + 4 * h;
    // Llama4VisionMLP2: fc1 intermediate → projector_input, fc2 projector_output², no biases.
    let adapter = inter * proj_in + proj_out * proj_out;
    let projector = out * text_hidden;
    Ok(embeddings + norms + layers * layer + adapter + projector)
}

/// Pixtral vision encoder plus Mistral 3's projector into `text_hidden`.
fn pixtral_params(top: &Cfg, v: &Cfg, text_hidden: u64) -> Result<u64> {
    let h = dim(
        v,
        "hidden_size",
        v.u("hidden_size")?.unwrap_or(1024),
        1,
        1 << 16,
    )?;
    let inter = dim(
        v,
        "intermediate_size",
        v.u("intermediate_size")?.unwrap_or(4096),
        1,
        1 << 18,
    )?;
    let layers = dim(
        v,
        "num_hidden_layers",
        v.u("num_hidden_layers")?.unwrap_or(24),
        0,
        256,
    )?;
    let patch = dim(v, "patch_size", v.u("patch_size")?.unwrap_or(16), 1, 1024)?;
    let channels = dim(v, "num_channels", v.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let merge = dim(
        top,
        "spatial_merge_size",
        top.u("spatial_merge_size")?.unwrap_or(2),
        1,
        16,
    )?;
    let bias = top.b("multimodal_projector_bias")?.unwrap_or(false);
    // Patch conv without bias, ln_pre; per layer q, k, v, o, gated FFN, two RMSNorms.
    let encoder = channels * patch * patch * h + h + layers * (4 * h * h + 3 * h * inter + 2 * h);
    let b = |n: u64| if bias { n } else { 0 };
    let projector = h
        + h * merge * merge * h
        + h * text_hidden
        + b(text_hidden)
        + text_hidden * text_hidden
        + b(text_hidden);
    Ok(encoder + projector)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(json: &str) -> InputError {
        parse_config(json).unwrap_err()
    }

    #[test]
    fn refuses_hostile_input() {
        let deep = "[".repeat(100_000);
        let e = err(&deep);
        assert_eq!(e.field, "config.json");
        assert!(e.problem.contains("nested"));
        let big = alloc::format!("{{\"x\": \"{}\"}}", "a".repeat(MAX_CONFIG_BYTES));
        assert!(err(&big).problem.contains("bytes"));
        assert!(err("").problem.contains("JSON"));
        assert!(err("[1, 2]").problem.contains("object"));
        // Brackets inside strings do not count as nesting.
        let quoted = alloc::format!("{{\"model_type\": \"{}\"}}", "[".repeat(1000));
        assert!(err(&quoted).field.contains("model_type"));
    }

    #[test]
    fn names_the_key() {
        let e = err(r#"{"model_type": "llama", "hidden_size": 4096}"#);
        assert_eq!(e.field, "config.json: num_attention_heads");
        assert_eq!(e.problem, "missing");
        let e = err(
            r#"{"model_type": "llama", "vocab_size": 10, "hidden_size": -1, "num_attention_heads": 1}"#,
        );
        assert_eq!(e.field, "config.json: hidden_size");
        let e = err(
            r#"{"model_type": "llama", "vocab_size": 10, "hidden_size": 64,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 3,
            "intermediate_size": 128}"#,
        );
        assert_eq!(e.field, "config.json: num_key_value_heads");
        let e = err(r#"{"model_type": "t5"}"#);
        assert_eq!(e.field, "config.json: model_type");
        assert!(e.accepted.contains("llama"));
        let e = err(r#"{"model_type": "gemma3", "text_config": 3}"#);
        assert_eq!(e.field, "config.json: text_config");
        let e = err(r#"{"model_type": "llama", "hidden_size": 1e300}"#);
        assert_eq!(e.field, "config.json: hidden_size");
    }

    #[test]
    fn resnet_by_hand() {
        // ResNet-18: stem 9,408 + 128; stage 1 (64): 2 × (2 × 36,864 + 256) = 147,968;
        // stages 2–4 with a 1×1 shortcut each; fc 512 × 1000 + 1000. torchvision: 11,689,512.
        let cfg = parse_config(
            r#"{"model_type": "resnet", "embedding_size": 64, "hidden_sizes": [64, 128, 256, 512],
                "depths": [2, 2, 2, 2], "layer_type": "basic", "num_labels": 1000}"#,
        )
        .unwrap();
        assert_eq!(cfg.arch.params(), 11_689_512);
        // Per 224 × 224 image, training saves: the image 150,528; the stem's conv and ReLU outputs
        // 2 × 802,816 and the max-pool's 200,704; each basic block's two conv outputs, its first
        // ReLU's and its final ReLU's (4 × 64 × 56², 4 × 128 × 28², 4 × 256 × 14², 4 × 512 × 7²,
        // two blocks a stage) and the strided stages' shortcut convs (128 × 28², 256 × 14²,
        // 512 × 7²); the classifier's 512 inputs.
        let saved = 150_528
            + 2 * 802_816
            + 200_704
            + 2 * 4 * (64 * 3136 + 128 * 784 + 256 * 196 + 512 * 49)
            + (128 * 784 + 256 * 196 + 512 * 49)
            + 512;
        assert_eq!(saved, 5_143_552);
        assert_eq!(
            (cfg.arch.image_activations, cfg.arch.image_indices),
            (saved, 64 * 3136)
        );
    }
}
