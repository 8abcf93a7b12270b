//! The form's texts read into the estimator's input ([`to_input`]): each field set directly,
//! a choice through the estimator's own `Deserialize` ([`choice`]), every error naming its field.

use serde::de::{DeserializeOwned, IntoDeserializer, value::Error as ValueError};
use vramfit::InputError;
use vramfit::estimate::EstimateInput;
use vramfit::precision::{Dtype, KvDtype, Quantization};

use super::FIELDS;

/// A choice's text read by the estimator's own `Deserialize` (unit variants by their serde
/// names), so the form cannot offer a value the estimator's JSON input would not take. The
/// English error is serde's (`unknown variant `x`, expected one of …`); the Chinese names the
/// value, the form's menu showing the others.
pub(super) fn choice<T: DeserializeOwned>(field: &str, v: &str) -> Result<T, InputError> {
    T::deserialize(IntoDeserializer::<ValueError>::into_deserializer(v))
        .map_err(|e| choice_error(field, v, e))
}

/// [`choice`]'s error, in one body for every type it reads.
#[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
fn choice_error(field: &str, v: &str, e: ValueError) -> InputError {
    vramfit::input_error!(
        UnknownName,
        field,
        ["{e}"],
        ["未知的取值 `{v}`"],
        "one of the values the form offers",
        "表单提供的值之一",
    )
}

/// The fields [`to_input`] sets itself, not through [`set`]: the model, its source and the
/// precision fields, which depend on each other.
const SET_BY_TO_INPUT: [&str; 7] = [
    "source",
    "model",
    "params",
    "quantization",
    "kv_dtype",
    "dtype",
    "lora_targets",
];

