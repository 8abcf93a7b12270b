//! Every run shape the estimator distinguishes ([`run_shapes`]): the Chinese formulas' test
//! (`formula_zh`) and the readable snapshots (`text_snapshot`) both go over them.

use super::*;
use crate::precision::{GgufFileType, Quantization};
use alloc::string::ToString;
use alloc::vec::Vec;

/// The models every engine's shapes are tried on: a dense, a sliding-window, an
/// encoder-decoder, a vision, a MoE, an MLA, an MXFP4, a convolutional and a
/// parameters-only model.
const MODELS: [(Option<&str>, Option<&str>); 9] = [
    (Some("meta-llama/Llama-3.1-8B"), None),
    (Some("google/gemma-3-27b-it"), None),
    (Some("openai/whisper-tiny"), None),
    (Some("google/vit-large-patch16-224"), None),
    (Some("mistralai/Mixtral-8x7B-v0.1"), None),
    (Some("deepseek-ai/DeepSeek-V3"), None),
    (Some("openai/gpt-oss-20b"), None),
    (Some("microsoft/resnet-50"), None),
    (None, Some("7B")),
];

const Q4: Quantization = Quantization::Gguf {
    file_type: GgufFileType::Q4_K_M,
};

/// The default run of a model (or a parameter count) on a card, or on none.
fn base(model: Option<&str>, params: Option<&str>, gpu: Option<&str>) -> EstimateInput {
    EstimateInput {
        model: model.map(str::to_string),
        params: params.map(str::to_string),
        gpu: gpu.map(str::to_string),
        ..EstimateInput::default()
    }
}

/// Every run shape the estimator distinguishes, on every model of [`MODELS`], with and
/// without a card. The shapes are appended engine by engine, in the order they were added,
/// so that each keeps its place (its index in the snapshots).
pub(super) fn run_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for (model, params) in MODELS {
        // A card before Hopper has another cuBLAS workspace.
        for gpu in [None, Some("h100-sxm5-80gb"), Some("a100-sxm4-80gb")] {
            let b = base(model, params, gpu);
            out.extend(inference_shapes(&b));
            out.extend(training_shapes(&EstimateInput {
                mode: Mode::Training,
                ..b
            }));
        }
    }
    for (model, params) in MODELS {
        for gpu in [None, Some("h100-sxm5-80gb"), Some("rtx-4090")] {
            out.extend(sglang_ollama_shapes(&base(model, params, gpu)));
        }
    }
    for tag in [
        "llama3.1:8b",
        "llama3.1:70b-instruct-q8_0",
        "qwen3:32b-q4_K_M",
    ] {
        for gpu in [None, Some("rtx-4090")] {
            out.push(EstimateInput {
                model: Some(tag.to_string()),
                engine: Engine::Ollama,
                gpu: gpu.map(str::to_string),
                ..EstimateInput::default()
            });
        }
    }
    out.extend(trtllm_shapes());
    out.extend(rl_shapes());
    out.extend(sharding_shapes());
    out.extend(quantized_base_shapes());
    for optimizer in [Optimizer::GaloreAdamw, Optimizer::GaloreAdamw8bit] {
        // GaLore at a rank of its own (`optim_args="rank=64"`).
        out.push(EstimateInput {
            mode: Mode::Training,
            optimizer,
            galore_rank: Some(64.0),
            ..base(
                Some("meta-llama/Llama-3.1-8B"),
                None,
                Some("h100-sxm5-80gb"),
            )
        });
    }
    out.extend(vllm_lora_shapes());
    out.extend(hybrid_shapes());
    out.extend(gemma4_shapes());
    out.extend(in_use_shapes());
    out.extend(super::run_shapes_pd::pd_shapes());
    out
}

