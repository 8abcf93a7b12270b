//! The form's text of every field for an estimator input ([`input_texts`]): what the form
//! shows for it, and its defaults for `EstimateInput::default()`. One function per section of
//! the input, each taking its section apart with no `..`: a field added to a section does not
//! compile here until it is given its text (or said to be no field of the form, as `arch`), so
//! no field falls through to an empty default. The texts come section by section, in the
//! sections' order (the order of a calculator link's keys); the site's `source` first.

#[cfg(feature = "full")]
use vramfit::estimate::TrainingInput;
use vramfit::estimate::{
    EstimateInput, HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput,
};
use vramfit::precision::{Dtype, KvDtype};

use super::read::choice;
use super::{DEFAULT_MODEL, DEFAULT_PARAMS, Kind, field};

/// One field's key and its text.
type Text = (&'static str, String);

/// A number as the form writes it: an integer without a fraction, else four figures.
fn num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        vramfit::units::short(x)
    }
}

/// An optional number: empty when absent.
fn opt(x: Option<f64>) -> String {
    x.map_or_else(String::new, num)
}

/// An optional switch: empty when absent.
fn opt_bool(x: Option<bool>) -> String {
    x.map_or_else(String::new, |b| b.to_string())
}

/// The value of the choice field `key` that `is` accepts; empty when none does.
fn named(key: &str, is: &dyn Fn(&str) -> bool) -> String {
    match field(key).map(|f| f.kind) {
        Some(Kind::Choice(values)) => values
            .iter()
            .find(|c| is(c.0))
            .map_or_else(String::new, |c| c.0.to_string()),
        _ => String::new(),
    }
}

/// A choice's text: the one of the form's values that the estimator's `Deserialize` reads
/// back as `value`.
macro_rules! chosen {
    ($key:literal, $value:expr) => {
        (
            $key,
            named($key, &|v| choice($key, v).ok() == Some(*$value)),
        )
    };
}

/// An optional choice's text: empty when absent, else [`chosen!`]'s.
#[cfg(feature = "full")]
#[cfg(feature = "full")]
macro_rules! chosen_opt {
    ($key:literal, $value:expr) => {
        (
            $key,
            $value.map_or_else(String::new, |a| {
                named($key, &|v| choice($key, v).ok() == Some(a))
            }),
        )
    };
}

/// The text of every form field in the estimator's input `d`, by key (the site's model where
/// `d` names none). A choice's text is the one of the form's values that reads back as `d`'s.
#[cfg_attr(not(feature = "full"), allow(unused_variables))]
pub(super) fn input_texts(d: &EstimateInput) -> Vec<Text> {
    let EstimateInput {
        model,
        run,
        training,
        serving,
        hardware,
        placement,
    } = d;
    let mut texts = vec![("source", "preset".to_string())];
    texts.extend(model_texts(model));
    texts.extend(run_texts(run));
    // The training fields are the full build's (a calculator build hands training over).
    #[cfg(feature = "full")]
    texts.extend(training_texts(training));
    texts.extend(serving_texts(serving));
    texts.extend(hardware_texts(hardware));
    texts.extend(placement_texts(placement));
    texts
}

fn model_texts(m: &ModelInput) -> Vec<Text> {
    let ModelInput {
        // The site's own defaults (the estimator has no model).
        model: _,
        params: _,
        // Read from a config.json, a weights file or a hub lookup: no field of the form.
        arch: _,
        checkpoint_dtype: _,
        quantization,
    } = m;
    vec![
        ("model", DEFAULT_MODEL.to_string()),
        ("params", DEFAULT_PARAMS.to_string()),
        ("quantization", quantization.name()),
    ]
}

fn run_texts(r: &RunInput) -> Vec<Text> {
    let RunInput {
        mode,
        engine,
        engine_version,
        batch,
        seq_len,
        new_tokens,
        dtype,
        kv_dtype,
        attention,
        logits,
        runner,
        images,
        image_width,
        image_height,
        language_model_only,
    } = r;
    vec![
        chosen!("mode", mode),
        chosen!("engine", engine),
        ("engine_version", engine_version.clone().unwrap_or_default()),
        ("batch", num(*batch)),
        ("seq_len", num(*seq_len)),
        ("new_tokens", num(*new_tokens)),
        ("dtype", dtype.map_or("", Dtype::name).to_string()),
        (
            "kv_dtype",
            named("kv_dtype", &|v| {
                KvDtype::parse("kv_dtype", v).ok() == Some(*kv_dtype)
            }),
        ),
        chosen!("attention", attention),
        chosen!("logits", logits),
        ("runner", runner.map_or("", |r| r.name()).to_string()),
        ("images", num(*images)),
        ("image_width", opt(*image_width)),
        ("image_height", opt(*image_height)),
        ("language_model_only", language_model_only.to_string()),
    ]
}