/// Sets the field `key` of `input` from its text `v` (trimmed); not the fields in
/// [`SET_BY_TO_INPUT`].
fn set(input: &mut EstimateInput, key: &str, v: &str) -> Result<(), InputError> {
    let num = || number(key, v);
    let opt = || -> Result<Option<f64>, InputError> {
        if v.is_empty() {
            Ok(None)
        } else {
            number(key, v).map(Some)
        }
    };
    let text = || (!v.is_empty()).then(|| v.to_string());
    let on = v == "true";
    let opt_bool = || -> Result<Option<bool>, InputError> {
        match v {
            "" => Ok(None),
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            // Not through serde's `bool`: its error's text links core's float formatter (about
            // 9 KB of the calculator's module, measured when `kv_unified` brought it in).
            _ => Err(vramfit::input_error!(
                UnknownName,
                key,
                ["`{v}` is neither true nor false"],
                ["`{v}` 既不是 true 也不是 false"],
                "true, false, or empty for the engine's default",
                "true、false，或留空取引擎默认",
            )),
        }
    };
    match key {
        "mode" => input.run.mode = choice(key, v)?,
        "engine" => input.run.engine = choice(key, v)?,
        "attention" => input.run.attention = choice(key, v)?,
        "logits" => input.run.logits = choice(key, v)?,
        #[cfg(feature = "full")]
        "optimizer" => input.training.optimizer = choice(key, v)?,
        #[cfg(feature = "full")]
        "precision" => input.training.precision = choice(key, v)?,
        #[cfg(feature = "full")]
        "grad_checkpointing" => input.training.grad_checkpointing = choice(key, v)?,
        #[cfg(feature = "full")]
        "offload" => input.placement.offload = choice(key, v)?,
        "batch" => input.run.batch = num()?,
        "seq_len" => input.run.seq_len = num()?,
        "new_tokens" => input.run.new_tokens = num()?,
        "images" => input.run.images = num()?,
        "image_width" => input.run.image_width = opt()?,
        "image_height" => input.run.image_height = opt()?,
        "language_model_only" => input.run.language_model_only = on,
        #[cfg(feature = "full")]
        "lora_rank" => input.training.lora_rank = num()?,
        #[cfg(feature = "full")]
        "zero" => input.placement.zero = num()?,
        "gpus" => input.placement.gpus = opt()?,
        "tp" => input.placement.tp = num()?,
        "pp" => input.placement.pp = num()?,
        "ep" => input.placement.ep = num()?,
        "enable_dp_attention" => input.placement.enable_dp_attention = on,
        "dp_size" => input.placement.dp_size = opt()?,
        "disaggregation_mode" => {
            input.serving.disaggregation_mode =
                (!v.is_empty()).then(|| choice(key, v)).transpose()?;
        }
        "disaggregation_transfer_backend" => {
            input.serving.disaggregation_transfer_backend =
                (!v.is_empty()).then(|| choice(key, v)).transpose()?;
        }
        "num_reserved_decode_tokens" => input.serving.num_reserved_decode_tokens = opt()?,
        "gpus_per_node" => input.placement.gpus_per_node = opt()?,
        "node_link" => input.hardware.node_link = text(),
        "gpu_memory_utilization" => input.serving.gpu_memory_utilization = num()?,
        "mem_fraction_static" => input.serving.mem_fraction_static = opt()?,
        "free_gpu_memory_fraction" => input.serving.free_gpu_memory_fraction = opt()?,
        "max_kv_size" => input.serving.max_kv_size = opt()?,
        "kv_bits" => input.serving.kv_bits = opt()?,
        "kv_group_size" => input.serving.kv_group_size = opt()?,
        "quantized_kv_start" => input.serving.quantized_kv_start = opt()?,
        "wired_limit_mb" => input.hardware.wired_limit_mb = opt()?,
        "cuda_graph_max_bs" => input.serving.cuda_graph_max_bs = opt()?,
        "ubatch" => input.serving.ubatch = num()?,
        "max_model_len" => input.serving.max_model_len = opt()?,
        "max_num_seqs" => input.serving.max_num_seqs = opt()?,
        "max_num_batched_tokens" => input.serving.max_num_batched_tokens = opt()?,
        "gpu_layers" => input.placement.gpu_layers = opt()?,
        "n_cpu_moe" => input.placement.n_cpu_moe = opt()?,
        "kv_unified" => input.serving.kv_unified = opt_bool()?,
        "kv_unified_per_slot" => input.serving.kv_unified_per_slot = opt()?,
        "host_memory" => input.hardware.host_memory = text(),
        "host_bandwidth" => input.hardware.host_bandwidth = text(),
        #[cfg(feature = "full")]
        "qlora" => input.training.qlora = on,
        #[cfg(feature = "full")]
        "fused_optimizer" => input.training.fused_optimizer = on,
        "cuda_graphs" => input.serving.cuda_graphs = on,
        "gpu" => input.hardware.gpu = text(),
        "cards" => input.hardware.cards = vramfit::estimate::split_card_list(v),
        "tensor_split" => input.placement.tensor_split = shares(v)?,
        "split_mode" => input.placement.split_mode = choice(key, v)?,
        "main_gpu" => input.placement.main_gpu = num()?,
        "gpu_memory" => input.hardware.gpu_memory = text(),
        "memory_in_use" => input.hardware.memory_in_use = text(),
        "engine_version" => input.run.engine_version = text(),
        "enable_lora" => input.serving.enable_lora = on,
        "max_loras" => input.serving.max_loras = opt()?,
        "max_lora_rank" => input.serving.max_lora_rank = opt()?,
        "max_cpu_loras" => input.serving.max_cpu_loras = opt()?,
        "kv_offloading_size" => input.serving.kv_offloading_size = opt()?,
        "kv_offloading_backend" => {
            input.serving.kv_offloading_backend =
                (!v.is_empty()).then(|| choice(key, v)).transpose()?
        }
        "runner" => input.run.runner = (!v.is_empty()).then(|| choice(key, v)).transpose()?,
        "speculative_method" => {
            input.serving.speculative_method =
                (!v.is_empty()).then(|| choice(key, v)).transpose()?;
        }
        "draft_model" => input.serving.draft_model = text(),
        "num_speculative_tokens" => input.serving.num_speculative_tokens = opt()?,
        "acceptance_rate" => input.serving.acceptance_rate = opt()?,
        #[cfg(feature = "full")]
        "stack" => input.training.stack = (!v.is_empty()).then(|| choice(key, v)).transpose()?,
        #[cfg(feature = "full")]
        "loss" => input.training.loss = (!v.is_empty()).then(|| choice(key, v)).transpose()?,
        #[cfg(feature = "full")]
        "loss_chunks" => input.training.loss_chunks = opt()?,
        #[cfg(feature = "full")]
        "foreach" => input.training.foreach = on,
        #[cfg(feature = "full")]
        "optimizer_in_backward" => input.training.optimizer_in_backward = on,
        #[cfg(feature = "full")]
        "activation_offload" => input.training.activation_offload = (!v.is_empty()).then_some(on),
        #[cfg(feature = "full")]
        "packing" => input.training.packing = on,
        #[cfg(feature = "full")]
        "compile" => input.training.compile = on,
        #[cfg(feature = "full")]
        "kbit_upcast" => input.training.kbit_upcast = (!v.is_empty()).then_some(on),
        #[cfg(feature = "full")]
        "rl" => input.training.rl = (!v.is_empty()).then(|| choice(key, v)).transpose()?,
        #[cfg(feature = "full")]
        "rollout" => {
            input.training.rollout = (!v.is_empty()).then(|| choice(key, v)).transpose()?
        }
        #[cfg(feature = "full")]
        "ref_model" => input.training.ref_model = (!v.is_empty()).then_some(on),
        #[cfg(feature = "full")]
        "sleep_mode" => input.training.sleep_mode = (!v.is_empty()).then_some(on),
        #[cfg(feature = "full")]
        "rl_beta" => input.training.rl_beta = opt()?,
        #[cfg(feature = "full")]
        "num_generations" => input.training.num_generations = opt()?,
        #[cfg(feature = "full")]
        "max_completion_length" => input.training.max_completion_length = opt()?,
        #[cfg(feature = "full")]
        "rollout_memory_utilization" => input.training.rollout_memory_utilization = opt()?,
        #[cfg(feature = "full")]
        "fsdp_version" => input.placement.fsdp_version = opt()?,
        #[cfg(feature = "full")]
        "reshard_after_forward" => input.placement.reshard_after_forward = opt_bool()?,
        #[cfg(feature = "full")]
        "reduce_dtype" => {
            input.placement.reduce_dtype = (!v.is_empty()).then(|| choice(key, v)).transpose()?
        }
        #[cfg(feature = "full")]
        "reduce_bucket_size" => input.training.reduce_bucket_size = opt()?,
        #[cfg(feature = "full")]
        "allgather_bucket_size" => input.training.allgather_bucket_size = opt()?,
        #[cfg(feature = "full")]
        "stage3_prefetch_bucket_size" => input.training.stage3_prefetch_bucket_size = opt()?,
        #[cfg(feature = "full")]
        "stage3_max_live_parameters" => input.training.stage3_max_live_parameters = opt()?,
        #[cfg(feature = "full")]
        "stage3_param_persistence_threshold" => {
            input.training.stage3_param_persistence_threshold = opt()?
        }
        #[cfg(feature = "full")]
        "overlap_comm" => input.training.overlap_comm = opt_bool()?,
        #[cfg(feature = "full")]
        "vp" => input.placement.vp = opt()?,
        #[cfg(feature = "full")]
        "galore_rank" => input.training.galore_rank = opt()?,
        #[cfg(feature = "full")]
        "lora_dropout" => input.training.lora_dropout = opt()?,
        "grad_accum" => input.training.grad_accum = opt()?,
        #[cfg(feature = "full")]
        "sequence_parallel" => input.placement.sequence_parallel = on,
        #[cfg(feature = "full")]
        "cp" => input.placement.cp = opt()?,
        #[cfg(feature = "full")]
        "distributed_optimizer" => input.placement.distributed_optimizer = on,
        #[cfg(feature = "full")]
        "recompute_method" => {
            input.training.recompute_method = (!v.is_empty()).then(|| choice(key, v)).transpose()?
        }
        #[cfg(feature = "full")]
        "recompute_num_layers" => input.training.recompute_num_layers = opt()?,
        _ => {
            return Err(vramfit::input_error!(
                UnknownName,
                key,
                "not a field of the estimator's input",
                "不是估算器输入中的字段",
                "the fields the form offers",
                "表单提供的字段",
            ));
        }
    }
    Ok(())
}

