//! Validation: [`EstimateInput::resolve`] checks every field once into a [`Workload`], naming
//! the field and the accepted range on failure, so that the arithmetic after it cannot fail.

use super::{
    AttentionImpl, Checkpointing, Context, Device, Engine, EstimateInput, ExpertParallel, Kernel,
    LayerOffload, Logits, Mode, Offload, Optimizer, Precision, Rules, Runner, role_bit,
};
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, Role};
use crate::precision::{Dtype, GgufFileType, KvDtype, Quantization};
use crate::units::{GIB, MIB, parse_params, parse_size};
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
    match super::ollama_tags::resolve_ollama_name("model", id) {
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
    /// The checkpoint ships its routed experts in MXFP4 (gpt-oss): every GGUF file made from it
    /// keeps them so, whatever its file type.
    pub mxfp4_experts: bool,
    /// SGLang `mem_fraction_static`, given or as SGLang picks it.
    pub mem_fraction_static: f64,
    /// TensorRT-LLM `free_gpu_memory_fraction`, given or its 0.9.
    pub free_gpu_memory_fraction: f64,
    /// SGLang `cuda_graph_max_bs`, given or as SGLang picks it.
    pub cuda_graph_max_bs: u64,
    /// SGLang `max_running_requests` as given; `None`: SGLang derives it from its pool.
    pub max_running_requests: Option<u64>,
    /// Expert parallel size (1: none).
    pub ep: u64,
    /// Ollama: the GGUF architecture of the library model (`llama` when the model is no library
    /// name), which picks Ollama's graph estimate.
    pub ollama_arch: &'static str,
    /// Ollama `num_gpu` as given; `None`: Ollama's own offload decision.
    pub num_gpu: Option<u64>,
}

/// What the run's engine loads and caches: a KV-cache type it does not have is refused, and so is
/// a weight format llama.cpp cannot load; a GGUF file run in PyTorch (transformers inference,
/// training) is dequantized on load, so its weights are counted in the model dtype. Returns the
/// format to count and, for the latter, the GGUF file type it came as.
fn engine_formats(
    input: &EstimateInput,
    quantization: Quantization,
) -> Result<(Quantization, Option<GgufFileType>)> {
    use KvDtype::{Q4_0, Q8_0};
    let runner = input.runner();
    let rules = runner.rules();
    let engine = rules.kv_dtypes.map(|kv| (rules.name, kv));
    if let Some((name, kv)) = engine
        && !kv.contains(&input.kv_dtype)
    {
        let names: Vec<&str> = kv.iter().map(|k| k.name()).collect();
        let (kv, names) = (input.kv_dtype.name(), names.join(", "));
        return Err(input_error!(
            Unsupported,
            "kv_dtype",
            ["{kv} is not a KV-cache type of {name}"],
            ["{kv} 不是这个引擎的 KV 缓存类型：{name}"],
            ["one of {names} with {name}"],
            ["以下之一：{names}（{name}）"],
        ));
    }
    // Ollama quantizes its KV cache only with flash attention on (its `kv cache type not
    // supported by model` fallback to f16 otherwise): refused rather than silently changed.
    if rules.offload == LayerOffload::EngineDecides
        && matches!(input.kv_dtype, Q8_0 | Q4_0)
        && input.attention != AttentionImpl::Flash
    {
        let kv = input.kv_dtype.name();
        return Err(input_error!(
            Unsupported,
            "kv_dtype",
            ["a {kv} KV cache needs flash attention in Ollama (OLLAMA_FLASH_ATTENTION=1)"],
            ["Ollama 的 {kv} KV 缓存需要开启 flash attention（OLLAMA_FLASH_ATTENTION=1）"],
            "auto or f16; q8_0 or q4_0 with attention flash",
            "auto 或 f16；q8_0、q4_0 需要 attention 为 flash",
        ));
    }
    if rules.offload.splits_layers()
        && !matches!(
            input.quantization,
            Quantization::None | Quantization::Gguf { .. } | Quantization::Mxfp4
        )
    {
        return Err(input_error!(
            Unsupported,
            "quantization",
            [
                "{} loads GGUF files, not {}",
                rules.name,
                input.quantization.name()
            ],
            [
                "{} 加载 GGUF 文件，不加载 {}",
                rules.name,
                input.quantization.name()
            ],
            "none (an F16 or BF16 GGUF) or gguf-<type>, e.g. gguf-q4_k_m",
            "none（F16 或 BF16 的 GGUF），或 gguf-<type>，如 gguf-q4_k_m",
        ));
    }
    Ok(match quantization {
        Quantization::Gguf { file_type } if rules.dequantizes_gguf => {
            (Quantization::None, Some(file_type))
        }
        q => (q, None),
    })
}

