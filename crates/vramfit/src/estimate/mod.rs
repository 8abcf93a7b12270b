//! The estimator: every byte of a training, inference or serving run, per GPU.
//!
//! [`EstimateInput`] is plain data (the CLI's flags, the npm package's object, the site's URL
//! state). [`EstimateInput::resolve`] validates it once into a [`Workload`], naming the field and
//! the accepted range on failure; [`Workload::estimate`] then cannot fail.

// Built with no language (the `no_std` check), the values computed only for the formulas' text
// go unused: see `Formula`.
#![cfg_attr(
    not(any(feature = "en", feature = "zh")),
    allow(unused_variables, unused_mut, unused_assignments)
)]

/// A note's text in one language: `format!(…)` (or the bare literal, as a `&str`, with `str`)
/// when the crate is built with that language's feature, an empty string without it, so that
/// the text and its formatting code are in no module built so (the site's calculator in the
/// other language). The arguments are used either way. The formulas are written in both
/// languages too ([`formula!`]), and so are the input errors (`input_error!`).
macro_rules! note_text {
    ($lang:tt, str $text:literal) => {
        if cfg!(feature = $lang) { $text } else { "" }
    };
    ($lang:tt, $($arg:tt)*) => {
        if cfg!(feature = $lang) {
            format!($($arg)*)
        } else {
            String::new()
        }
    };
}

/// A Chinese note ([`note_text!`] under feature `zh`).
macro_rules! zh {
    ($($arg:tt)*) => { note_text!("zh", $($arg)*) };
}

/// A Chinese note without numbers, as a `&str`.
macro_rules! zh_str {
    ($text:literal) => { note_text!("zh", str $text) };
}

/// An English note ([`note_text!`] under feature `en`).
macro_rules! en {
    ($($arg:tt)*) => { note_text!("en", $($arg)*) };
}

/// An English note without numbers, as a `&str`.
macro_rules! en_str {
    ($text:literal) => { note_text!("en", str $text) };
}

/// A [`Formula`] from one `format!` per language: `formula!(["…", args], ["…", args])`. Each
/// side, its arguments included, is compiled only under its language's feature, so that a
/// module in one language neither holds nor computes the other's text. The arguments are
/// written on both sides rather than computed once before: hoisted into `let`s, the quick
/// estimate's measured 0.2 KB larger in each calculator build (2026-12-02), where only one
/// side exists; a build with both languages computes them twice, a few microseconds.
///
/// `formula!(text "…", "…")`: two literals without arguments, copied as they are.
macro_rules! formula {
    (text $en:literal, $zh:literal) => {
        Formula {
            #[cfg(feature = "en")]
            en: String::from($en),
            #[cfg(feature = "zh")]
            zh: String::from($zh),
        }
    };
    ([$($en:tt)*], [$($zh:tt)*]) => {
        Formula {
            #[cfg(feature = "en")]
            en: format!($($en)*),
            #[cfg(feature = "zh")]
            zh: format!($($zh)*),
        }
    };
}

mod activations;
#[cfg(test)]
mod formula_zh;
mod quick;
mod solve;
mod weights;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

pub use activations::{Kernel, Trainable, role_bit};
pub use quick::{Quick, guide_bytes_per_param, m_rec};
pub use solve::{
    Solutions, context_bound, fewest_gpus, largest_batch, largest_context, layout_required_bytes,
    solve,
};
pub use weights::{gguf_type, per_gpu_weight_bytes, tensor_bytes};

use crate::error::{InputError, Result};
use crate::model::{Architecture, Family, Role};
use crate::precision::{Dtype, GgufFileType, KvDtype, Quantization};
use crate::units::{Bytes, GIB, MIB, fixed, parse_params, parse_size, short};

/// What the run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Mode {
    /// Generate with a batch of prompts (Hugging Face `generate`, or llama.cpp).
    #[default]
    Inference,
    /// Serve many concurrent sequences from a preallocated KV pool (vLLM).
    Serve,
    /// Train or fine-tune.
    Training,
}

deserialize_by_name!(Mode {
    "inference" => Mode::Inference,
    "serve" => Mode::Serve,
    "training" => Mode::Training,
});

/// The inference engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Engine {
    /// Hugging Face transformers on PyTorch.
    #[default]
    Hf,
    /// vLLM.
    Vllm,
    /// llama.cpp.
    Llamacpp,
}

deserialize_by_name!(Engine {
    "hf" => Engine::Hf,
    "vllm" => Engine::Vllm,
    "llamacpp" => Engine::Llamacpp,
});

/// The optimizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "kebab-case")
)]
pub enum Optimizer {
    /// AdamW: two moments per parameter.
    #[default]
    Adamw,
    /// bitsandbytes 8-bit AdamW: two 1-byte blockwise-quantized moments.
    #[cfg_attr(feature = "serde", serde(rename = "adamw-8bit"))]
    Adamw8bit,
    /// Plain SGD: no state.
    Sgd,
    /// SGD with momentum: one state.
    SgdMomentum,
    /// Adafactor (no first moment, factored second moment).
    Adafactor,
    /// Lion: one momentum state.
    Lion,
}

deserialize_by_name!(Optimizer {
    "adamw" => Optimizer::Adamw,
    "adamw-8bit" => Optimizer::Adamw8bit,
    "sgd" => Optimizer::Sgd,
    "sgd-momentum" => Optimizer::SgdMomentum,
    "adafactor" => Optimizer::Adafactor,
    "lion" => Optimizer::Lion,
});

impl Optimizer {
    /// Every optimizer, in the order of the enum.
    pub const ALL: [Optimizer; 6] = [
        Optimizer::Adamw,
        Optimizer::Adamw8bit,
        Optimizer::Sgd,
        Optimizer::SgdMomentum,
        Optimizer::Adafactor,
        Optimizer::Lion,
    ];
}

/// The training precision regime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "kebab-case")
)]
pub enum Precision {
    /// Everything in fp32.
    Fp32,
    /// Pure fp16: weights, gradients and optimizer states in fp16.
    Fp16,
    /// Pure bf16.
    Bf16,
    /// Mixed precision with fp32 master weights, fp16 compute (autocast).
    AmpFp16,
    /// Mixed precision with fp32 master weights, bf16 compute (autocast). The default.
    #[default]
    AmpBf16,
}

deserialize_by_name!(Precision {
    "fp32" => Precision::Fp32,
    "fp16" => Precision::Fp16,
    "bf16" => Precision::Bf16,
    "amp-fp16" => Precision::AmpFp16,
    "amp-bf16" => Precision::AmpBf16,
});

impl Precision {
    /// Master weights, gradients and optimizer states are fp32.
    pub const fn fp32_master(self) -> bool {
        matches!(
            self,
            Precision::Fp32 | Precision::AmpFp16 | Precision::AmpBf16
        )
    }
    /// Bytes per element of activations.
    pub const fn act_bytes(self) -> u64 {
        match self {
            Precision::Fp32 => 4,
            _ => 2,
        }
    }
    /// Bytes per element of master weights, gradients and states.
    pub const fn state_bytes(self) -> u64 {
        if self.fp32_master() { 4 } else { 2 }
    }
}

/// Gradient checkpointing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Checkpointing {
    /// Keep every activation.
    #[default]
    None,
    /// Keep each block's input only and recompute the block in backward.
    Full,
    /// Recompute only the attention core (Korthikanti et al.): drops the `S × S` terms.
    Selective,
}

deserialize_by_name!(Checkpointing {
    "none" => Checkpointing::None,
    "full" => Checkpointing::Full,
    "selective" => Checkpointing::Selective,
});

/// Where ZeRO offloads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Offload {
    /// Nothing offloaded.
    #[default]
    None,
    /// Optimizer states (and, under ZeRO-3, parameters) in CPU memory.
    Cpu,
    /// Optimizer states (and, under ZeRO-3, parameters) on NVMe.
    Nvme,
}

deserialize_by_name!(Offload {
    "none" => Offload::None,
    "cpu" => Offload::Cpu,
    "nvme" => Offload::Nvme,
});

/// Attention implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum AttentionImpl {
    /// PyTorch SDPA (flash or memory-efficient kernel): no `S × S` matrix.
    #[default]
    Sdpa,
    /// FlashAttention-2/3.
    Flash,
    /// Eager attention: materialises the `heads × S × S` scores.
    Eager,
}

deserialize_by_name!(AttentionImpl {
    "sdpa" => AttentionImpl::Sdpa,
    "flash" => AttentionImpl::Flash,
    "eager" => AttentionImpl::Eager,
});

/// Which positions' logits are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Logits {
    /// The last position only (`generate`, `logits_to_keep = 1`).
    #[default]
    Last,
    /// Every position (scoring, perplexity).
    All,
}

deserialize_by_name!(Logits {
    "last" => Logits::Last,
    "all" => Logits::All,
});

/// The estimator's input: plain data with defaults, as the CLI, the npm package and the site
/// give it. Numbers are `f64` (JSON's and JavaScript's number) and are checked to be finite
/// integers in range by [`EstimateInput::resolve`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct EstimateInput {
    /// A preset, by Hugging Face id (case-insensitive).
    pub model: Option<String>,
    /// A bare parameter count (`7B`, `7e9`, `340M`): the guide's quick mode.
    pub params: Option<String>,
    /// An architecture, e.g. from [`crate::config::parse_config`].
    pub arch: Option<Architecture>,
    /// Inference, serve or training.
    pub mode: Mode,
    /// Inference engine.
    pub engine: Engine,
    /// Sequences per batch (training: micro-batch per GPU); serving: ignored (see `max_num_seqs`).
    pub batch: f64,
    /// Prompt tokens (training: sequence length).
    pub seq_len: f64,
    /// Generated tokens per sequence (inference).
    pub new_tokens: f64,
    /// Model dtype; the preset's checkpoint dtype when absent, else bf16.
    pub dtype: Option<Dtype>,
    /// Weight format: an object tagged by `format` (`{"format": "gptq", "bits": 4,
    /// "group_size": 128}`) or the CLI's spelling (`"gptq"`, `"gguf-q4_k_m"`).
    pub quantization: Quantization,
    /// KV-cache dtype.
    pub kv_dtype: KvDtype,
    /// Attention implementation.
    pub attention: AttentionImpl,
    /// Logits kept.
    pub logits: Logits,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// Fused optimizer step (`fused=True`): no foreach temporaries.
    pub fused_optimizer: bool,
    /// Training precision regime.
    pub precision: Precision,
    /// Gradient checkpointing.
    pub grad_checkpointing: Checkpointing,
    /// LoRA rank; 0 is full fine-tuning.
    pub lora_rank: f64,
    /// LoRA target modules (`q_proj`, `k_proj`, `v_proj`, `o_proj`, `gate_proj`, `up_proj`,
    /// `down_proj`, or `all-linear`); default `q_proj,v_proj` (PEFT's default for Llama).
    pub lora_targets: Vec<String>,
    /// QLoRA: base weights in NF4 with double quantization, LoRA adapters on top.
    pub qlora: bool,
    /// DeepSpeed ZeRO stage 0–3 (FSDP full shard is stage 3).
    pub zero: f64,
    /// ZeRO offload target.
    pub offload: Offload,
    /// GPUs in total (data × tensor × pipeline parallel).
    pub gpus: f64,
    /// Tensor-parallel size.
    pub tp: f64,
    /// Pipeline-parallel size.
    pub pp: f64,
    /// A GPU from the catalog: its id (`h200-sxm-141gb`), its name, or words that name it alone
    /// (`h200`, `4090`; see [`crate::hardware::match_gpus`]).
    pub gpu: Option<String>,
    /// GPU memory as the CUDA runtime reports it, with its unit (`79.19GiB`, `80GB`).
    pub gpu_memory: Option<String>,
    /// vLLM `gpu_memory_utilization`.
    pub gpu_memory_utilization: f64,
    /// vLLM `max_model_len`; llama.cpp context. Default: the model's `max_position_embeddings`
    /// (vLLM), `seq_len + new_tokens` (llama.cpp).
    pub max_model_len: Option<f64>,
    /// vLLM `max_num_seqs`. Default as vLLM picks it: 1024 on cards of 70 GiB or more other than
    /// A100, else 256.
    pub max_num_seqs: Option<f64>,
    /// vLLM `max_num_batched_tokens`. Default 8192 on cards of 70 GiB or more other than A100, else 2048.
    pub max_num_batched_tokens: Option<f64>,
    /// vLLM CUDA graphs (off is `enforce_eager`).
    pub cuda_graphs: bool,
    /// llama.cpp `-ngl`: layers on the GPU; default all (and the output layer).
    pub gpu_layers: Option<f64>,
    /// llama.cpp `-ub` (physical batch).
    pub ubatch: f64,
}

impl Default for EstimateInput {
    fn default() -> Self {
        EstimateInput {
            model: None,
            params: None,
            arch: None,
            mode: Mode::Inference,
            engine: Engine::Hf,
            batch: 1.0,
            seq_len: 2048.0,
            new_tokens: 256.0,
            dtype: None,
            quantization: Quantization::None,
            kv_dtype: KvDtype::Auto,
            attention: AttentionImpl::Sdpa,
            logits: Logits::Last,
            optimizer: Optimizer::Adamw,
            fused_optimizer: false,
            precision: Precision::AmpBf16,
            grad_checkpointing: Checkpointing::None,
            lora_rank: 0.0,
            lora_targets: Vec::new(),
            qlora: false,
            zero: 0.0,
            offload: Offload::None,
            gpus: 1.0,
            tp: 1.0,
            pp: 1.0,
            gpu: None,
            gpu_memory: None,
            gpu_memory_utilization: 0.9,
            max_model_len: None,
            max_num_seqs: None,
            max_num_batched_tokens: None,
            cuda_graphs: true,
            gpu_layers: None,
            ubatch: 512.0,
        }
    }
}

/// A GPU the workload runs on, as far as the estimate needs it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Device {
    /// Catalog id, or `custom`.
    pub id: String,
    /// Memory as the CUDA runtime reports it.
    pub memory: Bytes,
    /// Hopper or newer: 32 MiB cuBLAS workspaces instead of 8 MiB + 128 KiB.
    pub hopper_or_newer: bool,
    /// An A100: vLLM picks its smaller defaults for it even at 80 GB.
    pub a100: bool,
    /// Computes in bf16 (Ampere and newer): vLLM runs an fp32 checkpoint in bf16 there, in fp16
    /// elsewhere.
    pub bf16: bool,
}

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

/// A GPU lookup for [`EstimateInput::resolve_with`]: id to device.
pub type GpuLookup<'a> = &'a dyn Fn(&str) -> Option<Device>;

/// A preset lookup: id to (dtype, architecture, the format its weights ship in).
pub type ModelLookup<'a> = &'a dyn Fn(&str) -> Option<(Dtype, Architecture, Quantization)>;

/// A validated workload: every number in range, the model resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// The model's name as given.
    pub model_name: String,
    /// The architecture (opaque in quick mode).
    pub arch: Architecture,
    /// The run.
    pub mode: Mode,
    /// The engine.
    pub engine: Engine,
    /// Batch.
    pub batch: u64,
    /// Prompt / training sequence length.
    pub seq_len: u64,
    /// Generated tokens.
    pub new_tokens: u64,
    /// Model dtype.
    pub dtype: Dtype,
    /// Weight format.
    pub quantization: Quantization,
    /// KV dtype.
    pub kv_dtype: KvDtype,
    /// Attention kernel.
    pub kernel: Kernel,
    /// Logits kept.
    pub logits: Logits,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// Fused step.
    pub fused_optimizer: bool,
    /// Precision regime.
    pub precision: Precision,
    /// Checkpointing.
    pub checkpointing: Checkpointing,
    /// LoRA rank (0: full).
    pub lora_rank: u64,
    /// LoRA targets as role bits.
    pub lora_mask: u32,
    /// QLoRA.
    pub qlora: bool,
    /// ZeRO stage.
    pub zero: u8,
    /// Offload.
    pub offload: Offload,
    /// Data-parallel size (`gpus / (tp × pp)`).
    pub dp: u64,
    /// Tensor parallel.
    pub tp: u64,
    /// Pipeline parallel.
    pub pp: u64,
    /// The device, if one was named.
    pub device: Option<Device>,
    /// vLLM utilisation.
    pub gpu_memory_utilization: f64,
    /// vLLM max_model_len / llama.cpp context.
    pub max_model_len: u64,
    /// vLLM max_num_seqs.
    pub max_num_seqs: u64,
    /// vLLM max_num_batched_tokens.
    pub max_num_batched_tokens: u64,
    /// vLLM CUDA graphs.
    pub cuda_graphs: bool,
    /// llama.cpp layers on GPU (`num_layers + 1` means the output layer too).
    pub gpu_layers: u64,
    /// A GGUF file type that PyTorch (transformers, training) dequantizes on load: the weights
    /// are counted in `dtype` and the estimate says so.
    pub gguf_dequantized: Option<GgufFileType>,
    /// vLLM runs this fp32 checkpoint in `dtype` (its dtype "auto").
    pub vllm_downcast: bool,
    /// llama.cpp ubatch.
    pub ubatch: u64,
}

/// What runs the estimate, from the mode and the engine: training is PyTorch whatever the
/// engine; llama.cpp serves or infers; vLLM serves (any engine but llama.cpp) or infers;
/// transformers infers. The one place that mapping is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Runner {
    Training,
    Llamacpp,
    Vllm,
    Transformers,
}

impl Runner {
    fn of(mode: Mode, engine: Engine) -> Runner {
        match (mode, engine) {
            (Mode::Training, _) => Runner::Training,
            (_, Engine::Llamacpp) => Runner::Llamacpp,
            (Mode::Serve, _) | (Mode::Inference, Engine::Vllm) => Runner::Vllm,
            (Mode::Inference, Engine::Hf) => Runner::Transformers,
        }
    }
}