/// The estimator's input for the form's values (`value(key)` gives a field's text) and, when
/// the source is a config.json, its parsed architecture. Every error names the field.
pub fn to_input(
    value: &dyn Fn(&str) -> String,
    config: Option<&vramfit::config::ParsedConfig>,
) -> Result<EstimateInput, InputError> {
    let mut input = EstimateInput::default();
    for f in FIELDS.iter().filter(|f| !SET_BY_TO_INPUT.contains(&f.key)) {
        set(&mut input, f.key, value(f.key).trim())?;
    }
    match value("source").as_str() {
        "params" => input.model.params = Some(value("params")),
        s if read_model(s) => match config {
            Some(c) => {
                input.model.arch = Some(c.arch);
                // The checkpoint's own dtype, which the engine's `auto` resolves from; the
                // form's dtype (below) is the run's choice.
                input.model.checkpoint_dtype = c.dtype;
                if let Some(q) = c.quantization {
                    input.model.quantization = q;
                }
            }
            None => return Err(no_model(value)),
        },
        _ => input.model.model = Some(value("model")),
    }
    let dtype = value("dtype");
    if !dtype.trim().is_empty() {
        input.run.dtype = Some(Dtype::parse("dtype", &dtype)?);
    }
    let q = value("quantization");
    if q != "none" || !read_model(&value("source")) {
        input.model.quantization = Quantization::parse("quantization", &q)?;
    }
    input.run.kv_dtype = KvDtype::parse("kv_dtype", &value("kv_dtype"))?;
    drop_hidden_rl(&mut input);
    input.training.lora_targets = value("lora_targets")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    Ok(input)
}

