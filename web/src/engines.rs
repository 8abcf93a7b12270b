//! Each engine's own settings, by the names its users type (`num_ctx`, `-ngl`,
//! `max_running_requests`), for the form's engine section and for the errors about them; and
//! Ollama's default tag of a preset. The context's name is the estimator's
//! (`Rules::context`); the rest are the engines' own spellings of the estimator's fields, as the
//! CLI's aliases spell them.

use vramfit::estimate::{Context, Runner, resolve_ollama_name};

use crate::i18n::Key;

/// One setting of an engine: the estimator's field it sets, its name in the engine and the text
/// that says what it is.
pub type Setting = (&'static str, &'static str, Key);

/// The settings of `runner`'s own section of the form, in order (the context first, named by
/// the estimator's rules); none for transformers and training, which have no engine settings.
pub fn settings(runner: Runner) -> Vec<Setting> {
    let context = match runner.rules().context {
        Context::PerSequence { setting } => Some((setting, key!("e.ctx"))),
        Context::Shared { setting } => Some((setting, key!("e.ctx_shared"))),
        Context::Prompt | Context::Sequence => None,
    };
    let rest: &[Setting] = match runner {
        Runner::Vllm => VLLM,
        Runner::Sglang => SGLANG,
        Runner::Trtllm => TRTLLM,
        Runner::Llamacpp => LLAMACPP,
        Runner::Ollama => OLLAMA,
        Runner::Mlx => MLX,
        Runner::Tei => TEI,
        Runner::Transformers => TRANSFORMERS,
        Runner::Training => return Vec::new(),
    };
    context
        .map(|(name, what)| ("max_model_len", name, what))
        .into_iter()
        .chain(rest.iter().copied())
        .collect()
}

/// vLLM's settings, by `vllm serve`'s flags.
const VLLM: &[Setting] = &[
    ("max_num_seqs", "max_num_seqs", key!("e.max_seqs")),
    (
        "max_num_batched_tokens",
        "max_num_batched_tokens",
        key!("e.step_tokens"),
    ),
    (
        "gpu_memory_utilization",
        "gpu_memory_utilization",
        key!("e.utilization"),
    ),
    ("kv_dtype", "kv_cache_dtype", key!("e.kv")),
    ("cuda_graphs", "CUDA graphs", key!("e.graphs_vllm")),
    ("engine_version", "vllm --version", key!("e.vllm_version")),
    (
        "language_model_only",
        "--language-model-only",
        key!("e.language_model_only"),
    ),
    ("enable_lora", "--enable-lora", key!("e.enable_lora")),
    ("max_loras", "--max-loras", key!("e.max_loras")),
    ("max_lora_rank", "--max-lora-rank", key!("e.max_lora_rank")),
    ("max_cpu_loras", "--max-cpu-loras", key!("e.max_cpu_loras")),
    (
        "kv_offloading_size",
        "--kv-offloading-size",
        key!("e.kv_offloading_size"),
    ),
    (
        "kv_offloading_backend",
        "--kv-offloading-backend",
        key!("e.kv_offloading_backend"),
    ),
    ("runner", "--runner", key!("e.runner")),
    (
        "speculative_method",
        "--speculative-config method",
        key!("e.speculative_method"),
    ),
    (
        "draft_model",
        "--speculative-config model",
        key!("e.draft_model"),
    ),
    (
        "num_speculative_tokens",
        "--speculative-config num_speculative_tokens",
        key!("e.num_speculative_tokens"),
    ),
    (
        "acceptance_rate",
        "draft acceptance rate",
        key!("e.acceptance_rate"),
    ),
    (
        "disaggregation_mode",
        "--kv-transfer-config kv_role",
        key!("e.disaggregation_mode_vllm"),
    ),
    (
        "disaggregation_transfer_backend",
        "--kv-transfer-config kv_connector",
        key!("e.transfer_backend_vllm"),
    ),
];

