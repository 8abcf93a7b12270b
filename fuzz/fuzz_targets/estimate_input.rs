//! The estimator on arbitrary input, two ways: the bytes as JSON (what the npm package and the
//! CLI's JSON receive), and the bytes as a structured `EstimateInput` built field by field with
//! `arbitrary`, numbers anywhere in f64 (NaN, infinities, negatives, huge). Either an estimate
//! whose figures are consistent, or an `InputError` naming a field; never a panic.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use vramfit::Bytes;
use vramfit::estimate::{
    AttentionImpl, Checkpointing, DisaggregationMode, Engine, Estimate, EstimateInput,
    KvOffloadingBackend, Logits, Loss, Mode, Offload, Optimizer, Precision, RecomputeMethod,
    RlAlgorithm, Rollout, RunnerType, SpecMethod, SplitMode, Stack, TransferBackend, estimate,
    largest_batch,
};
use vramfit::estimate::{
    HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput, TrainingInput,
};
use vramfit::precision::{Dtype, GgufFileType, KvDtype, MlxMode, Quantization};

/// A number: often a small integer, sometimes any f64 at all.
fn num(u: &mut Unstructured) -> Result<f64> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => f64::from(u.int_in_range(0..=64u32)?),
        1 => f64::from(u.arbitrary::<u32>()?),
        2 => *u.choose(&[f64::NAN, f64::INFINITY, -1.0, 0.5, 1e308, -0.0, 1e15])?,
        _ => u.arbitrary::<f64>()?,
    })
}

fn opt_num(u: &mut Unstructured) -> Result<Option<f64>> {
    Ok(if u.arbitrary()? { Some(num(u)?) } else { None })
}

/// Speculative decoding's `draft_model`: a draft preset, one of another vocabulary, an EAGLE
/// head's repository, nothing.
const DRAFTS: &[&str] = &[
    "meta-llama/Llama-3.2-1B-Instruct",
    "Qwen/Qwen3-4B",
    "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
    "",
];

fn text(u: &mut Unstructured, common: &[&str]) -> Result<Option<String>> {
    Ok(match u.int_in_range(0..=2u8)? {
        0 => None,
        1 => Some((*u.choose(common)?).to_string()),
        _ => Some(u.arbitrary::<String>()?),
    })
}

fn quantization(u: &mut Unstructured) -> Result<Quantization> {
    Ok(match u.int_in_range(0..=12u8)? {
        0 => Quantization::None,
        1 => Quantization::Fp8,
        2 => Quantization::W8a8,
        3 => Quantization::W4a16 {
            group_size: u.arbitrary()?,
        },
        4 => Quantization::Gptq {
            bits: u.arbitrary()?,
            group_size: u.arbitrary()?,
        },
        5 => Quantization::Awq {
            group_size: u.arbitrary()?,
        },
        6 => Quantization::BnbInt8,
        7 => Quantization::BnbNf4 {
            double_quant: u.arbitrary()?,
        },
        8 => Quantization::Mxfp4,
        9 => Quantization::TorchaoNf4,
        10 => Quantization::Hqq {
            bits: u.arbitrary()?,
            group_size: u.arbitrary()?,
        },
        11 => Quantization::Mlx {
            mode: *u.choose(&[
                MlxMode::Affine,
                MlxMode::Mxfp4,
                MlxMode::Nvfp4,
                MlxMode::Mxfp8,
            ])?,
            bits: u.arbitrary()?,
            group_size: u.arbitrary()?,
        },
        _ => Quantization::Gguf {
            file_type: *u.choose(&GgufFileType::ALL)?,
        },
    })
}

/// One of `values`, or none (an optional choice of the input).
fn maybe<T: Copy>(u: &mut Unstructured, values: &[T]) -> Result<Option<T>> {
    Ok(if u.arbitrary()? {
        Some(*u.choose(values)?)
    } else {
        None
    })
}