/// Memory already in use on the card (last, so that the shapes before keep their places):
/// vLLM refusing to start (0.33) and paying it out of its pool (0.8.5), SGLang's and
/// TensorRT-LLM's pools, Ollama's layers, llama.cpp over unlike cards, transformers and MLX.
fn in_use_shapes() -> Vec<EstimateInput> {
    let llama = |engine, gpu: &str, in_use: &str| EstimateInput {
        mode: if matches!(engine, Engine::Vllm | Engine::Sglang | Engine::Trtllm) {
            Mode::Serve
        } else {
            Mode::Inference
        },
        engine,
        max_model_len: Some(8192.0),
        memory_in_use: Some(in_use.to_string()),
        ..base(Some("meta-llama/Llama-3.1-8B"), None, Some(gpu))
    };
    let mut out = Vec::new();
    for (engine, gpu, in_use) in [
        (Engine::Vllm, "rtx-4090", "3GiB"),
        (Engine::Sglang, "h100-sxm5-80gb", "1GiB"),
        (Engine::Trtllm, "h100-sxm5-80gb", "1GiB"),
        (Engine::Hf, "rtx-4090", "1.5GiB"),
        (Engine::Mlx, "apple-m4-max-128gb", "8GiB"),
    ] {
        out.push(llama(engine, gpu, in_use));
    }
    out.push(EstimateInput {
        engine_version: Some("0.8.5".to_string()),
        ..llama(Engine::Vllm, "rtx-4090", "2GiB")
    });
    out.push(EstimateInput {
        quantization: Q4,
        ..llama(Engine::Ollama, "rtx-3060-12gb", "6GiB")
    });
    out.push(EstimateInput {
        quantization: Q4,
        gpu: None,
        cards: ["rtx-3090", "rtx-3060-12gb"].map(str::to_string).to_vec(),
        ..llama(Engine::Llamacpp, "rtx-3090", "4GiB")
    });
    out
}

/// Gemma 4 (`Gemma4TextConfig`'s defaults with its last 10 layers sharing KV) in
/// transformers with a prompt longer than the window, vLLM and llama.cpp, with and without a
/// card: the per-layer-type cache's formulas (last, so that the shapes before keep their
/// numbers in the snapshots).
fn gemma4_shapes() -> Vec<EstimateInput> {
    let Ok(parsed) =
        crate::config::parse_config(r#"{"model_type": "gemma4_text", "num_kv_shared_layers": 10}"#)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for gpu in [None, Some("h100-sxm5-80gb")] {
        let b = EstimateInput {
            arch: Some(parsed.arch),
            seq_len: 2048.0,
            gpu: gpu.map(str::to_string),
            ..EstimateInput::default()
        };
        out.extend([
            b.clone(),
            EstimateInput {
                mode: Mode::Serve,
                engine: Engine::Vllm,
                ..b.clone()
            },
            EstimateInput {
                engine: Engine::Llamacpp,
                ..b
            },
        ]);
    }
    out
}

/// A hybrid (OLMo Hybrid 7B: Gated DeltaNet and attention) in transformers, vLLM and
/// SGLang, with and without a card: the state's formulas, SGLang's MambaPool among them
/// (last, so that the shapes before keep their numbers in the snapshots).
fn hybrid_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for gpu in [None, Some("h100-sxm5-80gb")] {
        let b = base(Some("allenai/Olmo-Hybrid-7B"), None, gpu);
        out.extend([
            b.clone(),
            EstimateInput {
                mode: Mode::Serve,
                engine: Engine::Vllm,
                ..b.clone()
            },
            EstimateInput {
                mode: Mode::Serve,
                engine: Engine::Sglang,
                ..b
            },
        ]);
    }
    out.extend(node_shapes());
    out
}

/// Runs over two nodes of eight H100s (last, so that the shapes before keep their numbers
/// in the snapshots): DeepSeek-V3 at tp 8 × pp 2 (one hand-over crossing), at tp 16 (a
/// tensor group across nodes), on RoCE at 200 Gb/s, served by vLLM and SGLang.
fn node_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for engine in [Engine::Vllm, Engine::Sglang] {
        let serve = EstimateInput {
            mode: Mode::Serve,
            engine,
            ..base(
                Some("deepseek-ai/DeepSeek-V3"),
                None,
                Some("h100-sxm5-80gb"),
            )
        };
        out.extend([
            EstimateInput {
                tp: 8.0,
                pp: 2.0,
                ..serve.clone()
            },
            EstimateInput {
                tp: 16.0,
                ..serve.clone()
            },
            EstimateInput {
                tp: 8.0,
                pp: 2.0,
                node_link: Some("200Gb/s".into()),
                ..serve
            },
        ]);
    }
    out.extend(vllm_speculative_shapes());
    out.extend(super::run_shapes_speculative::sglang_speculative_shapes());
    out
}

