//! The input's wire form: its sections are one flat JSON object, the keys of the flat struct
//! it was before the sections (taken from its source at commit 4d4b993b), read back through
//! `input_wire.rs`, and a key of no section is refused by name.

use super::{Engine, EstimateInput, Mode};
use alloc::string::ToString as _;
use alloc::vec::Vec;

/// Every key of the flat `EstimateInput` before it had sections (4d4b993b's
/// `crates/vramfit/src/estimate/input.rs`, in its declaration order).
const FLAT_KEYS: [&str; 112] = [
    "model",
    "params",
    "arch",
    "mode",
    "engine",
    "batch",
    "seq_len",
    "new_tokens",
    "dtype",
    "checkpoint_dtype",
    "quantization",
    "kv_dtype",
    "attention",
    "logits",
    "optimizer",
    "fused_optimizer",
    "precision",
    "grad_checkpointing",
    "lora_rank",
    "lora_targets",
    "lora_dropout",
    "qlora",
    "zero",
    "offload",
    "gpus",
    "tp",
    "pp",
    "gpu",
    "gpu_memory",
    "memory_in_use",
    "cards",
    "tensor_split",
    "split_mode",
    "main_gpu",
    "gpu_memory_utilization",
    "max_model_len",
    "max_num_seqs",
    "max_num_batched_tokens",
    "cuda_graphs",
    "gpu_layers",
    "ubatch",
    "n_cpu_moe",
    "kv_unified",
    "kv_unified_per_slot",
    "host_memory",
    "host_bandwidth",
    "mem_fraction_static",
    "cuda_graph_max_bs",
    "ep",
    "kv_offloading_size",
    "kv_offloading_backend",
    "runner",
    "enable_dp_attention",
    "dp_size",
    "disaggregation_mode",
    "disaggregation_transfer_backend",
    "num_reserved_decode_tokens",
    "gpus_per_node",
    "node_link",
    "free_gpu_memory_fraction",
    "max_kv_size",
    "kv_bits",
    "kv_group_size",
    "quantized_kv_start",
    "wired_limit_mb",
    "engine_version",
    "enable_lora",
    "max_loras",
    "max_lora_rank",
    "max_cpu_loras",
    "speculative_method",
    "draft_model",
    "num_speculative_tokens",
    "acceptance_rate",
    "images",
    "image_width",
    "image_height",
    "language_model_only",
    "stack",
    "loss",
    "loss_chunks",
    "foreach",
    "optimizer_in_backward",
    "activation_offload",
    "packing",
    "kbit_upcast",
    "compile",
    "rl",
    "rl_beta",
    "ref_model",
    "num_generations",
    "max_completion_length",
    "rollout",
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

fn sorted(mut v: Vec<&str>) -> Vec<&str> {
    v.sort_unstable();
    v
}

/// The default input is one flat object with exactly the flat struct's 111 keys: no section
/// name (`run`, `placement`, …) and none missing.
#[test]
fn the_default_input_is_the_flat_keys() {
    let json = serde_json::to_value(EstimateInput::default()).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(sorted(keys), sorted(FLAT_KEYS.to_vec()));
    // The field list the faces check themselves against is the same 111, each once.
    assert_eq!(sorted(EstimateInput::fields()), sorted(FLAT_KEYS.to_vec()));
    // The flat wire form it is read through has them all, in the sections' order.
    let wire = super::input::section_fields::<super::input_sections::FlatInput>();
    assert_eq!(wire, EstimateInput::fields());
}

/// An empty object is the default input, and the default's JSON reads back as itself.
#[test]
fn the_default_round_trips() {
    let empty: EstimateInput = serde_json::from_str("{}").unwrap();
    assert_eq!(empty, EstimateInput::default());
    let text = serde_json::to_string(&EstimateInput::default()).unwrap();
    let back: EstimateInput = serde_json::from_str(&text).unwrap();
    assert_eq!(back, EstimateInput::default());
}

/// Flat keys land in their sections; an integer reads as a float as before.
#[test]
fn flat_keys_fill_their_sections() {
    let i: EstimateInput = serde_json::from_str(
        r#"{"model": "meta-llama/Llama-3.1-8B", "mode": "serve", "engine": "vllm",
            "batch": 8, "tp": 2, "gpu": "h100", "max_model_len": 4096, "zero": 3,
            "lora_rank": 16}"#,
    )
    .unwrap();
    assert_eq!(i.model.model.as_deref(), Some("meta-llama/Llama-3.1-8B"));
    assert_eq!(
        (i.run.mode, i.run.engine, i.run.batch),
        (Mode::Serve, Engine::Vllm, 8.0)
    );
    assert_eq!((i.placement.tp, i.placement.zero), (2.0, 3.0));
    assert_eq!(i.hardware.gpu.as_deref(), Some("h100"));
    assert_eq!(i.serving.max_model_len, Some(4096.0));
    assert_eq!(i.training.lora_rank, 16.0);
    // The rest keep their defaults (seq_len 2048, pp 1).
    assert_eq!((i.run.seq_len, i.placement.pp), (2048.0, 1.0));
}

/// A key of no section is refused with serde's own words under `deny_unknown_fields`, naming
/// it and the keys accepted; so is a section's name, which is not a key.
#[test]
fn an_unknown_key_is_refused_by_name() {
    for key in ["bogus", "run", "placement"] {
        let text = alloc::format!(r#"{{"batch": 2, "{key}": 1}}"#);
        let e = serde_json::from_str::<EstimateInput>(&text)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&alloc::format!(
                "unknown field `{key}`, expected one of `model`, `params`, `arch`"
            )),
            "{e}"
        );
        assert!(e.contains("`grad_accum`") && e.contains("`tp`"), "{e}");
    }
    // A bad value of a known key is still an error of that value.
    let e = serde_json::from_str::<EstimateInput>(r#"{"batch": "x"}"#).unwrap_err();
    assert!(e.to_string().contains("invalid type: string \"x\""), "{e}");
}