/// SGLang's settings, by its server arguments.
const SGLANG: &[Setting] = &[
    ("max_num_seqs", "max_running_requests", key!("e.max_seqs")),
    (
        "max_num_batched_tokens",
        "chunked_prefill_size",
        key!("e.step_tokens"),
    ),
    (
        "mem_fraction_static",
        "mem_fraction_static",
        key!("e.fraction_static"),
    ),
    ("kv_dtype", "kv_cache_dtype", key!("e.kv")),
    ("cuda_graph_max_bs", "cuda_graph_max_bs", key!("e.graph_bs")),
    ("cuda_graphs", "CUDA graphs", key!("e.graphs_sglang")),
    // SGLang's release: its default fraction, chunk and graphs changed by release
    // (`vramfit::estimate::SglangVersion`).
    (
        "engine_version",
        "sglang.__version__",
        key!("e.sglang_version"),
    ),
    ("runner", "--is-embedding", key!("e.runner")),
    (
        "enable_dp_attention",
        "DP attention",
        key!("e.dp_attention"),
    ),
    ("dp_size", "--attn-dp-size", key!("e.dp_size")),
    ("enable_lora", "--enable-lora", key!("e.enable_lora_sglang")),
    (
        "max_loras",
        "--max-loras-per-batch",
        key!("e.max_loras_sglang"),
    ),
    (
        "max_lora_rank",
        "--max-lora-rank",
        key!("e.max_lora_rank_sglang"),
    ),
    (
        "lora_targets",
        "--lora-target-modules",
        key!("e.lora_targets_sglang"),
    ),
    (
        "max_cpu_loras",
        "--max-loaded-loras",
        key!("e.max_loaded_loras"),
    ),
    (
        "disaggregation_mode",
        "--disaggregation-mode",
        key!("e.disaggregation_mode"),
    ),
    (
        "disaggregation_transfer_backend",
        "--disaggregation-transfer-backend",
        key!("e.transfer_backend"),
    ),
    (
        "num_reserved_decode_tokens",
        "--num-reserved-decode-tokens",
        key!("e.reserved_decode_tokens"),
    ),
    // Speculative decoding, SGLang 0.5.23's EAGLE, EAGLE3 and STANDALONE.
    (
        "speculative_method",
        "--speculative-algorithm",
        key!("e.speculative_method_sglang"),
    ),
    (
        "draft_model",
        "--speculative-draft-model-path",
        key!("e.draft_model_sglang"),
    ),
    (
        "num_speculative_tokens",
        "--speculative-num-steps",
        key!("e.num_speculative_tokens_sglang"),
    ),
    (
        "acceptance_rate",
        "draft acceptance rate",
        key!("e.acceptance_rate"),
    ),
];

/// TensorRT-LLM's settings, by `trtllm-serve`'s options.
const TRTLLM: &[Setting] = &[
    ("max_num_seqs", "max_batch_size", key!("e.max_seqs")),
    (
        "max_num_batched_tokens",
        "max_num_tokens",
        key!("e.step_tokens"),
    ),
    (
        "free_gpu_memory_fraction",
        "free_gpu_memory_fraction",
        key!("e.free_fraction"),
    ),
    ("kv_dtype", "kv_cache_config.dtype", key!("e.kv")),
];

/// llama.cpp's settings, by `llama-server`'s flags.
const LLAMACPP: &[Setting] = &[
    ("batch", "-np", key!("e.parallel")),
    ("gpu_layers", "-ngl", key!("e.ngl")),
    ("n_cpu_moe", "--n-cpu-moe", key!("e.n_cpu_moe")),
    ("kv_unified", "--kv-unified", key!("e.kv_unified")),
    (
        "kv_unified_per_slot",
        "--kv-unified-per-slot",
        key!("e.kv_unified_per_slot"),
    ),
    ("host_memory", "host_memory", key!("e.host_memory")),
    ("host_bandwidth", "host_bandwidth", key!("e.host_bandwidth")),
    ("ubatch", "-ub", key!("e.ubatch")),
    ("runner", "--embedding", key!("e.runner_llamacpp")),
    ("kv_dtype", "-ctk / -ctv", key!("e.kv")),
    ("tensor_split", "-ts", key!("e.tensor_split")),
    ("split_mode", "-sm", key!("e.split_mode")),
    ("main_gpu", "-mg", key!("e.main_gpu")),
    // llama.cpp's build: its -ngl rule changed at PR #18148 (`LlamacppBuild`).
    (
        "engine_version",
        "llama-server --version",
        key!("e.llamacpp_build"),
    ),
];

/// Ollama's settings, by its parameters and environment variables.
const OLLAMA: &[Setting] = &[
    ("batch", "OLLAMA_NUM_PARALLEL", key!("e.parallel")),
    ("gpu_layers", "num_gpu", key!("e.num_gpu")),
    ("runner", "/api/embed", key!("e.runner_ollama")),
    ("host_memory", "host_memory", key!("e.host_memory")),
    ("host_bandwidth", "host_bandwidth", key!("e.host_bandwidth")),
    ("kv_dtype", "OLLAMA_KV_CACHE_TYPE", key!("e.kv_ollama")),
    (
        "attention",
        "OLLAMA_FLASH_ATTENTION",
        key!("e.flash_ollama"),
    ),
    // Ollama's release: from 0.30 it runs llama-server (`vramfit::estimate::OllamaVersion`).
    (
        "engine_version",
        "ollama --version",
        key!("e.ollama_version"),
    ),
];

/// mlx-lm's own flags, and macOS's wired limit of the Mac it runs on.
const MLX: &[Setting] = &[
    (
        "max_num_batched_tokens",
        "--prefill-step-size",
        key!("e.prefill_step"),
    ),
    ("max_kv_size", "--max-kv-size", key!("e.max_kv_size")),
    ("kv_bits", "--kv-bits", key!("e.kv_bits")),
    ("kv_group_size", "--kv-group-size", key!("e.kv_group_size")),
    (
        "quantized_kv_start",
        "--quantized-kv-start",
        key!("e.quantized_kv_start"),
    ),
    (
        "wired_limit_mb",
        "iogpu.wired_limit_mb",
        key!("e.wired_limit"),
    ),
];

