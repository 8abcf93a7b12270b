//! The model: the preset, Ollama library name, parameter count or config.json it is given as,
//! and the formats its weights are loaded in (the dtype, the quantization, QLoRA's NF4, what the
//! engine loads).

use super::checks::engine_formats;
use super::{ModelLookup, int};
use crate::error::{ErrorKind, InputError, Result};
use crate::estimate::{EstimateInput, Mode, is_ollama_name, resolve_ollama_name};
use crate::model::Architecture;
use crate::precision::{Dtype, GgufFileType, Quantization};
use crate::units::parse_params;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The error for a `model` that names no preset: what it accepts, with the presets whose id or
/// name has its words (`mixtral` → `mistralai/Mixtral-8x7B-Instruct-v0.1`; see
/// `crate::words::named_by`), at most five of them.
fn no_preset(id: &str) -> InputError {
    const SHOWN: usize = 5;
    let near: Vec<&str> = crate::words::named_by(id, crate::presets::presets(), |p| [p.id, p.name])
        .into_iter()
        .map(|p| p.id)
        .collect();
    if near.is_empty() {
        // Words for every front end (the CLI adds where to list the presets).
        return input_error!(
            UnknownModel,
            "model",
            ["no preset named `{id}`"],
            ["没有这个预设模型：`{id}`"],
            "a preset id such as meta-llama/Llama-3.1-8B, a config.json, or a bare parameter count (params, e.g. 7B)",
            "预设模型 id（如 meta-llama/Llama-3.1-8B）、一个 config.json，或单独的参数量（params，如 7B）",
        );
    }
    let shown = near[..near.len().min(SHOWN)].join(", ");
    let more = near.len().saturating_sub(SHOWN);
    input_error!(
        UnknownModel,
        "model",
        ["no preset named `{id}`"],
        ["没有这个预设模型：`{id}`"],
        [
            "a preset id; these have its words: {shown}{}",
            if more > 0 {
                format!(", and {more} more")
            } else {
                String::new()
            }
        ],
        [
            "预设模型 id；含这些词的有：{shown}{}",
            if more > 0 {
                format!("，以及另外 {more} 个")
            } else {
                String::new()
            }
        ],
    )
}

/// The error for a `model` that names no preset, or an Ollama library name given to another
/// engine: what it names, and how to run it.
fn not_a_preset(id: &str) -> InputError {
    match resolve_ollama_name("model", id) {
        Ok(n) => {
            let (preset, ft) = (n.tag.preset, n.file_type.name());
            input_error!(
                Unsupported,
                "model",
                ["`{id}` is an Ollama library name"],
                ["`{id}` 是 Ollama 模型库中的名称"],
                [
                    "engine ollama with it, or the preset {preset} (with llama.cpp: quantization gguf-{ft})"
                ],
                ["配引擎 ollama 使用；或用预设模型 {preset}（llama.cpp 下量化为 gguf-{ft}）"],
            )
        }
        Err(_) => no_preset(id),
    }
}

/// The model as given.
pub(super) struct Model {
    /// Its name as given (`config.json` for an architecture).
    pub(super) name: String,
    /// The preset's dtype, when a preset names it.
    pub(super) preset_dtype: Option<Dtype>,
    /// The architecture (opaque for a bare parameter count).
    pub(super) arch: Architecture,
    /// The format its weights ship in.
    pub(super) shipped: Quantization,
    /// Ollama's GGUF architecture of a library model (`llama` otherwise).
    pub(super) ollama_arch: &'static str,
    /// Ollama's tag a preset runs as (`qwen3:32b`), when given the preset's id.
    pub(super) ollama_tag: Option<String>,
}

/// Ollama's default tag of the preset `id` names, if its library has one.
fn library_tag(id: &str) -> Option<crate::estimate::OllamaName> {
    crate::presets::find(id).and_then(|p| crate::estimate::default_tag_of(p.id))
}

/// The formats the model is loaded in.
pub(super) struct Loaded {
    /// The dtype asked for or the preset's, before an engine's `auto` changes it.
    pub(super) dtype: Dtype,
    /// The weight format counted.
    pub(super) quantization: Quantization,
    /// The GGUF file type PyTorch dequantizes on load, if it does.
    pub(super) gguf_dequantized: Option<GgufFileType>,
    /// The LoRA rank as given (0: full).
    pub(super) lora_rank: u64,
    /// QLoRA.
    pub(super) qlora: bool,
}