/// vLLM serving with speculative decoding, each method (last, so that the shapes before
/// keep their numbers in the snapshots).
fn vllm_speculative_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for gpu in [None, Some("h100-sxm5-80gb")] {
        let serve = EstimateInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            ..base(Some("meta-llama/Llama-3.1-8B"), None, gpu)
        };
        out.extend([
            EstimateInput {
                speculative_method: Some(SpecMethod::DraftModel),
                draft_model: Some("meta-llama/Llama-3.2-1B-Instruct".into()),
                num_speculative_tokens: Some(4.0),
                acceptance_rate: Some(0.7),
                ..serve.clone()
            },
            EstimateInput {
                speculative_method: Some(SpecMethod::Eagle),
                num_speculative_tokens: Some(3.0),
                acceptance_rate: Some(0.8),
                ..serve.clone()
            },
            EstimateInput {
                speculative_method: Some(SpecMethod::Eagle3),
                num_speculative_tokens: Some(3.0),
                tp: 2.0,
                gpus: Some(2.0),
                ..serve.clone()
            },
            EstimateInput {
                speculative_method: Some(SpecMethod::Ngram),
                num_speculative_tokens: Some(5.0),
                acceptance_rate: Some(0.5),
                ..serve
            },
        ]);
    }
    out.extend(mlx_shapes());
    out
}

/// mlx-lm on Apple cards (last, so that the shapes before keep their numbers): the 16-bit
/// checkpoint and MLX's formats, a long prompt in short steps, the rotating and the
/// quantized KV cache, the wired limit raised, a model whose head size mlx does not fuse.
fn mlx_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for (model, gpu) in [
        ("meta-llama/Llama-3.1-8B", Some("apple-m2-pro-16gb")),
        ("meta-llama/Llama-3.1-70B", Some("apple-m3-max-128gb")),
        ("google/gemma-3-27b-it", Some("apple-m4-max-64gb")),
        ("meta-llama/Llama-3.1-8B", None),
    ] {
        let m = EstimateInput {
            model: Some(model.to_string()),
            engine: Engine::Mlx,
            gpu: gpu.map(str::to_string),
            seq_len: 16_000.0,
            new_tokens: 1000.0,
            ..EstimateInput::default()
        };
        out.extend([
            m.clone(),
            EstimateInput {
                quantization: Quantization::parse("q", "mlx-4bit").unwrap(),
                max_num_batched_tokens: Some(512.0),
                ..m.clone()
            },
            EstimateInput {
                quantization: Quantization::parse("q", "mlx-mxfp4").unwrap(),
                max_kv_size: Some(4096.0),
                ..m.clone()
            },
            EstimateInput {
                quantization: Quantization::parse("q", "mlx-8bit").unwrap(),
                kv_bits: Some(4.0),
                kv_group_size: Some(32.0),
                ..m.clone()
            },
            EstimateInput {
                mode: Mode::Serve,
                batch: 4.0,
                wired_limit_mb: gpu.map(|_| 12_288.0),
                ..m
            },
        ]);
    }
    out
}

/// vLLM serving with LoRA adapter slots (last, so that the shapes before keep their
/// numbers in the snapshots).
fn vllm_lora_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for (model, gpu) in [
        ("meta-llama/Llama-3.1-8B", None),
        ("meta-llama/Llama-3.1-8B", Some("h100-sxm5-80gb")),
        ("Qwen/Qwen3-32B", Some("h100-sxm5-80gb")),
    ] {
        let serve = EstimateInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            enable_lora: true,
            ..base(Some(model), None, gpu)
        };
        out.extend([
            EstimateInput {
                max_loras: Some(4.0),
                ..serve.clone()
            },
            EstimateInput {
                max_loras: Some(8.0),
                max_lora_rank: Some(64.0),
                max_cpu_loras: Some(32.0),
                tp: 2.0,
                gpus: Some(2.0),
                ..serve
            },
        ]);
    }
    out
}

