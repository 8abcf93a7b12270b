//! The calculator's inputs: one row per estimator field, named as the estimator's JSON input
//! (and the CLI's flags) name it. The form, the URL and the conversion to
//! [`EstimateInput`] are all driven by this table, and the defaults are the estimator's own
//! (read from `EstimateInput::default()`), so the site cannot drift from the CLI.
//!
//! A field's text reaches its `EstimateInput` field directly ([`to_input`]), a choice through
//! the estimator's own `Deserialize` fed by serde's string deserializer: no JSON is built, so the
//! calculator's build links neither serde_json nor the input's full `Deserialize` (about 50 KB
//! of code). A test checks the result against reading the same form as JSON.

use std::sync::OnceLock;

use vramfit::estimate::EstimateInput;

use crate::i18n::Key;

mod read;
mod texts;
pub use read::{runner_of, to_input};

/// How a field is entered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A number (the estimator checks its range).
    Number,
    /// A number that may be left empty (the estimator then picks, e.g. vLLM's defaults).
    OptNumber,
    /// Free text, such as `7B` or `80GB` (the estimator parses it).
    Text,
    /// One of a list of values ("" meaning the estimator's automatic choice where listed).
    Choice(&'static [Choice]),
    /// On or off.
    Bool,
}

/// One value of a [`Kind::Choice`] field and, where the value is a word, the text of its label
/// (the row `v.FIELD.VALUE`; a value such as `gguf-q4_k_m` is shown as it is).
pub type Choice = (&'static str, Option<Key>);

/// The [`Choice`]s of `field`, each with its label's text, found when the site is compiled.
macro_rules! choices {
    ($field:literal: $($v:literal),* $(,)?) => {
        &[$(($v, Key::find(&["v.", $field, ".", $v]))),*]
    };
}

/// A [`Kind::Choice`] field: its key, its group and its values, each with its label's text.
macro_rules! choice_field {
    ($key:literal, $group:ident: $($v:literal),* $(,)?) => {
        Field::new($key, Kind::Choice(choices!($key: $($v),*)), Group::$group)
    };
}

/// Which part of the form a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// The model.
    Model,
    /// The run: mode, batch, lengths, precision.
    Run,
    /// Training only.
    Training,
    /// Serving (vLLM, SGLang), llama.cpp and Ollama.
    Serving,
    /// Parallelism and the card.
    Hardware,
    /// Rarely changed.
    Advanced,
}

/// One input field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    /// The estimator's field name (the site's own `source` excepted).
    pub key: &'static str,
    /// How it is entered.
    pub kind: Kind,
    /// Its group.
    pub group: Group,
    /// The text of its label (the row `f.KEY`).
    pub label: Key,
    /// The text of its hint, where it has one (the row `h.KEY`).
    pub hint: Option<Key>,
}

impl Field {
    /// The field `key`, with the texts of its label and hint: a field without a label does
    /// not compile.
    const fn new(key: &'static str, kind: Kind, group: Group) -> Field {
        Field {
            key,
            kind,
            group,
            label: Key::of(&["f.", key]),
            hint: Key::find(&["h.", key]),
        }
    }

    /// Whether a URL may carry `v` for this field. Range checks are the estimator's: a link
    /// with `batch=0` opens and shows the estimator's error next to the field.
    pub fn accepts(&self, v: &str) -> bool {
        match self.kind {
            Kind::Number => vramfit::units::parse_number(v.trim()).is_some(),
            Kind::OptNumber => v.is_empty() || vramfit::units::parse_number(v.trim()).is_some(),
            Kind::Text => v.len() <= 200,
            Kind::Choice(values) => values.iter().any(|c| c.0 == v),
            Kind::Bool => v == "true" || v == "false",
        }
    }

    /// The default, as text (every field has one: `every_form_field_has_its_default_text`).
    pub fn default(&self) -> &'static str {
        defaults()
            .iter()
            .find(|(k, _)| *k == self.key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }
}

