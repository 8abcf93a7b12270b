//! The form's texts read into the estimator's input ([`to_input`]): each field set directly,
//! a choice through the estimator's own `Deserialize` ([`choice`]), every error naming its field.

use serde::de::{DeserializeOwned, IntoDeserializer, value::Error as ValueError};
use vramfit::InputError;
use vramfit::estimate::{
    EstimateInput, HardwareInput, PlacementInput, RunInput, ServingInput, TrainingInput,
};
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
/// [`SET_BY_TO_INPUT`]. Each section's fields are set by its own function.
fn set(input: &mut EstimateInput, key: &str, v: &str) -> Result<(), InputError> {
    let t = Text { key, v };
    let found = set_run(&mut input.run, &t)?
        || set_serving(&mut input.serving, &t)?
        || set_hardware(&mut input.hardware, &t)?
        || set_placement(&mut input.placement, &t)?
        || set_training(&mut input.training, &t)?;
    if found {
        return Ok(());
    }
    Err(vramfit::input_error!(
        UnknownName,
        key,
        "not a field of the estimator's input",
        "不是估算器输入中的字段",
        "the fields the form offers",
        "表单提供的字段",
    ))
}

/// One field's text (trimmed), read as its field's type; every error names the field.
struct Text<'a> {
    key: &'a str,
    v: &'a str,
}

impl Text<'_> {
    fn num(&self) -> Result<f64, InputError> {
        number(self.key, self.v)
    }

    /// A number, or `None` when left empty.
    fn opt(&self) -> Result<Option<f64>, InputError> {
        if self.v.is_empty() {
            Ok(None)
        } else {
            number(self.key, self.v).map(Some)
        }
    }

    /// The text, or `None` when empty.
    fn text(&self) -> Option<String> {
        (!self.v.is_empty()).then(|| self.v.to_string())
    }

    /// A checkbox: on when `true`.
    fn on(&self) -> bool {
        self.v == "true"
    }

    /// A checkbox that may be left empty for the default.
    #[cfg(feature = "full")]
    fn opt_on(&self) -> Option<bool> {
        (!self.v.is_empty()).then_some(self.on())
    }

    /// `true`, `false` or empty (the engine's default).
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn opt_bool(&self) -> Result<Option<bool>, InputError> {
        let (key, v) = (self.key, self.v);
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
    }

    /// A choice, read by the estimator's `Deserialize` ([`choice`]).
    fn choice<T: DeserializeOwned>(&self) -> Result<T, InputError> {
        choice(self.key, self.v)
    }

    /// A choice, or `None` when left empty (the estimator's default).
    fn opt_choice<T: DeserializeOwned>(&self) -> Result<Option<T>, InputError> {
        (!self.v.is_empty()).then(|| self.choice()).transpose()
    }
}

