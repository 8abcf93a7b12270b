//! The checks the steps of [`EstimateInput::resolve_with`](crate::estimate::EstimateInput::resolve_with)
//! share: what the engine loads and caches, the card's KV formats, the tensor and expert
//! parallel sizes, TensorRT-LLM's memory fraction and the LoRA targets.

use crate::error::Result;
use crate::estimate::{
    AttentionImpl, CompressedCache, Device, EstimateInput, ExpertParallel, LayerOffload, Rules,
    role_bit,
};
use crate::model::{Architecture, Role};
use crate::precision::{GgufFileType, KvDtype, Quantization};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Whether the run's engine builds the model's stack: a hybrid it has no graph for is refused
/// with the engines that run it.
pub(super) fn engine_builds(rules: &Rules, arch: &Architecture) -> Result<()> {
    if arch.delta_net_with_plain_attention() && !rules.delta_net_with_plain_attention {
        let name = rules.name;
        return Err(input_error!(
            Unsupported,
            "engine",
            [
                "{name} has no graph for Gated DeltaNet layers beside plain attention (OLMo Hybrid): its Gated DeltaNet runs only in Qwen3-Next's and Qwen3.5's architectures"
            ],
            [
                "{name} 没有 Gated DeltaNet 层与普通注意力层并存（OLMo Hybrid）的计算图：它的 Gated DeltaNet 只用于 Qwen3-Next 与 Qwen3.5 架构"
            ],
            "transformers, vLLM or SGLang for this model",
            "这个模型请用 transformers、vLLM 或 SGLang",
        ));
    }
    if let Some(shapes) = arch.layer_shapes
        && shapes.altup_inputs > 0
        && !rules.gemma4_layers
    {
        let name = rules.name;
        return Err(input_error!(
            Unsupported,
            "engine",
            [
                "{name} is not modelled for Gemma 3n (per-layer embeddings, AltUp and LAuReL, KV shared across the last layers): vramfit has not checked how {name} holds them"
            ],
            [
                "尚未为 {name} 建模 Gemma 3n（逐层嵌入、AltUp 与 LAuReL、最后几层共享的 KV）：vramfit 尚未核对 {name} 如何保存它们"
            ],
            "transformers, vLLM or llama.cpp for this model",
            "这个模型请用 transformers、vLLM 或 llama.cpp",
        ));
    }
    if let Some(shapes) = arch.layer_shapes
        && shapes.head_gate
        && !rules.step3p5_layers
    {
        let name = rules.name;
        return Err(input_error!(
            Unsupported,
            "engine",
            [
                "{name} is not modelled for Step 3.5 (sliding layers with their own query heads, a gate per head): {name} does not run it, or vramfit has not checked how {name} holds it"
            ],
            [
                "尚未为 {name} 建模 Step 3.5（滑动窗口层有自己的查询头数、每个头一个门控）：{name} 不运行它，或 vramfit 尚未核对 {name} 如何保存它"
            ],
            "transformers, vLLM, SGLang or llama.cpp for this model",
            "这个模型请用 transformers、vLLM、SGLang 或 llama.cpp",
        ));
    }
    if arch.layer_shapes.is_some_and(|s| !s.head_gate) && !rules.gemma4_layers {
        let name = rules.name;
        return Err(input_error!(
            Unsupported,
            "engine",
            [
                "{name} is not modelled for Gemma 4 (full-attention layers of global_head_dim, per-layer embeddings, KV shared across the last layers): vramfit has not checked how {name} holds them"
            ],
            [
                "尚未为 {name} 建模 Gemma 4（global_head_dim 的全局注意力层、逐层嵌入、最后几层共享的 KV）：vramfit 尚未核对 {name} 如何保存它们"
            ],
            "transformers, vLLM or llama.cpp for this model",
            "这个模型请用 transformers、vLLM 或 llama.cpp",
        ));
    }
    let pooled = arch.indexer.is_some_and(|ix| ix.pool > 0) || arch.hyper_connections > 0;
    if pooled && !rules.pooled_indexer {
        let name = rules.name;
        return Err(input_error!(
            Unsupported,
            "engine",
            [
                "{name} is not modelled for GLM-5-Next (Kimi Delta Attention beside MLA with a pooled indexer, hyper-connection streams): {name} does not register it, or vramfit has not checked how {name} holds them"
            ],
            [
                "尚未为 {name} 建模 GLM-5-Next（Kimi Delta Attention 与带分组索引器的 MLA 并存，超连接残差流）：{name} 没有注册它，或 vramfit 尚未核对 {name} 如何保存它们"
            ],
            "transformers or SGLang for this model",
            "这个模型请用 transformers 或 SGLang",
        ));
    }
    if arch.compressed.is_some() && rules.compressed_cache == CompressedCache::Refused {
        let name = rules.name;
        return Err(input_error!(
            Unsupported,
            "engine",
            [
                "{name} is not modelled for DeepSeek-V4 (compressed attention: a sliding window beside entries pooling 4 or 128 tokens, hyper-connections): vramfit has not checked how {name} holds them, or {name} does not run it"
            ],
            [
                "尚未为 {name} 建模 DeepSeek-V4（压缩注意力：滑动窗口旁每 4 或 128 个 token 合成一个条目，超连接）：vramfit 尚未核对 {name} 如何保存它们，或 {name} 不运行它"
            ],
            "transformers, vLLM or SGLang for this model",
            "这个模型请用 transformers、vLLM 或 SGLang",
        ));
    }
    Ok(())
}