/// The site's default model (the estimator itself has none).
pub const DEFAULT_MODEL: &str = "meta-llama/Llama-3.1-8B";
/// The parameter count offered when the user switches to a bare count (the guide's example).
pub const DEFAULT_PARAMS: &str = "7B";

/// Quantization formats offered (the CLI's spellings).
pub const QUANTIZATIONS: &[Choice] = choices!("quantization":
    "none",
    "fp8",
    "w8a8",
    "w4a16",
    "gptq",
    "awq",
    "bnb-int8",
    "bnb-nf4",
    "bnb-nf4-dq",
    "mxfp4",
    "torchao-nf4",
    "hqq",
    "mlx-8bit",
    "mlx-6bit",
    "mlx-4bit",
    "mlx-4bit-g32",
    "mlx-3bit",
    "mlx-mxfp4",
    "mlx-nvfp4",
    "mlx-mxfp8",
    "gguf-f16",
    "gguf-q8_0",
    "gguf-q6_k",
    "gguf-q5_k_m",
    "gguf-q5_k_s",
    "gguf-q5_1",
    "gguf-q5_0",
    "gguf-q4_k_m",
    "gguf-q4_k_s",
    "gguf-q4_1",
    "gguf-q4_0",
    "gguf-q3_k_l",
    "gguf-q3_k_m",
    "gguf-q3_k_s",
    "gguf-q2_k",
);

/// The training fields' keys, in every build: a calculator build, which has no training fields
/// (it hands every training run to the full build), keeps them from a link as written, for the
/// full build to read (`AppState::from_route`). A test checks them against [`FIELDS`].
pub const TRAINING_KEYS: &[&str] = &[
    "optimizer",
    "precision",
    "grad_checkpointing",
    "lora_rank",
    "lora_targets",
    "lora_dropout",
    "qlora",
    "zero",
    "offload",
    "fused_optimizer",
    "stack",
    "loss",
    "loss_chunks",
    "foreach",
    "optimizer_in_backward",
    "activation_offload",
    "packing",
    "compile",
    "kbit_upcast",
    "rl",
    "rollout",
    "num_generations",
    "max_completion_length",
    "rl_beta",
    "ref_model",
    "rollout_memory_utilization",
    "sleep_mode",
    "fsdp_version",
    "reshard_after_forward",
    "reduce_dtype",
    "reduce_bucket_size",
    "allgather_bucket_size",
    "stage3_prefetch_bucket_size",
    "stage3_max_live_parameters",
    "stage3_param_persistence_threshold",
    "overlap_comm",
    "vp",
    "sequence_parallel",
    "cp",
    "distributed_optimizer",
    "recompute_method",
    "recompute_num_layers",
    "galore_rank",
    "grad_accum",
];