/// Text Embeddings Inference's router flag that sizes its warmup (its dtype is the form's
/// own field).
const TEI: &[Setting] = &[(
    "max_num_batched_tokens",
    "--max-batch-tokens",
    key!("e.max_batch_tokens"),
)];

/// transformers' release: its MLA cache changed in 5.15 (`vramfit::estimate::TransformersVersion`).
const TRANSFORMERS: &[Setting] = &[(
    "engine_version",
    "transformers.__version__",
    key!("e.transformers_version"),
)];

/// The engine's own name of `field`, if its section has it (an error about `max_model_len`
/// under Ollama names `num_ctx`).
pub fn name_of(runner: Runner, field: &str) -> Option<&'static str> {
    settings(runner)
        .into_iter()
        .find(|(f, _, _)| *f == field)
        .map(|(_, name, _)| name)
}

/// Ollama's library name for the preset `model` names (`qwen3:32b` for `Qwen/Qwen3-32B`), with
/// the GGUF file type it pulls by default: the estimator's own choice
/// ([`vramfit::estimate::default_tag_of`]), which its estimate of the preset under Ollama runs.
/// `None` when `model` is already a library name Ollama reads, or no tag pulls it.
pub fn ollama_tag_of(model: &str) -> Option<(String, String)> {
    if resolve_ollama_name("model", model).is_ok() {
        return None;
    }
    let n = vramfit::estimate::default_tag_of(vramfit::presets::find(model)?.id)?;
    Some((
        format!("{}:{}", n.model.name, n.tag.size),
        n.file_type.name().to_ascii_uppercase(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "full")]
    fn each_engine_names_its_settings_as_its_users_type_them() {
        assert_eq!(name_of(Runner::Ollama, "max_model_len"), Some("num_ctx"));
        // SGLang's speculative fields, shown under its own flags.
        assert_eq!(
            name_of(Runner::Sglang, "speculative_method"),
            Some("--speculative-algorithm")
        );
        assert_eq!(
            name_of(Runner::Sglang, "num_speculative_tokens"),
            Some("--speculative-num-steps")
        );
        assert_eq!(
            name_of(Runner::Ollama, "batch"),
            Some("OLLAMA_NUM_PARALLEL")
        );
        assert_eq!(name_of(Runner::Ollama, "gpu_layers"), Some("num_gpu"));
        assert_eq!(
            name_of(Runner::Ollama, "kv_dtype"),
            Some("OLLAMA_KV_CACHE_TYPE")
        );
        assert_eq!(name_of(Runner::Llamacpp, "max_model_len"), Some("-c"));
        assert_eq!(name_of(Runner::Llamacpp, "gpu_layers"), Some("-ngl"));
        assert_eq!(name_of(Runner::Llamacpp, "runner"), Some("--embedding"));
        assert_eq!(name_of(Runner::Ollama, "runner"), Some("/api/embed"));
        assert_eq!(
            name_of(Runner::Vllm, "max_model_len"),
            Some("max_model_len")
        );
        assert_eq!(
            name_of(Runner::Sglang, "max_model_len"),
            Some("context_length")
        );
        assert_eq!(
            name_of(Runner::Sglang, "max_num_seqs"),
            Some("max_running_requests")
        );
        assert_eq!(
            name_of(Runner::Trtllm, "max_model_len"),
            Some("max_seq_len")
        );
        assert_eq!(
            name_of(Runner::Sglang, "engine_version"),
            Some("sglang.__version__")
        );
        // transformers' one setting is its release (its MLA cache changed in 5.15).
        assert_eq!(
            name_of(Runner::Transformers, "engine_version"),
            Some("transformers.__version__")
        );
        assert_eq!(
            name_of(Runner::Tei, "max_num_batched_tokens"),
            Some("--max-batch-tokens")
        );
        assert!(settings(Runner::Training).is_empty());
        // Every setting is a field of the form.
        for r in [
            Runner::Transformers,
            Runner::Vllm,
            Runner::Sglang,
            Runner::Trtllm,
            Runner::Llamacpp,
            Runner::Ollama,
            Runner::Tei,
        ] {
            for (field, _, _) in settings(r) {
                assert!(crate::fields::field(field).is_some(), "{r:?}: {field}");
            }
        }
    }

    #[test]
    fn a_preset_runs_on_ollama_as_its_default_tag() {
        assert_eq!(
            ollama_tag_of("Qwen/Qwen3-32B"),
            Some(("qwen3:32b".to_string(), "Q4_K_M".to_string()))
        );
        assert_eq!(ollama_tag_of("qwen3:32b"), None);
        assert_eq!(ollama_tag_of("no such model"), None);
    }
}