/// LoRA over each quantized base a training stack loads (bitsandbytes int8 and NF4 named
/// without `qlora`, torchao NF4, HQQ 4-bit), under Trainer with short and long sequences, and
/// under torchtune.
fn quantized_base_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for (model, params) in [(Some("meta-llama/Llama-3.1-8B"), None), (None, Some("7B"))] {
        for quantization in [
            Quantization::BnbInt8,
            Quantization::BnbNf4 { double_quant: true },
            Quantization::TorchaoNf4,
            Quantization::Hqq {
                bits: 4,
                group_size: 64,
            },
        ] {
            for (seq_len, stack) in [
                (512.0, None),
                (4096.0, None),
                (512.0, Some(Stack::Torchtune)),
            ] {
                out.push(EstimateInput {
                    mode: Mode::Training,
                    lora_rank: 16.0,
                    quantization,
                    seq_len,
                    stack,
                    ..base(model, params, Some("a100-sxm4-80gb"))
                });
            }
        }
    }
    out
}

/// FSDP 1 and 2 (with and without resharding, CPU offload, LoRA), DeepSpeed's buffers as
/// given and as transformers' "auto" writes them, and Megatron's settings, on models of
/// each kind (a dense decoder, a MoE, a parameter count).
fn sharding_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for (model, params) in [
        (Some("meta-llama/Llama-3.1-8B"), None),
        (Some("mistralai/Mixtral-8x7B-v0.1"), None),
        (None, Some("7B")),
    ] {
        let t = EstimateInput {
            mode: Mode::Training,
            gpus: Some(8.0),
            ..base(model, params, Some("h100-sxm5-80gb"))
        };
        let fsdp = |version: f64, zero: f64| EstimateInput {
            fsdp_version: Some(version),
            zero,
            ..t.clone()
        };
        out.extend([
            fsdp(2.0, 3.0),
            EstimateInput {
                offload: Offload::Cpu,
                ..fsdp(2.0, 3.0)
            },
            EstimateInput {
                reshard_after_forward: Some(false),
                ..fsdp(2.0, 3.0)
            },
            EstimateInput {
                lora_rank: 16.0,
                ..fsdp(2.0, 3.0)
            },
            EstimateInput {
                precision: Precision::Bf16,
                ..fsdp(2.0, 3.0)
            },
            fsdp(1.0, 2.0),
            EstimateInput {
                offload: Offload::Cpu,
                ..fsdp(1.0, 3.0)
            },
            EstimateInput {
                zero: 2.0,
                reduce_bucket_size: Some(16_777_216.0),
                overlap_comm: Some(true),
                ..t.clone()
            },
            EstimateInput {
                zero: 3.0,
                reduce_bucket_size: Some(16_777_216.0),
                stage3_prefetch_bucket_size: Some(15_099_494.4),
                stage3_param_persistence_threshold: Some(40_960.0),
                stage3_max_live_parameters: Some(1e8),
                ..t.clone()
            },
            EstimateInput {
                tp: 4.0,
                sequence_parallel: true,
                distributed_optimizer: true,
                ..t.clone()
            },
            EstimateInput {
                tp: 2.0,
                pp: 4.0,
                vp: Some(2.0),
                ..t.clone()
            },
            EstimateInput {
                cp: Some(2.0),
                tp: 2.0,
                sequence_parallel: true,
                grad_checkpointing: Checkpointing::Selective,
                ..t.clone()
            },
        ]);
    }
    out
}