/// A preset's architecture with some of its sizes drawn anew (a config.json's numbers), a
/// quarter of the time.
fn drawn_arch(
    u: &mut Unstructured,
    presets: &[vramfit::presets::Preset],
) -> Result<Option<vramfit::model::Architecture>> {
    if !u.ratio(1, 4)? {
        return Ok(None);
    }
    let mut a = u.choose(presets)?.arch;
    for field in [
        &mut a.vocab_size,
        &mut a.hidden_size,
        &mut a.num_layers,
        &mut a.num_heads,
        &mut a.num_kv_heads,
        &mut a.head_dim,
        &mut a.intermediate_size,
        &mut a.max_position_embeddings,
    ] {
        if u.ratio(1, 4)? {
            *field = u.arbitrary()?;
        }
    }
    // An image-token rule of any kind with its numbers drawn anew, a quarter of the time.
    if u.ratio(1, 4)? {
        use vramfit::model::ImageTokens;
        a.image_tokens = Some(match u.int_in_range(0..=3u8)? {
            0 => ImageTokens::Fixed {
                tokens: u.arbitrary()?,
            },
            1 => ImageTokens::Dynamic {
                patch_size: u.arbitrary()?,
                merge_size: u.arbitrary()?,
                min_pixels: u.arbitrary()?,
                max_pixels: u.arbitrary()?,
                deepstack: u.arbitrary()?,
            },
            2 => ImageTokens::Tiles {
                tile_size: u.arbitrary()?,
                min_tiles: u.arbitrary()?,
                max_tiles: u.arbitrary()?,
                tokens_per_tile: u.arbitrary()?,
            },
            _ => ImageTokens::Rows {
                patch_size: u.arbitrary()?,
                merge_size: u.arbitrary()?,
                longest_edge: u.arbitrary()?,
            },
        });
    }
    Ok(Some(a))
}

