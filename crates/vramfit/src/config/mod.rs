//! Hugging Face `config.json` import: the architecture, dtype and quantization of a checkpoint.
//!
//! The reader knows the defaults of each `model_type`'s transformers config class, because real
//! files omit keys that equal them (Gemma 3's `text_config` often lists only four). Vision towers
//! of multimodal checkpoints (Gemma 3, Llama 4, Mistral 3, Qwen3.5) are counted into
//! [`Architecture::vision_params`] from their `vision_config`.
//!
//! The input is untrusted: its length and nesting are capped before it is parsed, every number
//! is range-checked, and the result is validated with [`Architecture::validate`]. Errors name the
//! key as `config.json: <key>`.

mod compressed;
#[cfg(test)]
pub(crate) mod compressed_tests;
mod decoder;
mod dtype;
#[cfg(test)]
pub(crate) mod encoder_tests;
mod families;
#[cfg(test)]
mod families_tests;
mod gemma3;
#[cfg(test)]
mod gemma3_tests;
mod gemma3n;
mod gemma3n_towers;
mod gemma4;
mod gemma4_towers;
mod generic;
mod glm5_next;
mod hunyuan;
mod hybrid;
mod image_tokens;
#[cfg(test)]
mod kinds_tests;
mod linear;
mod plain;
mod resnet;
mod sparse;
mod step3p5;
#[cfg(test)]
mod tests;
mod vision;
mod vision_tower;
mod vision_vl;
mod wrapped;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value};

use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, MAX_LAYERS};
use crate::precision::{Dtype, Quantization};
use decoder::decoder;
use vision::{llama4_vision_params, pixtral_params, qwen3_5_vision_params, siglip_params};
use vision_vl::{internvl_vision_params, kimi_k25_vision_params, qwen3_vl_vision_params};

/// Largest `config.json` accepted, in bytes (real ones are a few KiB; ViT's and ResNet's with
/// 1000 ImageNet labels are about 70 KiB).
pub const MAX_CONFIG_BYTES: usize = 4 << 20;

/// Deepest nesting of objects and arrays accepted (real files nest 3 or 4 levels).
pub const MAX_CONFIG_DEPTH: usize = 32;

