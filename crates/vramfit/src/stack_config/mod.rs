//! A fine-tuning stack's own config file, read into an [`EstimateInput`]: Hugging Face
//! `TrainingArguments` and TRL's configs (JSON or YAML), DeepSpeed's JSON, torchtune recipes,
//! LLaMA-Factory and axolotl YAML, accelerate's config. Each key is read as the stack spells it,
//! an absent key takes the stack's own default (cited where it is read), and every key the
//! estimate does not use is listed as not read, with its line; a value of the wrong kind is an
//! error naming the key and its line.
//!
//! No I/O: a file that names another (a DeepSpeed JSON named by a Trainer config) is listed in
//! [`ReadConfig::files`] for the caller to read with [`read_training_config`] too.

mod accelerate;
mod axolotl;
mod deepspeed;
mod fsdp;
#[cfg(test)]
mod keys_tests;
mod llamafactory;
mod names;
#[cfg(test)]
mod read_as_tests;
#[cfg(test)]
mod reduce_dtype_tests;
mod rl;
#[cfg(test)]
mod tests;
mod torchtune;
#[cfg(test)]
mod torchtune_tests;
mod trainer;
mod tree;
mod verl;

use alloc::string::String;
use alloc::vec::Vec;

use crate::diagnose::Text;
use crate::error::Result;
use crate::estimate::RunInput;
use crate::estimate::{EstimateInput, Mode};
use tree::{Map, Used};

/// Which stack's file a config is, as recognised from its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum ConfigFormat {
    /// Hugging Face `TrainingArguments` as JSON or YAML (`per_device_train_batch_size`, `optim`…).
    Trainer,
    /// TRL's `SFTConfig` (with its `ModelConfig` keys: `use_peft`, `lora_r`…), as `trl sft
    /// --config` reads it: TRL's defaults (gradient checkpointing and bf16 on).
    Trl,
    /// A DeepSpeed config JSON (`zero_optimization`, `train_micro_batch_size_per_gpu`).
    Deepspeed,
    /// A torchtune recipe config (`model: {_component_: …}`).
    Torchtune,
    /// A LLaMA-Factory training YAML (`stage`, `finetuning_type`, `cutoff_len`).
    Llamafactory,
    /// An axolotl YAML (`base_model`, `micro_batch_size`, `sequence_len`).
    Axolotl,
    /// An accelerate config YAML (`distributed_type`, `fsdp_config`, `num_processes`).
    Accelerate,
    /// A verl trainer config (`actor_rollout_ref`, `data`, `algorithm`, `trainer`).
    Verl,
}

/// Another file a config names, for the caller to read as well.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NamedFile {
    /// The key that names it (`deepspeed`).
    pub key: String,
    /// The path as written.
    pub path: String,
}

/// A training config read.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReadConfig {
    /// The input given, with the file's settings and its stack's defaults applied (mode
    /// training).
    pub input: EstimateInput,
    /// Which stack's file it is.
    pub format: ConfigFormat,
    /// The keys that set nothing the estimate counts, as `path (line N)`: a mapping no key of
    /// which is read is listed once.
    pub not_read: Vec<String>,
    /// What the reading assumed where the file does not say (the stack's defaults it took).
    pub assumed: Vec<Text>,
    /// Files it names that hold more of the run (a DeepSpeed JSON), to read too.
    pub files: Vec<NamedFile>,
}

/// What a stack's reader writes into: the input and what it assumed and found.
pub(crate) struct Reading {
    pub(crate) input: EstimateInput,
    pub(crate) assumed: Vec<Text>,
    pub(crate) files: Vec<NamedFile>,
}

impl Reading {
    /// The model the file names, in place of the input's (a command line's `--model` is put
    /// back by the CLI, which knows it was given).
    fn set_model(&mut self, id: String) {
        self.input.model.model = Some(id);
        self.input.model.params = None;
        self.input.model.arch = None;
    }

    /// A file the config names under `key`, for the caller to read after it.
    fn name_file(&mut self, key: &str, path: String) {
        self.files.push(NamedFile {
            key: key.into(),
            path,
        });
    }

    /// The optimizer under `key`, a Hugging Face `optim` name; transformers 5.25's default
    /// (`adamw_torch_fused`, with torch 2.8 or later) when absent, which axolotl and
    /// LLaMA-Factory keep.
    fn hf_optimizer(&mut self, m: &tree::Map<'_>, key: &str) -> Result<()> {
        let o = names::read_hf_optim(m, key)?.unwrap_or(names::Optim {
            optimizer: crate::estimate::Optimizer::Adamw,
            fused: true,
        });
        self.input.training.optimizer = o.optimizer;
        self.input.training.fused_optimizer = o.fused;
        Ok(())
    }