fn structured(u: &mut Unstructured) -> Result<EstimateInput> {
    let presets = vramfit::presets::presets();
    let arch = drawn_arch(u, presets)?;
    let model = if u.arbitrary()? {
        Some(u.choose(presets)?.id.to_string())
    } else {
        None
    };
    Ok(EstimateInput {
        model: ModelInput {
            model,
            params: text(u, &["7B", "70B", "1e309", "NaN", "-1B", "340M"])?,
            arch,
            checkpoint_dtype: if u.arbitrary()? {
                Some(*u.choose(&[Dtype::Fp32, Dtype::Fp16, Dtype::Bf16, Dtype::Int8])?)
            } else {
                None
            },
            quantization: quantization(u)?,
        },
        run: RunInput {
            mode: *u.choose(&[Mode::Inference, Mode::Serve, Mode::Training])?,
            engine: *u.choose(&[
                Engine::Hf,
                Engine::Vllm,
                Engine::Sglang,
                Engine::Llamacpp,
                Engine::Ollama,
                Engine::Trtllm,
                Engine::Mlx,
            ])?,
            batch: num(u)?,
            seq_len: num(u)?,
            new_tokens: num(u)?,
            dtype: if u.arbitrary()? {
                Some(*u.choose(&[
                    Dtype::Fp32,
                    Dtype::Fp16,
                    Dtype::Bf16,
                    Dtype::Fp8,
                    Dtype::Int8,
                    Dtype::Int4,
                ])?)
            } else {
                None
            },
            kv_dtype: *u.choose(&[
                KvDtype::Auto,
                KvDtype::Fp16,
                KvDtype::Bf16,
                KvDtype::Fp8,
                KvDtype::Q8_0,
                KvDtype::Q4_0,
                KvDtype::Nvfp4,
            ])?,
            attention: *u.choose(&[
                AttentionImpl::Sdpa,
                AttentionImpl::Flash,
                AttentionImpl::Eager,
            ])?,
            logits: *u.choose(&[Logits::Last, Logits::All])?,
            engine_version: text(u, &["0.19", "0.6.4", "v0.8.5.post1", "0.34", "0.x", ""])?,
            runner: *u.choose(&[None, Some(RunnerType::Generate), Some(RunnerType::Pooling)])?,
            images: num(u)?,
            image_width: opt_num(u)?,
            image_height: opt_num(u)?,
            language_model_only: u.arbitrary()?,
        },
        training: TrainingInput {
            optimizer: *u.choose(&Optimizer::ALL)?,
            fused_optimizer: u.arbitrary()?,
            precision: *u.choose(&[
                Precision::Fp32,
                Precision::Fp16,
                Precision::Bf16,
                Precision::AmpFp16,
                Precision::AmpBf16,
            ])?,
            grad_checkpointing: *u.choose(&[
                Checkpointing::None,
                Checkpointing::Full,
                Checkpointing::Selective,
            ])?,
            lora_rank: num(u)?,
            lora_targets: if u.ratio(1, 4)? {
                u.arbitrary()?
            } else {
                Vec::new()
            },
            lora_dropout: opt_num(u)?,
            qlora: u.arbitrary()?,

            // Training regimes (part `regimes`).
            stack: maybe(u, &Stack::ALL)?,
            loss: maybe(u, &Loss::ALL)?,
            loss_chunks: opt_num(u)?,
            foreach: u.arbitrary()?,
            optimizer_in_backward: u.arbitrary()?,
            activation_offload: u.arbitrary()?,
            packing: u.arbitrary()?,
            kbit_upcast: u.arbitrary()?,
            compile: u.arbitrary()?,
            rl: maybe(u, &[RlAlgorithm::Grpo, RlAlgorithm::Ppo, RlAlgorithm::Dpo])?,
            rl_beta: opt_num(u)?,
            ref_model: u.arbitrary()?,
            num_generations: opt_num(u)?,
            max_completion_length: opt_num(u)?,
            rollout: maybe(u, &[Rollout::Colocate, Rollout::Server, Rollout::Hf])?,
            rollout_memory_utilization: opt_num(u)?,
            sleep_mode: u.arbitrary()?,
            reduce_bucket_size: opt_num(u)?,
            allgather_bucket_size: opt_num(u)?,
            stage3_prefetch_bucket_size: opt_num(u)?,
            stage3_max_live_parameters: opt_num(u)?,
            stage3_param_persistence_threshold: opt_num(u)?,
            overlap_comm: u.arbitrary()?,
            recompute_method: *u.choose(&[
                None,
                Some(RecomputeMethod::Uniform),
                Some(RecomputeMethod::Block),
            ])?,
            recompute_num_layers: opt_num(u)?,
            galore_rank: opt_num(u)?,
            grad_accum: opt_num(u)?,
        },
        serving: ServingInput {
            gpu_memory_utilization: num(u)?,
            max_model_len: opt_num(u)?,
            max_num_seqs: opt_num(u)?,
            max_num_batched_tokens: opt_num(u)?,
            cuda_graphs: u.arbitrary()?,
            kv_unified: u.arbitrary()?,
            kv_unified_per_slot: opt_num(u)?,
            ubatch: num(u)?,
            mem_fraction_static: opt_num(u)?,
            cuda_graph_max_bs: opt_num(u)?,
            disaggregation_mode: *u.choose(&[
                None,
                Some(DisaggregationMode::Prefill),
                Some(DisaggregationMode::Decode),
            ])?,
            disaggregation_transfer_backend: *u.choose(&[
                None,
                Some(TransferBackend::Mooncake),
                Some(TransferBackend::Nixl),
            ])?,
            num_reserved_decode_tokens: opt_num(u)?,
            free_gpu_memory_fraction: opt_num(u)?,
            max_kv_size: opt_num(u)?,
            kv_bits: opt_num(u)?,
            kv_group_size: opt_num(u)?,
            quantized_kv_start: opt_num(u)?,
            enable_lora: u.arbitrary()?,
            max_loras: opt_num(u)?,
            max_lora_rank: opt_num(u)?,
            max_cpu_loras: opt_num(u)?,
            kv_offloading_size: opt_num(u)?,
            kv_offloading_backend: *u.choose(&[
                None,
                Some(KvOffloadingBackend::Native),
                Some(KvOffloadingBackend::Lmcache),
            ])?,
            speculative_method: maybe(u, &SpecMethod::ALL)?,
            draft_model: text(u, DRAFTS)?,
            num_speculative_tokens: opt_num(u)?,
            acceptance_rate: opt_num(u)?,
        },
        hardware: HardwareInput {
            gpu: if u.arbitrary()? {
                Some(u.choose(vramfit::hardware::gpus())?.id.to_string())
            } else {
                text(u, &["h100-sxm5-80gb", "H100", ""])?
            },
            gpu_memory: text(u, &["80GB", "79.19GiB", "1e309GiB", "-1GB", "NaN GB"])?,
            memory_in_use: text(
                u,
                &["1.2GiB", "900MiB", "0GiB", "81GB", "-1GiB", "1e309GiB"],
            )?,
            cards: if u.ratio(1, 4)? {
                let n = u.int_in_range(0..=4)?;
                let mut cards = Vec::new();
                for _ in 0..n {
                    cards.push(
                        text(
                            u,
                            &[
                                "rtx-3090",
                                "rtx-3060-12gb",
                                "2x4090",
                                "0x4090",
                                "99999x4090",
                                "",
                            ],
                        )?
                        .unwrap_or_default(),
                    );
                }
                cards
            } else {
                Vec::new()
            },
            host_memory: text(u, &["ddr5-6000-2ch", "m4 max", "ddr5", "ddr7"])?,
            host_bandwidth: text(
                u,
                &["80GB/s", "1.2TB/s", "0GB/s", "-5GB/s", "NaN GB/s", "80"],
            )?,
            node_link: text(
                u,
                &["400Gb/s", "50GB/s", "0Gb/s", "9Tb/s", "NaN Gb/s", "400"],
            )?,
            wired_limit_mb: opt_num(u)?,
        },
        placement: PlacementInput {
            zero: num(u)?,
            offload: *u.choose(&[
                Offload::None,
                Offload::Cpu,
                Offload::Nvme,
                Offload::OptimizerCpu,
                Offload::OptimizerNvme,
            ])?,
            gpus: opt_num(u)?,
            tp: num(u)?,
            pp: num(u)?,
            tensor_split: if u.ratio(1, 4)? {
                let n = u.int_in_range(0..=5)?;
                let mut ts = Vec::new();
                for _ in 0..n {
                    ts.push(num(u)?);
                }
                ts
            } else {
                Vec::new()
            },
            split_mode: *u.choose(&[SplitMode::Layer, SplitMode::None, SplitMode::Row])?,
            main_gpu: num(u)?,
            gpu_layers: opt_num(u)?,
            n_cpu_moe: opt_num(u)?,
            ep: num(u)?,
            enable_dp_attention: u.arbitrary()?,
            dp_size: opt_num(u)?,
            gpus_per_node: opt_num(u)?,

            // Sharding: FSDP, DeepSpeed's buffers, Megatron.
            fsdp_version: opt_num(u)?,
            reshard_after_forward: u.arbitrary()?,
            reduce_dtype: if u.arbitrary()? {
                Some(*u.choose(&[Dtype::Fp32, Dtype::Bf16, Dtype::Fp16, Dtype::Int8])?)
            } else {
                None
            },
            vp: opt_num(u)?,
            sequence_parallel: u.arbitrary()?,
            cp: opt_num(u)?,
            distributed_optimizer: u.arbitrary()?,
        },
    })
}