/// What the run's engine loads and caches: a KV-cache type it does not have is refused, and so is
/// a weight format llama.cpp cannot load; a GGUF file run in PyTorch (transformers inference,
/// training) is dequantized on load, so its weights are counted in the model dtype. Returns the
/// format to count and, for the latter, the GGUF file type it came as.
fn engine_formats(
    input: &EstimateInput,
    quantization: Quantization,
) -> Result<(Quantization, Option<GgufFileType>)> {
    use KvDtype::{Auto, Bf16, Fp8, Fp16, Q4_0, Q8_0};
    let runner = Runner::of(input.mode, input.engine);
    let engine = match runner {
        Runner::Training => None,
        Runner::Llamacpp => Some(("llama.cpp", &[Auto, Fp16, Bf16, Q8_0, Q4_0][..])),
        Runner::Vllm => Some(("vLLM", &[Auto, Fp16, Bf16, Fp8][..])),
        Runner::Transformers => Some(("Hugging Face transformers", &[Auto, Fp16, Bf16][..])),
    };
    if let Some((name, kv)) = engine
        && !kv.contains(&input.kv_dtype)
    {
        let names: Vec<&str> = kv.iter().map(|k| k.name()).collect();
        let (kv, names) = (input.kv_dtype.name(), names.join(", "));
        return Err(input_error!(
            "kv_dtype",
            ["{kv} is not a KV-cache type of {name}"],
            ["{kv} 不是这个引擎的 KV 缓存类型：{name}"],
            ["one of {names} with {name}"],
            ["以下之一：{names}（{name}）"],
        ));
    }
    if runner == Runner::Llamacpp
        && !matches!(
            input.quantization,
            Quantization::None | Quantization::Gguf { .. } | Quantization::Mxfp4
        )
    {
        return Err(input_error!(
            "quantization",
            [
                "llama.cpp loads GGUF files, not {}",
                input.quantization.name()
            ],
            [
                "llama.cpp 加载 GGUF 文件，不加载 {}",
                input.quantization.name()
            ],
            "none (an F16 or BF16 GGUF) or gguf-<type>, e.g. gguf-q4_k_m",
            "none（F16 或 BF16 的 GGUF），或 gguf-<type>，如 gguf-q4_k_m",
        ));
    }
    let torch = matches!(runner, Runner::Training | Runner::Transformers);
    Ok(match quantization {
        Quantization::Gguf { file_type } if torch => (Quantization::None, Some(file_type)),
        q => (q, None),
    })
}

/// Tensor parallelism splits the attention heads (Megatron, vLLM): `tp` must divide the query
/// heads, and the KV heads must divide by `tp` or `tp` by them (vLLM then keeps `tp / kv` copies of
/// each KV head). Any other `tp` is refused with the sizes that work.
fn check_tp(arch: &Architecture, tp: u64) -> Result<()> {
    if tp <= 1 || !arch.is_detailed() || arch.num_heads == 0 {
        return Ok(());
    }
    let kv = arch.num_kv_heads.max(1);
    let fits = |t: u64| {
        arch.num_heads.is_multiple_of(t)
            && if t >= kv {
                t.is_multiple_of(kv)
            } else {
                kv.is_multiple_of(t)
            }
    };
    if fits(tp) {
        return Ok(());
    }
    let ok: Vec<String> = (1..=arch.num_heads.min(1024))
        .filter(|&t| fits(t))
        .map(|t| t.to_string())
        .collect();
    let (heads, gqa, ok) = (arch.num_heads, kv != arch.num_heads, ok.join(", "));
    Err(input_error!(
        "tp",
        [
            "tp = {tp} does not split the model's {heads} attention heads{} evenly",
            if gqa {
                format!(" and {kv} KV heads")
            } else {
                String::new()
            }
        ],
        [
            "tp = {tp} 不能均分模型的 {heads} 个注意力头{}",
            if gqa {
                format!("与 {kv} 个 KV 头")
            } else {
                String::new()
            }
        ],
        ["one of {ok}"],
        ["以下之一：{ok}"],
    ))
}

/// Checks that `v` is a finite integer in `lo..=hi`.
fn int(field: &str, v: f64, lo: u64, hi: u64) -> Result<u64> {
    if v.is_finite() && v == libm::trunc(v) && v >= lo as f64 && v <= hi as f64 {
        Ok(v as u64)
    } else {
        // 0: not finite; 1: a fraction within the range; 2: out of it.
        let why = if !v.is_finite() {
            0
        } else if v != libm::trunc(v) && v >= lo as f64 && v <= hi as f64 {
            1
        } else {
            2
        };
        let n = || crate::units::number_text(v);
        Err(input_error!(
            field,
            [= match why {
                0 => String::from("not a finite number"),
                1 => format!("{} is not a whole number", n()),
                _ => format!("{} is out of range", n()),
            }],
            [= match why {
                0 => String::from("不是有限的数"),
                1 => format!("{} 不是整数", n()),
                _ => format!("{} 超出范围", n()),
            }],
            ["an integer from {lo} to {hi}"],
            ["整数，从 {lo} 到 {hi}"],
        ))
    }
}

/// Largest batch accepted.
pub const MAX_BATCH: u64 = 1 << 20;
/// Largest sequence accepted: 16 M tokens.
pub const MAX_SEQ: u64 = 1 << 24;

/// The LoRA target modules [`lora_mask`] accepts, in words. Its error formats it (`["{MODULES}"]`)
/// rather than copying it (`[= MODULES]`): the same text, and measured 94 bytes smaller in the
/// English calculator's module as downloaded (2026-12-02), where that module sits at its ceiling.
const MODULES: &str = "q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, all-linear";

/// Parses LoRA target module names into role bits.
pub fn lora_mask(field: &str, targets: &[String]) -> Result<u32> {
    if targets.is_empty() {
        return Ok(role_bit(Role::Q) | role_bit(Role::V));
    }
    let mut m = 0;
    for t in targets {
        m |= match t.trim() {
            "q_proj" | "q" | "query" | "q_a_proj" | "q_b_proj" => role_bit(Role::Q),
            "k_proj" | "k" | "key" => role_bit(Role::K),
            "v_proj" | "v" | "value" => role_bit(Role::V),
            "kv_a_proj_with_mqa" | "kv_b_proj" => role_bit(Role::KvA),
            "o_proj" | "o" | "dense" | "out_proj" => role_bit(Role::O),
            "gate_proj" | "w1" => role_bit(Role::Gate),
            "up_proj" | "w3" | "fc1" => role_bit(Role::Up),
            "down_proj" | "w2" | "fc2" => role_bit(Role::Down),
            "all-linear" | "all_linear" => 127,
            other => {
                return Err(input_error!(
                    field,
                    ["unknown module `{other}`"],
                    ["未知的模块 `{other}`"],
                    ["{MODULES}"],
                    ["{MODULES}"],
                ));
            }
        };
    }
    Ok(m)
}

impl EstimateInput {
    /// Validates with the built-in catalogs.
    pub fn resolve(&self) -> Result<Workload> {
        self.resolve_with(&crate::catalog::find_model, &crate::catalog::find_device)
    }

    /// Validates with the given model and GPU lookups (a site with user-edited catalogs passes its own).
    pub fn resolve_with(&self, models: ModelLookup<'_>, gpus: GpuLookup<'_>) -> Result<Workload> {
        let sources =
            self.model.is_some() as u8 + self.params.is_some() as u8 + self.arch.is_some() as u8;
        if sources != 1 {
            let none = sources == 0;
            return Err(input_error!(
                "model",
                [= if none { "no model given" } else { "more than one model given" }],
                [= if none { "没有给出模型" } else { "给出了不止一个模型" }],
                "exactly one of: model (a preset id), params (e.g. 7B), arch (a config.json)",
                "以下恰好一项：model（预设模型 id）、params（如 7B）、arch（一个 config.json）",
            ));
        }
        let (model_name, preset_dtype, arch, shipped) = if let Some(id) = &self.model {
            let Some((dtype, arch, shipped)) = models(id.trim()) else {
                return Err(no_preset(id.trim()));
            };
            (id.trim().to_string(), Some(dtype), arch, shipped)
        } else if let Some(p) = &self.params {
            let n = parse_params("params", p)?;
            (
                p.trim().to_string(),
                None,
                Architecture::opaque(n),
                Quantization::None,
            )
        } else {
            let a = self.arch.unwrap_or_default();
            (String::from("config.json"), None, a, Quantization::None)
        };
        arch.validate("model")?;
        let mode = self.mode;
        let batch = int("batch", self.batch, 1, MAX_BATCH)?;
        let seq_len = int("seq_len", self.seq_len, 1, MAX_SEQ)?;
        let new_tokens = int("new_tokens", self.new_tokens, 0, MAX_SEQ)?;
        let dtype = match (self.dtype, preset_dtype) {
            (Some(Dtype::Int8 | Dtype::Int4), _) if arch.is_detailed() => {
                return Err(input_error!(
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
        self.quantization.validate("quantization")?;
        let lora_rank = int("lora_rank", self.lora_rank, 0, 65_536)?;
        let qlora = self.qlora;
        if qlora && lora_rank == 0 && mode == Mode::Training {
            return Err(input_error!(
                "lora_rank",
                "QLoRA needs a LoRA rank",
                "QLoRA 需要 LoRA 秩",
                "an integer from 1 to 65536 with qlora",
                "启用 qlora 时为 1 到 65536 的整数",
            ));
        }
        // A checkpoint released quantized (gpt-oss in MXFP4, DeepSeek-V3 in FP8) is estimated as it
        // ships unless another format is asked for.
        let mut quantization = if self.quantization == Quantization::None {
            shipped
        } else {
            self.quantization
        };
        if qlora {
            // QLoRA quantizes a 16-bit base to NF4 itself; a checkpoint already in another format
            // (GPTQ, AWQ, GGUF…) is not what it loads.
            if mode == Mode::Training
                && !matches!(
                    self.quantization,
                    Quantization::None | Quantization::BnbNf4 { .. }
                )
            {
                return Err(input_error!(
                    "quantization",
                    [
                        "QLoRA loads the base in 4-bit NF4, not {}",
                        self.quantization.name()
                    ],
                    [
                        "QLoRA 以 4 位 NF4 加载基座模型，不加载 {}",
                        self.quantization.name()
                    ],
                    "none or bnb-nf4 with qlora (QLoRA quantizes the 16-bit base itself)",
                    "启用 qlora 时为 none 或 bnb-nf4（QLoRA 自己把 16 位的基座量化）",
                ));
            }
            quantization = Quantization::BnbNf4 { double_quant: true };
        }
        let (quantization, gguf_dequantized) = engine_formats(self, quantization)?;
        let zero = int("zero", self.zero, 0, 3)? as u8;
        // DeepSpeed offloads ZeRO's partitions; without ZeRO there is nothing to offload, and
        // the run would hold everything on the GPU while the input says otherwise.
        if mode == Mode::Training && zero == 0 && self.offload != Offload::None {
            return Err(input_error!(
                "offload",
                "offload without ZeRO: DeepSpeed offloads the states ZeRO partitions",
                "没有 ZeRO 的卸载：DeepSpeed 只卸载 ZeRO 切分的状态",
                "none with zero 0, or zero 1, 2 or 3 (1 offloads the optimizer states, 2 the gradients too, 3 the weights too)",
                "zero 为 0 时只能是 none；或 zero 为 1、2、3（1 卸载优化器状态，2 还卸载梯度，3 还卸载权重）",
            ));
        }
        // ZeRO-Infinity's NVMe offload is a stage-3 feature (DeepSpeed's tests skip it with "Nvme
        // offload not supported for zero stage" below 3).
        if mode == Mode::Training && zero < 3 && self.offload == Offload::Nvme {
            return Err(input_error!(
                "offload",
                ["NVMe offload with ZeRO-{zero}: DeepSpeed offloads to NVMe only under ZeRO-3"],
                ["NVMe 卸载配 ZeRO-{zero}：DeepSpeed 只在 ZeRO-3 下卸载到 NVMe"],
                "cpu with zero 1, 2 or 3; nvme with zero 3",
                "zero 为 1、2、3 时用 cpu；zero 为 3 时用 nvme",
            ));
        }
        let gpus_n = int("gpus", self.gpus, 1, 65_536)?;
        let tp = int("tp", self.tp, 1, 1024)?;
        let pp = int("pp", self.pp, 1, 1024)?;
        if gpus_n % (tp * pp) != 0 {
            // Fewer GPUs than one tensor × pipeline group (`--tp 2` alone) or a count that does
            // not divide into such groups.
            let (few, group) = (gpus_n < tp * pp, tp * pp);
            return Err(input_error!(
                "gpus",
                [= if few {
                    format!(
                        "{gpus_n} GPU{} for tp = {tp} × pp = {pp}, which needs {group} per model copy",
                        if gpus_n == 1 { "" } else { "s" },
                    )
                } else {
                    format!("{gpus_n} GPUs cannot be split into tp = {tp} × pp = {pp} groups")
                }],
                [= if few {
                    format!(
                        "{gpus_n} 个 GPU，而 tp = {tp} × pp = {pp}，每份模型副本需要 {group} 个"
                    )
                } else {
                    format!("{gpus_n} 个 GPU 无法分成 tp = {tp} × pp = {pp} 组")
                }],
                ["a multiple of tp × pp = {group}"],
                ["tp × pp 的倍数，即 {group}"],
            ));
        }
        if arch.is_detailed() && pp > arch.num_layers.max(1) {
            let layers = arch.num_layers;
            return Err(input_error!(
                "pp",
                ["{pp} stages for {layers} layers"],
                ["{pp} 个流水线阶段，而层数只有 {layers} 层"],
                ["an integer from 1 to {layers}"],
                ["整数，从 1 到 {layers}"],
            ));
        }
        check_tp(&arch, tp)?;
        if tp > 1 && Runner::of(mode, self.engine) == Runner::Llamacpp {
            return Err(input_error!(
                "tp",
                ["tp = {tp} with llama.cpp, which splits whole layers across GPUs"],
                ["tp = {tp} 配 llama.cpp，而 llama.cpp 按整层把模型分到各 GPU"],
                "1 with llama.cpp: give gpus to split its layers",
                "llama.cpp 下为 1：用 gpus 切分它的层",
            ));
        }
        let dp = gpus_n / (tp * pp);
        let device = match (&self.gpu, &self.gpu_memory) {
            (Some(_), Some(_)) => {
                return Err(input_error!(
                    "gpu",
                    "both a GPU and a GPU memory size given",
                    "同时给出了 GPU 与 GPU 显存大小",
                    "one of gpu (a catalog id) or gpu_memory (a size such as 80GB)",
                    "gpu（目录中的 id）与 gpu_memory（如 80GB 的大小）二者之一",
                ));
            }
            (Some(id), None) => Some(gpus(id.trim()).ok_or_else(|| {
                // Why the catalog does not name it (nothing, or several cards), or, for a lookup
                // of the caller's own, that it does not.
                crate::hardware::lookup_gpu("gpu", id)
                    .err()
                    .unwrap_or_else(|| {
                        let id = id.trim();
                        input_error!(
                            "gpu",
                            ["no GPU named `{id}`"],
                            ["没有这个 GPU：`{id}`"],
                            "a GPU of the given catalog",
                            "所给目录中的 GPU",
                        )
                    })
            })?),
            (None, Some(m)) => {
                let memory = parse_size("gpu_memory", m)?;
                if memory.get() < 256 * MIB {
                    return Err(input_error!(
                        "gpu_memory",
                        ["{} is too small for a GPU", memory.display_auto()],
                        ["{} 对 GPU 来说太小", memory.display_auto()],
                        "a size from 256 MiB to 1 PiB",
                        "256 MiB 到 1 PiB 的大小",
                    ));
                }
                Some(Device {
                    id: String::from("custom"),
                    memory,
                    hopper_or_newer: true,
                    a100: false,
                    bf16: true,
                })
            }
            (None, None) => None,
        };
        // vLLM's dtype "auto" downcasts an fp32 checkpoint: to fp16 for a pooling (encoder-only)
        // model, else to the platform's first dtype, bf16 where the card computes in it
        // (`_resolve_auto_dtype`).
        let vllm_downcast = self.dtype.is_none()
            && dtype == Dtype::Fp32
            && arch.is_detailed()
            && matches!(Runner::of(mode, self.engine), Runner::Vllm);
        let dtype = if !vllm_downcast {
            dtype
        } else if arch.is_generative() && device.as_ref().is_none_or(|d| d.bf16) {
            Dtype::Bf16
        } else {
            Dtype::Fp16
        };
        let util = self.gpu_memory_utilization;
        if !(util.is_finite() && (0.01..=1.0).contains(&util)) {
            return Err(input_error!(
                "gpu_memory_utilization",
                ["{} is out of range", crate::units::number_text(util)],
                ["{} 超出范围", crate::units::number_text(util)],
                "a fraction from 0.01 to 1, e.g. 0.9",
                "0.01 到 1 的比例，如 0.9",
            ));
        }
        let big = device
            .as_ref()
            .is_some_and(|d| d.memory.get() >= 70 * GIB && !d.a100);
        let default_len = if arch.max_position_embeddings > 0 {
            arch.max_position_embeddings
        } else {
            seq_len + new_tokens
        };
        let max_model_len = match self.max_model_len {
            Some(v) => int("max_model_len", v, 1, MAX_SEQ)?,
            None if self.engine == Engine::Llamacpp => (seq_len + new_tokens).sat_mul(batch),
            None => default_len,
        };
        let max_num_seqs = match self.max_num_seqs {
            Some(v) => int("max_num_seqs", v, 1, 65_536)?,
            None => {
                if big {
                    1024
                } else {
                    256
                }
            }
        };
        let max_num_batched_tokens = match self.max_num_batched_tokens {
            Some(v) => int("max_num_batched_tokens", v, 1, MAX_SEQ)?,
            None => {
                if big {
                    8192
                } else {
                    2048
                }
            }
        };
        let gpu_layers = match self.gpu_layers {
            Some(v) => int("gpu_layers", v, 0, arch.num_layers + 1)?,
            None => arch.num_layers + 1,
        };
        let ubatch = int("ubatch", self.ubatch, 1, 65_536)?;
        let lora_mask = lora_mask("lora_targets", &self.lora_targets)?;
        let kernel = if self.attention == AttentionImpl::Eager {
            Kernel::Eager
        } else {
            Kernel::Flash
        };
        if matches!(mode, Mode::Serve) && self.engine == Engine::Hf {
            // Serving is vLLM's pool model unless llama.cpp is chosen.
        }
        Ok(Workload {
            model_name,
            arch,
            mode,
            engine: if mode == Mode::Serve && self.engine == Engine::Hf {
                Engine::Vllm
            } else {
                self.engine
            },
            batch,
            seq_len,
            new_tokens,
            dtype,
            quantization,
            kv_dtype: self.kv_dtype,
            gguf_dequantized,
            vllm_downcast,
            kernel,
            logits: self.logits,
            optimizer: self.optimizer,
            fused_optimizer: self.fused_optimizer,
            precision: self.precision,
            checkpointing: self.grad_checkpointing,
            lora_rank: if qlora { lora_rank.max(1) } else { lora_rank },
            lora_mask,
            qlora,
            zero,
            offload: self.offload,
            dp,
            tp,
            pp,
            device,
            gpu_memory_utilization: util,
            max_model_len,
            max_num_seqs,
            max_num_batched_tokens,
            cuda_graphs: self.cuda_graphs,
            gpu_layers,
            ubatch,
        })
    }
}

/// Where in the run the peak occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Phase {
    /// Inference: the forward pass over the input (an LLM's prompt, a batch of images).
    Prefill,
    /// Inference: the last generated token, with the full KV cache.
    Decode,
    /// Training: end of forward, with the loss.
    ForwardLoss,
    /// Training: end of backward, every gradient and the embedding's gradient buffer alive.
    Backward,
    /// Training: the optimizer step.
    OptimizerStep,
    /// Serving: the steady state after vLLM's start-up.
    Serving,
    /// Weights only (an opaque model with no activations known).
    Load,
}

impl Phase {
    /// The phase in words, for "the peak is at …".
    pub const fn describe(self) -> &'static str {
        match self {
            Phase::Prefill => "the input's forward pass",
            Phase::Decode => "the last generated token",
            Phase::ForwardLoss => "the end of forward, with the loss",
            Phase::Backward => "the end of backward",
            Phase::OptimizerStep => "the optimizer step",
            Phase::Serving => "vLLM's steady state",
            Phase::Load => "no known phase: the parameter count alone",
        }
    }
}

/// One part of the estimate, with its formula.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Component {
    /// Stable key: `weights`, `kv_cache`, `activations`, `logits`, `gradients`, `optimizer`,
    /// `step_temporaries`, `autocast_copies`, `cuda_context`, `workspace`, `allocator_reserve`,
    /// `cuda_graphs`, `non_torch`, `compute_buffer`, `zero_buffers`, `ddp_buckets`.
    pub key: String,
    /// Bytes on one GPU.
    pub bytes: Bytes,
    /// Whether PyTorch's allocator holds it (counted in `peak_allocated_bytes`).
    pub torch: bool,
    /// The formula with the values in it, in English.
    pub formula: String,
    /// The formula with the values in it, in Chinese: the same numbers, units and names.
    pub formula_zh: String,
    /// Why, in English.
    pub note_en: String,
    /// Why, in Chinese.
    pub note_zh: String,
}

/// A reason the detailed estimate differs from the guide's quick one.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Difference {
    /// Stable key.
    pub key: String,
    /// English.
    pub en: String,
    /// Chinese.
    pub zh: String,
}