/// The RL settings the form does not show are not read, as the form hides them: all of them out
/// of training or without an algorithm; DPO's rollout and group (it generates nothing); the
/// colocated engine's fraction and sleep mode unless the rollout is colocated.
fn drop_hidden_rl(input: &mut EstimateInput) {
    use vramfit::estimate::{Mode, RlAlgorithm, Rollout};
    if input.run.mode != Mode::Training {
        input.training.rl = None;
    }
    let Some(rl) = input.training.rl else {
        input.training.rl_beta = None;
        input.training.ref_model = None;
        input.training.num_generations = None;
        input.training.max_completion_length = None;
        input.training.rollout = None;
        input.training.rollout_memory_utilization = None;
        input.training.sleep_mode = None;
        return;
    };
    if rl == RlAlgorithm::Dpo {
        input.training.rollout = None;
        input.training.num_generations = None;
    }
    if input.training.rollout != Some(Rollout::Colocate) {
        input.training.rollout_memory_utilization = None;
        input.training.sleep_mode = None;
    }
}

/// What runs the form's mode and engine ([`vramfit::estimate::Runner::of`]), read from those two
/// fields alone, so that the form names the engine's settings while another field is half typed;
/// `None` while either is not a value of its list.
pub fn runner_of(value: &dyn Fn(&str) -> String) -> Option<vramfit::estimate::Runner> {
    let mode = choice("mode", &value("mode")).ok()?;
    let engine = choice("engine", &value("engine")).ok()?;
    Some(vramfit::estimate::Runner::of(mode, engine))
}

/// Whether the model of `source` is read (a config.json or weights file) or looked up (on a hub,
/// the full build's source), its architecture and format then given, not a preset's.
fn read_model(source: &str) -> bool {
    source == "config" || (cfg!(feature = "full") && source == "hub")
}

/// The error of a model source with no model yet: no config.json dropped, or (full build) no
/// model looked up on the hub.
fn no_model(value: &dyn Fn(&str) -> String) -> InputError {
    #[cfg(feature = "full")]
    if value("source") == "hub" {
        let repo = value("model");
        return vramfit::input_error!(
            Missing,
            "hub",
            ["`{repo}` is not looked up yet"],
            ["尚未查询 `{repo}`"],
            "the Look up button: it reads the repo's config.json and the headers of its weights from the hub",
            "“查询”按钮：从模型仓库读取该仓库的 config.json 与权重文件头",
        );
    }
    #[cfg(not(feature = "full"))]
    let _ = value;
    vramfit::input_error!(
        Missing,
        "config.json",
        "no config.json loaded",
        "尚未加载 config.json",
        "a Hugging Face config.json, dropped or chosen",
        "拖入或选择的 Hugging Face config.json",
    )
}

/// llama.cpp's tensor split as typed: shares separated by commas or slashes (`3,1`); empty for
/// none.
fn shares(v: &str) -> Result<Vec<f64>, InputError> {
    v.split([',', '/'])
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| number("tensor_split", x))
        .collect()
}