/// Whether every integer in `v` is at most `Number.MAX_SAFE_INTEGER` (2^53 − 1).
fn js_exact(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Number(n) => n.as_u64().is_none_or(|x| x < 1 << 53),
        Value::Array(a) => a.iter().all(js_exact),
        Value::Object(o) => o.values().all(js_exact),
        _ => true,
    }
}

fn check(input: &EstimateInput) -> Option<Estimate> {
    match estimate(input) {
        Ok(e) => {
            assert!(e.total_bytes >= e.peak_allocated_bytes, "{input:?}");
            for c in &e.components {
                assert!(
                    !c.formula.contains("NaN") && !c.formula.contains("inf"),
                    "{}",
                    c.formula
                );
            }
            assert!(
                e.max_concurrency_exact
                    .is_none_or(|c| c.is_finite() && c >= 0.0)
            );
            // The moments (`step`): none above the total, the one at the peak's phase the total
            // (the chart never says another peak than the verdict).
            for m in &e.step {
                assert!(m.bytes <= e.total_bytes, "{:?} {input:?}", m.phase);
                if m.phase == e.peak_phase {
                    assert_eq!(m.bytes, e.total_bytes, "{input:?}");
                }
            }
            // The output is plain JSON, as every face sends it on, and every integer in it is
            // exact as a JavaScript number (the npm package's serde-wasm-bindgen refuses others).
            let json = serde_json::to_value(&e).expect("an estimate serializes");
            assert!(js_exact(&json), "{input:?}");
            Some(e)
        }
        Err(e) => {
            assert!(!e.field.is_empty() && !e.accepted.is_empty(), "{e}");
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&how, rest)) = data.split_first() else {
        return;
    };
    if how & 1 == 0 {
        if let Ok(input) = serde_json::from_slice::<EstimateInput>(rest) {
            check(&input);
        }
    } else {
        let mut u = Unstructured::new(rest);
        if let Ok(input) = structured(&mut u) {
            // The solvers run dozens of estimates: on one input in eight.
            if check(&input).is_some() && how & 0x0e == 0 {
                let _ = largest_batch(&input, Bytes::new(80 << 30));
            }
        }
    }
});