/// Every field, in form order.
// Each field's texts are found by their keys when the site is compiled (`key!`, a search over
// the table's keys): with a hundred fields and their choices that takes longer than rustc's
// default budget for one constant, which is a lint, not a limit of the language.
#[allow(long_running_const_eval)]
pub static FIELDS: &[Field] = &[
    choice_field!("source", Model: "preset", "params", "config", "hub"),
    Field::new("model", Kind::Text, Group::Model),
    Field::new("params", Kind::Text, Group::Model),
    choice_field!("mode", Run: "inference", "serve", "training"),
    choice_field!("engine", Run: "hf", "vllm", "llamacpp", "sglang", "ollama", "trtllm", "mlx", "tei"),
    Field::new("batch", Kind::Number, Group::Run),
    Field::new("seq_len", Kind::Number, Group::Run),
    Field::new("new_tokens", Kind::Number, Group::Run),
    Field::new("images", Kind::Number, Group::Run),
    Field::new("image_width", Kind::OptNumber, Group::Run),
    Field::new("image_height", Kind::OptNumber, Group::Run),
    Field::new("language_model_only", Kind::Bool, Group::Serving),
    choice_field!("dtype", Run: "", "fp32", "fp16", "bf16"),
    Field::new("quantization", Kind::Choice(QUANTIZATIONS), Group::Run),
    choice_field!("kv_dtype", Run: "auto", "fp16", "bf16", "fp8", "q8_0", "q4_0", "nvfp4"),
    #[cfg(feature = "full")]
    choice_field!("optimizer", Training: "adamw", "adamw-8bit", "sgd", "sgd-momentum", "adafactor", "lion", "paged-adamw-8bit", "paged-adamw", "adamw-4bit", "ademamix", "ademamix-8bit", "muon", "galore-adamw", "galore-adamw-8bit", "schedule-free-adamw"),
    #[cfg(feature = "full")]
    choice_field!("precision", Training: "fp32", "fp16", "bf16", "amp-fp16", "amp-bf16"),
    #[cfg(feature = "full")]
    choice_field!("grad_checkpointing", Training: "none", "full", "selective"),
    #[cfg(feature = "full")]
    Field::new("lora_rank", Kind::Number, Group::Training),
    #[cfg(feature = "full")]
    Field::new("lora_targets", Kind::Text, Group::Training),
    #[cfg(feature = "full")]
    Field::new("lora_dropout", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("qlora", Kind::Bool, Group::Training),
    #[cfg(feature = "full")]
    choice_field!("zero", Training: "0", "1", "2", "3"),
    #[cfg(feature = "full")]
    choice_field!("offload", Training: "none", "cpu", "nvme", "optimizer-cpu", "optimizer-nvme"),
    #[cfg(feature = "full")]
    Field::new("fused_optimizer", Kind::Bool, Group::Training),
    // Training regimes (part `regimes`).
    #[cfg(feature = "full")]
    choice_field!("stack", Training: "", "trl", "unsloth", "torchtune", "llamafactory", "axolotl", "deepspeed", "fsdp", "megatron", "verl", "openrlhf"),
    #[cfg(feature = "full")]
    choice_field!("loss", Training: "", "full", "chunked", "fused"),
    #[cfg(feature = "full")]
    Field::new("loss_chunks", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("foreach", Kind::Bool, Group::Training),
    #[cfg(feature = "full")]
    Field::new("optimizer_in_backward", Kind::Bool, Group::Training),
    #[cfg(feature = "full")]
    choice_field!("activation_offload", Training: "", "true", "false"),
    #[cfg(feature = "full")]
    Field::new("packing", Kind::Bool, Group::Training),
    #[cfg(feature = "full")]
    Field::new("compile", Kind::Bool, Group::Training),
    #[cfg(feature = "full")]
    choice_field!("kbit_upcast", Training: "", "true", "false"),
    // RL post-training (part `rl`): shown once an algorithm is chosen.
    #[cfg(feature = "full")]
    choice_field!("rl", Training: "", "grpo", "ppo", "dpo"),
    #[cfg(feature = "full")]
    choice_field!("rollout", Training: "", "colocate", "server", "hf"),
    #[cfg(feature = "full")]
    Field::new("num_generations", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("max_completion_length", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("rl_beta", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    choice_field!("ref_model", Training: "", "true", "false"),
    #[cfg(feature = "full")]
    Field::new(
        "rollout_memory_utilization",
        Kind::OptNumber,
        Group::Training,
    ),
    #[cfg(feature = "full")]
    choice_field!("sleep_mode", Training: "", "true", "false"),
    // Sharding: FSDP, DeepSpeed's buffers, Megatron.
    #[cfg(feature = "full")]
    Field::new("fsdp_version", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    choice_field!("reshard_after_forward", Training: "", "true", "false"),
    #[cfg(feature = "full")]
    choice_field!("reduce_dtype", Training: "", "fp32", "bf16", "fp16"),
    #[cfg(feature = "full")]
    Field::new("reduce_bucket_size", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("allgather_bucket_size", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new(
        "stage3_prefetch_bucket_size",
        Kind::OptNumber,
        Group::Training,
    ),
    #[cfg(feature = "full")]
    Field::new(
        "stage3_max_live_parameters",
        Kind::OptNumber,
        Group::Training,
    ),
    #[cfg(feature = "full")]
    Field::new(
        "stage3_param_persistence_threshold",
        Kind::OptNumber,
        Group::Training,
    ),
    #[cfg(feature = "full")]
    choice_field!("overlap_comm", Training: "", "true", "false"),
    #[cfg(feature = "full")]
    Field::new("vp", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("sequence_parallel", Kind::Bool, Group::Training),
    #[cfg(feature = "full")]
    Field::new("cp", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("distributed_optimizer", Kind::Bool, Group::Training),
    #[cfg(feature = "full")]
    choice_field!("recompute_method", Training: "", "uniform", "block"),
    #[cfg(feature = "full")]
    Field::new("recompute_num_layers", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("galore_rank", Kind::OptNumber, Group::Training),
    #[cfg(feature = "full")]
    Field::new("grad_accum", Kind::OptNumber, Group::Training),
    Field::new("gpu_memory_utilization", Kind::Number, Group::Serving),
    Field::new("mem_fraction_static", Kind::OptNumber, Group::Serving),
    Field::new("free_gpu_memory_fraction", Kind::OptNumber, Group::Serving),
    Field::new("max_kv_size", Kind::OptNumber, Group::Serving),
    Field::new("kv_bits", Kind::OptNumber, Group::Serving),
    Field::new("kv_group_size", Kind::OptNumber, Group::Serving),
    Field::new("quantized_kv_start", Kind::OptNumber, Group::Serving),
    Field::new("wired_limit_mb", Kind::OptNumber, Group::Serving),
    Field::new("cuda_graph_max_bs", Kind::OptNumber, Group::Serving),
    Field::new("max_model_len", Kind::OptNumber, Group::Serving),
    Field::new("max_num_seqs", Kind::OptNumber, Group::Serving),
    Field::new("max_num_batched_tokens", Kind::OptNumber, Group::Serving),
    Field::new("cuda_graphs", Kind::Bool, Group::Serving),
    Field::new("gpu_layers", Kind::OptNumber, Group::Serving),
    Field::new("n_cpu_moe", Kind::OptNumber, Group::Serving),
    choice_field!("kv_unified", Serving: "", "true", "false"),
    Field::new("kv_unified_per_slot", Kind::OptNumber, Group::Serving),
    Field::new("host_memory", Kind::Text, Group::Serving),
    Field::new("host_bandwidth", Kind::Text, Group::Serving),
    Field::new("engine_version", Kind::Text, Group::Serving),
    Field::new("enable_lora", Kind::Bool, Group::Serving),
    Field::new("max_loras", Kind::OptNumber, Group::Serving),
    Field::new("max_lora_rank", Kind::OptNumber, Group::Serving),
    Field::new("max_cpu_loras", Kind::OptNumber, Group::Serving),
    Field::new("kv_offloading_size", Kind::OptNumber, Group::Serving),
    choice_field!("kv_offloading_backend", Serving: "", "native", "lmcache"),
    choice_field!("runner", Serving: "", "generate", "pooling"),
    choice_field!("speculative_method", Serving: "", "ngram", "draft_model", "eagle", "eagle3", "mtp"),
    Field::new("draft_model", Kind::Text, Group::Serving),
    Field::new("num_speculative_tokens", Kind::OptNumber, Group::Serving),
    Field::new("acceptance_rate", Kind::OptNumber, Group::Serving),
    Field::new("ubatch", Kind::Number, Group::Serving),
    Field::new("tensor_split", Kind::Text, Group::Serving),
    choice_field!("split_mode", Serving: "layer", "none", "row"),
    Field::new("main_gpu", Kind::Number, Group::Serving),
    Field::new("gpu", Kind::Text, Group::Hardware),
    Field::new("cards", Kind::Text, Group::Hardware),
    Field::new("gpu_memory", Kind::Text, Group::Hardware),
    Field::new("memory_in_use", Kind::Text, Group::Hardware),
    Field::new("gpus", Kind::OptNumber, Group::Hardware),
    Field::new("tp", Kind::Number, Group::Hardware),
    Field::new("pp", Kind::Number, Group::Hardware),
    Field::new("ep", Kind::Number, Group::Hardware),
    Field::new("enable_dp_attention", Kind::Bool, Group::Serving),
    Field::new("dp_size", Kind::OptNumber, Group::Serving),
    choice_field!("disaggregation_mode", Serving: "", "prefill", "decode"),
    choice_field!("disaggregation_transfer_backend", Serving: "", "mooncake", "nixl"),
    Field::new(
        "num_reserved_decode_tokens",
        Kind::OptNumber,
        Group::Serving,
    ),
    Field::new("gpus_per_node", Kind::OptNumber, Group::Hardware),
    Field::new("node_link", Kind::Text, Group::Hardware),
    choice_field!("attention", Advanced: "sdpa", "flash", "eager"),
    choice_field!("logits", Advanced: "last", "all"),
];

/// The field named `key`.
pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// The default of `key`, if it is a field.
pub fn default_of(key: &str) -> Option<&'static str> {
    field(key).map(Field::default)
}

/// The defaults as text: the estimator's `EstimateInput::default()`, plus the site's model.
fn defaults() -> &'static [(&'static str, String)] {
    static D: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    D.get_or_init(|| texts::input_texts(&EstimateInput::default()))
}

/// The text of every form field for the estimator's input `d`, by key (the site's model where
/// `d` names none): what the form shows for `d`.
pub fn form_texts(d: &EstimateInput) -> Vec<(&'static str, String)> {
    texts::input_texts(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vramfit::estimate::ModelInput;

    /// Every label, hint and choice of the form names its own row, and every row of the form's
    /// (`f.`, `h.`, `v.`) is some field's: a choice whose value is misspelt in its row would
    /// show the bare value.
    #[test]
    fn the_forms_texts_are_its_rows() {
        let mut named = Vec::new();
        for f in FIELDS {
            assert_eq!(f.label.name(), format!("f.{}", f.key));
            named.push(f.label.name());
            if let Some(h) = f.hint {
                assert_eq!(h.name(), format!("h.{}", f.key));
                named.push(h.name());
            }
            if let Kind::Choice(values) = f.kind {
                for (v, label) in values {
                    if let Some(l) = label {
                        assert_eq!(l.name(), format!("v.{}.{v}", f.key));
                        named.push(l.name());
                    }
                }
            }
        }
        named.sort_unstable();
        // The training fields' rows are in the full build's table (the calculator builds have
        // no training fields; their own rows not being in `TEXT` does not compile there).
        let mut rows: Vec<&str> = crate::i18n::TEXT_KEYS
            .iter()
            .chain(crate::i18n::VIEW_KEYS)
            .copied()
            .filter(|k| ["f.", "h.", "v."].iter().any(|p| k.starts_with(p)))
            .collect();
        rows.sort_unstable();
        assert_eq!(named, rows);
        assert!(rows.len() > 70, "{}", rows.len());
        // Where a value is a word with no row, the form shows it as it is.
        assert!(
            QUANTIZATIONS
                .iter()
                .any(|c| c.0 == "gguf-q4_k_m" && c.1.is_none())
        );
    }

    /// The fields the calculator builds leave out are the training group's, every one.
    #[test]
    #[cfg(feature = "full")]
    fn the_training_keys_are_the_training_fields() {
        let fields: Vec<&str> = FIELDS
            .iter()
            .filter(|f| f.group == Group::Training)
            .map(|f| f.key)
            .collect();
        assert_eq!(fields, TRAINING_KEYS);
    }

    /// The fields of the form that are no field of the estimator's input, and why.
    #[cfg(feature = "full")]
    const SITE_ONLY: &[(&str, &str)] = &[
        // Where the model comes from (preset, count, config.json, hub): it decides which of
        // `model`, `params` and `arch` the input gets.
        ("source", "the form's choice of model source"),
    ];
    /// The estimator's fields that are no field of the form, and why.
    #[cfg(feature = "full")]
    const NOT_IN_FORM: &[(&str, &str)] = &[
        // An architecture is not typed: `to_input` sets it from the config.json, weights file
        // or hub model of the `source` (carried in the URL as the extra key `config`).
        (
            "arch",
            "read from a config.json, weights file or hub lookup",
        ),
        // The checkpoint's own dtype comes with the architecture; the form's dtype is the run's.
        (
            "checkpoint_dtype",
            "read with the architecture from a config.json, weights file or hub lookup",
        ),
    ];

    /// Every field of `EstimateInput` is a field of the form (or excluded, with its reason),
    /// and every field of the form but the site's own is one of the input's.
    #[test]
    #[cfg(feature = "full")]
    fn every_input_field_is_a_form_field() {
        let fields = crate::input_fields::input_fields();
        for field in fields {
            let excluded = NOT_IN_FORM.iter().any(|(f, _)| f == field);
            assert!(
                excluded != super::field(field).is_some(),
                "`{field}`: {}",
                if excluded {
                    "excluded from the form, yet a field of it"
                } else {
                    "a field of EstimateInput missing from the form's FIELDS"
                }
            );
        }
        for f in FIELDS {
            assert!(
                fields.contains(&f.key) || SITE_ONLY.iter().any(|(k, _)| *k == f.key),
                "the form's field `{}` is no field of EstimateInput",
                f.key
            );
        }
    }

    /// `texts::input_texts` gives every field of the form its text, and nothing else.
    #[test]
    fn every_form_field_has_its_default_text() {
        let mut texts: Vec<&str> = defaults().iter().map(|(k, _)| *k).collect();
        let mut keys: Vec<&str> = FIELDS.iter().map(|f| f.key).collect();
        texts.sort_unstable();
        keys.sort_unstable();
        assert_eq!(texts, keys);
    }

    pub(super) fn defaults_only(k: &str) -> String {
        default_of(k).unwrap_or("").to_string()
    }

    #[test]
    fn defaults_are_the_estimators() {
        assert_eq!(default_of("batch"), Some("1"));
        assert_eq!(default_of("seq_len"), Some("2048"));
        assert_eq!(default_of("mode"), Some("inference"));
        assert_eq!(default_of("quantization"), Some("none"));
        assert_eq!(default_of("gpu_memory_utilization"), Some("0.9"));
        assert_eq!(default_of("cuda_graphs"), Some("true"));
        assert_eq!(default_of("max_model_len"), Some(""));
        for f in FIELDS {
            assert!(
                f.accepts(f.default()),
                "{}: default {:?} not accepted",
                f.key,
                f.default()
            );
        }
    }

    #[test]
    fn default_form_is_the_default_input_with_the_default_model() {
        let input = to_input(&defaults_only, None).unwrap();
        let expected = EstimateInput {
            model: ModelInput {
                model: Some(DEFAULT_MODEL.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(input, expected);
        assert!(vramfit::estimate::estimate(&input).is_ok());
    }

    #[test]
    fn defaults_read_as_the_json_input_writes_them() {
        use serde_json::Value;
        let json = serde_json::to_value(EstimateInput::default()).unwrap();
        // The site's own defaults (its model) and the fields written as objects or lists.
        let own = [
            "source",
            "model",
            "params",
            "quantization",
            "lora_targets",
            "cards",
            "tensor_split",
        ];
        for f in FIELDS.iter().filter(|f| !own.contains(&f.key)) {
            let written = match &json[f.key] {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                Value::Number(n) => match n.as_f64().unwrap() {
                    x if x == x.trunc() => format!("{}", x as i64),
                    x => format!("{x}"),
                },
                v => v.to_string(),
            };
            assert_eq!(f.default(), written, "{}", f.key);
        }
    }
}