/// TensorRT-LLM's `free_gpu_memory_fraction`: a fraction from 0.01 to 1, 0.9 when not given.
fn free_fraction(given: Option<f64>) -> Result<f64> {
    match given {
        None => Ok(super::TRTLLM_FREE_FRACTION),
        Some(f) if f.is_finite() && (0.01..=1.0).contains(&f) => Ok(f),
        Some(f) => Err(input_error!(
            OutOfRange,
            "free_gpu_memory_fraction",
            ["{} is out of range", crate::units::number_text(f)],
            ["{} 超出范围", crate::units::number_text(f)],
            "a fraction from 0.01 to 1, e.g. 0.9",
            "0.01 到 1 的比例，如 0.9",
        )),
    }
}

/// A KV cache in a format the card computes in, where the engine keeps it so natively
/// (TensorRT-LLM): fp8 from Ada and Hopper on, nvfp4 on Blackwell. vLLM and SGLang store an fp8
/// cache on older cards too, and no engine but TensorRT-LLM takes nvfp4 (its rules' KV types).
fn check_kv_on_card(rules: &Rules, kv: KvDtype, device: Option<&Device>) -> Result<()> {
    let Some(d) = device else { return Ok(()) };
    let needs = match kv {
        KvDtype::Nvfp4 if !d.fp4 => "Blackwell (sm100) or newer",
        KvDtype::Fp8 if !d.fp8 && rules.native_kv_formats => "Ada or Hopper (sm89) or newer",
        _ => return Ok(()),
    };
    let (kv, gpu, engine) = (kv.name(), d.id.as_str(), rules.name);
    Err(input_error!(
        Unsupported,
        "kv_dtype",
        ["{engine} keeps a {kv} KV cache only on a card that computes in it; {gpu} does not"],
        ["{engine} 只在支持 {kv} 计算的显卡上使用 {kv} KV 缓存；{gpu} 不支持"],
        ["auto, fp16 or bf16 on {gpu}; {kv} on {needs}"],
        ["{gpu} 上为 auto、fp16 或 bf16；{kv} 需要 {needs}"],
    ))
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
        Conflict,
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

/// Expert parallelism divides the routed experts over `ep` GPUs: vLLM's `--enable-expert-parallel`
/// makes EP the whole tp × data-parallel group (its docs: "EP_SIZE = TP_SIZE × DP_SIZE"), SGLang's
/// `--ep-size` divides its tensor-parallel group (`moe_tp_size = tp_size / ep_size`; with DP
/// attention that group is vramfit's tp × dp). `ep` must divide the experts, and only those two
/// engines serve with it.
fn check_ep(arch: &Architecture, rules: &Rules, ep: u64, group: u64) -> Result<u64> {
    if ep == 1 {
        return Ok(1);
    }
    if rules.expert_parallel == ExpertParallel::None {
        return Err(input_error!(
            Unsupported,
            "ep",
            ["ep = {ep}: expert parallelism is a vLLM and SGLang serving option"],
            ["ep = {ep}：专家并行是 vLLM 与 SGLang 推理服务的选项"],
            "1 with this engine and mode; up to the GPUs with vllm or sglang",
            "这个引擎与模式下为 1；vllm 或 sglang 下最多为 GPU 数",
        ));
    }
    let Some(moe) = arch.moe.filter(|_| arch.is_detailed()) else {
        return Err(input_error!(
            Unsupported,
            "ep",
            ["ep = {ep} for a model without routed experts"],
            ["ep = {ep}，而这个模型没有路由专家"],
            "1 for a dense model",
            "稠密模型为 1",
        ));
    };
    let experts = moe.num_experts;
    let fits = |e: u64| {
        experts.is_multiple_of(e)
            && if rules.expert_parallel == ExpertParallel::WholeGroup {
                e == group
            } else {
                group.is_multiple_of(e)
            }
    };
    if fits(ep) {
        return Ok(ep);
    }
    let ok: Vec<String> = (1..=group.min(1024))
        .filter(|&e| fits(e) || e == 1)
        .map(|e| e.to_string())
        .collect();
    let ok = ok.join(", ");
    // A build in one language formats only one of the two rules.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    let engine = rules.name;
    let (rule, rule_zh) = if rules.expert_parallel == ExpertParallel::WholeGroup {
        ("EP spans tp × data parallel", "EP 覆盖 tp × 数据并行")
    } else {
        ("EP divides tp × dp", "EP 整除 tp × dp")
    };
    Err(input_error!(
        Conflict,
        "ep",
        [
            "ep = {ep} does not divide the model's {experts} experts over {group} GPUs as {engine} does ({rule})"
        ],
        [
            "ep = {ep} 不能像 {engine} 那样把模型的 {experts} 个专家分到 {group} 个 GPU 上（{rule_zh}）"
        ],
        ["one of {ok}"],
        ["以下之一：{ok}"],
    ))
}

/// Checks that `v` is a finite integer in `lo..=hi`.
pub(super) fn int(field: &str, v: f64, lo: u64, hi: u64) -> Result<u64> {
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
            [= if why == 2 { ErrorKind::OutOfRange } else { ErrorKind::NotANumber }],
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

/// The LoRA target modules [`lora_mask`] accepts, in words, for its error.
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
                    UnknownName,
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
                [= if none { ErrorKind::Missing } else { ErrorKind::Conflict }],
                "model",
                [= if none { "no model given" } else { "more than one model given" }],
                [= if none { "没有给出模型" } else { "给出了不止一个模型" }],
                "exactly one of: model (a preset id), params (e.g. 7B), arch (a config.json)",
                "以下恰好一项：model（预设模型 id）、params（如 7B）、arch（一个 config.json）",
            ));
        }
        let mut ollama_arch = "llama";
        let (model_name, preset_dtype, arch, shipped) = if let Some(id) = &self.model {
            let id = id.trim();
            // With Ollama, a library name (`llama3.1:8b`) names a preset and a GGUF file type; a
            // name it does not know may still be a preset's.
            let ollama = (self.engine == Engine::Ollama && super::ollama_tags::is_ollama_name(id))
                .then(|| super::ollama_tags::resolve_ollama_name("model", id));
            match (ollama, models(id)) {
                (Some(Ok(n)), _) => {
                    let Some((dtype, arch, _)) = models(n.tag.preset) else {
                        return Err(no_preset(n.tag.preset));
                    };
                    ollama_arch = n.model.gguf_arch;
                    let q = Quantization::Gguf {
                        file_type: n.file_type,
                    };
                    (id.to_string(), Some(dtype), arch, q)
                }
                (_, Some((dtype, arch, shipped))) => (id.to_string(), Some(dtype), arch, shipped),
                (Some(Err(e)), None) => return Err(e),
                (None, None) => return Err(not_a_preset(id)),
            }
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
        self.quantization.validate("quantization")?;
        let lora_rank = int("lora_rank", self.lora_rank, 0, 65_536)?;
        let qlora = self.qlora;
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
                    Unsupported,
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
                Unsupported,
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
                Unsupported,
                "offload",
                ["NVMe offload with ZeRO-{zero}: DeepSpeed offloads to NVMe only under ZeRO-3"],
                ["NVMe 卸载配 ZeRO-{zero}：DeepSpeed 只在 ZeRO-3 下卸载到 NVMe"],
                "cpu with zero 1, 2 or 3; nvme with zero 3",
                "zero 为 1、2、3 时用 cpu；zero 为 3 时用 nvme",
            ));
        }
        let tp = int("tp", self.tp, 1, 1024)?;
        let pp = int("pp", self.pp, 1, 1024)?;
        // One model copy over tp × pp GPUs unless the input says how many (vLLM's
        // `--tensor-parallel-size 2` alone means two GPUs).
        let gpus_n = match self.gpus {
            Some(g) => int("gpus", g, 1, 65_536)?,
            None => tp * pp,
        };
        if gpus_n % (tp * pp) != 0 {
            // Fewer GPUs than one tensor × pipeline group (`--tp 2` alone) or a count that does
            // not divide into such groups.
            let (few, group) = (gpus_n < tp * pp, tp * pp);
            return Err(input_error!(
                Conflict,
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
                OutOfRange,
                "pp",
                ["{pp} stages for {layers} layers"],
                ["{pp} 个流水线阶段，而层数只有 {layers} 层"],
                ["an integer from 1 to {layers}"],
                ["整数，从 1 到 {layers}"],
            ));
        }
        check_tp(&arch, tp)?;
        let runner = Runner::of(mode, self.engine);
        let rules = runner.rules();
        if tp > 1 && rules.offload.splits_layers() {
            let name = rules.name;
            return Err(input_error!(
                Unsupported,
                "tp",
                ["tp = {tp} with {name}, which splits whole layers across GPUs"],
                ["tp = {tp} 配 {name}，而 {name} 按整层把模型分到各 GPU"],
                ["1 with {name}: give gpus to split its layers"],
                ["{name} 下为 1：用 gpus 切分它的层"],
            ));
        }
        let dp = gpus_n / (tp * pp);
        let ep = check_ep(&arch, rules, int("ep", self.ep, 1, 1024)?, tp * dp)?;
        let device = match (&self.gpu, &self.gpu_memory) {
            (Some(_), Some(_)) => {
                return Err(input_error!(
                    Conflict,
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
                crate::gpu::lookup_gpu("gpu", id).err().unwrap_or_else(|| {
                    let id = id.trim();
                    input_error!(
                        UnknownGpu,
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
                        OutOfRange,
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
                    fp8: true,
                    fp4: true,
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
            && rules.downcasts_fp32;
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
                OutOfRange,
                "gpu_memory_utilization",
                ["{} is out of range", crate::units::number_text(util)],
                ["{} 超出范围", crate::units::number_text(util)],
                "a fraction from 0.01 to 1, e.g. 0.9",
                "0.01 到 1 的比例，如 0.9",
            ));
        }
        let free_gpu_memory_fraction = free_fraction(self.free_gpu_memory_fraction)?;
        check_kv_on_card(rules, self.kv_dtype, device.as_ref())?;
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
            None => {
                let vram = device
                    .as_ref()
                    .map(|d| d.memory.get().saturating_mul(dp * pp));
                runner.default_context(
                    seq_len + new_tokens,
                    batch,
                    vram,
                    arch.max_position_embeddings,
                    default_len,
                )
            }
        };
        // llama.cpp's context holds every sequence's prompt and output (Ollama's num_ctx, each
        // sequence's own): one must fit in it.
        let per_sequence = seq_len.saturating_add(new_tokens);
        if rules.offload.splits_layers() && max_model_len < per_sequence {
            return Err(input_error!(
                Conflict,
                "max_model_len",
                [
                    "a context of {max_model_len} tokens holds no sequence of {seq_len} prompt + {new_tokens} generated tokens"
                ],
                [
                    "{max_model_len} 个 token 的上下文放不下一条 {seq_len} 提示 + {new_tokens} 生成 token 的序列"
                ],
                [
                    "with {}, an integer from {per_sequence} (seq_len + new_tokens) to {MAX_SEQ}",
                    match rules.context {
                        Context::PerSequence { setting } => format!("{} ({setting})", rules.name),
                        _ => String::from(rules.name),
                    }
                ],
                [
                    "{} 下为 {per_sequence}（seq_len + new_tokens）到 {MAX_SEQ} 的整数",
                    match rules.context {
                        Context::PerSequence { setting } => format!("{}（{setting}）", rules.name),
                        _ => String::from(rules.name),
                    }
                ],
            ));
        }
        let given_seqs = self
            .max_num_seqs
            .map(|v| int("max_num_seqs", v, 1, 65_536))
            .transpose()?;
        let max_num_seqs = given_seqs.unwrap_or(runner.default_max_seqs(big));
        let gpu_mib = device.as_ref().map(|d| d.memory.get() / MIB);
        let sglang = super::sglang::defaults(gpu_mib, tp);
        let max_num_batched_tokens = match self.max_num_batched_tokens {
            Some(v) => int("max_num_batched_tokens", v, 1, MAX_SEQ)?,
            None => runner.default_batched_tokens(big, sglang.chunked_prefill_size),
        };
        let cuda_graph_max_bs = match self.cuda_graph_max_bs {
            Some(v) => int("cuda_graph_max_bs", v, 1, 4096)?,
            None => sglang.cuda_graph_max_bs,
        };
        let mem_fraction_static = match self.mem_fraction_static {
            Some(f) if f.is_finite() && (0.01..=0.99).contains(&f) => f,
            Some(f) => {
                return Err(input_error!(
                    OutOfRange,
                    "mem_fraction_static",
                    ["{} is out of range", crate::units::number_text(f)],
                    ["{} 超出范围", crate::units::number_text(f)],
                    "a fraction from 0.01 to 0.99, e.g. 0.85",
                    "0.01 到 0.99 的比例，如 0.85",
                ));
            }
            None => super::sglang::default_mem_fraction(
                gpu_mib,
                max_num_batched_tokens,
                cuda_graph_max_bs,
                tp * pp,
            ),
        };
        let num_gpu = self
            .gpu_layers
            .map(|v| int("gpu_layers", v, 0, arch.num_layers + 1))
            .transpose()?;
        let gpu_layers = num_gpu.unwrap_or(arch.num_layers + 1);
        let ubatch = int("ubatch", self.ubatch, 1, 65_536)?;
        let lora_mask = lora_mask("lora_targets", &self.lora_targets)?;
        // Ollama runs flash attention only when asked (OLLAMA_FLASH_ATTENTION=1): without it
        // llama.cpp's graph holds the KQ scores.
        let eager = if rules.flash_only_when_asked {
            self.attention != AttentionImpl::Flash
        } else {
            self.attention == AttentionImpl::Eager
        };
        let kernel = if eager { Kernel::Eager } else { Kernel::Flash };
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
            mxfp4_experts: shipped == Quantization::Mxfp4,
            ubatch,
            mem_fraction_static,
            free_gpu_memory_fraction,
            cuda_graph_max_bs,
            max_running_requests: given_seqs,
            ep,
            ollama_arch,
            num_gpu,
        })
    }
}