impl EstimateInput {
    /// Exactly one of `model`, `params` and `arch`, resolved to an architecture.
    pub(super) fn resolve_model(&self, models: ModelLookup<'_>) -> Result<Model> {
        let sources = self.model.model.is_some() as u8
            + self.model.params.is_some() as u8
            + self.model.arch.is_some() as u8;
        if sources != 1 {
            let none = sources == 0;
            return Err(input_error!(
                [= if none { ErrorKind::Missing } else { ErrorKind::Conflict }],
                "model",
                [= if none { "no model given" } else { "more than one model given" }],
                [= if none { "没有给出模型" } else { "给出了不止一个模型" }],
                "exactly one of: model (a preset id), params (e.g. 7B), arch (a config.json)",
                "以下恰好一项：model（预设模型 id）、params（如 7B）、arch（一个 config.json）",
            ));
        }
        let mut ollama_arch = "llama";
        let mut ollama_tag = None;
        let library_names = self.run.engine.program().rules().library_names;
        let (model_name, preset_dtype, arch, shipped) = if let Some(id) = &self.model.model {
            let id = id.trim();
            // With Ollama, a library name (`llama3.1:8b`) names a preset and a GGUF file type; a
            // name it does not know may still be a preset's.
            let ollama =
                (library_names && is_ollama_name(id)).then(|| resolve_ollama_name("model", id));
            // Matched on the library name first, then on the preset: the architecture goes
            // from the lookup into the model without a pair of the two answers between them.
            match ollama {
                Some(Ok(n)) => {
                    let Some((dtype, arch, _)) = models(n.tag.preset) else {
                        return Err(no_preset(n.tag.preset));
                    };
                    ollama_arch = n.model.gguf_arch;
                    let q = Quantization::Gguf {
                        file_type: n.file_type,
                    };
                    (id.to_string(), Some(dtype), arch, q)
                }
                // With Ollama, a preset runs as Ollama's default tag of it (`qwen3:32b`, Q4_K_M
                // for `Qwen/Qwen3-32B`): what `ollama run` pulls, not the 16-bit checkpoint.
                // Another engine's run looks up no library tag (a second preset search).
                ollama => match models(id) {
                    Some((dtype, arch, shipped)) => match library_names.then(|| library_tag(id)) {
                        Some(Some(n)) => {
                            ollama_arch = n.model.gguf_arch;
                            // A file type asked for is the run's ([`Self::resolve_formats`]).
                            if self.model.quantization == Quantization::None {
                                ollama_tag =
                                    Some(alloc::format!("{}:{}", n.model.name, n.tag.size));
                            }
                            let q = Quantization::Gguf {
                                file_type: n.file_type,
                            };
                            (id.to_string(), Some(dtype), arch, q)
                        }
                        _ => (id.to_string(), Some(dtype), arch, shipped),
                    },
                    None => {
                        return Err(match ollama {
                            Some(Err(e)) => e,
                            _ => not_a_preset(id),
                        });
                    }
                },
            }
        } else if let Some(p) = &self.model.params {
            let n = parse_params("params", p)?;
            (
                p.trim().to_string(),
                None,
                Architecture::opaque(n),
                Quantization::None,
            )
        } else {
            let a = self.model.arch.unwrap_or_default();
            (String::from("config.json"), None, a, Quantization::None)
        };
        arch.validate("model")?;
        Ok(Model {
            name: model_name,
            preset_dtype,
            arch,
            shipped,
            ollama_arch,
            ollama_tag,
        })
    }