/// How the estimate compares with a device.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Fit {
    /// The device id.
    pub gpu: String,
    /// Its memory.
    pub memory_bytes: Bytes,
    /// `total_bytes ≤ memory_bytes`.
    pub fits: bool,
    /// Memory left over (zero when it does not fit).
    pub headroom_bytes: Bytes,
    /// Memory missing (zero when it fits).
    pub shortfall_bytes: Bytes,
    /// Why it does not fit when memory alone does not say (serving: the KV pool is too small).
    pub reason: Option<Difference>,
}

/// The estimate, per GPU, in bytes.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Estimate {
    /// The model as given.
    pub model: String,
    /// Total parameters.
    pub params: u64,
    /// Parameters active per token (MoE: less than `params`).
    pub active_params: u64,
    /// Trainable parameters (training).
    pub trainable_params: u64,
    /// Weights on this GPU.
    pub weights_bytes: Bytes,
    /// KV cache (serving: vLLM's pool).
    pub kv_cache_bytes: Bytes,
    /// Activations at the peak phase.
    pub activations_bytes: Bytes,
    /// Gradients.
    pub gradients_bytes: Bytes,
    /// Optimizer states (and fp32 master weights under ZeRO's accounting).
    pub optimizer_bytes: Bytes,
    /// Temporaries at the peak: logits and the loss's fp32 copies, autocast weight copies, the
    /// optimizer step's buffers, ZeRO and DDP buckets, llama.cpp's compute buffer.
    pub temporaries_bytes: Bytes,
    /// CUDA context, library workspaces, NCCL, CUDA graphs.
    pub overhead_bytes: Bytes,
    /// Reserved by PyTorch's caching allocator beyond what is allocated.
    pub allocator_reserve_bytes: Bytes,
    /// Where the peak is.
    pub peak_phase: Phase,
    /// What `torch.cuda.max_memory_allocated()` would report.
    pub peak_allocated_bytes: Bytes,
    /// What `nvidia-smi` would show for the process.
    pub total_bytes: Bytes,
    /// The guide's `M_rec = 1.2 × (M_theory + 2 GB)` with `M_theory = peak_allocated_bytes`
    /// (serving: the card memory that holds `batch` sequences of `max_model_len`).
    pub recommended_bytes: Bytes,
    /// The card memory the run needs, as the CUDA runtime counts it: `total_bytes`, or for vLLM
    /// serving the memory whose utilisation budget holds `batch` sequences of `max_model_len`.
    pub required_bytes: Bytes,
    /// Serving: tokens the KV pool holds.
    pub kv_cache_tokens: Option<u64>,
    /// Serving: sequences of `max_model_len` the pool holds at once (rounded down).
    pub max_concurrency: Option<u64>,
    /// Serving: the same, unrounded.
    pub max_concurrency_exact: Option<f64>,
    /// KV bytes per token (all layers on this GPU).
    pub kv_bytes_per_token: u64,
    /// llama.cpp or ZeRO offload to the CPU: bytes kept in CPU memory.
    pub cpu_bytes: Bytes,
    /// ZeRO-Infinity offload to NVMe (`offload: nvme`): bytes kept on the NVMe drive.
    pub nvme_bytes: Bytes,
    /// GPUs the figures are per.
    pub gpus: u64,
    /// The parts, with formulas.
    pub components: Vec<Component>,
    /// The guide's quick estimate.
    pub quick: Quick,
    /// Why the detailed estimate differs from the quick one.
    pub differences: Vec<Difference>,
    /// Against the chosen device.
    pub fit: Option<Fit>,
    /// Assumptions worth knowing.
    pub notes: Vec<Difference>,
}

/// Validates and estimates in one call: [`EstimateInput::resolve`], [`Workload::estimate`], then
/// [`within_reach`].
pub fn estimate(input: &EstimateInput) -> Result<Estimate> {
    within_reach(input.resolve()?.estimate())
}

/// The bound on every size an estimate reports: 2^53 bytes (8 PiB), the first integer past
/// JavaScript's `Number.MAX_SAFE_INTEGER`, so that every size is exact in the npm package's
/// numbers and the site's. It is 8 times the largest size an input may name
/// ([`crate::units::MAX_SIZE`], 1 PiB) and far past any GPU job (the figures are per GPU), yet
/// every field can be in range and the run past it: eager attention over 16 M tokens holds
/// `batch × heads × seq_len²` scores. Below it every sum is exact; a component that saturated
/// `u64` is above it.
pub const MAX_TOTAL: Bytes = Bytes::new(1 << 53);

/// `e`, or an error naming the fields that drive its largest part when any size it reports
/// (its totals, a part, the quick estimate) or its parameter count reaches [`MAX_TOTAL`]: a
/// figure that large says nothing a user can act on, JavaScript cannot hold it exactly, and a
/// saturated one is wrong.
pub fn within_reach(e: Estimate) -> Result<Estimate> {
    let q = &e.quick;
    let sizes = [
        e.total_bytes,
        e.peak_allocated_bytes,
        e.recommended_bytes,
        e.required_bytes,
        e.cpu_bytes,
        e.nvme_bytes,
        q.theory_bytes,
        q.components_sum_bytes,
        q.recommended_bytes,
    ];
    // The parameter counts too: a 4-bit model's weights take half a byte per parameter.
    let counts = [e.params, e.active_params, e.trainable_params];
    let largest_number = sizes
        .into_iter()
        .chain(e.components.iter().map(|c| c.bytes))
        .map(Bytes::get)
        .chain(counts)
        .max()
        .unwrap_or_default();
    if largest_number < MAX_TOTAL.get() {
        return Ok(e);
    }
    let largest = e
        .components
        .iter()
        .max_by_key(|c| c.bytes)
        .map_or("", |c| c.key.strip_suffix("_off_peak").unwrap_or(&c.key));
    let per_token = matches!(
        largest,
        "activations" | "kv_cache" | "logits" | "compute_buffer" | "cuda_graphs"
    );
    Err(input_error!(
        if per_token {
            "batch × seq_len"
        } else {
            "model"
        },
        ["the run needs 8 PiB of GPU memory or more (its largest part: {largest})"],
        ["这次运行需要 8 PiB 或更多显存（最大的一项：{largest}）"],
        [
            "a run under 8 PiB of GPU memory: {}",
            if per_token {
                "fewer sequences or shorter ones (eager attention grows with seq_len²; sdpa or \
                 flash attention does not)"
            } else {
                "a smaller model, or more GPUs to shard it over"
            }
        ],
        [
            "显存需求低于 8 PiB 的运行：{}",
            if per_token {
                "更少或更短的序列（eager 注意力随 seq_len² 增长；sdpa 与 flash attention 不会）"
            } else {
                "更小的模型，或用更多 GPU 切分它"
            }
        ],
    ))
}

/// CUDA context of a PyTorch process with lazy module loading: 0.51 GiB, measured on H100 with
/// vLLM 0.19 (`init_cuda_memory_gib` in the calibration data). PyTorch PR #86509 measured 287 MB
/// lazy and 667 MB eager on an older stack.
pub const CUDA_CONTEXT: Bytes = Bytes::new(547_608_330); // 0.51 GiB

/// cuBLAS workspace per handle and stream: 8 MiB + 128 KiB by default before Hopper, 32 MiB on
/// Hopper and newer (PyTorch's `CUBLAS_WORKSPACE_CONFIG` defaults). Allocated through the caching
/// allocator, so it counts in `max_memory_allocated`.
pub const fn cublas_workspace(hopper: bool) -> Bytes {
    if hopper {
        Bytes::mib(32)
    } else {
        Bytes::new(8 * MIB + 128 * 1024)
    }
}

/// vLLM's KV pool against its requests (`kv_cache_utils.py`: `check_enough_kv_cache_memory`,
/// `get_max_concurrency_for_kv_cache_config`).
#[derive(Clone, Copy)]
struct ServePool {
    /// Bytes left for the pool in the utilisation budget.
    available: u64,
    /// What one request of max_model_len needs: every full-attention layer the whole length, a
    /// sliding-window layer its window plus one step's tokens (`SlidingWindowSpec`).
    request: u64,
    /// Requests of max_model_len the pool holds at once.
    concurrency: f64,
}

struct Parts {
    comps: Vec<Component>,
    notes: Vec<Difference>,
    /// PyTorch-allocated bytes at the peak when it is not the plain sum of the torch components
    /// (HF inference: the KV cache is only partly filled at the prefill peak).
    peak: Option<u64>,
    /// Serving: tokens in vLLM's pool.
    serve_tokens: Option<u64>,
    /// Serving on a card: what vLLM's pool holds against one request of max_model_len.
    serve_pool: Option<ServePool>,
    /// Serving: `M_theory`, the card memory that holds the wanted concurrency.
    theory: Option<u64>,
}

impl Parts {
    #[inline(never)]
    fn add(&mut self, key: &str, bytes: u64, torch: bool, formula: Formula, en: &str, zh: &str) {
        let (formula, formula_zh) = formula.into_texts();
        self.comps.push(Component {
            key: key.to_string(),
            bytes: Bytes::new(bytes),
            torch,
            formula,
            formula_zh,
            note_en: en.to_string(),
            note_zh: zh.to_string(),
        });
    }
    #[inline(never)]
    fn note(&mut self, key: &str, en: String, zh: String) {
        self.notes.push(Difference {
            key: key.to_string(),
            en,
            zh,
        });
    }
    /// A component's size, alive at the peak or not.
    fn get(&self, key: &str) -> u64 {
        self.comps
            .iter()
            .filter(|c| c.key == key || c.key.strip_suffix("_off_peak") == Some(key))
            .map(|c| c.bytes.get())
            .fold(0, u64::saturating_add)
    }

    /// The components `keys` together, saturating like [`Self::get`]: an input at the edge of
    /// its ranges (eager attention over 15 million tokens) can make them exceed `u64`.
    fn sum(&self, keys: &[&str]) -> u64 {
        keys.iter()
            .map(|k| self.get(k))
            .fold(0, u64::saturating_add)
    }
}

/// A formula in the languages the crate is built with: its English and its Chinese, each only
/// under that language's feature (as the notes' text is), so that a module in one language
/// carries one language's words. Written with [`formula!`]; a value computed only for the
/// formula goes unused in a build without either language.
#[derive(Debug, Default)]
struct Formula {
    #[cfg(feature = "en")]
    en: String,
    #[cfg(feature = "zh")]
    zh: String,
}

impl Formula {
    /// A text the same in both languages: numbers, units and names.
    fn same(text: String) -> Self {
        Formula {
            #[cfg(all(feature = "en", feature = "zh"))]
            en: text.clone(),
            #[cfg(all(feature = "en", not(feature = "zh")))]
            en: text,
            #[cfg(feature = "zh")]
            zh: text,
        }
    }

    /// The English and the Chinese, empty without their features.
    fn into_texts(self) -> (String, String) {
        #[cfg(feature = "en")]
        let en = self.en;
        #[cfg(not(feature = "en"))]
        let en = String::new();
        #[cfg(feature = "zh")]
        let zh = self.zh;
        #[cfg(not(feature = "zh"))]
        let zh = String::new();
        (en, zh)
    }
}

fn b(x: u64) -> String {
    Bytes::new(x).display_auto()
}