/// The `model_type`s read by name, as listed in errors (any other decoder config is read as
/// Llama's layout, with a note).
pub const SUPPORTED_MODEL_TYPES: &str = "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, qwen3_next, qwen3_5, qwen3_5_moe, qwen3_vl, qwen3_vl_moe (and their _text configs), internvl, kimi_k25, gemma, gemma2, gemma3, gemma3_text, gemma3n, gemma3n_text, gemma4, gemma4_text, phi, phi3, gpt2, gpt_bigcode, gpt_neox, falcon (and RefinedWeb), granite, olmo3, smollm3, seed_oss, glm4_moe, ernie4_5_moe, hunyuan_v1_moe, minimax_m2, granitemoehybrid, nemotron_h, falcon_h1, lfm2, olmo_hybrid, step3p5, step3p7, deepseek_v2, deepseek_v3, deepseek_v32, deepseek_v4, mistral4, glm_moe_dsa, glm5_next, kimi_linear, gpt_oss, llama4, llama4_text, mistral3, bert, roberta, xlm-roberta, vit, whisper, resnet";

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
    let root = read_root(json)?;
    let top = Cfg {
        obj: &root,
        prefix: String::new(),
    };
    let model_type = match top.str("model_type")? {
        Some(t) => t.to_string(),
        None => {
            return Err(InputError::new(
                ErrorKind::ConfigJson,
                "config.json: model_type",
                "missing",
                format!("one of {SUPPORTED_MODEL_TYPES}"),
            ));
        }
    };
    let mut notes = Notes::default();
    let mut formats = Formats {
        dtype: dtype::read_dtype(&top, &mut notes)?,
        quantization: read_quantization(&top, &mut notes)?,
    };
    let (mut arch, prefix) = match model_type.as_str() {
        "gemma3" | "gemma3n" | "gemma4" | "llama4" | "mistral3" | "qwen3_5" | "qwen3_5_moe"
        | "qwen3_vl" | "qwen3_vl_moe" | "internvl" | "kimi_k25" | "step3p7" => (
            wrapper(&model_type, &top, &mut formats, &mut notes)?,
            "config.json: text_config.",
        ),
        "glm5_next" => glm5_next_model(&top, &mut formats, &mut notes)?,
        other => (decoder(other, &top, &mut notes)?, "config.json: "),
    };
    let Formats {
        dtype,
        mut quantization,
    } = formats;
    if model_type == "deepseek_v4" {
        quantization = compressed::quantization(&top, quantization, &mut notes)?;
    }
    let text_cfg = if prefix == "config.json: " {
        None
    } else {
        top.child("text_config")?
    };
    let dtype = dtype::or_fp32(
        dtype,
        quantization.is_some(),
        &top,
        text_cfg.as_ref(),
        &mut notes,
    )?;
    training_traits(text_cfg.as_ref().unwrap_or(&top), &mut arch)?;
    // The MTP layers SGLang's NEXTN drafts with, for the families whose NextN model it builds
    // as a decoder layer of their own (`deepseek_nextn.py`, `glm4_moe_nextn.py`, 0.5.23).
    if matches!(model_type.as_str(), "deepseek_v3" | "glm4_moe") {
        arch.mtp_layers = top.u("num_nextn_predict_layers")?.unwrap_or(0);
    }
    arch.validate("config.json").map_err(|e| {
        let key = e.field.strip_prefix("config.json.").unwrap_or(&e.field);
        InputError::new(
            e.kind,
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

/// The weights' dtype and format a config declares, the outer config's first.
struct Formats {
    dtype: Option<Dtype>,
    quantization: Option<Quantization>,
}

impl Formats {
    /// The language model's own declarations where the outer config made none.
    fn or_from(&mut self, text: &Cfg, notes: &mut Notes) -> Result<()> {
        if self.dtype.is_none() {
            self.dtype = dtype::read_dtype(text, notes)?;
        }
        if self.quantization.is_none() {
            self.quantization = read_quantization(text, notes)?;
        }
        Ok(())
    }
}

/// The JSON object of a `config.json`: at most [`MAX_CONFIG_BYTES`], nested at most
/// [`MAX_CONFIG_DEPTH`] deep, one object.
fn read_root(json: &str) -> Result<Map<String, Value>> {
    if json.len() > MAX_CONFIG_BYTES {
        return Err(InputError::new(
            ErrorKind::ConfigJson,
            "config.json",
            format!("the file is {} bytes", json.len()),
            "a config.json of at most 4 MiB (real ones are a few KiB)",
        ));
    }
    check_depth(json)?;
    let root: Value = serde_json::from_str(json).map_err(|e| {
        InputError::new(
            ErrorKind::ConfigJson,
            "config.json",
            format!("not valid JSON: {e}"),
            "a Hugging Face config.json (one JSON object)",
        )
    })?;
    let Value::Object(root) = root else {
        return Err(InputError::new(
            ErrorKind::ConfigJson,
            "config.json",
            "the top level is not a JSON object",
            "a Hugging Face config.json (one JSON object)",
        ));
    };
    Ok(root)
}

/// A wrapper (a vision-language model) whose language model is its `text_config`: that
/// decoder, the outer config's tying where it decides, the vision tower and its image rules.
fn wrapper(
    model_type: &str,
    top: &Cfg,
    formats: &mut Formats,
    notes: &mut Notes,
) -> Result<Architecture> {
    let text = top.child("text_config")?.ok_or_else(|| {
        InputError::new(
            ErrorKind::ConfigJson,
            "config.json: text_config",
            "missing",
            "the language model's config, as an object",
        )
    })?;
    formats.or_from(&text, notes)?;
    if model_type == "kimi_k25" {
        wrapped::refuse_experts_only_quantization(top)?;
        wrapped::refuse_experts_only_quantization(&text)?;
    }
    let inner = text_model_type(model_type, &text)?;
    let mut arch = decoder(inner, &text, notes)?;
    if let Some(default) = outer_tie_default(model_type) {
        // These language models tie their head by the outer config's flag, whatever
        // text_config says: transformers 5.24's `tie_weights` reads the composite
        // config (`Qwen3_5Config`, `Qwen3VLConfig` default false, `InternVLConfig` true).
        arch.tied_embeddings = top.b("tie_word_embeddings")?.unwrap_or(default);
    }
    let extra = tower_params(model_type, top, arch.hidden_size, notes)?;
    // Gemma 4's towers say their own note: an audio tower besides the vision one.
    if extra > 0 && model_type != "gemma4" {
        notes.push(
            format!(
                "The vision tower and projector ({extra} parameters, from vision_config) are counted in the model dtype (llama.cpp keeps them in a separate mmproj file)."
            ),
            format!(
                "视觉编码器与投影层（{extra} 个参数，来自 vision_config）按模型的数据类型计入（llama.cpp 把它们放在单独的 mmproj 文件中）。"
            ),
        );
    }
    arch.vision_params = arch.vision_params.saturating_add(extra);
    arch.image_tokens = image_tokens::image_tokens(model_type, top)?;
    arch.vision_tower = vision_tower::vision_tower(model_type, top)?;
    Ok(arch)
}

/// GLM-5-Next: its language model nested in `text_config` or flat at the top level (which
/// `Glm5NextConfig.__post_init__` forwards), and the vision tower transformers builds either
/// way. Gives the architecture and the prefix of its keys.
fn glm5_next_model(
    top: &Cfg,
    formats: &mut Formats,
    notes: &mut Notes,
) -> Result<(Architecture, &'static str)> {
    let nested = glm5_next::text_cfg(top)?;
    let text = nested.as_ref().unwrap_or(top);
    formats.or_from(text, notes)?;
    let mut arch = decoder("glm5_next_text", text, notes)?;
    arch.tied_embeddings = top.b("tie_word_embeddings")?.unwrap_or(false);
    let extra = glm5_next::vision_params(top)?;
    notes.push(
        format!(
            "The vision tower and merger ({extra} parameters, from vision_config or its class defaults) are counted in the model dtype; images are not modelled for this family yet."
        ),
        format!(
            "视觉编码器与合并层（{extra} 个参数，来自 vision_config 或其类默认值）按模型的数据类型计入；这一系列暂不支持图像输入的估算。"
        ),
    );
    arch.vision_params = extra;
    let prefix = if nested.is_some() {
        "config.json: text_config."
    } else {
        "config.json: "
    };
    Ok((arch, prefix))
}

/// What training reads of the language model's config: dropout (GPT-2's `resid_pdrop`,
/// BERT/ViT's `hidden_dropout_prob`, Whisper's `dropout`) and a composite GELU.
fn training_traits(cfg: &Cfg, arch: &mut Architecture) -> Result<()> {
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
    Ok(())
}

/// The `model_type` of a wrapper's language model.
fn text_model_type<'a>(model_type: &str, text: &Cfg<'a>) -> Result<&'a str> {
    Ok(match model_type {
        "gemma3" => "gemma3_text",
        "gemma3n" => "gemma3n_text",
        "gemma4" => "gemma4_text",
        "llama4" => "llama4_text",
        "qwen3_5" => "qwen3_5_text",
        "qwen3_5_moe" => "qwen3_5_moe_text",
        "qwen3_vl" => "qwen3_vl_text",
        "qwen3_vl_moe" => "qwen3_vl_moe_text",
        // `Step3p7Config` builds its language model from `Step3p7TextConfig` whatever the
        // text_config's model_type says.
        "step3p7" => "step3p5",
        // `InternVLConfig`'s language model is any decoder, Qwen2 by default.
        "internvl" => text.str("model_type")?.unwrap_or("qwen2"),
        // `Kimi_K25Config` reads `kimi_k2` (and no model_type) as DeepSeek-V3.
        "kimi_k25" => match text.str("model_type")? {
            None | Some("kimi_k2") => "deepseek_v3",
            Some(other) => other,
        },
        _ => text.str("model_type")?.unwrap_or("mistral"),
    })
}

/// The parameters of a wrapper's vision tower and projector, from `vision_config`, into the
/// language model's width `text_hidden`.
fn tower_params(model_type: &str, top: &Cfg, text_hidden: u64, notes: &mut Notes) -> Result<u64> {
    let vision = top.child("vision_config")?;
    // Qwen3-VL, InternVL, Kimi K2.5 and Step 3.7 build their tower from the class defaults when the file
    // has no vision_config.
    let no_keys = Map::new();
    let defaults = Cfg {
        obj: &no_keys,
        prefix: String::from("vision_config."),
    };
    let vision = match model_type {
        "qwen3_vl" | "qwen3_vl_moe" | "internvl" | "kimi_k25" | "step3p7" => {
            Some(vision.unwrap_or(defaults))
        }
        _ => vision,
    };
    Ok(match (model_type, vision) {
        ("gemma3", Some(v)) => siglip_params(&v, text_hidden)?,
        ("gemma3n", _) => gemma3n_towers::towers(top, text_hidden)?,
        ("llama4", Some(v)) => llama4_vision_params(&v, text_hidden)?,
        ("mistral3", Some(v)) => pixtral_params(top, &v, text_hidden)?,
        ("qwen3_5" | "qwen3_5_moe", Some(v)) => qwen3_5_vision_params(&v)?,
        ("qwen3_vl" | "qwen3_vl_moe", Some(v)) => qwen3_vl_vision_params(&v)?,
        ("internvl", Some(v)) => internvl_vision_params(top, &v, text_hidden)?,
        ("kimi_k25", Some(v)) => kimi_k25_vision_params(top, &v, text_hidden)?,
        ("step3p7", Some(v)) => step3p5::step3p7_vision_params(top, &v, text_hidden)?,
        ("gemma4", _) => gemma4_towers::towers(top, text_hidden, notes)?,
        _ => {
            notes.push(
                String::from("No vision_config: only the language model is counted."),
                String::from("没有 vision_config：只计算语言模型。"),
            );
            0
        }
    })
}

/// The default of the outer `tie_word_embeddings` for the wrappers whose language model ties by
/// it; `None` for those that keep the text config's flag.
fn outer_tie_default(model_type: &str) -> Option<bool> {
    match model_type {
        "qwen3_5" | "qwen3_5_moe" | "qwen3_vl" | "qwen3_vl_moe" => Some(false),
        "internvl" | "kimi_k25" => Some(true),
        _ => None,
    }
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
        "indexer.heads" => "index_n_heads",
        "indexer.head_dim" => "index_head_dim",
        "indexer.topk" => "index_topk",
        "indexer.pool" => "index_kpool",
        "hyper_connections" => "hc_mult",
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
                        ErrorKind::ConfigJson,
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
                ErrorKind::ConfigJson,
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
            ErrorKind::ConfigJson,
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
            ErrorKind::ConfigJson,
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
                ErrorKind::ConfigJson,
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
                ErrorKind::ConfigJson,
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
                ErrorKind::ConfigJson,
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
                ErrorKind::OutOfRange,
                self.field(key),
                format!("{} entries", a.len()),
                format!("at most {MAX_LAYERS} entries"),
            ));
        }
        a.iter()
            .map(|v| {
                v.as_u64().ok_or_else(|| {
                    InputError::new(
                        ErrorKind::ConfigJson,
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
                        InputError::new(
                            ErrorKind::OutOfRange,
                            q.field(k),
                            format!("{g} is out of range"),
                            "8 to 4096",
                        )
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
                    ErrorKind::Unsupported,
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
                    ErrorKind::Unsupported,
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
                ErrorKind::Unsupported,
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
    let groups = q.child("config_groups")?.ok_or_else(|| {
        InputError::new(
            ErrorKind::ConfigJson,
            q.field("config_groups"),
            "missing",
            accepted,
        )
    })?;
    let first = groups
        .obj
        .iter()
        .find_map(|(k, v)| v.is_object().then_some(k.as_str()))
        .ok_or_else(|| {
            InputError::new(
                ErrorKind::ConfigJson,
                groups.field(""),
                "has no group",
                accepted,
            )
        })?;
    let group = groups.child(first)?.ok_or_else(|| {
        InputError::new(
            ErrorKind::ConfigJson,
            groups.field(first),
            "missing",
            accepted,
        )
    })?;
    let w = group.child("weights")?.ok_or_else(|| {
        InputError::new(
            ErrorKind::ConfigJson,
            group.field("weights"),
            "missing",
            accepted,
        )
    })?;
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
                ErrorKind::Unsupported,
                w.field("num_bits"),
                format!("{bits}-bit {kind} weights are not modelled"),
                accepted,
            ));
        }
    })
}