/// Sets the field `t.key` of the run section (how it is run);
/// `false` when it is none of its fields.
fn set_run(r: &mut RunInput, t: &Text) -> Result<bool, InputError> {
    match t.key {
        "mode" => r.mode = t.choice()?,
        "engine" => r.engine = t.choice()?,
        "attention" => r.attention = t.choice()?,
        "logits" => r.logits = t.choice()?,
        "batch" => r.batch = t.num()?,
        "seq_len" => r.seq_len = t.num()?,
        "new_tokens" => r.new_tokens = t.num()?,
        "images" => r.images = t.num()?,
        "image_width" => r.image_width = t.opt()?,
        "image_height" => r.image_height = t.opt()?,
        "language_model_only" => r.language_model_only = t.on(),
        "engine_version" => r.engine_version = t.text(),
        "runner" => r.runner = t.opt_choice()?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Sets the field `t.key` of the serving section (the serving engines' knobs);
/// `false` when it is none of its fields.
fn set_serving(s: &mut ServingInput, t: &Text) -> Result<bool, InputError> {
    match t.key {
        "disaggregation_mode" => s.disaggregation_mode = t.opt_choice()?,
        "disaggregation_transfer_backend" => s.disaggregation_transfer_backend = t.opt_choice()?,
        "num_reserved_decode_tokens" => s.num_reserved_decode_tokens = t.opt()?,
        "gpu_memory_utilization" => s.gpu_memory_utilization = t.num()?,
        "mem_fraction_static" => s.mem_fraction_static = t.opt()?,
        "free_gpu_memory_fraction" => s.free_gpu_memory_fraction = t.opt()?,
        "max_kv_size" => s.max_kv_size = t.opt()?,
        "kv_bits" => s.kv_bits = t.opt()?,
        "kv_group_size" => s.kv_group_size = t.opt()?,
        "quantized_kv_start" => s.quantized_kv_start = t.opt()?,
        "cuda_graph_max_bs" => s.cuda_graph_max_bs = t.opt()?,
        "ubatch" => s.ubatch = t.num()?,
        "max_model_len" => s.max_model_len = t.opt()?,
        "max_num_seqs" => s.max_num_seqs = t.opt()?,
        "max_num_batched_tokens" => s.max_num_batched_tokens = t.opt()?,
        "kv_unified" => s.kv_unified = t.opt_bool()?,
        "kv_unified_per_slot" => s.kv_unified_per_slot = t.opt()?,
        "cuda_graphs" => s.cuda_graphs = t.on(),
        "enable_lora" => s.enable_lora = t.on(),
        "max_loras" => s.max_loras = t.opt()?,
        "max_lora_rank" => s.max_lora_rank = t.opt()?,
        "max_cpu_loras" => s.max_cpu_loras = t.opt()?,
        "kv_offloading_size" => s.kv_offloading_size = t.opt()?,
        "kv_offloading_backend" => s.kv_offloading_backend = t.opt_choice()?,
        "speculative_method" => s.speculative_method = t.opt_choice()?,
        "draft_model" => s.draft_model = t.text(),
        "num_speculative_tokens" => s.num_speculative_tokens = t.opt()?,
        "acceptance_rate" => s.acceptance_rate = t.opt()?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Sets the field `t.key` of the hardware section (the cards and the host);
/// `false` when it is none of its fields.
fn set_hardware(h: &mut HardwareInput, t: &Text) -> Result<bool, InputError> {
    match t.key {
        "node_link" => h.node_link = t.text(),
        "wired_limit_mb" => h.wired_limit_mb = t.opt()?,
        "host_memory" => h.host_memory = t.text(),
        "host_bandwidth" => h.host_bandwidth = t.text(),
        "gpu" => h.gpu = t.text(),
        "cards" => h.cards = vramfit::estimate::split_card_list(t.v),
        "gpu_memory" => h.gpu_memory = t.text(),
        "memory_in_use" => h.memory_in_use = t.text(),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Sets the field `t.key` of the placement section (the layout over the GPUs);
/// `false` when it is none of its fields.
fn set_placement(p: &mut PlacementInput, t: &Text) -> Result<bool, InputError> {
    match t.key {
        #[cfg(feature = "full")]
        "offload" => p.offload = t.choice()?,
        #[cfg(feature = "full")]
        "zero" => p.zero = t.num()?,
        "gpus" => p.gpus = t.opt()?,
        "tp" => p.tp = t.num()?,
        "pp" => p.pp = t.num()?,
        "ep" => p.ep = t.num()?,
        "enable_dp_attention" => p.enable_dp_attention = t.on(),
        "dp_size" => p.dp_size = t.opt()?,
        "gpus_per_node" => p.gpus_per_node = t.opt()?,
        "gpu_layers" => p.gpu_layers = t.opt()?,
        "n_cpu_moe" => p.n_cpu_moe = t.opt()?,
        "tensor_split" => p.tensor_split = shares(t.v)?,
        "split_mode" => p.split_mode = t.choice()?,
        "main_gpu" => p.main_gpu = t.num()?,
        #[cfg(feature = "full")]
        "fsdp_version" => p.fsdp_version = t.opt()?,
        #[cfg(feature = "full")]
        "reshard_after_forward" => p.reshard_after_forward = t.opt_bool()?,
        #[cfg(feature = "full")]
        "reduce_dtype" => p.reduce_dtype = t.opt_choice()?,
        #[cfg(feature = "full")]
        "vp" => p.vp = t.opt()?,
        #[cfg(feature = "full")]
        "sequence_parallel" => p.sequence_parallel = t.on(),
        #[cfg(feature = "full")]
        "cp" => p.cp = t.opt()?,
        #[cfg(feature = "full")]
        "distributed_optimizer" => p.distributed_optimizer = t.on(),
        _ => return Ok(false),
    }
    Ok(true)
}

/// Sets the field `t.key` of the training section (training's own choices);
/// `false` when it is none of its fields.
fn set_training(tr: &mut TrainingInput, t: &Text) -> Result<bool, InputError> {
    match t.key {
        #[cfg(feature = "full")]
        "optimizer" => tr.optimizer = t.choice()?,
        #[cfg(feature = "full")]
        "precision" => tr.precision = t.choice()?,
        #[cfg(feature = "full")]
        "grad_checkpointing" => tr.grad_checkpointing = t.choice()?,
        #[cfg(feature = "full")]
        "lora_rank" => tr.lora_rank = t.num()?,
        #[cfg(feature = "full")]
        "qlora" => tr.qlora = t.on(),
        #[cfg(feature = "full")]
        "fused_optimizer" => tr.fused_optimizer = t.on(),
        #[cfg(feature = "full")]
        "stack" => tr.stack = t.opt_choice()?,
        #[cfg(feature = "full")]
        "loss" => tr.loss = t.opt_choice()?,
        #[cfg(feature = "full")]
        "loss_chunks" => tr.loss_chunks = t.opt()?,
        #[cfg(feature = "full")]
        "foreach" => tr.foreach = t.on(),
        #[cfg(feature = "full")]
        "optimizer_in_backward" => tr.optimizer_in_backward = t.on(),
        #[cfg(feature = "full")]
        "activation_offload" => tr.activation_offload = t.opt_on(),
        #[cfg(feature = "full")]
        "packing" => tr.packing = t.on(),
        #[cfg(feature = "full")]
        "compile" => tr.compile = t.on(),
        #[cfg(feature = "full")]
        "kbit_upcast" => tr.kbit_upcast = t.opt_on(),
        #[cfg(feature = "full")]
        "rl" => tr.rl = t.opt_choice()?,
        #[cfg(feature = "full")]
        "rollout" => tr.rollout = t.opt_choice()?,
        #[cfg(feature = "full")]
        "ref_model" => tr.ref_model = t.opt_on(),
        #[cfg(feature = "full")]
        "sleep_mode" => tr.sleep_mode = t.opt_on(),
        #[cfg(feature = "full")]
        "rl_beta" => tr.rl_beta = t.opt()?,
        #[cfg(feature = "full")]
        "num_generations" => tr.num_generations = t.opt()?,
        #[cfg(feature = "full")]
        "max_completion_length" => tr.max_completion_length = t.opt()?,
        #[cfg(feature = "full")]
        "rollout_memory_utilization" => tr.rollout_memory_utilization = t.opt()?,
        #[cfg(feature = "full")]
        "reduce_bucket_size" => tr.reduce_bucket_size = t.opt()?,
        #[cfg(feature = "full")]
        "allgather_bucket_size" => tr.allgather_bucket_size = t.opt()?,
        #[cfg(feature = "full")]
        "stage3_prefetch_bucket_size" => tr.stage3_prefetch_bucket_size = t.opt()?,
        #[cfg(feature = "full")]
        "stage3_max_live_parameters" => tr.stage3_max_live_parameters = t.opt()?,
        #[cfg(feature = "full")]
        "stage3_param_persistence_threshold" => tr.stage3_param_persistence_threshold = t.opt()?,
        #[cfg(feature = "full")]
        "overlap_comm" => tr.overlap_comm = t.opt_bool()?,
        #[cfg(feature = "full")]
        "galore_rank" => tr.galore_rank = t.opt()?,
        #[cfg(feature = "full")]
        "lora_dropout" => tr.lora_dropout = t.opt()?,
        "grad_accum" => tr.grad_accum = t.opt()?,
        #[cfg(feature = "full")]
        "recompute_method" => tr.recompute_method = t.opt_choice()?,
        #[cfg(feature = "full")]
        "recompute_num_layers" => tr.recompute_num_layers = t.opt()?,
        _ => return Ok(false),
    }
    Ok(true)
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