    fn assume(&mut self, en: impl Into<String>, zh: impl Into<String>) {
        self.assumed.push(Text {
            en: en.into(),
            zh: zh.into(),
        });
    }
}

/// Reads `text`, a stack's config (JSON or YAML), onto `input`: the keys it sets replace
/// `input`'s, the rest stays.
pub fn read_training_config(text: &str, input: EstimateInput) -> Result<ReadConfig> {
    read(text, None, input)
}

/// Reads `text` as `format`'s file whatever its keys: [`read_training_config`] with the stack
/// named rather than recognised, so that each reader can be driven alone (its fuzz target).
pub fn read_training_config_as(
    text: &str,
    format: ConfigFormat,
    input: EstimateInput,
) -> Result<ReadConfig> {
    read(text, Some(format), input)
}

fn read(text: &str, format: Option<ConfigFormat>, input: EstimateInput) -> Result<ReadConfig> {
    let root = tree::parse(text)?;
    let used = Used::default();
    let top = Map::root(&root, &used);
    let format = match format {
        Some(f) => f,
        None => recognise(&top)?,
    };
    let mut r = Reading {
        input: EstimateInput {
            run: RunInput {
                mode: Mode::Training,
                ..input.run
            },
            ..input
        },
        assumed: Vec::new(),
        files: Vec::new(),
    };
    match format {
        ConfigFormat::Trainer => trainer::read(&top, &mut r, false)?,
        ConfigFormat::Trl => trainer::read(&top, &mut r, true)?,
        ConfigFormat::Deepspeed => deepspeed::read(&top, &mut r)?,
        ConfigFormat::Torchtune => torchtune::read(&top, &mut r)?,
        ConfigFormat::Llamafactory => llamafactory::read(&top, &mut r)?,
        ConfigFormat::Axolotl => axolotl::read(&top, &mut r)?,
        ConfigFormat::Accelerate => accelerate::read(&top, &mut r)?,
        ConfigFormat::Verl => verl::read(&top, &mut r)?,
    }
    Ok(ReadConfig {
        input: r.input,
        format,
        not_read: tree::not_read(&root, &used),
        assumed: r.assumed,
        files: r.files,
    })
}

/// TRL's keys beside `TrainingArguments`' (its `SFTConfig`, `ModelConfig`, `ScriptArguments`).
const TRL_KEYS: [&str; 14] = [
    "max_length",
    "max_seq_length",
    "packing",
    "padding_free",
    "dataset_text_field",
    "dataset_name",
    "use_peft",
    "lora_r",
    "lora_target_modules",
    "load_in_4bit",
    "model_init_kwargs",
    "completion_only_loss",
    "assistant_only_loss",
    "activation_offloading",
];

/// The stack whose keys the file has.
fn recognise(top: &Map<'_>) -> Result<ConfigFormat> {
    let any = |keys: &[&str]| keys.iter().any(|k| top.has(k));
    let format = if any(&["zero_optimization", "train_micro_batch_size_per_gpu"]) {
        ConfigFormat::Deepspeed
    } else if top.has("actor_rollout_ref") {
        ConfigFormat::Verl
    } else if any(&["distributed_type", "compute_environment"]) {
        ConfigFormat::Accelerate
    } else if torchtune::is_recipe(top) {
        ConfigFormat::Torchtune
    } else if any(&["finetuning_type", "cutoff_len", "lora_target", "stage"]) {
        ConfigFormat::Llamafactory
    } else if any(&["base_model", "micro_batch_size", "sequence_len", "adapter"]) {
        ConfigFormat::Axolotl
    } else if any(&TRL_KEYS) || top.has("model_name_or_path") {
        ConfigFormat::Trl
    } else if any(&[
        "per_device_train_batch_size",
        "output_dir",
        "optim",
        "gradient_checkpointing",
        "bf16",
        "fp16",
    ]) {
        ConfigFormat::Trainer
    } else {
        return Err(crate::input_error!(
            Unsupported,
            "config",
            "no key of a training config vramfit reads",
            "没有 vramfit 能读的训练配置键",
            "a Hugging Face TrainingArguments or TRL config, a DeepSpeed JSON, a torchtune recipe, a LLaMA-Factory or axolotl YAML, an accelerate config or a verl config",
            "Hugging Face TrainingArguments 或 TRL 配置、DeepSpeed JSON、torchtune 配方、LLaMA-Factory 或 axolotl YAML、accelerate 配置、verl 配置",
        ));
    };
    Ok(format)
}
