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
        model: ModelInput {
            model: model.map(str::to_string),
            params: params.map(str::to_string),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: gpu.map(str::to_string),
            ..Default::default()
        },
        ..Default::default()
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
                run: RunInput {
                    mode: Mode::Training,
                    ..b.run
                },
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
                model: ModelInput {
                    model: Some(tag.to_string()),
                    ..Default::default()
                },
                run: RunInput {
                    engine: Engine::Ollama,
                    ..Default::default()
                },
                hardware: HardwareInput {
                    gpu: gpu.map(str::to_string),
                    ..Default::default()
                },
                ..Default::default()
            });
        }
    }
    out.extend(trtllm_shapes());
    out.extend(rl_shapes());
    out.extend(sharding_shapes());
    out.extend(quantized_base_shapes());
    for optimizer in [Optimizer::GaloreAdamw, Optimizer::GaloreAdamw8bit] {
        // GaLore at a rank of its own (`optim_args="rank=64"`).
        out.push({
            let mut input = base(
                Some("meta-llama/Llama-3.1-8B"),
                None,
                Some("h100-sxm5-80gb"),
            );
            input.run.mode = Mode::Training;
            input.training.optimizer = optimizer;
            input.training.galore_rank = Some(64.0);
            input
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
    let llama = |engine, gpu: &str, in_use: &str| {
        let mut input = base(Some("meta-llama/Llama-3.1-8B"), None, Some(gpu));
        input.run.mode = if matches!(engine, Engine::Vllm | Engine::Sglang | Engine::Trtllm) {
            Mode::Serve
        } else {
            Mode::Inference
        };
        input.run.engine = engine;
        input.serving.max_model_len = Some(8192.0);
        input.hardware.memory_in_use = Some(in_use.to_string());
        input
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
    out.push({
        let mut input = llama(Engine::Vllm, "rtx-4090", "2GiB");
        input.run.engine_version = Some("0.8.5".to_string());
        input
    });
    out.push({
        let mut input = llama(Engine::Ollama, "rtx-3060-12gb", "6GiB");
        input.model.quantization = Q4;
        input
    });
    out.push({
        let mut input = llama(Engine::Llamacpp, "rtx-3090", "4GiB");
        input.model.quantization = Q4;
        input.hardware.gpu = None;
        input.hardware.cards = ["rtx-3090", "rtx-3060-12gb"].map(str::to_string).to_vec();
        input
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
            model: ModelInput {
                arch: Some(parsed.arch),
                ..Default::default()
            },
            run: RunInput {
                seq_len: 2048.0,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: gpu.map(str::to_string),
                ..Default::default()
            },
            ..Default::default()
        };
        out.extend([
            b.clone(),
            {
                let mut input = b.clone();
                input.run.mode = Mode::Serve;
                input.run.engine = Engine::Vllm;
                input
            },
            EstimateInput {
                run: RunInput {
                    engine: Engine::Llamacpp,
                    ..b.run
                },
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
            {
                let mut input = b.clone();
                input.run.mode = Mode::Serve;
                input.run.engine = Engine::Vllm;
                input
            },
            EstimateInput {
                run: RunInput {
                    mode: Mode::Serve,
                    engine: Engine::Sglang,
                    ..b.run
                },
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
        let serve = {
            let mut input = base(
                Some("deepseek-ai/DeepSeek-V3"),
                None,
                Some("h100-sxm5-80gb"),
            );
            input.run.mode = Mode::Serve;
            input.run.engine = engine;
            input
        };
        out.extend([
            {
                let mut input = serve.clone();
                input.placement.tp = 8.0;
                input.placement.pp = 2.0;
                input
            },
            {
                let mut input = serve.clone();
                input.placement.tp = 16.0;
                input
            },
            EstimateInput {
                hardware: HardwareInput {
                    node_link: Some("200Gb/s".into()),
                    ..serve.hardware
                },
                placement: PlacementInput {
                    tp: 8.0,
                    pp: 2.0,
                    ..serve.placement
                },
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
        let serve = {
            let mut input = base(Some("meta-llama/Llama-3.1-8B"), None, gpu);
            input.run.mode = Mode::Serve;
            input.run.engine = Engine::Vllm;
            input
        };
        out.extend([
            {
                let mut input = serve.clone();
                input.serving.speculative_method = Some(SpecMethod::DraftModel);
                input.serving.draft_model = Some("meta-llama/Llama-3.2-1B-Instruct".into());
                input.serving.num_speculative_tokens = Some(4.0);
                input.serving.acceptance_rate = Some(0.7);
                input
            },
            {
                let mut input = serve.clone();
                input.serving.speculative_method = Some(SpecMethod::Eagle);
                input.serving.num_speculative_tokens = Some(3.0);
                input.serving.acceptance_rate = Some(0.8);
                input
            },
            {
                let mut input = serve.clone();
                input.serving.speculative_method = Some(SpecMethod::Eagle3);
                input.serving.num_speculative_tokens = Some(3.0);
                input.placement.tp = 2.0;
                input.placement.gpus = Some(2.0);
                input
            },
            EstimateInput {
                serving: ServingInput {
                    speculative_method: Some(SpecMethod::Ngram),
                    num_speculative_tokens: Some(5.0),
                    acceptance_rate: Some(0.5),
                    ..serve.serving
                },
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
            model: ModelInput {
                model: Some(model.to_string()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Mlx,
                seq_len: 16_000.0,
                new_tokens: 1000.0,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: gpu.map(str::to_string),
                ..Default::default()
            },
            ..Default::default()
        };
        out.extend([
            m.clone(),
            {
                let mut input = m.clone();
                input.model.quantization = Quantization::parse("q", "mlx-4bit").unwrap();
                input.serving.max_num_batched_tokens = Some(512.0);
                input
            },
            {
                let mut input = m.clone();
                input.model.quantization = Quantization::parse("q", "mlx-mxfp4").unwrap();
                input.serving.max_kv_size = Some(4096.0);
                input
            },
            {
                let mut input = m.clone();
                input.model.quantization = Quantization::parse("q", "mlx-8bit").unwrap();
                input.serving.kv_bits = Some(4.0);
                input.serving.kv_group_size = Some(32.0);
                input
            },
            EstimateInput {
                run: RunInput {
                    mode: Mode::Serve,
                    batch: 4.0,
                    ..m.run
                },
                hardware: HardwareInput {
                    wired_limit_mb: gpu.map(|_| 12_288.0),
                    ..m.hardware
                },
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
        let serve = {
            let mut input = base(Some(model), None, gpu);
            input.run.mode = Mode::Serve;
            input.run.engine = Engine::Vllm;
            input.serving.enable_lora = true;
            input
        };
        out.extend([
            {
                let mut input = serve.clone();
                input.serving.max_loras = Some(4.0);
                input
            },
            EstimateInput {
                serving: ServingInput {
                    max_loras: Some(8.0),
                    max_lora_rank: Some(64.0),
                    max_cpu_loras: Some(32.0),
                    ..serve.serving
                },
                placement: PlacementInput {
                    tp: 2.0,
                    gpus: Some(2.0),
                    ..serve.placement
                },
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
                out.push({
                    let mut input = base(model, params, Some("a100-sxm4-80gb"));
                    input.run.mode = Mode::Training;
                    input.training.lora_rank = 16.0;
                    input.model.quantization = quantization;
                    input.run.seq_len = seq_len;
                    input.training.stack = stack;
                    input
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
        let t = {
            let mut input = base(model, params, Some("h100-sxm5-80gb"));
            input.run.mode = Mode::Training;
            input.placement.gpus = Some(8.0);
            input
        };
        let fsdp = |version: f64, zero: f64| {
            let mut input = t.clone();
            input.placement.fsdp_version = Some(version);
            input.placement.zero = zero;
            input
        };
        out.extend([
            fsdp(2.0, 3.0),
            {
                let mut input = fsdp(2.0, 3.0);
                input.placement.offload = Offload::Cpu;
                input
            },
            {
                let mut input = fsdp(2.0, 3.0);
                input.placement.reshard_after_forward = Some(false);
                input
            },
            {
                let mut input = fsdp(2.0, 3.0);
                input.training.lora_rank = 16.0;
                input
            },
            {
                let mut input = fsdp(2.0, 3.0);
                input.training.precision = Precision::Bf16;
                input
            },
            fsdp(1.0, 2.0),
            {
                let mut input = fsdp(1.0, 3.0);
                input.placement.offload = Offload::Cpu;
                input
            },
            {
                let mut input = t.clone();
                input.placement.zero = 2.0;
                input.training.reduce_bucket_size = Some(16_777_216.0);
                input.training.overlap_comm = Some(true);
                input
            },
            {
                let mut input = t.clone();
                input.placement.zero = 3.0;
                input.training.reduce_bucket_size = Some(16_777_216.0);
                input.training.stage3_prefetch_bucket_size = Some(15_099_494.4);
                input.training.stage3_param_persistence_threshold = Some(40_960.0);
                input.training.stage3_max_live_parameters = Some(1e8);
                input
            },
            {
                let mut input = t.clone();
                input.placement.tp = 4.0;
                input.placement.sequence_parallel = true;
                input.placement.distributed_optimizer = true;
                input
            },
            {
                let mut input = t.clone();
                input.placement.tp = 2.0;
                input.placement.pp = 4.0;
                input.placement.vp = Some(2.0);
                input
            },
            {
                let mut input = t.clone();
                input.placement.cp = Some(2.0);
                input.placement.tp = 2.0;
                input.placement.sequence_parallel = true;
                input.training.grad_checkpointing = Checkpointing::Selective;
                input
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
        model: ModelInput {
            model: Some(model.to_string()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 256.0,
            ..Default::default()
        },
        training: TrainingInput {
            rl: Some(RlAlgorithm::Grpo),
            num_generations: Some(4.0),
            rollout: Some(rollout),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: gpu.map(str::to_string),
            ..Default::default()
        },
        ..Default::default()
    };
    let h100 = Some("h100-sxm5-80gb");
    let small = "meta-llama/Llama-3.2-1B";
    alloc::vec![
        grpo(small, h100, Rollout::Colocate),
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.training.sleep_mode = Some(true);
            input
        },
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.training.rollout_memory_utilization = Some(0.9);
            input.training.sleep_mode = Some(true);
            input
        },
        grpo(small, None, Rollout::Colocate),
        grpo(small, h100, Rollout::Hf),
        {
            let mut input = grpo(small, None, Rollout::Server);
            input.training.rl_beta = Some(0.04);
            input
        },
        {
            let mut input = grpo(
                "meta-llama/Llama-3.1-8B",
                Some("a100-sxm4-80gb"),
                Rollout::Colocate,
            );
            input.training.rl_beta = Some(0.04);
            input.training.lora_rank = 16.0;
            input
        },
        {
            let mut input = grpo("meta-llama/Llama-3.1-8B", h100, Rollout::Colocate);
            input.training.qlora = true;
            input.training.lora_rank = 16.0;
            input.training.sleep_mode = Some(true);
            input
        },
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.training.rl = Some(RlAlgorithm::Ppo);
            input.training.num_generations = None;
            input
        },
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.training.rl = Some(RlAlgorithm::Dpo);
            input.training.rollout = None;
            input.training.num_generations = None;
            input
        },
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.model.model = None;
            input.model.params = Some("7B".to_string());
            input
        },
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.run.mode = Mode::Inference;
            input
        },
        // Each stack's defaults: verl's colocated hybrid engine, OpenRLHF colocated.
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.training.stack = Some(crate::estimate::Stack::Verl);
            input.training.num_generations = None;
            input.training.rollout = None;
            input
        },
        {
            let mut input = grpo(small, h100, Rollout::Colocate);
            input.training.stack = Some(crate::estimate::Stack::Openrlhf);
            input.training.num_generations = None;
            input
        },
    ]
}

/// Transformers inference in its formats and attention, vLLM serving, llama.cpp.
fn inference_shapes(b: &EstimateInput) -> Vec<EstimateInput> {
    let serve = {
        let mut input = b.clone();
        input.run.mode = Mode::Serve;
        input.run.engine = Engine::Vllm;
        input
    };
    let cpp = {
        let mut input = b.clone();
        input.run.engine = Engine::Llamacpp;
        input.model.quantization = Q4;
        input
    };
    alloc::vec![
        b.clone(),
        {
            let mut input = b.clone();
            input.run.logits = Logits::All;
            input
        },
        {
            let mut input = b.clone();
            input.model.quantization = Quantization::BnbNf4 { double_quant: true };
            input
        },
        {
            let mut input = b.clone();
            input.model.quantization = Quantization::Gptq {
                bits: 4,
                group_size: 128,
            };
            input
        },
        {
            let mut input = b.clone();
            input.placement.tp = 2.0;
            input.placement.pp = 2.0;
            input.placement.gpus = Some(4.0);
            input
        },
        serve.clone(),
        EstimateInput {
            placement: PlacementInput {
                tp: 2.0,
                gpus: Some(2.0),
                ..serve.placement
            },
            ..serve
        },
        cpp.clone(),
        {
            let mut input = cpp.clone();
            input.placement.gpu_layers = Some(10.0);
            input
        },
        // llama.cpp splitting its layers over two GPUs.
        {
            let mut input = cpp.clone();
            input.placement.gpus = Some(2.0);
            input
        },
        EstimateInput {
            run: RunInput {
                attention: AttentionImpl::Eager,
                ..cpp.run
            },
            ..cpp
        },
        {
            let mut input = b.clone();
            input.run.attention = AttentionImpl::Eager;
            input
        },
    ]
}

/// Training `t` with each optimizer and precision, checkpointing, LoRA and QLoRA, every
/// ZeRO stage and offload, parallelism, a fused step and eager attention.
fn training_shapes(t: &EstimateInput) -> Vec<EstimateInput> {
    let mut out = Vec::new();
    for optimizer in Optimizer::ALL {
        for precision in [Precision::Fp32, Precision::AmpBf16, Precision::Bf16] {
            out.push({
                let mut input = t.clone();
                input.training.optimizer = optimizer;
                input.training.precision = precision;
                input
            });
        }
    }
    for grad_checkpointing in [Checkpointing::Full, Checkpointing::Selective] {
        out.push({
            let mut input = t.clone();
            input.training.grad_checkpointing = grad_checkpointing;
            input
        });
    }
    for qlora in [false, true] {
        out.push({
            let mut input = t.clone();
            input.training.lora_rank = 16.0;
            input.training.qlora = qlora;
            input
        });
    }
    for zero in [0.0, 1.0, 2.0, 3.0] {
        for offload in [Offload::None, Offload::Cpu, Offload::Nvme] {
            out.push({
                let mut input = t.clone();
                input.placement.zero = zero;
                input.placement.offload = offload;
                input.placement.gpus = Some(8.0);
                input
            });
        }
    }
    out.extend([
        {
            let mut input = t.clone();
            input.placement.tp = 2.0;
            input.placement.pp = 2.0;
            input.placement.gpus = Some(4.0);
            input
        },
        {
            let mut input = t.clone();
            input.training.fused_optimizer = true;
            input
        },
        {
            let mut input = t.clone();
            input.run.attention = AttentionImpl::Eager;
            input
        },
    ]);
    out
}

/// SGLang (with tp, expert parallelism, fp8 and no graphs), vLLM's expert parallelism, and
/// Ollama (over two GPUs, with fewer layers, with a quantized cache).
fn sglang_ollama_shapes(b: &EstimateInput) -> Vec<EstimateInput> {
    let sglang = {
        let mut input = b.clone();
        input.run.mode = Mode::Serve;
        input.run.engine = Engine::Sglang;
        input
    };
    let ollama = {
        let mut input = b.clone();
        input.run.engine = Engine::Ollama;
        input.model.quantization = Q4;
        input
    };
    alloc::vec![
        sglang.clone(),
        {
            let mut input = sglang.clone();
            input.placement.tp = 2.0;
            input.placement.gpus = Some(2.0);
            input
        },
        {
            let mut input = sglang.clone();
            input.placement.tp = 2.0;
            input.placement.gpus = Some(2.0);
            input.placement.ep = 2.0;
            input
        },
        EstimateInput {
            run: RunInput {
                kv_dtype: crate::precision::KvDtype::Fp8,
                ..sglang.run
            },
            serving: ServingInput {
                mem_fraction_static: Some(0.8),
                cuda_graphs: false,
                ..sglang.serving
            },
            ..sglang
        },
        {
            let mut input = b.clone();
            input.run.mode = Mode::Serve;
            input.run.engine = Engine::Vllm;
            input.placement.tp = 2.0;
            input.placement.gpus = Some(2.0);
            input.placement.ep = 2.0;
            input
        },
        ollama.clone(),
        {
            let mut input = ollama.clone();
            input.placement.gpus = Some(2.0);
            input
        },
        {
            let mut input = ollama.clone();
            input.placement.gpu_layers = Some(10.0);
            input.run.batch = 4.0;
            input
        },
        EstimateInput {
            run: RunInput {
                attention: AttentionImpl::Flash,
                kv_dtype: crate::precision::KvDtype::Q8_0,
                ..ollama.run
            },
            serving: ServingInput {
                max_model_len: Some(32_768.0),
                ..ollama.serving
            },
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
                model: ModelInput {
                    model: Some(model.to_string()),
                    ..Default::default()
                },
                run: RunInput {
                    mode: Mode::Serve,
                    engine: Engine::Trtllm,
                    ..Default::default()
                },
                hardware: HardwareInput {
                    gpu: gpu.map(str::to_string),
                    ..Default::default()
                },
                ..Default::default()
            };
            out.extend([
                t.clone(),
                {
                    let mut input = t.clone();
                    input.run.kv_dtype = crate::precision::KvDtype::Fp8;
                    input.model.quantization = Quantization::Fp8;
                    input.serving.max_num_batched_tokens = Some(23_552.0);
                    input.serving.max_model_len = Some(8192.0);
                    input.serving.free_gpu_memory_fraction = Some(0.8);
                    input
                },
                {
                    let mut input = t.clone();
                    input.run.kv_dtype = crate::precision::KvDtype::Nvfp4;
                    input.placement.tp = 2.0;
                    input.placement.gpus = Some(2.0);
                    input.serving.cuda_graphs = false;
                    input
                },
                EstimateInput {
                    run: RunInput {
                        mode: Mode::Inference,
                        batch: 32.0,
                        ..t.run
                    },
                    serving: ServingInput {
                        max_model_len: Some(32_768.0),
                        ..t.serving
                    },
                    ..t
                },
            ]);
        }
    }
    out
}