/// What the run's engine loads and caches: a KV-cache type it does not have is refused, and so is
/// a weight format llama.cpp cannot load; a GGUF file run in PyTorch (transformers inference,
/// training) is dequantized on load, so its weights are counted in the model dtype. Returns the
/// format to count and, for the latter, the GGUF file type it came as.
pub(super) fn engine_formats(
    input: &EstimateInput,
    quantization: Quantization,
) -> Result<(Quantization, Option<GgufFileType>)> {
    use KvDtype::{Q4_0, Q8_0};
    let runner = input.runner();
    let rules = runner.rules();
    let engine = rules.kv_dtypes.map(|kv| (rules.name, kv));
    if let Some((name, kv)) = engine
        && !kv.contains(&input.run.kv_dtype)
    {
        let names: Vec<&str> = kv.iter().map(|k| k.name()).collect();
        let (kv, names) = (input.run.kv_dtype.name(), names.join(", "));
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
    // From 0.30 flash attention is `auto`, on unless asked off (`ollama/version.rs`).
    let flash_off = if input.ollama_llama_server() {
        input.run.attention == AttentionImpl::Eager
    } else {
        input.run.attention != AttentionImpl::Flash
    };
    if rules.offload == LayerOffload::EngineDecides
        && matches!(input.run.kv_dtype, Q8_0 | Q4_0)
        && flash_off
    {
        let kv = input.run.kv_dtype.name();
        return Err(input_error!(
            Unsupported,
            "kv_dtype",
            ["a {kv} KV cache needs flash attention in Ollama (OLLAMA_FLASH_ATTENTION=1)"],
            ["Ollama 的 {kv} KV 缓存需要开启 flash attention（OLLAMA_FLASH_ATTENTION=1）"],
            "auto or f16; q8_0 or q4_0 with flash attention on (attention flash; from Ollama 0.30 any but eager)",
            "auto 或 f16；q8_0、q4_0 需要开启 flash attention（attention 为 flash；Ollama 0.30 起除 eager 外均可）",
        ));
    }
    // MLX's formats are mlx-lm's alone, and mlx-lm loads no other quantized checkpoint.
    let mlx_runner = rules.formats == crate::estimate::Formats::Mlx;
    let mlx_format = matches!(input.model.quantization, Quantization::Mlx { .. });
    if mlx_format && !mlx_runner {
        let (q, name) = (input.model.quantization.name(), rules.name);
        return Err(input_error!(
            Unsupported,
            "quantization",
            ["{q} is MLX's format, which {name} does not load"],
            ["{q} 是 MLX 的格式，{name} 不加载"],
            "engine mlx, or another format",
            "使用 mlx 引擎，或换一种格式",
        ));
    }
    if mlx_runner && !mlx_format && input.model.quantization != Quantization::None {
        let q = input.model.quantization.name();
        return Err(input_error!(
            Unsupported,
            "quantization",
            ["mlx-lm loads MLX checkpoints, not {q}"],
            ["mlx-lm 加载 MLX 格式的检查点，不加载 {q}"],
            "none (the 16-bit checkpoint) or mlx-<bits>bit[-g<group>], mlx-mxfp4, mlx-nvfp4, mlx-mxfp8",
            "none（16 位检查点），或 mlx-<位数>bit[-g<分组>]、mlx-mxfp4、mlx-nvfp4、mlx-mxfp8",
        ));
    }
    if rules.offload.splits_layers()
        && !matches!(
            input.model.quantization,
            Quantization::None | Quantization::Gguf { .. } | Quantization::Mxfp4
        )
    {
        return Err(input_error!(
            Unsupported,
            "quantization",
            [
                "{} loads GGUF files, not {}",
                rules.name,
                input.model.quantization.name()
            ],
            [
                "{} 加载 GGUF 文件，不加载 {}",
                rules.name,
                input.model.quantization.name()
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
pub(super) fn free_fraction(given: Option<f64>) -> Result<f64> {
    match given {
        None => Ok(crate::estimate::TRTLLM_FREE_FRACTION),
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
pub(super) fn check_kv_on_card(rules: &Rules, kv: KvDtype, device: Option<&Device>) -> Result<()> {
    let Some(d) = device else { return Ok(()) };
    let needs = match kv {
        KvDtype::Nvfp4 if !d.fp4 => "Blackwell (sm100) or newer",
        KvDtype::Fp8 if !d.fp8 && rules.native_kv_formats => "Ada or Hopper (sm89) or newer",
        _ => return Ok(()),
    };
    let (kv, gpu, engine) = (kv.name(), d.id, rules.name);
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
pub(super) fn check_tp(arch: &Architecture, tp: u64) -> Result<()> {
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
pub(super) fn check_ep(arch: &Architecture, rules: &Rules, ep: u64, group: u64) -> Result<u64> {
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
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
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

/// The refusal of `field` in a build that leaves its feature out (`nodes`, `speculative`,
/// `mlx`, `vision`, `disaggregation`): the site's calculator builds, which hand such an input
/// over to the full build.
#[cold]
#[cfg_attr(
    all(
        feature = "nodes",
        feature = "speculative",
        feature = "mlx",
        feature = "vision",
        feature = "disaggregation"
    ),
    allow(dead_code)
)]
pub(super) fn not_built(field: &str) -> crate::error::InputError {
    input_error!(
        Unsupported,
        field,
        ["{field} is not read by this build of vramfit"],
        ["这个 vramfit 版本不读取 {field}"],
        ["no {field}; the CLI, the npm package and the site's full build read it"],
        ["不填 {field}；命令行、npm 包与网站的完整版本读取它"],
    )
}