/// Separates thousands: 8030261248 → 8,030,261,248.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl Workload {
    /// Activation dtype bytes for inference.
    fn act_bytes(&self) -> u64 {
        if self.dtype == Dtype::Fp32 { 4 } else { 2 }
    }

    /// KV elements per token summed over the layers on this GPU, for `context` tokens, and the
    /// KV-cache bytes for `seqs` sequences of `context` tokens.
    fn kv_bytes(
        &self,
        seqs: u64,
        context: u64,
        layers: u64,
        decompressed_mla: bool,
    ) -> (u64, Formula) {
        let a = &self.arch;
        if !a.is_generative() {
            return (
                0,
                formula!(text "no KV cache (not a generative decoder)", "没有 KV 缓存（不是生成式解码器）"),
            );
        }
        let tp_kv = match a.mla {
            Some(_) if !decompressed_mla => 1,
            _ => self.tp.min(a.num_kv_heads.max(1)),
        };
        let per_layer = match a.mla {
            Some(m) if decompressed_mla => {
                a.num_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim)
            }
            _ => a.kv_elements_per_token_layer(),
        } / tp_kv;
        let frac = |n: u64| n * layers / a.num_layers.max(1);
        let global = frac(a.global_layers());
        let local = layers.saturating_sub(global);
        let local_ctx = context.min(if a.sliding_window > 0 {
            a.sliding_window
        } else {
            context
        });
        let elems = per_layer.sat_mul(seqs).sat_mul(
            global
                .sat_mul(context)
                .saturating_add(local.sat_mul(local_ctx)),
        );
        let bytes = self.kv_dtype.bytes_for(elems, self.act_kv_dtype());
        let per = match a.mla {
            Some(m) if !decompressed_mla => Formula::same(format!(
                "(kv_lora_rank {} + rope {})",
                m.kv_lora_rank, m.qk_rope_head_dim
            )),
            Some(_) => formula!(
                [
                    "{} heads × (nope + rope + v) (HF caches MLA decompressed)",
                    a.num_heads
                ],
                [
                    "{} 个头 × (nope + rope + v)（HF 缓存解压后的 MLA）",
                    a.num_heads
                ]
            ),
            None => formula!(
                ["2 × {} kv heads × {} head_dim", a.num_kv_heads, a.head_dim],
                ["2 × {} 个 KV 头 × {} head_dim", a.num_kv_heads, a.head_dim]
            ),
        };
        let tp_text = if tp_kv > 1 {
            format!(" / tp {tp_kv}")
        } else {
            String::new()
        };
        let window = if local > 0 {
            formula!(
                [
                    " ({global} global layers × {context} tokens + {local} sliding layers × {local_ctx} tokens)"
                ],
                [
                    " ({global} 个全局层 × {context} token + {local} 个滑动窗口层 × {local_ctx} token)"
                ]
            )
        } else {
            formula!(
                [" × {layers} layers × {context} tokens"],
                [" × {layers} 层 × {context} token"]
            )
        };
        let dtype = self.kv_dtype_name();
        let size = b(bytes);
        (
            bytes,
            formula!(
                [
                    "{}{tp_text} × {seqs} seq{} × {dtype} = {size}",
                    per.en,
                    window.en
                ],
                [
                    "{}{tp_text} × {seqs} 条序列{} × {dtype} = {size}",
                    per.zh,
                    window.zh
                ]
            ),
        )
    }

    fn act_kv_dtype(&self) -> Dtype {
        if self.dtype == Dtype::Fp32 {
            Dtype::Fp32
        } else if self.dtype == Dtype::Fp16 {
            Dtype::Fp16
        } else {
            Dtype::Bf16
        }
    }

    fn kv_dtype_name(&self) -> String {
        match self.kv_dtype {
            KvDtype::Auto => format!(
                "{} B ({})",
                self.act_kv_dtype().bits() / 8,
                self.act_kv_dtype()
            ),
            KvDtype::Fp8 => String::from("1 B (fp8)"),
            KvDtype::Fp16 | KvDtype::Bf16 => format!("2 B ({})", self.kv_dtype.name()),
            KvDtype::Q8_0 => String::from("34/32 B (q8_0)"),
            KvDtype::Q4_0 => String::from("18/32 B (q4_0)"),
        }
    }

    fn weights_formula(&self, bytes: u64) -> Formula {
        let a = &self.arch;
        let p = thousands(a.params());
        let size = b(bytes);
        let mut s = if !a.is_detailed() && self.quantization != Quantization::None {
            // A bare parameter count: the guide's bytes per parameter of the format.
            let per = short(guide_bytes_per_param(self.dtype, &self.quantization));
            let q = self.quantization.name();
            formula!(
                ["{p} params × {per} B ({q}) = {size}"],
                ["{p} 个参数 × {per} B ({q}) = {size}"]
            )
        } else if self.quantization == Quantization::None {
            let (per, d) = (self.dtype.bits() / 8, self.dtype);
            formula!(
                ["{p} params × {per} B ({d}) = {size}"],
                ["{p} 个参数 × {per} B ({d}) = {size}"]
            )
        } else {
            let q = a
                .tensors()
                .iter()
                .filter(|t| weights::is_quantized(&self.quantization, a, t))
                .map(|t| t.numel())
                .fold(0u64, u64::saturating_add);
            let kept = thousands(a.params().saturating_sub(q));
            let (q, name, d) = (thousands(q), self.quantization.name(), self.dtype);
            formula!(
                ["{q} quantized weights ({name}, with scales) + {kept} kept in {d} = {size}"],
                ["{q} 个量化权重 ({name}，含缩放因子) + {kept} 个参数保留为 {d} = {size}"]
            )
        };
        if self.tp > 1 || self.pp > 1 {
            let (tp, pp) = (self.tp, self.pp);
            s = formula!(
                ["{}, on the busiest of tp {tp} × pp {pp} shards", s.en],
                ["{}，在 tp {tp} × pp {pp} 个分片中最重的一个上", s.zh]
            );
        }
        s
    }

    /// The estimate. Cannot fail: the workload was validated.
    pub fn estimate(&self) -> Estimate {
        let mut parts = Parts {
            comps: Vec::new(),
            notes: Vec::new(),
            peak: None,
            serve_tokens: None,
            serve_pool: None,
            theory: None,
        };
        let (phase, trainable, cpu) = match Runner::of(self.mode, self.engine) {
            Runner::Training => self.training(&mut parts),
            Runner::Llamacpp => self.llamacpp(&mut parts),
            Runner::Vllm => self.vllm(&mut parts),
            Runner::Transformers => self.hf_inference(&mut parts),
        };
        self.note_past_trained_context(&mut parts);
        if self.vllm_downcast {
            parts.note(
                "vllm_downcast",
                en!("The checkpoint is fp32: vLLM's dtype \"auto\" runs it in {} (pass --dtype float32 to keep it).", self.dtype),
                zh!("检查点为 fp32：vLLM 的 dtype \"auto\" 以 {} 运行（传 --dtype float32 可保持 fp32）。", self.dtype),
            );
        }
        if let Some(ft) = self.gguf_dequantized {
            parts.note(
                "gguf_dequantized",
                en!(
                    "Hugging Face transformers dequantizes a GGUF checkpoint as it loads it (`from_pretrained(gguf_file=…)`): the weights are counted in {} (its own default without torch_dtype is fp32). llama.cpp (engine llamacpp) keeps gguf-{}.",
                    self.dtype,
                    ft.name()
                ),
                zh!(
                    "Hugging Face transformers 加载 GGUF 检查点时会反量化（`from_pretrained(gguf_file=…)`）：权重按 {} 计算（未指定 torch_dtype 时默认 fp32）。llama.cpp（引擎 llamacpp）保持 gguf-{}。",
                    self.dtype,
                    ft.name()
                ),
            );
        }
        self.finish(parts, phase, trainable, cpu)
    }

    /// A note when a sequence is longer than the model's `max_position_embeddings`: vLLM refuses
    /// such a `max_model_len`; elsewhere learned position embeddings (GPT-2, BERT) fail there and
    /// rotary ones run untrained that far. llama.cpp only warns, and is not noted.
    fn note_past_trained_context(&self, p: &mut Parts) {
        let trained = self.arch.max_position_embeddings;
        let (context, vllm) = match Runner::of(self.mode, self.engine) {
            Runner::Training => (self.seq_len, false),
            Runner::Llamacpp => (0, false),
            Runner::Vllm => (self.max_model_len, true),
            Runner::Transformers => (self.seq_len.saturating_add(self.new_tokens), false),
        };
        if trained == 0 || context <= trained {
            return;
        }
        let (n, limit) = (thousands(context), thousands(trained));
        if vllm {
            p.note(
                "vllm_beyond_context",
                en!(
                    "max_model_len {n} is past the model's max_position_embeddings {limit}: vLLM refuses to start unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (or a rope_scaling that extends the context), and quality past the trained context is not assured."
                ),
                zh!(
                    "max_model_len {n} 超过模型的 max_position_embeddings {limit}：除非设置 VLLM_ALLOW_LONG_MAX_MODEL_LEN=1（或用 rope_scaling 扩展上下文），vLLM 会拒绝启动；超出训练长度后的效果也没有保证。"
                ),
            );
        } else {
            p.note(
                "beyond_context",
                en!(
                    "{n} tokens per sequence is past the model's max_position_embeddings {limit}: a model with learned position embeddings (GPT-2, BERT) fails there, a rotary one runs but is not trained that far. The memory shown is for {n} tokens."
                ),
                zh!(
                    "每条序列 {n} 个 token，超过模型的 max_position_embeddings {limit}：使用可学习位置编码的模型（GPT-2、BERT）会直接出错，旋转位置编码的模型能运行，但没有在这么长的上下文上训练过。显示的显存按 {n} 个 token 计算。"
                ),
            );
        }
    }

    /// Weights of a model known by its parameter count only: `P × b` (the guide's rule), split
    /// evenly over tensor and pipeline parallel shards.
    /// Tokens per sequence through the main stack: a ViT sees its patches and class token,
    /// `(image / patch)² + 1` (its learned positions), whatever `seq_len` says.
    fn main_seq(&self) -> u64 {
        if self.arch.family == Family::Vit && self.arch.encoder_positions > 0 {
            self.arch.encoder_positions
        } else {
            self.seq_len
        }
    }

    /// Whisper's encoder: its layers and the fixed frames it runs (1,500 for 30 s of audio).
    fn encoder_stack(&self) -> (u64, u64) {
        if self.arch.family == Family::Whisper {
            (self.arch.encoder_layers, self.arch.encoder_positions.max(1))
        } else {
            (0, 0)
        }
    }

    /// Whisper's cross-attention: every decoder layer projects the encoder's frames to keys and
    /// values once and keeps them for the whole generation (`EncoderDecoderCache`'s cross cache;
    /// vLLM's `CrossAttentionSpec`). Elements per sequence over `layers` decoder layers, after
    /// tensor parallelism; 0 for every other family.
    fn cross_kv_elements(&self, layers: u64) -> u64 {
        let (_, frames) = self.encoder_stack();
        if frames == 0 || !self.arch.is_generative() {
            return 0;
        }
        let tp_kv = self.tp.min(self.arch.num_kv_heads.max(1));
        (self.arch.kv_elements_per_token_layer() / tp_kv)
            .sat_mul(frames)
            .sat_mul(layers)
    }

    /// A convolutional network's training activations from its per-image counts: what autograd
    /// saves for each image of the batch, and the max-pooling indices (int64).
    fn image_training_bytes(&self, act: u64) -> u64 {
        let a = &self.arch;
        self.batch.sat_mul(
            a.image_activations
                .sat_mul(act)
                .saturating_add(a.image_indices.sat_mul(8)),
        )
    }

    /// A convolutional network's inference working set: the widest point of one forward pass.
    fn image_inference_bytes(&self) -> u64 {
        self.batch
            .sat_mul(self.arch.image_working)
            .sat_mul(self.act_bytes())
    }

    fn opaque_weights(&self) -> u64 {
        let p = self.arch.params() as f64 * guide_bytes_per_param(self.dtype, &self.quantization);
        Bytes::from_f64(p / (self.tp * self.pp) as f64).get()
    }

    fn hopper(&self) -> bool {
        self.device.as_ref().is_none_or(|d| d.hopper_or_newer)
    }

    fn context_and_workspace(&self, p: &mut Parts) {
        p.add(
            "cuda_context",
            CUDA_CONTEXT.get(),
            false,
            formula!(text "CUDA context with lazy module loading: 0.51 GiB (measured, H100, PyTorch 2 / vLLM 0.19)", "CUDA 上下文（模块延迟加载）：0.51 GiB (实测，H100, PyTorch 2 / vLLM 0.19)"),
            en_str!("Driver and kernel images; outside PyTorch's allocator, visible in nvidia-smi."),
            zh_str!("驱动与内核镜像；不经 PyTorch 分配器，nvidia-smi 可见。"),
        );
        let ws = cublas_workspace(self.hopper()).get();
        p.add(
            "workspace",
            ws,
            true,
            formula!(
                [
                    "cuBLAS workspace: {} per handle and stream ({})",
                    b(ws),
                    if self.hopper() {
                        "Hopper or newer"
                    } else {
                        "before Hopper"
                    }
                ],
                [
                    "cuBLAS 工作区：{}，每个 handle 与 stream 各一份（{}）",
                    b(ws),
                    if self.hopper() {
                        "Hopper 及更新的架构"
                    } else {
                        "Hopper 之前的架构"
                    }
                ]
            ),
            en_str!("Allocated through PyTorch's caching allocator."),
            zh_str!("经 PyTorch 缓存分配器分配。"),
        );
    }

    fn hf_inference(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let w = per_gpu_weight_bytes(a, self.dtype, &self.quantization, self.tp, self.pp);
        let w = if a.is_detailed() {
            w
        } else {
            self.opaque_weights()
        };
        p.add(
            "weights",
            w,
            true,
            self.weights_formula(w),
            en_str!("Every weight tensor in its stored format."),
            zh_str!("每个权重张量按其存储格式计。"),
        );
        let layers = a.num_layers.div_ceil(self.pp);
        let (kv_end, kv_text) =
            self.kv_bytes(self.batch, self.seq_len + self.new_tokens, layers, true);
        let (kv_prefill, _) = self.kv_bytes(self.batch, self.seq_len, layers, true);
        let act = self.act_bytes();
        let (per_tok, s2) = activations::inference_per_token(a, act);
        // One block at a time. Whisper runs its encoder over the 1,500 frames first, then the
        // decoder over the prompt: the two passes peak apart.
        let (_, frames) = self.encoder_stack();
        let one_block = |seq: u64| {
            let eager = if self.kernel == Kernel::Eager {
                self.batch.sat_mul(s2).sat_mul(seq).sat_mul(seq)
            } else {
                0
            };
            self.batch
                .sat_mul(seq)
                .sat_mul(per_tok)
                .div_ceil(self.tp)
                .saturating_add(eager.div_ceil(self.tp))
        };
        let seq = self.main_seq().max(frames);
        let tokens = self.batch.sat_mul(seq);
        let (acts, acts_encoder) = if a.is_detailed() {
            (one_block(self.main_seq()), one_block(frames))
        } else if a.has_image_counts() {
            (self.image_inference_bytes(), 0)
        } else {
            (Bytes::from_f64(0.2 * w as f64).get(), 0)
        };
        // Whisper's decoder keeps the encoder's output and every layer's cross-attention keys
        // and values from its first step to its last (nothing for a model without frames).
        let cross = self
            .kv_dtype
            .bytes_for(
                self.cross_kv_elements(layers).sat_mul(self.batch),
                self.act_kv_dtype(),
            )
            .saturating_add(
                self.batch
                    .sat_mul(frames)
                    .sat_mul(a.hidden_size)
                    .sat_mul(act),
            );
        let vocab = a.vocab_size;
        let kept = if self.logits == Logits::All {
            self.seq_len
        } else {
            1
        };
        let logits = if a.is_generative() && vocab > 0 {
            self.batch.sat_mul(kept).sat_mul(vocab).sat_mul(act) + self.batch * vocab * 4
        } else {
            0
        };
        let decoder_prefill = kv_prefill
            .saturating_add(cross)
            .saturating_add(acts)
            .saturating_add(logits);
        let prefill = decoder_prefill.max(acts_encoder);
        let decode_logits = self.batch * vocab * (act + 4);
        let decode = kv_end.saturating_add(cross).saturating_add(decode_logits);
        let phase = if !a.is_detailed() && !a.has_image_counts() {
            Phase::Load
        } else if prefill >= decode {
            Phase::Prefill
        } else {
            Phase::Decode
        };
        let ws = cublas_workspace(self.hopper()).get();
        p.peak = Some(w.saturating_add(prefill.max(decode)).saturating_add(ws));
        let kv_note = if phase == Phase::Prefill && acts_encoder > decoder_prefill {
            formula!(text " (none of it exists yet at the peak, the encoder's pass)", "（峰值在编码器前向时，此时尚未分配）")
        } else if phase == Phase::Prefill && kv_end > kv_prefill {
            let filled = b(kv_prefill + cross);
            formula!(
                [" (at the prefill peak {filled} of it is filled)"],
                ["（预填充峰值时已填充 {filled}）"]
            )
        } else {
            Formula::default()
        };
        let cross_text = if cross > 0 {
            let (hidden, seqs, size) = (a.hidden_size, self.batch, b(cross));
            formula!(
                [
                    " + cross-attention K and V of {frames} encoder frames × {layers} layers and the encoder's output ({hidden} hidden) × {seqs} seq = {size}"
                ],
                [
                    " + 交叉注意力 KV：{frames} 个编码器帧 × {layers} 层，以及编码器输出（{hidden} 隐藏维度）× {seqs} 条序列 = {size}"
                ]
            )
        } else {
            Formula::default()
        };
        p.add(
            "kv_cache",
            kv_end.saturating_add(cross),
            true,
            formula!(
                ["{}{}{}", kv_text.en, cross_text.en, kv_note.en],
                ["{}{}{}", kv_text.zh, cross_text.zh, kv_note.zh]
            ),
            en_str!("Keys and values of every past token; HF's cache grows to prompt + generated tokens."),
            zh_str!("每个历史 token 的 K 与 V；HF 缓存随提示与生成 token 增长。"),
        );
        let acts_shown = acts.max(acts_encoder);
        let logits_shown = logits.max(decode_logits);
        if a.is_detailed() {
            let eager_text = if self.kernel == Kernel::Eager {
                let (batch, heads, bytes) = (self.batch, a.num_heads, 4 + act);
                formula!(
                    [" + eager scores {batch} × {heads} heads × {seq}² × {bytes} B"],
                    [" + eager 注意力分数 {batch} × {heads} 个头 × {seq}² × {bytes} B"]
                )
            } else {
                Formula::default()
            };
            let (tokens, size) = (thousands(tokens), b(acts_shown));
            p.add(
                "activations",
                acts_shown,
                true,
                formula!(
                    [
                        "{tokens} tokens × {per_tok} B per token in the widest op of one block{} = {size}",
                        eager_text.en
                    ],
                    [
                        "{tokens} token × {per_tok} B 每 token，取一个块内最宽的算子{} = {size}",
                        eager_text.zh
                    ]
                ),
                en_str!("Inference frees each block's tensors before the next: only one block's are alive."),
                zh_str!("推理时每层张量用完即释放：同一时刻只有一层的中间结果。"),
            );
        } else if a.has_image_counts() {
            p.add(
                "activations",
                acts_shown,
                true,
                formula!(
                    [
                        "{} {} × {} elements alive at the widest point of the forward pass ({s} × {s} pixels) × {act} B = {}",
                        self.batch,
                        if self.batch == 1 { "image" } else { "images" },
                        thousands(a.image_working),
                        b(acts),
                        s = a.image_size,
                    ],
                    [
                        "{} 张图像 × {} 个元素，前向传播最宽处同时存活（{s} × {s} 像素）× {act} B = {}",
                        self.batch,
                        thousands(a.image_working),
                        b(acts),
                        s = a.image_size,
                    ]
                ),
                en_str!("Counted layer by layer over the network: inference frees each layer's input once nothing reads it."),
                zh_str!("逐层计数：推理时每层的输入在无人再读后即释放。"),
            );
        } else {
            p.add(
                "activations",
                acts_shown,
                true,
                formula!(
                    ["0.2 × weights (the guide's 10–30 %) = {}", b(acts)],
                    ["0.2 × 权重（指南的 10–30 %) = {}", b(acts)]
                ),
                en_str!("Only the parameter count is known: the guide's rule."),
                zh_str!("仅知参数量：采用指南经验值。"),
            );
        }
        if logits_shown > 0 {
            p.add(
                "logits",
                logits_shown,
                true,
                formula!(
                    [
                        "{} × {kept} × {vocab} vocab × {act} B + fp32 copy of the last position = {}",
                        self.batch,
                        b(logits_shown)
                    ],
                    [
                        "{} × {kept} × {vocab} 词表 × {act} B + fp32 末位置的副本 = {}",
                        self.batch,
                        b(logits_shown)
                    ]
                ),
                en_str!("The LM head's output; generate keeps the last position in fp32."),
                zh_str!("语言模型头的输出；generate 以 fp32 保存最后位置。"),
            );
        }
        self.context_and_workspace(p);
        (phase, 0, 0)
    }

    fn vllm(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let w0 = per_gpu_weight_bytes(a, self.dtype, &self.quantization, self.tp, self.pp);
        let w0 = if a.is_detailed() {
            w0
        } else {
            self.opaque_weights()
        };
        // vLLM's rotary embedding keeps a cos/sin cache of max_position × head_dim in the model dtype.
        let rope = if a.is_generative() && a.mla.is_none() && a.learned_positions == 0 {
            a.max_position_embeddings
                .sat_mul(a.head_dim)
                .sat_mul(self.act_bytes())
        } else {
            0
        };
        let w = w0 + rope;
        p.add(
            "weights",
            w,
            true,
            if rope == 0 {
                self.weights_formula(w0)
            } else {
                let wf = self.weights_formula(w0);
                let (pos, dim, bytes) = (a.max_position_embeddings, a.head_dim, self.act_bytes());
                formula!(
                    ["{} + rotary cos/sin cache {pos} × {dim} × {bytes} B", wf.en],
                    [
                        "{} + 旋转位置编码 cos/sin 缓存 {pos} × {dim} × {bytes} B",
                        wf.zh
                    ]
                )
            },
            en_str!("Weights as vLLM loads them."),
            zh_str!("vLLM 加载的权重。"),
        );
        // Profile run: the larger of the forward pass over max_num_batched_tokens and the sampler's
        // dummy run over max_num_seqs (fp32 logits, a sorted copy, int64 indices: ≈ 15.1 B per
        // vocabulary entry per sequence, calibrated on the vLLM 0.19 H100 runs).
        let act = self.act_bytes();
        let (per_tok, _) = activations::inference_per_token(a, act);
        let forward = self
            .max_num_batched_tokens
            .sat_mul(per_tok.saturating_sub(8 * a.hidden_size) + 2 * act * a.hidden_size)
            .div_ceil(self.tp);
        let sampler = Bytes::from_f64(
            self.max_num_seqs as f64 * a.vocab_size as f64 * 4.0 * SAMPLER_FP32_COPIES,
        )
        .get();
        let acts = forward.max(sampler);
        p.add(
            "activations",
            acts,
            true,
            {
                let (tokens, per, fwd) = (self.max_num_batched_tokens, per_tok.saturating_sub(8 * a.hidden_size) + 2 * act * a.hidden_size, b(forward));
                let (seqs, vocab, copies, smp) = (self.max_num_seqs, a.vocab_size, short(SAMPLER_FP32_COPIES), b(sampler));
                formula!(
                    ["max(forward over {tokens} batched tokens × {per} B = {fwd}, sampler {seqs} seqs × {vocab} vocab × 4 B × {copies} = {smp})"],
                    ["max(前向 {tokens} 个批内 token × {per} B = {fwd}，采样器 {seqs} 条序列 × {vocab} 词表 × 4 B × {copies} = {smp})"]
                )
            },
            en_str!("vLLM's start-up profile run: its torch peak is reserved out of the budget."),
            zh_str!("vLLM 启动时的剖析运行：其峰值从预算中扣除。"),
        );
        let non_torch = if self.tp > 1 {
            VLLM_NON_TORCH_TP
        } else if self.pp > 1 {
            VLLM_NON_TORCH_PP
        } else {
            VLLM_NON_TORCH
        };
        p.add(
            "non_torch",
            non_torch.get(),
            false,
            formula!(
                [
                    "non-torch memory growth during the profile run: {} (measured: {})",
                    b(non_torch.get()),
                    if self.tp > 1 {
                        "NCCL and custom all-reduce buffers at tp ≥ 2"
                    } else {
                        "tp = 1"
                    }
                ],
                [
                    "剖析运行期间非 torch 内存的增长：{} (实测：{})",
                    b(non_torch.get()),
                    if self.tp > 1 {
                        "NCCL 与自定义 all-reduce 缓冲，tp ≥ 2"
                    } else {
                        "tp = 1"
                    }
                ]
            ),
            en_str!("cuBLAS/NCCL memory outside PyTorch, subtracted from the budget."),
            zh_str!("PyTorch 之外的 cuBLAS/NCCL 内存，从预算中扣除。"),
        );
        let layers_here = a.num_layers.div_ceil(self.pp);
        let (per_token, _) = self.kv_bytes(1, 1, layers_here, false);
        let per_token = if a.is_generative() {
            per_token.max(1)
        } else {
            0
        };
        // The hybrid allocator (sliding-window models): layers of one attention type are cut into
        // groups of `gs` layers (the smaller type's count, or the larger's when they are within
        // 25 %), the last group padded; a block id holds 16 tokens in each of the `gs` shared
        // tensors, and every group of a request takes its own blocks from the one pool. A full
        // layer needs the whole length, a sliding one cdiv(min(window − 1 + batched tokens,
        // max_model_len), 16) + 1 blocks.
        let per_layer = per_token / layers_here.max(1);
        let global = if a.sliding_window > 0 {
            a.global_layers() * layers_here / a.num_layers.max(1)
        } else {
            layers_here
        };
        let local = layers_here - global;
        // Whisper's decoder layers each have a cross-attention cache of the encoder's frames
        // (`CrossAttentionSpec`: cdiv(max_num_encoder_input_tokens, 16) blocks per request), a
        // type of its own beside the self-attention layers.
        let frames = self.encoder_stack().1;
        let cross = if frames > 0 { layers_here } else { 0 };
        let gs = match (global, local.max(cross)) {
            (0, n) | (n, 0) => n.max(1),
            (g, l) if g.max(l) * 4 < g.min(l) * 5 => g.max(l),
            (g, l) => g.min(l),
        };
        let (groups_full, groups_window, groups_cross) =
            (global.div_ceil(gs), local.div_ceil(gs), cross.div_ceil(gs));
        let full_blocks = self.max_model_len.div_ceil(VLLM_BLOCK);
        let window_blocks = (a.sliding_window.saturating_sub(1) + self.max_num_batched_tokens)
            .min(self.max_model_len)
            .div_ceil(VLLM_BLOCK)
            + 1;
        let cross_blocks = frames.div_ceil(VLLM_BLOCK);
        let request = per_layer
            .sat_mul(VLLM_BLOCK)
            .sat_mul(global * full_blocks + local * window_blocks + cross * cross_blocks);
        let budget_used = w + acts + non_torch.get();
        let (pool, tokens) = match &self.device {
            Some(d) => {
                let budget =
                    Bytes::from_f64(d.memory.get() as f64 * self.gpu_memory_utilization).get();
                let pool = budget.saturating_sub(budget_used);
                let block = per_layer * VLLM_BLOCK * gs;
                let blocks = pool.checked_div(block).unwrap_or(0);
                let pool_used = blocks * block;
                let groups = groups_full + groups_window + groups_cross;
                let per_request = groups_full * full_blocks
                    + groups_window * window_blocks
                    + groups_cross * cross_blocks;
                // Per block: one layer's 16 tokens × the group size (every layer of a dense model).
                let per_layer = thousands(per_layer);
                let per_block = if groups_cross > 0 {
                    formula!(
                        [
                            "{gs} layers × {per_layer} B per token per layer ({groups} groups of {gs} layers: {groups_full} self-attention, {groups_cross} cross-attention of {cross_blocks} blocks per request)"
                        ],
                        [
                            "{gs} 层 × {per_layer} B 每 token 每层 ({groups} 组，每组 {gs} 层：{groups_full} 个自注意力组，{groups_cross} 个交叉注意力组，每请求 {cross_blocks} 块)"
                        ]
                    )
                } else if groups > 1 {
                    formula!(
                        [
                            "{gs} layers × {per_layer} B per token per layer ({groups} groups of {gs} layers: {groups_full} global, {groups_window} sliding)"
                        ],
                        [
                            "{gs} 层 × {per_layer} B 每 token 每层 ({groups} 组，每组 {gs} 层：{groups_full} 个全局组，{groups_window} 个滑动窗口组)"
                        ]
                    )
                } else {
                    let per_token = thousands(per_token);
                    formula!(["{per_token} B per token"], ["{per_token} B 每 token"])
                };
                let (memory, util, size, blocks_n) = (
                    b(d.memory.get()),
                    short(self.gpu_memory_utilization),
                    b(pool),
                    thousands(blocks),
                );
                let formula = formula!(
                    [
                        "{memory} × {util} − (weights + activations + non-torch) = {size} → {blocks_n} blocks × 16 tokens × {}",
                        per_block.en
                    ],
                    [
                        "{memory} × {util} − (权重 + 激活 + 非 torch) = {size} → {blocks_n} 块 × 16 token × {}",
                        per_block.zh
                    ]
                );
                p.add(
                    "kv_cache",
                    pool_used,
                    true,
                    formula,
                    en_str!("vLLM preallocates every byte left in the budget as KV blocks."),
                    zh_str!("vLLM 把预算内剩余显存全部预分配为 KV 块。"),
                );
                if a.is_generative() {
                    p.serve_pool = Some(ServePool {
                        available: pool,
                        request,
                        concurrency: blocks as f64 / per_request.max(1) as f64,
                    });
                }
                (pool_used, blocks / groups.max(1) * VLLM_BLOCK)
            }
            None => {
                let tokens = self.batch.sat_mul(self.max_model_len);
                let pool = self.batch.sat_mul(request);
                let (full, per_layer) = (full_blocks * VLLM_BLOCK, thousands(per_layer));
                let per_seq = if cross > 0 {
                    let frames = cross_blocks * VLLM_BLOCK;
                    formula!(
                        [
                            "{layers_here} layers × ({full} tokens + {frames} cross-attention frames) × {per_layer} B per token per layer"
                        ],
                        [
                            "{layers_here} 层 × ({full} token + {frames} 个交叉注意力帧) × {per_layer} B 每 token 每层"
                        ]
                    )
                } else if local > 0 {
                    let window = window_blocks * VLLM_BLOCK;
                    formula!(
                        [
                            "({global} global layers × {full} tokens + {local} sliding layers × {window} tokens) × {per_layer} B per token per layer"
                        ],
                        [
                            "({global} 个全局层 × {full} token + {local} 个滑动窗口层 × {window} token) × {per_layer} B 每 token 每层"
                        ]
                    )
                } else {
                    let per_token = thousands(per_token);
                    formula!(
                        ["{full} max_model_len × {per_token} B per token"],
                        ["{full} max_model_len × {per_token} B 每 token"]
                    )
                };
                let (batch, size) = (self.batch, b(pool));
                let formula = formula!(
                    [
                        "{batch} {} × {} = {size} (no GPU given: the KV the pool must hold)",
                        if batch == 1 { "seq" } else { "seqs" },
                        per_seq.en
                    ],
                    [
                        "{batch} 条序列 × {} = {size}（未指定显卡：KV 池必须容纳的量）",
                        per_seq.zh
                    ]
                );
                p.add(
                    "kv_cache",
                    pool,
                    true,
                    formula,
                    en_str!("Without a card, the pool that serves `batch` full-length sequences."),
                    zh_str!("未指定显卡时：满足 batch 条满长序列所需的池。"),
                );
                p.note("vllm_no_device", String::from(en_str!("No GPU given: vLLM would size its pool from gpu_memory_utilization × the card; shown is the KV needed for `batch` sequences of max_model_len.")), String::from(zh_str!("未指定显卡：vLLM 会按 gpu_memory_utilization × 显存确定 KV 池；此处显示 batch 条 max_model_len 序列所需的 KV。")));
                (pool, tokens)
            }
        };
        let _ = pool;
        if self.cuda_graphs {
            let g = Bytes::from_f64(
                (CUDA_GRAPH_BASE_GIB + CUDA_GRAPH_PER_LAYER_GIB * layers_here as f64) * GIB as f64,
            )
            .get();
            let (base, per, size) = (
                short(CUDA_GRAPH_BASE_GIB),
                short(CUDA_GRAPH_PER_LAYER_GIB),
                b(g),
            );
            p.add("cuda_graphs", g, false, formula!(["{base} GiB + {per} GiB × {layers_here} layers = {size} (fitted to vLLM 0.19 H100 runs)"], ["{base} GiB + {per} GiB × {layers_here} 层 = {size} (拟合自 vLLM 0.19 H100 的实测)"]), en_str!("Captured after the pool is sized, so real use overshoots utilisation × memory by this much."), zh_str!("在 KV 池确定后捕获，实际占用因此超出利用率 × 显存。"));
        }
        // Each worker of a tensor- or pipeline-parallel group also holds NCCL's communicators
        // and the custom all-reduce buffers before the profile run.
        let (context, context_text) = if self.tp * self.pp > 1 {
            (
                VLLM_CUDA_CONTEXT_PARALLEL,
                formula!(text "CUDA context with NCCL communicators: 1.53 GiB (measured, H100, vLLM 0.19, tp or pp ≥ 2)", "CUDA 上下文与 NCCL 通信器：1.53 GiB (实测，H100, vLLM 0.19，tp 或 pp ≥ 2)"),
            )
        } else {
            (
                CUDA_CONTEXT,
                formula!(text "CUDA context: 0.51 GiB (measured, H100, vLLM 0.19)", "CUDA 上下文：0.51 GiB (实测，H100, vLLM 0.19)"),
            )
        };
        p.add(
            "cuda_context",
            context.get(),
            false,
            context_text,
            en_str!("Outside the utilisation budget."),
            zh_str!("不计入利用率预算。"),
        );
        p.comps.retain(|c| c.key != "workspace");
        let tokens = if a.is_generative() { tokens } else { 0 };
        p.serve_tokens = Some(tokens);
        // M_theory for serving (the guide's stage 2: KV at the peak concurrency): the card memory
        // whose utilisation budget holds the weights, the profile peak, non-torch memory and the KV
        // of `batch` sequences of max_model_len, plus what lives outside the budget.
        let demand = self.batch.sat_mul(request);
        let outside = context.get().saturating_add(p.get("cuda_graphs"));
        p.theory = Some(
            Bytes::from_f64(
                budget_used.saturating_add(demand) as f64 / self.gpu_memory_utilization,
            )
            .get()
            .saturating_add(outside),
        );
        (Phase::Serving, 0, 0)
    }

    /// A tensor as llama.cpp loads it. A checkpoint released in MXFP4 (gpt-oss) runs from its
    /// GGUF of file type MXFP4_MOE: the routed experts in MXFP4, every other matrix in Q8_0, the
    /// router and the vectors in F32 (ggml-org/gpt-oss-20b-GGUF: 72 MXFP4 and 98 Q8_0 tensors).
    fn gguf_tensor_bytes(&self, t: &crate::model::Tensor) -> u64 {
        if self.quantization == Quantization::Mxfp4 && !t.role.is_expert() {
            if t.rows_in > 1 && t.role != Role::Router {
                return crate::precision::GgmlType::Q8_0.bytes_for(t.numel());
            }
            return t.numel().sat_mul(4);
        }
        tensor_bytes(&self.quantization, &self.arch, self.dtype, t)
    }

    fn llamacpp(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let layers = a.num_layers.max(1);
        let on_gpu = self.gpu_layers.min(layers);
        let output_on_gpu = self.gpu_layers > layers;
        // Several GPUs: llama.cpp splits the offloaded blocks across them (--split-mode layer,
        // the default), each with its blocks' KV cache and its own compute buffer; the output
        // layer goes to the last. Shown is the most loaded GPU.
        let split = (self.dp * self.pp).clamp(1, on_gpu.max(1));
        let first = layers - on_gpu;
        let mut stage_w = alloc::vec![0u64; split as usize];
        let mut stage_layers = alloc::vec![0u64; split as usize];
        let stage_of = |l: u64| weights::layer_stage(l - first, on_gpu, split) as usize;
        let (mut gpu, mut cpu, mut head) = (0u64, 0u64, 0u64);
        for t in a.tensors() {
            let bytes = self.gguf_tensor_bytes(&t);
            if t.role == Role::LmHead {
                head = head.saturating_add(bytes);
            }
            let here = match t.layer {
                // llama.cpp offloads the last `ngl` blocks.
                Some(l) => l >= first,
                None => {
                    t.role == Role::LmHead
                        || (t.role == Role::Vector && output_on_gpu)
                        || (t.role == Role::Embedding && a.tied_embeddings && output_on_gpu)
                }
            };
            if here && t.role != Role::Embedding
                || (t.role == Role::Embedding && a.tied_embeddings && output_on_gpu)
            {
                gpu = gpu.saturating_add(bytes);
                if let Some(l) = t.layer {
                    let g = stage_of(l);
                    stage_w[g] = stage_w[g].saturating_add(bytes);
                }
            } else {
                cpu = cpu.saturating_add(bytes);
            }
        }
        for l in first..layers {
            stage_layers[stage_of(l)] += 1;
        }
        if !a.is_detailed() {
            // A bare parameter count has no tensors: the guide's bytes per parameter, on the GPU
            // as far as -ngl reaches (all of it by default), split evenly.
            let all = self.opaque_weights();
            (gpu, cpu) = if on_gpu > 0 { (all, 0) } else { (0, all) };
            stage_w.fill(gpu.div_ceil(split));
        } else {
            if !output_on_gpu {
                // The output layer stays on the CPU unless all blocks and the output are offloaded.
                gpu = gpu.saturating_sub(head);
                cpu = cpu.saturating_add(head);
            }
            // The output layer (and a tied embedding) on the last GPU.
            let blocks: u64 = stage_w.iter().fold(0, |x, y| x.saturating_add(*y));
            let last = stage_w.len() - 1;
            stage_w[last] = stage_w[last].saturating_add(gpu.saturating_sub(blocks));
        }
        let ctx = self.max_model_len;
        // Compute buffer: the output logits for one ubatch in fp32, the block's fp32 activations,
        // and without flash attention the fp32 KQ matrix of ubatch × context × heads.
        let ub = self.ubatch.min(ctx.max(1));
        let blockact = ub * (a.hidden_size * 4 + activations::token_ffn_width(a) * 2) * 4;
        let kq = if self.kernel == Kernel::Eager {
            ub * ctx * a.num_heads * 4
        } else {
            0
        };
        // The output's logits and a block's tensors are never alive together: the graph
        // allocator reuses one for the other (Llama-3.1-8B, ubatch 512, n_ctx 8192, flash
        // attention off: llama.cpp logs a 560 MiB compute buffer, KQ 512 MiB + 48 MiB).
        // The logits (last GPU only) or a block's tensors with KQ, and the stage's KV cache.
        let compute_of = |g: usize| {
            let logits = if output_on_gpu && g + 1 == split as usize {
                ub * a.vocab_size * 4
            } else {
                0
            };
            let c = if stage_layers[g] > 0 || logits > 0 {
                logits.max(blockact + kq)
            } else {
                0
            };
            (c, logits)
        };
        let mut busiest = 0;
        let mut most = 0;
        for g in 0..split as usize {
            let kv = self.kv_bytes_llamacpp(ctx, stage_layers[g]).0;
            let t = stage_w[g]
                .saturating_add(kv)
                .saturating_add(compute_of(g).0);
            if t >= most {
                (busiest, most) = (g, t);
            }
        }
        let w = stage_w[busiest];
        let (kv, kv_text) = self.kv_bytes_llamacpp(ctx, stage_layers[busiest]);
        let (compute, logits) = compute_of(busiest);
        let on = if split > 1 {
            let (n, here) = (busiest + 1, stage_layers[busiest]);
            let output = busiest + 1 == split as usize && output_on_gpu;
            formula!(
                [
                    " (GPU {n} of {split}: {here} of them{})",
                    if output { " + output layer" } else { "" }
                ],
                [
                    "（GPU {n} / {split}：其中 {here} 块{}）",
                    if output { " + 输出层" } else { "" }
                ]
            )
        } else {
            Formula::default()
        };
        let formula = if a.is_detailed() {
            let size = b(w);
            formula!(
                [
                    "{on_gpu} of {layers} blocks{} on the GPU{}; token embeddings stay in CPU memory = {size}",
                    if output_on_gpu { " + output layer" } else { "" },
                    on.en
                ],
                [
                    "{on_gpu} / {layers} 块{}在 GPU 上{}；词嵌入留在 CPU 内存 = {size}",
                    if output_on_gpu { " + 输出层" } else { "" },
                    on.zh
                ]
            )
        } else if split > 1 {
            let (wf, size) = (self.weights_formula(gpu), b(w));
            formula!(
                ["{} / {split} GPUs = {size}", wf.en],
                ["{} / {split} 个 GPU = {size}", wf.zh]
            )
        } else {
            self.weights_formula(gpu)
        };
        p.add(
            "weights",
            w,
            false,
            formula,
            en_str!("llama.cpp offloads whole blocks (-ngl); the rest runs on the CPU."),
            zh_str!("llama.cpp 按层卸载（-ngl），其余在 CPU 上运行。"),
        );
        let (kv_cpu, _) = self.kv_bytes_llamacpp(ctx, layers - on_gpu);
        cpu = cpu.saturating_add(kv_cpu);
        p.add(
            "kv_cache",
            kv,
            false,
            kv_text,
            en_str!("llama.cpp allocates the whole context (-c) up front."),
            zh_str!("llama.cpp 预先分配整个上下文（-c）。"),
        );
        p.add(
            "compute_buffer",
            compute,
            false,
            {
                let vocab = if logits > 0 { a.vocab_size } else { 0 };
                let (block, size, heads) = (b(blockact), b(compute), a.num_heads);
                let kq_text = if kq > 0 {
                    formula!(
                        [" + KQ {ub} × {ctx} × {heads} heads × 4 B"],
                        [" + KQ {ub} × {ctx} × {heads} 个头 × 4 B"]
                    )
                } else {
                    Formula::default()
                };
                formula!(
                    [
                        "max(logits {ub} × {vocab} × 4 B, block activations {block}{}) = {size}",
                        kq_text.en
                    ],
                    [
                        "max(logits {ub} × {vocab} × 4 B，块激活 {block}{}) = {size}",
                        kq_text.zh
                    ]
                )
            },
            en_str!(
                "ggml's graph allocator reserves the largest graph's intermediate tensors once."
            ),
            zh_str!("ggml 图分配器按最大计算图一次性预留中间张量。"),
        );
        p.add(
            "cuda_context",
            LLAMACPP_CONTEXT.get(),
            false,
            formula!(
                ["CUDA context and cuBLAS: {}", b(LLAMACPP_CONTEXT.get())],
                ["CUDA 上下文与 cuBLAS：{}", b(LLAMACPP_CONTEXT.get())]
            ),
            en_str!("The CUDA runtime's own memory."),
            zh_str!("CUDA 运行时自身占用。"),
        );
        (Phase::Decode, 0, cpu)
    }

    fn kv_bytes_llamacpp(&self, ctx: u64, layers: u64) -> (u64, Formula) {
        let a = &self.arch;
        if !a.is_generative() || layers == 0 {
            return (
                0,
                formula!(text "no KV cache on the GPU", "GPU 上没有 KV 缓存"),
            );
        }
        let per_layer = a.kv_elements_per_token_layer();
        // Interleaved sliding-window layers (Gemma 2/3, gpt-oss, Llama 4's chunks) get their own
        // cache of min(n_ctx, n_swa × sequences + n_ubatch) cells, padded to 256
        // (`llama_kv_cache_iswa`, without --swa-full). A model whose every layer slides (Mistral
        // v0.1) runs as plain llama there, window ignored.
        let interleaved =
            a.sliding_window > 0 && a.sliding_layers > 0 && a.sliding_layers < a.num_layers;
        let (swa_layers, swa_cells) = if interleaved {
            let here = (layers * a.sliding_layers).div_ceil(a.num_layers.max(1));
            let cells = a
                .sliding_window
                .sat_mul(self.batch)
                .saturating_add(self.ubatch)
                .next_multiple_of(256)
                .min(ctx);
            (here.min(layers), cells)
        } else {
            (0, 0)
        };
        let cells = ctx
            .sat_mul(layers - swa_layers)
            .saturating_add(swa_cells.sat_mul(swa_layers));
        let elems = per_layer.sat_mul(cells);
        // llama.cpp's default KV type is f16.
        let dtype = if self.kv_dtype == KvDtype::Auto {
            KvDtype::Fp16
        } else {
            self.kv_dtype
        };
        let bytes = dtype.bytes_for(elems, Dtype::Fp16);
        let (name, size) = (dtype.name(), b(bytes));
        let text = if swa_layers > 0 {
            let (full, window, seqs, ubatch) = (
                layers - swa_layers,
                a.sliding_window,
                self.batch,
                self.ubatch,
            );
            formula!(
                [
                    "{per_layer} values per token per layer × ({full} layers × {ctx} context + {swa_layers} sliding layers × {swa_cells} cells (window {window} × {seqs} seq + ubatch {ubatch}, padded to 256)) × {name} = {size}"
                ],
                [
                    "{per_layer} 个值每 token 每层 × ({full} 层 × {ctx} 上下文 + {swa_layers} 个滑动窗口层 × {swa_cells} 个单元（窗口 {window} × {seqs} 条序列 + ubatch {ubatch}，补齐到 256 的倍数）) × {name} = {size}"
                ]
            )
        } else {
            formula!(
                [
                    "{per_layer} values per token per layer × {layers} layers × {ctx} context × {name} = {size}"
                ],
                ["{per_layer} 个值每 token 每层 × {layers} 层 × {ctx} 上下文 × {name} = {size}"]
            )
        };
        (bytes, text)
    }

    #[allow(clippy::too_many_lines)]
    fn training(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let reg = self.precision;
        let lora = self.lora_rank > 0;
        let detailed = a.is_detailed();
        let params = a.params();
        let sb = reg.state_bytes();
        let act = reg.act_bytes();
        // Trainable parameters: all, or LoRA's r × (in + out) per targeted projection.
        let mask = self.lora_mask;
        let tensors = a.tensors();
        let lora_of = |t: &crate::model::Tensor| {
            if lora && t.role.is_block_linear() && mask & role_bit(t.role) != 0 {
                self.lora_rank
                    .sat_mul(t.rows_in + t.rows_out)
                    .sat_mul(t.count)
            } else {
                0
            }
        };
        let lora_params: u64 = tensors.iter().map(lora_of).fold(0, u64::saturating_add);
        let trainable = if lora { lora_params } else { params };
        // What one GPU holds of a per-tensor quantity: the busiest tensor × pipeline shard (with
        // pipeline stages, the last one holds the head besides its layers).
        let shards = self.tp * self.pp;
        let busiest = |f: &dyn Fn(&crate::model::Tensor) -> u64, total: u64| {
            if detailed {
                weights::busiest_gpu(a, self.tp, self.pp, f)
            } else {
                total.div_ceil(shards)
            }
        };
        // The trainable parameters of that GPU.
        let t_shard = if lora {
            busiest(&lora_of, lora_params)
        } else {
            busiest(&|t| t.numel(), params)
        };
        let zero = self.zero;
        let dp = self.dp;
        let offload = self.offload != Offload::None;
        // Weights.
        let base_dtype = if reg == Precision::Fp32 {
            Dtype::Fp32
        } else if lora || zero > 0 {
            // LoRA loads the base in the model dtype; ZeRO keeps bf16/fp16 model weights and fp32 masters in the optimizer.
            match reg {
                Precision::Fp16 | Precision::AmpFp16 => Dtype::Fp16,
                _ => Dtype::Bf16,
            }
        } else if reg.fp32_master() {
            Dtype::Fp32
        } else if reg == Precision::Fp16 {
            Dtype::Fp16
        } else {
            Dtype::Bf16
        };
        // Autocast over fp32 weights: the residual stream stays fp32 and projections cast their inputs.
        let amp =
            matches!(reg, Precision::AmpBf16 | Precision::AmpFp16) && base_dtype == Dtype::Fp32;
        let q = if self.qlora {
            Quantization::BnbNf4 { double_quant: true }
        } else if lora {
            self.quantization
        } else {
            Quantization::None
        };
        let mut w = if detailed {
            per_gpu_weight_bytes(a, base_dtype, &q, self.tp, self.pp)
        } else {
            params.sat_mul(base_dtype.bits() as u64 / 8)
        };
        let mut w_text: Formula = if detailed {
            self.weights_formula_train(w, base_dtype, &q)
        } else {
            let (n, per, size) = (thousands(params), base_dtype.bits() / 8, b(w));
            formula!(
                ["{n} params × {per} B = {size}"],
                ["{n} 个参数 × {per} B = {size}"]
            )
        };
        if self.qlora {
            // prepare_model_for_kbit_training casts the unquantized parameters (embeddings, head, norms) to fp32.
            let unquantized = |t: &crate::model::Tensor| {
                if weights::is_quantized(&q, a, t) {
                    0
                } else {
                    t.numel()
                }
            };
            let unq: u64 = tensors.iter().map(unquantized).fold(0, u64::saturating_add);
            let extra = busiest(&unquantized, unq).sat_mul(2);
            w = w.saturating_add(extra);
            let (unq, extra) = (thousands(unq), b(extra));
            w_text = formula!(
                [
                    "{} + {unq} unquantized params upcast to fp32 by prepare_model_for_kbit_training (+{extra})",
                    w_text.en
                ],
                [
                    "{} + {unq} 个未量化参数被升为 fp32（prepare_model_for_kbit_training） (+{extra})",
                    w_text.zh
                ]
            );
        }
        if lora {
            // DeepSpeed holds the whole model, adapters included, in 16 bits (their fp32 masters
            // are in the optimizer partition); without ZeRO, PEFT keeps the adapters in fp32.
            let ab = if zero > 0 { act } else { sb };
            let adapters = t_shard.sat_mul(ab);
            w = w.saturating_add(adapters);
            let (n, size) = (thousands(t_shard), b(adapters));
            w_text = formula!(
                ["{} + LoRA adapters {n} × {ab} B = {size}", w_text.en],
                ["{} + LoRA 适配器 {n} × {ab} B = {size}", w_text.zh]
            );
        }
        // ZeRO-3 partitions the weights too, the frozen base of a LoRA run included (PEFT's
        // DeepSpeed guide runs Llama-2-70B LoRA this way on 8 GPUs).
        let mut live_params = 0;
        if zero == 3 {
            let layer_params = params / a.num_layers.max(1);
            live_params = layer_params.sat_mul(2).sat_mul(2).div_ceil(self.tp);
            w = if offload { 0 } else { w.div_ceil(dp) };
            w_text = formula!(
                [
                    "{}, partitioned over {dp} data-parallel ranks (ZeRO-3){}",
                    w_text.en,
                    if offload { ", offloaded" } else { "" }
                ],
                [
                    "{}，切分到 {dp} 个数据并行 rank (ZeRO-3){}",
                    w_text.zh,
                    if offload { "，已卸载" } else { "" }
                ]
            );
        }
        p.add(
            "weights",
            w,
            true,
            w_text,
            en_str!("Model weights as held during training."),
            zh_str!("训练时保存的模型权重。"),
        );
        // Gradients (in the master dtype; under ZeRO in the model dtype, reduced into fp32 partitions).
        let grad_bytes = if zero > 0 { act } else { sb };
        let mut g = t_shard.sat_mul(grad_bytes);
        let n_trainable = thousands(t_shard);
        let mut g_text = formula!(
            ["{n_trainable} trainable params × {grad_bytes} B"],
            ["{n_trainable} 个可训练参数 × {grad_bytes} B"]
        );
        if zero >= 2 {
            g = if offload { 0 } else { g.div_ceil(dp) };
            g_text = formula!(
                [
                    "{} / {dp} ranks (ZeRO-{zero}){}",
                    g_text.en,
                    if offload {
                        ", reduced into CPU partitions"
                    } else {
                        ""
                    }
                ],
                [
                    "{} / {dp} 个 rank (ZeRO-{zero}){}",
                    g_text.zh,
                    if offload {
                        "，归约到 CPU 分区"
                    } else {
                        ""
                    }
                ]
            );
        }
        p.add(
            "gradients",
            g,
            true,
            formula!(["{} = {}", g_text.en, b(g)], ["{} = {}", g_text.zh, b(g)]),
            en_str!("One gradient per trainable parameter."),
            zh_str!("每个可训练参数一个梯度。"),
        );
        // Optimizer states.
        let (state_per_param, opt_name) = match self.optimizer {
            Optimizer::Adamw => (
                2 * sb,
                formula!(["AdamW: 2 moments × {sb} B"], ["AdamW：2 个矩 × {sb} B"]),
            ),
            Optimizer::Adamw8bit => (
                2,
                formula!(text "8-bit AdamW: 2 moments × 1 B + an fp32 scale per 256 (blockwise, bitsandbytes)", "8-bit AdamW：2 个矩 × 1 B + fp32 缩放因子（每 256 个一个）（分块，bitsandbytes）"),
            ),
            Optimizer::Sgd => (0, formula!(text "SGD: no state", "SGD：无状态")),
            Optimizer::SgdMomentum => (
                sb,
                formula!(
                    ["SGD momentum: 1 state × {sb} B"],
                    ["SGD 动量：1 个状态 × {sb} B"]
                ),
            ),
            Optimizer::Lion => (
                sb,
                formula!(["Lion: 1 momentum × {sb} B"], ["Lion：1 个动量 × {sb} B"]),
            ),
            Optimizer::Adafactor => (
                0,
                formula!(text "Adafactor: factored second moment (row + column per matrix, 4 B)", "Adafactor：分解的二阶矩（每个矩阵的行 + 列，4 B)"),
            ),
        };
        let mut o = t_shard.sat_mul(state_per_param);
        if self.optimizer == Optimizer::Adamw8bit {
            // bitsandbytes quantizes each state in blocks of 256 with one fp32 absmax per block.
            o = o.saturating_add(t_shard.div_ceil(256).sat_mul(8));
        }
        if self.optimizer == Optimizer::Adafactor {
            let factored = |t: &crate::model::Tensor| {
                if lora {
                    if t.role.is_block_linear() && mask & role_bit(t.role) != 0 {
                        (self.lora_rank * 2 + t.rows_in + t.rows_out) * 4 * t.count
                    } else {
                        0
                    }
                } else if t.rows_in > 1 {
                    (t.rows_in + t.rows_out) * 4 * t.count
                } else {
                    t.numel() * 4
                }
            };
            let total = tensors.iter().map(factored).fold(0, u64::saturating_add);
            o = busiest(&factored, total);
        }
        // ZeRO (DeepSpeed mixed precision) keeps fp32 master weights in the optimizer partition.
        let master = if zero > 0 && reg.fp32_master() && reg != Precision::Fp32 {
            t_shard * 4
        } else {
            0
        };
        let mut o_text = formula!(
            ["{n_trainable} trainable × ({})", opt_name.en],
            ["{n_trainable} 个可训练参数 × ({})", opt_name.zh]
        );
        if master > 0 {
            o = o.saturating_add(master);
            o_text = formula!(
                ["{} + fp32 master weights 4 B", o_text.en],
                ["{} + fp32 主权重 4 B", o_text.zh]
            );
        }
        if zero >= 1 {
            o = if offload { 0 } else { o.div_ceil(dp) };
            let cpu = self.offload == Offload::Cpu;
            o_text = formula!(
                [
                    "{} / {dp} ranks (ZeRO-{zero}){}",
                    o_text.en,
                    match (offload, cpu) {
                        (false, _) => "",
                        (true, true) => ", offloaded to CPU",
                        (true, false) => ", offloaded to NVMe",
                    }
                ],
                [
                    "{} / {dp} 个 rank (ZeRO-{zero}){}",
                    o_text.zh,
                    match (offload, cpu) {
                        (false, _) => "",
                        (true, true) => "，卸载到 CPU",
                        (true, false) => "，卸载到 NVMe",
                    }
                ]
            );
        }
        p.add(
            "optimizer",
            o,
            true,
            formula!(["{} = {}", o_text.en, b(o)], ["{} = {}", o_text.zh, b(o)]),
            en_str!("Optimizer states persist across steps."),
            zh_str!("优化器状态在各步之间常驻。"),
        );
        // Activations.
        let train = Trainable {
            all: !lora,
            lora_mask: if lora { mask } else { 0 },
        };
        // The sequence through the main stack (a ViT's patches and class token, whatever
        // seq_len says) and, for Whisper, the encoder's fixed frames over its own layers.
        let seq = self.main_seq();
        let tokens = self.batch.sat_mul(seq);
        let (enc_layers, enc_seq) = self.encoder_stack();
        let (acts, act_text) = if detailed {
            let (per_tok, s2) =
                activations::training_per_token(a, act, &train, self.kernel, self.tp, amp);
            let s2_total = if self.checkpointing == Checkpointing::None {
                s2
            } else {
                0
            };
            // What one block saves for a sequence of `s` tokens, over the batch.
            let block = |s: u64, s2: u64| {
                self.batch
                    .sat_mul(s)
                    .sat_mul(per_tok)
                    .saturating_add(self.batch.sat_mul(s).sat_mul(s).sat_mul(s2))
            };
            // A Whisper decoder layer's cross-attention over the encoder's frames.
            let cross = |s2: u64| {
                if enc_layers == 0 {
                    return 0;
                }
                let (tok, frame) =
                    activations::cross_attention_training(a, act, &train, self.tp, amp);
                self.batch.sat_mul(
                    seq.sat_mul(tok)
                        .saturating_add(enc_seq.sat_mul(frame))
                        .saturating_add(seq.sat_mul(enc_seq).sat_mul(s2)),
                )
            };
            let resid = if reg.fp32_master() && !lora { 4 } else { act };
            let enc_text = if enc_layers > 0 {
                let frames = self.batch * enc_seq;
                formula!(
                    [
                        " (+ {enc_layers} encoder blocks × {frames} frames, and each decoder block's cross-attention over them)"
                    ],
                    [
                        " (+ {enc_layers} 个编码器块 × {frames} 帧，以及每个解码器块对其的交叉注意力)"
                    ]
                )
            } else {
                Formula::default()
            };
            let (n_tokens, hidden, blocks) = (thousands(tokens), a.hidden_size, a.num_layers);
            match self.checkpointing {
                Checkpointing::Full => {
                    // The block inputs, and the encoder's output that every decoder block reads.
                    let kept = tokens
                        .sat_mul(a.num_layers)
                        .saturating_add(self.batch * enc_seq * (enc_layers + enc_layers.min(1)))
                        .sat_mul(resid * a.hidden_size);
                    let one = block(seq.max(enc_seq), s2).max(block(seq, s2) + cross(s2));
                    (
                        kept.saturating_add(one),
                        formula!(
                            [
                                "block inputs {n_tokens} tokens × {resid} B × {hidden} hidden × {blocks} blocks{} + one block recomputed ({per_tok} B per token) = {}",
                                enc_text.en,
                                b(kept + one)
                            ],
                            [
                                "块输入 {n_tokens} token × {resid} B × {hidden} 隐藏维度 × {blocks} 块{} + 重算一个块 ({per_tok} B 每 token) = {}",
                                enc_text.zh,
                                b(kept + one)
                            ]
                        ),
                    )
                }
                _ => {
                    let total = block(seq, s2_total)
                        .saturating_add(cross(s2_total))
                        .sat_mul(a.num_layers)
                        .saturating_add(block(enc_seq, s2_total).sat_mul(enc_layers));
                    let s2_text = if s2_total > 0 {
                        let batch = self.batch;
                        formula!(
                            [" + {batch} × {seq}² × {s2_total} B (eager scores)"],
                            [" + {batch} × {seq}² × {s2_total} B（eager 注意力分数）"]
                        )
                    } else {
                        Formula::default()
                    };
                    let size = b(total);
                    (
                        total,
                        formula!(
                            [
                                "{n_tokens} tokens × {per_tok} B per token per block{} × {blocks} blocks{} = {size}",
                                s2_text.en,
                                enc_text.en
                            ],
                            [
                                "{n_tokens} token × {per_tok} B 每 token 每块{} × {blocks} 块{} = {size}",
                                s2_text.zh,
                                enc_text.zh
                            ]
                        ),
                    )
                }
            }
        } else if a.has_image_counts() {
            let x = self.image_training_bytes(act);
            (
                x,
                formula!(
                    [
                        "{} {} × ({} elements saved for backward × {act} B + {} max-pooling indices × 8 B) at {s} × {s} pixels = {}",
                        self.batch,
                        if self.batch == 1 { "image" } else { "images" },
                        thousands(a.image_activations),
                        thousands(a.image_indices),
                        b(x),
                        s = a.image_size,
                    ],
                    [
                        "{} 张图像 × ({} 个为反向保存的元素 × {act} B + {} 个最大池化索引 × 8 B)，输入 {s} × {s} 像素 = {}",
                        self.batch,
                        thousands(a.image_activations),
                        thousands(a.image_indices),
                        b(x),
                        s = a.image_size,
                    ]
                ),
            )
        } else {
            let x = Bytes::from_f64(0.35 * params as f64 * act as f64).get();
            (
                x,
                formula!(
                    [
                        "0.35 × weights at {act} B (the guide's 0.2–0.5 ×) = {}",
                        b(x)
                    ],
                    ["0.35 × 权重，每参数 {act} B（指南的 0.2–0.5 ×) = {}", b(x)]
                ),
            )
        };
        let acts = if self.pp > 1 {
            // 1F1B: the first stage holds pp micro-batches of its layers in flight.
            acts.div_ceil(self.pp).sat_mul(self.pp.min(self.pp))
        } else {
            acts
        };
        p.add(
            "activations",
            acts,
            true,
            act_text,
            en_str!("Tensors saved in forward for backward; frozen projections keep no input."),
            zh_str!("前向保存供反向使用的张量；冻结的投影不保存输入。"),
        );
        // Logits and the loss: the head's output, its fp32 copy (logits.float()) and the saved log-softmax.
        // In fp32, `logits.float()` returns the same tensor: no copy.
        let logit_bytes = if act == 4 { 8 } else { act + 8 };
        let logits = if a.is_generative() && a.vocab_size > 0 {
            tokens
                .sat_mul(a.vocab_size)
                .sat_mul(logit_bytes)
                .div_ceil(self.tp)
        } else {
            0
        };
        if logits > 0 {
            let (n, vocab, size) = (thousands(tokens), a.vocab_size, b(logits));
            let text = formula!(
                [
                    "{n} tokens × {vocab} vocab × ({act} B logits{} + 4 B log-softmax) = {size}",
                    if act == 4 { "" } else { " + 4 B fp32 copy" }
                ],
                [
                    "{n} token × {vocab} 词表 × ({act} B logits{} + 4 B log-softmax) = {size}",
                    if act == 4 { "" } else { " + 4 B fp32 副本" }
                ]
            );
            p.add("logits", logits, true, text, en_str!("The cross-entropy loss upcasts the logits to fp32; with a large vocabulary this is often the peak."), zh_str!("交叉熵损失把 logits 升为 fp32；词表大时常是峰值所在。"));
        }
        // End of backward: the embedding's dense gradient is built in a fresh buffer before it is
        // accumulated (twice the matrix when the head shares it: the head's gradient is already there).
        let emb_buf = if !lora && zero == 0 && detailed && a.vocab_size > 0 {
            let n = a.vocab_size.sat_mul(a.hidden_size).sat_mul(grad_bytes);
            let copies = if a.tied_embeddings && a.is_generative() {
                2
            } else {
                1
            };
            n.sat_mul(copies).div_ceil(self.tp)
        } else {
            0
        };
        if emb_buf > 0 {
            let (vocab, hidden, size) = (a.vocab_size, a.hidden_size, b(emb_buf));
            let tied = a.tied_embeddings && a.is_generative();
            let text = formula!(
                [
                    "{vocab} vocab × {hidden} hidden × {grad_bytes} B{} = {size}",
                    if tied {
                        " × 2 (tied with the head)"
                    } else {
                        ""
                    }
                ],
                [
                    "{vocab} 词表 × {hidden} 隐藏维度 × {grad_bytes} B{} = {size}",
                    if tied {
                        " × 2（与输出头共享）"
                    } else {
                        ""
                    }
                ]
            );
            p.add("embedding_grad_buffer", emb_buf, true, text, en_str!("The embedding backward's dense gradient, alive with every other gradient at the end of backward."), zh_str!("反向传播末尾词嵌入的稠密梯度缓冲，与全部梯度同时存在。"));
        }
        // Autocast keeps bf16/fp16 copies of fp32 weights for backward.
        let casts = if matches!(reg, Precision::AmpBf16 | Precision::AmpFp16)
            && base_dtype == Dtype::Fp32
            && detailed
        {
            let matrix = |t: &crate::model::Tensor| {
                if t.role.is_block_linear() || t.role == Role::LmHead {
                    t.numel()
                } else {
                    0
                }
            };
            let mats: u64 = tensors.iter().map(matrix).fold(0, u64::saturating_add);
            busiest(&matrix, mats).sat_mul(2)
        } else {
            0
        };
        if casts > 0 {
            p.add(
                "autocast_copies",
                casts,
                true,
                {
                    let (n, size) = (thousands(casts / 2), b(casts));
                    formula!(
                        ["{n} matrix weights × 2 B = {size}"],
                        ["{n} 个矩阵权重 × 2 B = {size}"]
                    )
                },
                en_str!(
                    "autocast casts each fp32 weight to 16 bits and keeps the copy for backward."
                ),
                zh_str!("autocast 将 fp32 权重转为 16 位并为反向保留副本。"),
            );
        }
        // QLoRA dequantizes one matrix at a time.
        let dequant = if self.qlora {
            tensors
                .iter()
                .filter(|t| t.role.is_block_linear())
                .map(|t| t.rows_in * t.rows_out)
                .max()
                .unwrap_or(0)
                * 2
        } else {
            0
        };
        if dequant > 0 {
            p.add(
                "dequant_buffer",
                dequant,
                true,
                formula!(
                    ["largest matrix dequantized to bf16 = {}", b(dequant)],
                    ["最大的矩阵反量化为 bf16 = {}", b(dequant)]
                ),
                en_str!("bitsandbytes dequantizes a 4-bit weight to compute with it."),
                zh_str!("bitsandbytes 计算时将 4 位权重反量化。"),
            );
        }
        // Optimizer step temporaries: foreach AdamW/Lion materialise one state-sized list (one
        // moment of this GPU's partition).
        let partition = |x: u64| if zero >= 1 { x.div_ceil(dp) } else { x };
        let foreach = match self.optimizer {
            Optimizer::Adamw | Optimizer::Lion
                if !(self.fused_optimizer || zero >= 1 && offload) =>
            {
                partition(t_shard.sat_mul(sb))
            }
            // Adafactor's update: a full-size fp32 temporary of the largest trainable tensor on
            // this GPU (under LoRA an adapter matrix, not the frozen embedding).
            Optimizer::Adafactor => {
                let trainable = |t: &crate::model::Tensor| {
                    if lora {
                        if lora_of(t) > 0 {
                            self.lora_rank.sat_mul(t.rows_in.max(t.rows_out))
                        } else {
                            0
                        }
                    } else {
                        t.numel().div_ceil(weights::tp_divisor(a, t, self.tp))
                    }
                };
                tensors.iter().map(trainable).max().unwrap_or(0) * 4
            }
            _ => 0,
        };
        // ZeRO's step casts this rank's gradient partition to fp32 beside the fp32 masters
        // (DeepSpeed stage_1_and_2.py `step()`; its estimators count 16 B per parameter / N).
        let fp32_grads = if zero >= 1 && !offload && master > 0 {
            t_shard.sat_mul(4).div_ceil(dp)
        } else {
            0
        };
        let step = foreach.saturating_add(fp32_grads);
        if step > 0 {
            let mut text = Formula::default();
            if fp32_grads > 0 {
                let size = b(fp32_grads);
                text = formula!(
                    ["fp32 gradient partition {n_trainable} trainable × 4 B / {dp} ranks = {size}"],
                    ["fp32 梯度分区 {n_trainable} 个可训练参数 × 4 B / {dp} 个 rank = {size}"]
                );
            }
            if foreach > 0 {
                let (plus, size) = (if fp32_grads > 0 { " + " } else { "" }, b(foreach));
                text = formula!(
                    [
                        "{}{plus}foreach step: one state-sized temporary (e.g. sqrt of the second moment) = {size}",
                        text.en
                    ],
                    [
                        "{}{plus}foreach 步：一个与状态同大小的临时张量（如二阶矩的 sqrt） = {size}",
                        text.zh
                    ]
                );
            }
            p.add(
                "step_temporaries",
                step,
                true,
                text,
                en_str!("torch.optim's default foreach path (fused=True avoids it); under ZeRO, the gradient partition in fp32."),
                zh_str!("torch.optim 默认 foreach 路径（fused=True 可避免）；ZeRO 下还有 fp32 的梯度分区。"),
            );
        }
        // ZeRO buckets / DDP buckets.
        let h2 = a.hidden_size.sat_mul(a.hidden_size);
        let buckets = match zero {
            1 | 2 => h2.sat_mul(2 * 2),
            3 => live_params.saturating_add(Bytes::from_f64(0.9 * h2 as f64).get() * 2),
            _ if dp > 1 => g,
            _ => 0,
        };
        if buckets > 0 {
            let (key, text) = if zero == 0 {
                (
                    "ddp_buckets",
                    formula!(
                        [
                            "DDP gradient buckets hold a flat copy of the gradients = {}",
                            b(buckets)
                        ],
                        ["DDP 梯度桶保存梯度的一份扁平副本 = {}", b(buckets)]
                    ),
                )
            } else {
                (
                    "zero_buffers",
                    formula!(
                        [
                            "ZeRO-{zero} buckets (reduce/allgather h², prefetch 0.9 h²){} = {}",
                            if zero == 3 {
                                " + two gathered layers"
                            } else {
                                ""
                            },
                            b(buckets)
                        ],
                        [
                            "ZeRO-{zero} 桶 (reduce/allgather h², 预取 0.9 h²){} = {}",
                            if zero == 3 {
                                " + 两个已收集的层"
                            } else {
                                ""
                            },
                            b(buckets)
                        ]
                    ),
                )
            };
            p.add(
                key,
                buckets,
                true,
                text,
                en_str!(
                    "Communication buffers; data parallelism adds memory, it never removes any."
                ),
                zh_str!("通信缓冲区；数据并行只增加显存，不会减少。"),
            );
        }
        self.context_and_workspace(p);
        if dp > 1 || self.tp > 1 || self.pp > 1 {
            p.add(
                "nccl",
                NCCL_BUFFERS.get(),
                false,
                formula!(
                    ["NCCL communicator buffers ≈ {}", b(NCCL_BUFFERS.get())],
                    ["NCCL 通信缓冲 ≈ {}", b(NCCL_BUFFERS.get())]
                ),
                en_str!("NCCL's own buffers, outside PyTorch's allocator."),
                zh_str!("NCCL 自身缓冲区，不经 PyTorch 分配器。"),
            );
        }
        // Peak: end of forward (activations, logits, autocast copies alive; no gradients yet, since
        // zero_grad sets them to None) against the optimizer step (gradients and step temporaries).
        let fwd = acts
            .saturating_add(logits)
            .saturating_add(casts)
            .saturating_add(dequant)
            .saturating_add(if zero == 0 { 0 } else { buckets });
        let stepk = g.saturating_add(step).saturating_add(buckets);
        let bwd = g.saturating_add(emb_buf).saturating_add(buckets);
        let phase = if fwd >= stepk && fwd >= bwd {
            Phase::ForwardLoss
        } else if bwd > stepk {
            Phase::Backward
        } else {
            Phase::OptimizerStep
        };
        // Keep only the components alive at the peak in the torch total (others shown with zero).
        for c in &mut p.comps {
            let alive = !matches!(
                (phase, c.key.as_str()),
                (
                    Phase::ForwardLoss,
                    "gradients" | "step_temporaries" | "ddp_buckets" | "embedding_grad_buffer"
                ) | (
                    Phase::OptimizerStep,
                    "activations"
                        | "logits"
                        | "autocast_copies"
                        | "dequant_buffer"
                        | "embedding_grad_buffer"
                ) | (
                    Phase::Backward,
                    "activations"
                        | "logits"
                        | "autocast_copies"
                        | "dequant_buffer"
                        | "step_temporaries"
                )
            );
            if !alive {
                c.note_en = en!(
                    "{} Not alive at the peak ({}).",
                    c.note_en,
                    match phase {
                        Phase::ForwardLoss => "end of forward",
                        Phase::Backward => "end of backward",
                        _ => "optimizer step",
                    }
                );
                c.note_zh = zh!("{} 峰值时刻不驻留。", c.note_zh);
                c.torch = false;
                c.formula = en!("{} (not at the peak)", c.formula);
                c.formula_zh = zh!("{}（不在峰值时刻）", c.formula_zh);
                c.key = format!("{}_off_peak", c.key);
            }
        }
        let cpu = if offload && zero > 0 {
            // Offloaded: fp32 masters, moments (and ZeRO-3 params) live in CPU memory (or on
            // NVMe), for this GPU's tensor × pipeline shard / dp.
            // DeepSpeed's CPU step also holds the fp32 gradient partition (its estimators: 16 B
            // per parameter / N for ZeRO-2, 18 B for ZeRO-3 with the 16-bit parameters).
            let full_states = t_shard.sat_mul(4 + 4 + state_per_param);
            let params_cpu = if zero == 3 {
                busiest(&|t| t.numel(), params).sat_mul(2)
            } else {
                0
            };
            full_states.saturating_add(params_cpu).div_ceil(dp)
        } else {
            0
        };
        (phase, trainable, cpu)
    }

    fn weights_formula_train(&self, bytes: u64, dtype: Dtype, q: &Quantization) -> Formula {
        let size = b(bytes);
        if *q == Quantization::None {
            let (p, per) = (thousands(self.arch.params()), dtype.bits() / 8);
            let split = if self.tp * self.pp > 1 {
                format!(" / tp {} × pp {}", self.tp, self.pp)
            } else {
                String::new()
            };
            formula!(
                ["{p} params × {per} B ({dtype}){split} = {size}"],
                ["{p} 个参数 × {per} B ({dtype}){split} = {size}"]
            )
        } else {
            let name = q.name();
            formula!(
                ["base weights in {name} = {size}"],
                ["基础权重为 {name} = {size}"]
            )
        }
    }

    fn finish(&self, mut parts: Parts, phase: Phase, trainable: u64, cpu: u64) -> Estimate {
        let a = &self.arch;
        // ZeRO-Infinity's NVMe offload keeps the partitions on the drive, not in CPU memory.
        let (cpu, nvme) = if self.mode == Mode::Training && self.offload == Offload::Nvme {
            (0, cpu)
        } else {
            (cpu, 0)
        };
        let torch: u64 = parts
            .comps
            .iter()
            .filter(|c| c.torch)
            .map(|c| c.bytes.get())
            .fold(0, u64::saturating_add);
        let non_torch: u64 = parts
            .comps
            .iter()
            .filter(|c| !c.torch && !c.key.ends_with("_off_peak"))
            .map(|c| c.bytes.get())
            .fold(0, u64::saturating_add);
        let is_vllm = phase == Phase::Serving;
        let is_llamacpp = self.engine == Engine::Llamacpp && self.mode != Mode::Training;
        // Allocator reserve: the caching allocator keeps freed blocks of the transient tensors
        // (activations, logits, temporaries) cached; about 5 % of them plus 2 MiB rounding per
        // block-sized weight tensor is reserved-but-unallocated at the peak.
        let transient = parts.sum(&[
            "activations",
            "logits",
            "step_temporaries",
            "autocast_copies",
            "dequant_buffer",
            "embedding_grad_buffer",
        ]);
        let reserve = if is_llamacpp {
            0
        } else {
            (transient / 20).saturating_add(a.num_layers.sat_mul(MIB))
        };
        if !is_llamacpp {
            parts.add(
            "allocator_reserve",
            reserve,
            false,
            {
                let (t, blocks, size) = (b(transient), a.num_layers, b(reserve));
                formula!(
                    ["5 % of transient tensors ({t}) + 1 MiB rounding × {blocks} blocks = {size}"],
                    ["5 % 的临时张量 ({t}) + 1 MiB 取整 × {blocks} 块 = {size}"]
                )
            },
            en_str!("Reserved by PyTorch's caching allocator but not allocated: counted by nvidia-smi, not by max_memory_allocated."),
            zh_str!("PyTorch 缓存分配器已保留但未分配：nvidia-smi 计入，max_memory_allocated 不计。"),
            );
        }
        // llama.cpp has no PyTorch allocator: its "allocated" peak is its own buffers (weights, KV, compute).
        let peak_allocated = if is_llamacpp {
            parts.sum(&["weights", "kv_cache", "compute_buffer"])
        } else {
            parts.peak.unwrap_or(torch)
        };
        // llama.cpp's buffers are all outside PyTorch, so its total is the non-torch sum alone.
        let total = if is_llamacpp {
            non_torch
        } else {
            peak_allocated
                .saturating_add(reserve)
                .saturating_add(non_torch)
        };
        let tokens = parts.serve_tokens;
        let temporaries = parts.sum(&[
            "logits",
            "step_temporaries",
            "autocast_copies",
            "dequant_buffer",
            "embedding_grad_buffer",
            "zero_buffers",
            "ddp_buckets",
            "compute_buffer",
        ]);
        let overhead = parts.sum(&[
            "cuda_context",
            "workspace",
            "nccl",
            "cuda_graphs",
            "non_torch",
        ]);
        let layers_here = a.num_layers.div_ceil(self.pp);
        let kv_per_token = if a.is_generative() {
            self.kv_bytes(1, 1, layers_here, self.engine == Engine::Hf)
                .0
        } else {
            0
        };
        // The guide's b for training is the precision the weights are held in: 4 B in fp32.
        let quick_dtype = if self.mode == Mode::Training && self.precision == Precision::Fp32 {
            Dtype::Fp32
        } else {
            self.dtype
        };
        let quick = quick::quick(
            a.params(),
            a,
            self.mode,
            quick_dtype,
            &self.quantization,
            self.optimizer,
            self.batch,
            self.seq_len
                + if self.mode == Mode::Training {
                    0
                } else {
                    self.new_tokens
                },
        );
        let m_theory = parts
            .theory
            .unwrap_or(if is_llamacpp { total } else { peak_allocated });
        // Serving fits when vLLM starts, i.e. its pool holds one request of max_model_len
        // (`check_enough_kv_cache_memory`; more requests than the pool holds wait in the queue),
        // and the process fits the card.
        let pool = parts.serve_pool;
        let pool_ok = pool.is_none_or(|sp| sp.available >= sp.request);
        if let Some(sp) = pool
            && pool_ok
            && sp.concurrency < self.batch as f64
        {
            let held = fixed(sp.concurrency, 2);
            parts.note(
                "kv_pool_queues",
                en!("The KV pool holds {} requests of max_model_len {} at once, fewer than batch {}: vLLM starts and queues the rest.", held, thousands(self.max_model_len), self.batch),
                zh!("KV 池同时只能容纳 {} 个 max_model_len {} 的请求，少于 batch {}：vLLM 照常启动，其余请求排队。", held, thousands(self.max_model_len), self.batch),
            );
        }
        let fit = self.device.as_ref().map(|d| Fit {
            gpu: d.id.clone(),
            memory_bytes: d.memory,
            fits: total <= d.memory.get() && pool_ok,
            reason: pool.filter(|_| !pool_ok).map(|sp| {
                Difference {
                    key: String::from("kv_pool_too_small"),
                    en: en!("The KV pool has {} of the budget left; one request of max_model_len {} needs {}: vLLM would refuse to start. Lower max_model_len, raise gpu_memory_utilization, use an fp8 KV cache or a larger card.", b(sp.available), thousands(self.max_model_len), b(sp.request)),
                    zh: zh!("预算内只剩 {} 给 KV 池；一个 max_model_len {} 的请求需要 {}：vLLM 将拒绝启动。请降低 max_model_len、提高 gpu_memory_utilization、使用 fp8 KV 缓存或更大的显卡。", b(sp.available), thousands(self.max_model_len), b(sp.request)),
                }
            }),
            headroom_bytes: d.memory.minus(Bytes::new(total)),
            shortfall_bytes: Bytes::new(total).minus(d.memory),
        });
        let differences = self.differences(&quick, &parts);
        // To the hundredth, as vLLM logs it (and a short decimal survives any JSON reader).
        let concurrency = match pool {
            Some(sp) => Some(sp.concurrency),
            None => tokens.map(|t| t as f64 / self.max_model_len.max(1) as f64),
        };
        let max_concurrency_exact = concurrency.map(|c| libm::floor(c * 100.0) / 100.0);
        Estimate {
            model: self.model_name.clone(),
            params: a.params(),
            active_params: a.active_params(),
            trainable_params: trainable,
            weights_bytes: Bytes::new(parts.get("weights")),
            kv_cache_bytes: Bytes::new(parts.get("kv_cache")),
            activations_bytes: Bytes::new(parts.get("activations")),
            gradients_bytes: Bytes::new(parts.get("gradients")),
            optimizer_bytes: Bytes::new(parts.get("optimizer")),
            temporaries_bytes: Bytes::new(temporaries),
            overhead_bytes: Bytes::new(overhead),
            allocator_reserve_bytes: Bytes::new(reserve),
            peak_phase: phase,
            peak_allocated_bytes: Bytes::new(peak_allocated),
            total_bytes: Bytes::new(total),
            recommended_bytes: m_rec(Bytes::new(m_theory)),
            required_bytes: Bytes::new(if is_vllm { m_theory } else { total }),
            kv_cache_tokens: tokens,
            max_concurrency: concurrency.map(|c| c as u64),
            max_concurrency_exact,
            kv_bytes_per_token: kv_per_token,
            cpu_bytes: Bytes::new(cpu),
            nvme_bytes: Bytes::new(nvme),
            gpus: self.dp * self.tp * self.pp,
            components: parts.comps,
            quick,
            differences,
            fit,
            notes: parts.notes,
        }
    }

    fn differences(&self, quick: &Quick, parts: &Parts) -> Vec<Difference> {
        let a = &self.arch;
        let mut d = Vec::new();
        let mut add = |key: &str, en: String, zh: String| {
            d.push(Difference {
                key: key.to_string(),
                en,
                zh,
            })
        };
        if a.has_image_counts() {
            add(
                "image_counts",
                en!(
                    "A convolutional network: its activations are counted layer by layer for one {s} × {s} image and grow with the batch, where the guide's 0.2–0.5 × weights does not see the batch; another image size changes them with its pixel count.",
                    s = a.image_size
                ),
                zh!(
                    "卷积网络：激活值按一张 {s} × {s} 图像逐层计数，并随批大小增长，而指南的 0.2–0.5 × 权重与批大小无关；换用其他图像尺寸时按像素数变化。",
                    s = a.image_size
                ),
            );
            return d;
        }
        if !a.is_detailed() {
            add(
                "quick_only",
                String::from(en_str!(
                    "Only the parameter count is known, so the detailed estimate falls back on the guide's rules for activations and has no KV cache; give a preset or a config.json for the exact figures."
                )),
                String::from(zh_str!(
                    "仅知参数量：激活值沿用指南经验值且无法计算 KV 缓存；提供预设或 config.json 可得精确结果。"
                )),
            );
            return d;
        }
        // The KV cache differences (GQA, head_dim, sliding windows, MLA) speak of a cache that
        // training does not keep, and the guide's training rule has no KV term either.
        let kv = self.mode != Mode::Training && a.is_generative();
        if kv && a.mla.is_none() && a.num_kv_heads < a.num_heads {
            add(
                "gqa",
                // One KV head shared by every query head is multi-query attention.
                en!(
                    "KV cache: the guide's 2 × batch × seq × hidden × layers assumes every one of the {} heads stores K and V; this model has {}, so its cache is {}× smaller.",
                    a.num_heads,
                    if a.num_kv_heads == 1 {
                        "1 KV head (multi-query attention)".to_string()
                    } else {
                        format!("{} KV heads (grouped-query attention)", a.num_kv_heads)
                    },
                    a.num_heads / a.num_kv_heads
                ),
                zh!(
                    "KV 缓存：指南公式假设全部 {} 个注意力头都存 K、V；该模型只有 {} 个 KV 头（{}），缓存小 {} 倍。",
                    a.num_heads,
                    a.num_kv_heads,
                    if a.num_kv_heads == 1 { "MQA" } else { "GQA" },
                    a.num_heads / a.num_kv_heads
                ),
            );
        }
        if kv && a.num_heads * a.head_dim != a.hidden_size && a.mla.is_none() {
            add(
                "head_dim",
                en!(
                    "head_dim is {} while hidden / heads is {}: the KV cache uses kv_heads × head_dim, not hidden.",
                    a.head_dim,
                    a.hidden_size / a.num_heads.max(1)
                ),
                zh!(
                    "head_dim 为 {}，而 hidden/heads 为 {}：KV 缓存按 kv_heads × head_dim 计算，而非 hidden。",
                    a.head_dim,
                    a.hidden_size / a.num_heads.max(1)
                ),
            );
        }
        if kv && a.sliding_window > 0 && a.sliding_layers > 0 {
            add(
                "sliding",
                en!(
                    "{} of {} layers attend within a {}-token window; HF caches only the window for them, llama.cpp the window × sequences + ubatch (vLLM sizes its pool for every layer).",
                    a.sliding_layers,
                    a.num_layers,
                    a.sliding_window
                ),
                zh!(
                    "{} 层中有 {} 层使用 {} token 滑动窗口；HF 仅缓存窗口，llama.cpp 缓存窗口 × 序列数 + ubatch（vLLM 按全部层分配 KV 池）。",
                    a.num_layers,
                    a.sliding_layers,
                    a.sliding_window
                ),
            );
        }
        if let Some(m) = a.mla.filter(|_| kv) {
            add(
                "mla",
                en!(
                    "Multi-head latent attention: vLLM caches one {}-wide latent per token and layer instead of K and V per head; HF transformers caches them decompressed.",
                    m.kv_lora_rank + m.qk_rope_head_dim
                ),
                zh!(
                    "多头潜在注意力（MLA）：vLLM 每 token 每层只缓存 {} 维潜向量；HF transformers 缓存解压后的 K、V。",
                    m.kv_lora_rank + m.qk_rope_head_dim
                ),
            );
        }
        if let Some(m) = a.moe {
            add(
                "moe",
                en!(
                    "Mixture of experts: all {} experts stay in memory although each token uses {}; active parameters {} of {}.",
                    m.num_experts,
                    m.experts_per_token,
                    thousands(a.active_params()),
                    thousands(a.params())
                ),
                zh!(
                    "混合专家：{} 个专家全部常驻显存，而每个 token 只用 {} 个；激活参数 {} / 总参数 {}。",
                    m.num_experts,
                    m.experts_per_token,
                    thousands(a.active_params()),
                    thousands(a.params())
                ),
            );
        }
        if self.quantization != Quantization::None {
            let w = parts.get("weights");
            let per_param = short(guide_bytes_per_param(self.dtype, &self.quantization));
            add(
                "quant_bits",
                en!(
                    "Quantized weights carry scales and zero points, and embeddings, the LM head and norms stay unquantized: {} against the guide's {} at {} B per parameter.",
                    b(w),
                    b(quick.weights_bytes.get()),
                    per_param
                ),
                zh!(
                    "量化权重含缩放因子与零点，词嵌入、输出头与归一化层不量化：{}，而指南按每参数 {} 字节计为 {}。",
                    b(w),
                    per_param,
                    b(quick.weights_bytes.get())
                ),
            );
        }
        if self.mode == Mode::Training {
            if self.precision.fp32_master()
                && self.lora_rank == 0
                && self.optimizer == Optimizer::Adamw
            {
                add(
                    "amp_adam",
                    String::from(en_str!(
                        "Mixed-precision AdamW keeps fp32 master weights (4 B), fp32 gradients (4 B) and two fp32 moments (8 B): 16 B per parameter, not the guide's 2 + 2 + 4 = 8 B."
                    )),
                    String::from(zh_str!(
                        "混合精度 AdamW 保存 fp32 主权重（4 B）、fp32 梯度（4 B）与两个 fp32 动量（8 B）：每参数 16 字节，而非指南的 2 + 2 + 4 = 8 字节。"
                    )),
                );
            }
            add(
                "guide_multiple",
                String::from(en_str!(
                    "The guide's rule says 3.2–3.7 × weights, but its own components (weights + 2 × weights + weights + 0.2–0.5 × weights) add up to 4.2–4.5 ×."
                )),
                String::from(zh_str!(
                    "指南的经验倍数为权重的 3.2–3.7 倍，但其各项之和（权重 + 2 × 权重 + 权重 + 0.2–0.5 × 权重）为 4.2–4.5 倍。"
                )),
            );
            if parts.get("logits") > 0 && a.vocab_size >= 100_000 {
                add(
                    "logits",
                    en!(
                        "With a {}-token vocabulary the loss's fp32 logits take {} alone — the guide's activation share does not see them.",
                        a.vocab_size,
                        b(parts.get("logits"))
                    ),
                    zh!(
                        "词表 {} 时，损失中的 fp32 logits 单独就占 {}——指南的激活比例未计入。",
                        a.vocab_size,
                        b(parts.get("logits"))
                    ),
                );
            }
        }
        add(
            "activations",
            String::from(en_str!(
                "Activations are counted tensor by tensor (what autograd saves, or what one block holds at once in inference), not as a share of the weights."
            )),
            String::from(zh_str!(
                "激活值按张量逐一计算（反向需要保存的张量，或推理时单层同时存在的张量），而非按权重比例估算。"
            )),
        );
        d
    }
}