/// RL post-training (part `rl`): each algorithm and rollout, sleep mode, a LoRA and a QLoRA
/// policy, a bare parameter count, and an input refused.
fn rl_shapes() -> Vec<EstimateInput> {
    use crate::estimate::{RlAlgorithm, Rollout};
    let grpo = |model: &str, gpu: Option<&str>, rollout: Rollout| EstimateInput {
        model: Some(model.to_string()),
        mode: Mode::Training,
        batch: 2.0,
        seq_len: 256.0,
        gpu: gpu.map(str::to_string),
        rl: Some(RlAlgorithm::Grpo),
        num_generations: Some(4.0),
        rollout: Some(rollout),
        ..EstimateInput::default()
    };
    let h100 = Some("h100-sxm5-80gb");
    let small = "meta-llama/Llama-3.2-1B";
    alloc::vec![
        grpo(small, h100, Rollout::Colocate),
        EstimateInput {
            sleep_mode: Some(true),
            ..grpo(small, h100, Rollout::Colocate)
        },
        EstimateInput {
            rollout_memory_utilization: Some(0.9),
            sleep_mode: Some(true),
            ..grpo(small, h100, Rollout::Colocate)
        },
        grpo(small, None, Rollout::Colocate),
        grpo(small, h100, Rollout::Hf),
        EstimateInput {
            rl_beta: Some(0.04),
            ..grpo(small, None, Rollout::Server)
        },
        EstimateInput {
            rl_beta: Some(0.04),
            lora_rank: 16.0,
            ..grpo(
                "meta-llama/Llama-3.1-8B",
                Some("a100-sxm4-80gb"),
                Rollout::Colocate
            )
        },
        EstimateInput {
            qlora: true,
            lora_rank: 16.0,
            sleep_mode: Some(true),
            ..grpo("meta-llama/Llama-3.1-8B", h100, Rollout::Colocate)
        },
        EstimateInput {
            rl: Some(RlAlgorithm::Ppo),
            num_generations: None,
            ..grpo(small, h100, Rollout::Colocate)
        },
        EstimateInput {
            rl: Some(RlAlgorithm::Dpo),
            rollout: None,
            num_generations: None,
            ..grpo(small, h100, Rollout::Colocate)
        },
        EstimateInput {
            model: None,
            params: Some("7B".to_string()),
            ..grpo(small, h100, Rollout::Colocate)
        },
        EstimateInput {
            mode: Mode::Inference,
            ..grpo(small, h100, Rollout::Colocate)
        },
        // Each stack's defaults: verl's colocated hybrid engine, OpenRLHF colocated.
        EstimateInput {
            stack: Some(crate::estimate::Stack::Verl),
            num_generations: None,
            rollout: None,
            ..grpo(small, h100, Rollout::Colocate)
        },
        EstimateInput {
            stack: Some(crate::estimate::Stack::Openrlhf),
            num_generations: None,
            ..grpo(small, h100, Rollout::Colocate)
        },
    ]
}

/// Transformers inference in its formats and attention, vLLM serving, llama.cpp.
fn inference_shapes(b: &EstimateInput) -> Vec<EstimateInput> {
    let serve = EstimateInput {
        mode: Mode::Serve,
        engine: Engine::Vllm,
        ..b.clone()
    };
    let cpp = EstimateInput {
        engine: Engine::Llamacpp,
        quantization: Q4,
        ..b.clone()
    };
    alloc::vec![
        b.clone(),
        EstimateInput {
            logits: Logits::All,
            ..b.clone()
        },
        EstimateInput {
            quantization: Quantization::BnbNf4 { double_quant: true },
            ..b.clone()
        },
        EstimateInput {
            quantization: Quantization::Gptq {
                bits: 4,
                group_size: 128,
            },
            ..b.clone()
        },
        EstimateInput {
            tp: 2.0,
            pp: 2.0,
            gpus: Some(4.0),
            ..b.clone()
        },
        serve.clone(),
        EstimateInput {
            tp: 2.0,
            gpus: Some(2.0),
            ..serve
        },
        cpp.clone(),
        EstimateInput {
            gpu_layers: Some(10.0),
            ..cpp.clone()
        },
        // llama.cpp splitting its layers over two GPUs.
        EstimateInput {
            gpus: Some(2.0),
            ..cpp.clone()
        },
        EstimateInput {
            attention: AttentionImpl::Eager,
            ..cpp
        },
        EstimateInput {
            attention: AttentionImpl::Eager,
            ..b.clone()
        },
    ]
}