#[cfg(feature = "full")]
fn training_texts(t: &TrainingInput) -> Vec<Text> {
    let TrainingInput {
        optimizer,
        fused_optimizer,
        precision,
        grad_checkpointing,
        lora_rank,
        lora_targets,
        lora_dropout,
        qlora,
        stack,
        loss,
        loss_chunks,
        foreach,
        optimizer_in_backward,
        activation_offload,
        packing,
        kbit_upcast,
        compile,
        rl,
        rl_beta,
        ref_model,
        num_generations,
        max_completion_length,
        rollout,
        rollout_memory_utilization,
        sleep_mode,
        reduce_bucket_size,
        allgather_bucket_size,
        stage3_prefetch_bucket_size,
        stage3_max_live_parameters,
        stage3_param_persistence_threshold,
        overlap_comm,
        recompute_method,
        recompute_num_layers,
        galore_rank,
        grad_accum,
    } = t;
    vec![
        chosen!("optimizer", optimizer),
        ("fused_optimizer", fused_optimizer.to_string()),
        chosen!("precision", precision),
        chosen!("grad_checkpointing", grad_checkpointing),
        ("lora_rank", num(*lora_rank)),
        ("lora_targets", lora_targets.join(",")),
        ("lora_dropout", opt(*lora_dropout)),
        ("qlora", qlora.to_string()),
        (
            "stack",
            stack.map_or("", vramfit::estimate::Stack::name).to_string(),
        ),
        (
            "loss",
            loss.map_or("", vramfit::estimate::Loss::name).to_string(),
        ),
        ("loss_chunks", opt(*loss_chunks)),
        ("foreach", foreach.to_string()),
        ("optimizer_in_backward", optimizer_in_backward.to_string()),
        ("activation_offload", opt_bool(*activation_offload)),
        ("packing", packing.to_string()),
        ("kbit_upcast", opt_bool(*kbit_upcast)),
        ("compile", compile.to_string()),
        // RL: an unset choice is the form's empty value, as `dtype`'s.
        chosen_opt!("rl", rl),
        ("rl_beta", opt(*rl_beta)),
        ("ref_model", opt_bool(*ref_model)),
        ("num_generations", opt(*num_generations)),
        ("max_completion_length", opt(*max_completion_length)),
        chosen_opt!("rollout", rollout),
        (
            "rollout_memory_utilization",
            opt(*rollout_memory_utilization),
        ),
        ("sleep_mode", opt_bool(*sleep_mode)),
        ("reduce_bucket_size", opt(*reduce_bucket_size)),
        ("allgather_bucket_size", opt(*allgather_bucket_size)),
        (
            "stage3_prefetch_bucket_size",
            opt(*stage3_prefetch_bucket_size),
        ),
        (
            "stage3_max_live_parameters",
            opt(*stage3_max_live_parameters),
        ),
        (
            "stage3_param_persistence_threshold",
            opt(*stage3_param_persistence_threshold),
        ),
        ("overlap_comm", opt_bool(*overlap_comm)),
        chosen_opt!("recompute_method", recompute_method),
        ("recompute_num_layers", opt(*recompute_num_layers)),
        ("galore_rank", opt(*galore_rank)),
        ("grad_accum", opt(*grad_accum)),
    ]
}