/// vLLM's sampler dummy run keeps about this many fp32 copies of `max_num_seqs × vocab` logits
/// (fp32 logits, a sorted copy and int64 indices for top-k/top-p): the median ratio of the profile
/// peak to `max_num_seqs × vocab × 4 B` over the vLLM 0.19 H100 calibration runs.
pub const SAMPLER_FP32_COPIES: f64 = 3.78;
/// vLLM's non-torch memory growth during profiling at tp = 1: 0.25 GiB (calibration median).
pub const VLLM_NON_TORCH: Bytes = Bytes::new(268_435_456);
/// At pp ≥ 2, tp = 1: 0.07 GiB.
pub const VLLM_NON_TORCH_PP: Bytes = Bytes::new(75_161_928);
/// At tp ≥ 2 (NCCL and custom all-reduce): 2.1 GiB.
pub const VLLM_NON_TORCH_TP: Bytes = Bytes::new(2_254_857_830);
/// vLLM's KV block size in tokens.
pub const VLLM_BLOCK: u64 = 16;
/// CUDA memory of a vLLM worker in a tensor- or pipeline-parallel group before its profile run
/// (context, NCCL communicators, custom all-reduce buffers): 1.53 GiB, the median of
/// `init_cuda_memory_gib` over the six tp/pp ≥ 2 runs of the calibration data (1.43–1.55).
pub const VLLM_CUDA_CONTEXT_PARALLEL: Bytes = Bytes::new(1_642_824_991); // 1.53 GiB
/// CUDA-graph pool: intercept, fitted on the calibration runs.
pub const CUDA_GRAPH_BASE_GIB: f64 = 0.09;
/// CUDA-graph pool per layer on the GPU, fitted on the calibration runs.
pub const CUDA_GRAPH_PER_LAYER_GIB: f64 = 0.0238;
/// llama.cpp's CUDA context and cuBLAS handles: about 300 MiB.
pub const LLAMACPP_CONTEXT: Bytes = Bytes::mib(300);
/// NCCL communicator buffers for multi-GPU training: about 512 MiB (an estimate: NCCL's default
/// 4 MiB buffers × channels × peers; no measurement in the reference data).
pub const NCCL_BUFFERS: Bytes = Bytes::mib(512);

#[cfg(test)]
mod tests;

/// `u64::saturating_mul` out of line in the wasm modules: on wasm32 each inlined one is a call to
/// the 128-bit multiply `__multi3` and a test of its high half, some seventy times over in the
/// estimator.
pub(crate) trait SatMul {
    fn sat_mul(self, rhs: u64) -> u64;
}

impl SatMul for u64 {
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn sat_mul(self, rhs: u64) -> u64 {
        self.saturating_mul(rhs)
    }
}