/// Training `t` with each optimizer and precision, checkpointing, LoRA and QLoRA, every
/// ZeRO stage and offload, parallelism, a fused step and eager attention.
fn training_shapes(t: &EstimateInput) -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for optimizer in Optimizer::ALL {
        for precision in [Precision::Fp32, Precision::AmpBf16, Precision::Bf16] {
            out.push(EstimateInput {
                optimizer,
                precision,
                ..t.clone()
            });
        }
    }
    for grad_checkpointing in [Checkpointing::Full, Checkpointing::Selective] {
        out.push(EstimateInput {
            grad_checkpointing,
            ..t.clone()
        });
    }
    for qlora in [false, true] {
        out.push(EstimateInput {
            lora_rank: 16.0,
            qlora,
            ..t.clone()
        });
    }
    for zero in [0.0, 1.0, 2.0, 3.0] {
        for offload in [Offload::None, Offload::Cpu, Offload::Nvme] {
            out.push(EstimateInput {
                zero,
                offload,
                gpus: Some(8.0),
                ..t.clone()
            });
        }
    }
    out.extend([
        EstimateInput {
            tp: 2.0,
            pp: 2.0,
            gpus: Some(4.0),
            ..t.clone()
        },
        EstimateInput {
            fused_optimizer: true,
            ..t.clone()
        },
        EstimateInput {
            attention: AttentionImpl::Eager,
            ..t.clone()
        },
    ]);
    out
}

/// SGLang (with tp, expert parallelism, fp8 and no graphs), vLLM's expert parallelism, and
/// Ollama (over two GPUs, with fewer layers, with a quantized cache).
fn sglang_ollama_shapes(b: &EstimateInput) -> Vec<EstimateInput> {
    let sglang = EstimateInput {
        mode: Mode::Serve,
        engine: Engine::Sglang,
        ..b.clone()
    };
    let ollama = EstimateInput {
        engine: Engine::Ollama,
        quantization: Q4,
        ..b.clone()
    };
    alloc::vec![
        sglang.clone(),
        EstimateInput {
            tp: 2.0,
            gpus: Some(2.0),
            ..sglang.clone()
        },
        EstimateInput {
            tp: 2.0,
            gpus: Some(2.0),
            ep: 2.0,
            ..sglang.clone()
        },
        EstimateInput {
            kv_dtype: crate::precision::KvDtype::Fp8,
            mem_fraction_static: Some(0.8),
            cuda_graphs: false,
            ..sglang
        },
        EstimateInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            tp: 2.0,
            gpus: Some(2.0),
            ep: 2.0,
            ..b.clone()
        },
        ollama.clone(),
        EstimateInput {
            gpus: Some(2.0),
            ..ollama.clone()
        },
        EstimateInput {
            gpu_layers: Some(10.0),
            batch: 4.0,
            ..ollama.clone()
        },
        EstimateInput {
            attention: AttentionImpl::Flash,
            kv_dtype: crate::precision::KvDtype::Q8_0,
            max_model_len: Some(32_768.0),
            ..ollama
        },
    ]
}

/// TensorRT-LLM's run shapes (after the others, which keep their places): every model on no
/// card, an H100, an A100 (fp8 refused there) and a B200 (nvfp4), with its own settings.
fn trtllm_shapes() -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for model in [
        "meta-llama/Llama-3.1-8B",
        "google/gemma-3-27b-it",
        "mistralai/Mixtral-8x7B-v0.1",
        "deepseek-ai/DeepSeek-V3",
        "openai/gpt-oss-20b",
    ] {
        for gpu in [
            None,
            Some("h100-sxm5-80gb"),
            Some("a100-sxm4-80gb"),
            Some("b200-180gb"),
        ] {
            let t = EstimateInput {
                model: Some(model.to_string()),
                mode: Mode::Serve,
                engine: Engine::Trtllm,
                gpu: gpu.map(str::to_string),
                ..EstimateInput::default()
            };
            out.extend([
                t.clone(),
                EstimateInput {
                    kv_dtype: crate::precision::KvDtype::Fp8,
                    quantization: Quantization::Fp8,
                    max_num_batched_tokens: Some(23_552.0),
                    max_model_len: Some(8192.0),
                    free_gpu_memory_fraction: Some(0.8),
                    ..t.clone()
                },
                EstimateInput {
                    kv_dtype: crate::precision::KvDtype::Nvfp4,
                    tp: 2.0,
                    gpus: Some(2.0),
                    cuda_graphs: false,
                    ..t.clone()
                },
                EstimateInput {
                    mode: Mode::Inference,
                    batch: 32.0,
                    max_model_len: Some(32_768.0),
                    ..t
                },
            ]);
        }
    }
    out
}