fn serving_texts(s: &ServingInput) -> Vec<Text> {
    let ServingInput {
        gpu_memory_utilization,
        max_model_len,
        max_num_seqs,
        max_num_batched_tokens,
        cuda_graphs,
        ubatch,
        kv_unified,
        kv_unified_per_slot,
        mem_fraction_static,
        cuda_graph_max_bs,
        kv_offloading_size,
        kv_offloading_backend,
        disaggregation_mode,
        disaggregation_transfer_backend,
        num_reserved_decode_tokens,
        free_gpu_memory_fraction,
        max_kv_size,
        kv_bits,
        kv_group_size,
        quantized_kv_start,
        enable_lora,
        max_loras,
        max_lora_rank,
        max_cpu_loras,
        speculative_method,
        draft_model,
        num_speculative_tokens,
        acceptance_rate,
    } = s;
    vec![
        ("gpu_memory_utilization", num(*gpu_memory_utilization)),
        ("max_model_len", opt(*max_model_len)),
        ("max_num_seqs", opt(*max_num_seqs)),
        ("max_num_batched_tokens", opt(*max_num_batched_tokens)),
        ("cuda_graphs", cuda_graphs.to_string()),
        ("ubatch", num(*ubatch)),
        ("kv_unified", opt_bool(*kv_unified)),
        ("kv_unified_per_slot", opt(*kv_unified_per_slot)),
        ("mem_fraction_static", opt(*mem_fraction_static)),
        ("cuda_graph_max_bs", opt(*cuda_graph_max_bs)),
        ("kv_offloading_size", opt(*kv_offloading_size)),
        (
            "kv_offloading_backend",
            kv_offloading_backend.map_or("", |b| b.name()).to_string(),
        ),
        (
            "disaggregation_mode",
            disaggregation_mode.map_or("", |m| m.name()).to_string(),
        ),
        (
            "disaggregation_transfer_backend",
            disaggregation_transfer_backend
                .map_or("", |b| b.name())
                .to_string(),
        ),
        (
            "num_reserved_decode_tokens",
            opt(*num_reserved_decode_tokens),
        ),
        ("free_gpu_memory_fraction", opt(*free_gpu_memory_fraction)),
        ("max_kv_size", opt(*max_kv_size)),
        ("kv_bits", opt(*kv_bits)),
        ("kv_group_size", opt(*kv_group_size)),
        ("quantized_kv_start", opt(*quantized_kv_start)),
        ("enable_lora", enable_lora.to_string()),
        ("max_loras", opt(*max_loras)),
        ("max_lora_rank", opt(*max_lora_rank)),
        ("max_cpu_loras", opt(*max_cpu_loras)),
        (
            "speculative_method",
            speculative_method
                .map_or("", vramfit::estimate::SpecMethod::name)
                .to_string(),
        ),
        ("draft_model", draft_model.clone().unwrap_or_default()),
        ("num_speculative_tokens", opt(*num_speculative_tokens)),
        ("acceptance_rate", opt(*acceptance_rate)),
    ]
}

fn hardware_texts(h: &HardwareInput) -> Vec<Text> {
    let HardwareInput {
        gpu,
        gpu_memory,
        memory_in_use,
        cards,
        host_memory,
        host_bandwidth,
        node_link,
        wired_limit_mb,
    } = h;
    vec![
        ("gpu", gpu.clone().unwrap_or_default()),
        ("gpu_memory", gpu_memory.clone().unwrap_or_default()),
        ("memory_in_use", memory_in_use.clone().unwrap_or_default()),
        ("cards", cards.join(",")),
        ("host_memory", host_memory.clone().unwrap_or_default()),
        ("host_bandwidth", host_bandwidth.clone().unwrap_or_default()),
        ("node_link", node_link.clone().unwrap_or_default()),
        ("wired_limit_mb", opt(*wired_limit_mb)),
    ]
}

#[cfg_attr(not(feature = "full"), allow(unused_variables, unused_mut))]
fn placement_texts(p: &PlacementInput) -> Vec<Text> {
    let PlacementInput {
        gpus,
        tp,
        pp,
        ep,
        cp,
        vp,
        gpus_per_node,
        zero,
        offload,
        fsdp_version,
        reshard_after_forward,
        reduce_dtype,
        sequence_parallel,
        distributed_optimizer,
        tensor_split,
        split_mode,
        main_gpu,
        gpu_layers,
        n_cpu_moe,
        enable_dp_attention,
        dp_size,
    } = p;
    let mut texts = vec![
        ("gpus", opt(*gpus)),
        ("tp", num(*tp)),
        ("pp", num(*pp)),
        ("ep", num(*ep)),
        ("gpus_per_node", opt(*gpus_per_node)),
        (
            "tensor_split",
            tensor_split
                .iter()
                .map(|x| num(*x))
                .collect::<Vec<_>>()
                .join(","),
        ),
        chosen!("split_mode", split_mode),
        ("main_gpu", num(*main_gpu)),
        ("gpu_layers", opt(*gpu_layers)),
        ("n_cpu_moe", opt(*n_cpu_moe)),
        ("enable_dp_attention", enable_dp_attention.to_string()),
        ("dp_size", opt(*dp_size)),
    ];
    // Sharding and Megatron's layout are training's, the full build's.
    #[cfg(feature = "full")]
    texts.extend([
        ("cp", opt(*cp)),
        ("vp", opt(*vp)),
        ("zero", num(*zero)),
        chosen!("offload", offload),
        ("fsdp_version", opt(*fsdp_version)),
        ("reshard_after_forward", opt_bool(*reshard_after_forward)),
        (
            "reduce_dtype",
            reduce_dtype.map_or_else(String::new, |d| String::from(d.name())),
        ),
        ("sequence_parallel", sequence_parallel.to_string()),
        ("distributed_optimizer", distributed_optimizer.to_string()),
    ]);
    texts
}