    /// The dtype, the quantization (a checkpoint's own, or QLoRA's NF4) and what the engine
    /// loads and caches, with the LoRA rank QLoRA needs.
    pub(super) fn resolve_formats(&self, model: &Model) -> Result<Loaded> {
        let (arch, preset_dtype, shipped, mode) = (
            &model.arch,
            model.preset_dtype,
            model.shipped,
            self.run.mode,
        );
        // The checkpoint's own dtype: a preset's, else the one its config.json gave
        // (`checkpoint_dtype`), which the engine's `auto` resolves from ([`Self::run_dtype`]).
        let own = preset_dtype.or(self.model.checkpoint_dtype);
        if let (None, Some(Dtype::Int8 | Dtype::Int4), true) = (
            preset_dtype,
            self.model.checkpoint_dtype,
            arch.is_detailed(),
        ) {
            return Err(input_error!(
                Unsupported,
                "checkpoint_dtype",
                "int8/int4 are storage formats, not a checkpoint's compute dtype",
                "int8/int4 是存储格式，不是检查点的计算数据类型",
                "fp32, fp16 or bf16 (a quantized checkpoint names its format in quantization)",
                "fp32、fp16 或 bf16（量化检查点在 quantization 中写明其格式）",
            ));
        }
        let dtype = match (self.run.dtype, own) {
            (Some(Dtype::Int8 | Dtype::Int4), _) if arch.is_detailed() => {
                return Err(input_error!(
                    Unsupported,
                    "dtype",
                    "int8/int4 are storage formats, not compute dtypes",
                    "int8/int4 是存储格式，不是计算数据类型",
                    "fp32, fp16, bf16 (use --quantization for int8/int4 formats such as gptq, awq, bnb-int8, bnb-nf4)",
                    "fp32、fp16、bf16（int8/int4 格式，如 gptq、awq、bnb-int8、bnb-nf4，请在“量化”中选择）",
                ));
            }
            (Some(d), _) => d,
            (None, Some(d)) => d,
            (None, None) => Dtype::Bf16,
        };
        self.model.quantization.validate("quantization")?;
        let lora_rank = int("lora_rank", self.training.lora_rank, 0, 65_536)?;
        let qlora = self.training.qlora;
        if qlora && lora_rank == 0 && mode == Mode::Training {
            return Err(input_error!(
                Missing,
                "lora_rank",
                "QLoRA needs a LoRA rank",
                "QLoRA 需要 LoRA 秩",
                "an integer from 1 to 65536 with qlora",
                "启用 qlora 时为 1 到 65536 的整数",
            ));
        }
        // A checkpoint released quantized (gpt-oss in MXFP4, DeepSeek-V3 in FP8) is estimated as it
        // ships unless another format is asked for.
        let mut quantization = if self.model.quantization == Quantization::None {
            shipped
        } else {
            self.model.quantization
        };
        if qlora {
            // QLoRA quantizes a 16-bit base to NF4 itself; a checkpoint already in another format
            // (GPTQ, AWQ, GGUF…) is not what it loads.
            if mode == Mode::Training
                && !matches!(
                    self.model.quantization,
                    Quantization::None | Quantization::BnbNf4 { .. } | Quantization::TorchaoNf4
                )
            {
                return Err(input_error!(
                    Unsupported,
                    "quantization",
                    [
                        "QLoRA loads the base in 4-bit NF4, not {}",
                        self.model.quantization.name()
                    ],
                    [
                        "QLoRA 以 4 位 NF4 加载基座模型，不加载 {}",
                        self.model.quantization.name()
                    ],
                    "none, bnb-nf4 or torchao-nf4 with qlora (QLoRA quantizes the 16-bit base itself)",
                    "启用 qlora 时为 none、bnb-nf4 或 torchao-nf4（QLoRA 自己把 16 位的基座量化）",
                ));
            }
            // NF4 with double quantization unless the user named NF4 without it (TRL's
            // `use_bnb_nested_quant` is off by default: 0.5 bits of scales per weight, not 0.127).
            quantization = match self.model.quantization {
                Quantization::BnbNf4 { double_quant } => Quantization::BnbNf4 { double_quant },
                // torchtune's QLoRA: torchao's NF4Tensor.
                Quantization::TorchaoNf4 => Quantization::TorchaoNf4,
                _ => Quantization::BnbNf4 { double_quant: true },
            };
        }
        let (quantization, gguf_dequantized) = engine_formats(self, quantization)?;
        Ok(Loaded {
            dtype,
            quantization,
            gguf_dequantized,
            lora_rank,
            qlora,
        })
    }
}