fn number(field: &str, v: &str) -> Result<f64, InputError> {
    vramfit::units::parse_number(v).ok_or_else(|| {
        vramfit::input_error!(
            NotANumber,
            field,
            ["`{v}` is not a number"],
            ["`{v}` 不是数字"],
            "a number",
            "数字",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::Kind;
    use crate::fields::tests::defaults_only;

    /// A yes-or-no field reads true, false and empty (the engine's default); anything else is
    /// an error naming it, in the page's words, not serde's.
    #[test]
    fn a_yes_or_no_field_reads_true_false_or_empty() {
        let mut input = EstimateInput::default();
        set(&mut input, "kv_unified", "true").unwrap();
        assert_eq!(input.serving.kv_unified, Some(true));
        set(&mut input, "kv_unified", "").unwrap();
        assert_eq!(input.serving.kv_unified, None);
        let e = set(&mut input, "kv_unified", "yes").unwrap_err();
        assert_eq!(e.field, "kv_unified");
        #[cfg(feature = "en")]
        assert_eq!(e.problem, "`yes` is neither true nor false");
    }

    #[test]
    fn errors_name_the_field() {
        let v = |k: &str| {
            if k == "batch" {
                "0".to_string()
            } else {
                defaults_only(k)
            }
        };
        let e = vramfit::estimate::estimate(&to_input(&v, None).unwrap()).unwrap_err();
        assert_eq!(e.field, "batch");
        let v = |k: &str| {
            if k == "seq_len" {
                "abc".to_string()
            } else {
                defaults_only(k)
            }
        };
        assert_eq!(to_input(&v, None).unwrap_err().field, "seq_len");
        let v = |k: &str| match k {
            "source" => "params".to_string(),
            "params" => "seven".to_string(),
            _ => defaults_only(k),
        };
        let e = vramfit::estimate::estimate(&to_input(&v, None).unwrap()).unwrap_err();
        assert_eq!(e.field, "params");
    }

    /// The form's own errors, in both languages (this build has both; a build of one holds only
    /// its side, from the same `input_error!`).
    #[test]
    #[cfg(all(feature = "en", feature = "zh"))]
    fn the_forms_own_errors_in_english_and_chinese() {
        let both = |e: InputError| {
            let zh = e.zh();
            (e.problem, e.accepted, zh.problem, zh.accepted)
        };
        let (p, a, p_zh, a_zh) =
            both(choice::<vramfit::estimate::Engine>("engine", "x").unwrap_err());
        assert_eq!(
            p,
            "unknown variant `x`, expected one of `hf`, `vllm`, `llamacpp`, `sglang`, `ollama`, `trtllm`, `mlx`, `tei`"
        );
        assert_eq!(a, "one of the values the form offers");
        assert_eq!(
            (p_zh.as_str(), a_zh.as_str()),
            ("未知的取值 `x`", "表单提供的值之一")
        );
        let (p, a, p_zh, a_zh) = both(number("batch", "x").unwrap_err());
        assert_eq!(
            (p.as_str(), a.as_str()),
            ("`x` is not a number", "a number")
        );
        assert_eq!((p_zh.as_str(), a_zh.as_str()), ("`x` 不是数字", "数字"));
        let mut input = EstimateInput::default();
        let (p, _, p_zh, a_zh) = both(set(&mut input, "nope", "1").unwrap_err());
        assert_eq!(p, "not a field of the estimator's input");
        assert_eq!(
            (p_zh.as_str(), a_zh.as_str()),
            ("不是估算器输入中的字段", "表单提供的字段")
        );
        let v = |k: &str| match k {
            "source" => "config".to_string(),
            _ => defaults_only(k),
        };
        let e = to_input(&v, None).unwrap_err();
        assert_eq!(e.field, "config.json");
        #[cfg(feature = "zh")]
        assert_eq!(e.zh().problem, "尚未加载 config.json");
    }

    /// The generic fields of the form (all but the model, its source and the precision
    /// fields, which `to_input` sets itself) read as one JSON object by the estimator's own
    /// `Deserialize`, the way `to_input` once did; the other fields are the defaults.
    fn via_json(value: &dyn Fn(&str) -> String) -> Result<EstimateInput, String> {
        use serde_json::Value;
        let mut map = serde_json::Map::new();
        for f in FIELDS {
            let v = value(f.key);
            let v = v.trim();
            let num = || {
                vramfit::units::parse_number(v)
                    .map(Value::from)
                    .ok_or("not a number")
            };
            if SET_BY_TO_INPUT.contains(&f.key) {
                continue;
            }
            let json = match (f.key, f.kind) {
                // The lists: a card list and llama.cpp's shares, written with commas.
                ("cards", _) => Value::from(vramfit::estimate::split_card_list(v)),
                ("tensor_split", _) => v
                    .split([',', '/'])
                    .map(str::trim)
                    .filter(|x| !x.is_empty())
                    .map(|x| vramfit::units::parse_number(x).ok_or("not a number"))
                    .collect::<Result<Vec<f64>, _>>()?
                    .into(),
                ("zero", _) | (_, Kind::Number) => num()?,
                // An empty choice is an optional field left to the estimator (`stack`, `loss`).
                (_, Kind::OptNumber | Kind::Text | Kind::Choice(_)) if v.is_empty() => continue,
                ("kbit_upcast" | "activation_offload" | "ref_model" | "sleep_mode", _) => {
                    Value::Bool(v == "true")
                }
                (_, Kind::OptNumber) => num()?,
                (_, Kind::Bool) => Value::Bool(v == "true"),
                // An optional switch (`reshard_after_forward`, `overlap_comm`): empty is absent.
                (_, Kind::Choice(_)) if v.is_empty() => continue,
                (_, Kind::Choice(_)) if v == "true" || v == "false" => Value::Bool(v == "true"),
                (_, Kind::Text | Kind::Choice(_)) => Value::String(v.to_string()),
            };
            map.insert(f.key.to_string(), json);
        }
        serde_json::from_value(Value::Object(map)).map_err(|e| e.to_string())
    }

    #[test]
    fn fields_set_directly_read_as_the_json_input_does() {
        let mut cases: Vec<(&str, &str)> = vec![("", "")];
        // The source is `to_input`'s own (the config.json it needs is not JSON input).
        for f in FIELDS.iter().filter(|f| f.key != "source") {
            let choices: Vec<&str>;
            let values: &[&str] = match f.kind {
                Kind::Choice(values) => {
                    choices = values.iter().map(|c| c.0).collect();
                    &choices
                }
                Kind::Number => &["3", "0.5", "-2", "1e3", "abc"],
                Kind::OptNumber => &["", "7", "0.25", "x"],
                Kind::Bool => &["true", "false"],
                Kind::Text => &["", "h100-sxm5-80gb", "80GB"],
            };
            cases.extend(values.iter().map(|v| (f.key, *v)));
        }
        for (key, text) in cases {
            let v = |k: &str| {
                if k == key {
                    text.to_string()
                } else {
                    defaults_only(k)
                }
            };
            let json = via_json(&v);
            match to_input(&v, None) {
                Ok(direct) => {
                    let mut json = json.unwrap_or_else(|e| panic!("{key} = {text}: {e}"));
                    json.model.model = direct.model.model.clone();
                    json.model.params = direct.model.params.clone();
                    json.run.dtype = direct.run.dtype;
                    json.model.quantization = direct.model.quantization;
                    json.run.kv_dtype = direct.run.kv_dtype;
                    json.training.lora_targets = direct.training.lora_targets.clone();
                    // What the form hides is not read (`drop_hidden_rl`), in either way in.
                    drop_hidden_rl(&mut json);
                    assert_eq!(direct, json, "{key} = {text}");
                }
                Err(e) => {
                    assert_eq!(e.field, key, "{key} = {text}");
                    // Only the fields `via_json` reads can disagree with it.
                    if !matches!(key, "quantization" | "kv_dtype" | "dtype") {
                        assert!(json.is_err(), "{key} = {text}: JSON took it");
                    }
                }
            }
        }
    }

    #[test]
    fn every_choice_is_accepted_by_the_estimator() {
        for f in FIELDS.iter().filter(|f| f.key != "source") {
            if let Kind::Choice(values) = f.kind {
                for (c, _) in values {
                    let v = |k: &str| {
                        if k == f.key {
                            c.to_string()
                        } else {
                            defaults_only(k)
                        }
                    };
                    let input = to_input(&v, None);
                    assert!(input.is_ok(), "{} = {c}: {:?}", f.key, input.err());
                }
            }
        }
    }
}
