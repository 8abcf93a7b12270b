//! The efficiency factors: how much of a card's datasheet bandwidth and FLOPS a runtime turns
//! into tokens, and what each step costs besides.
//!
//! Each factor was fitted to the published measurements in `crates/vramfit/data/throughput/`
//! (one TOML file per source, each record with its URL and date); the test
//! `throughput_model_matches_published_measurements` (tests/it/throughput.rs) computes the
//! model's error on every record and the book prints the table (`book/generated/throughput.md`).
//! A factor is a ratio to the catalog's figures ([`Gpu::bandwidth_bytes_per_s`], the dense
//! [`Gpu::fp16_tflops`] and [`Gpu::fp8_tflops`]), so an error in a card's datasheet figure shows
//! up as that card's error.
//!
//! [`Gpu::bandwidth_bytes_per_s`]: crate::gpu::Gpu::bandwidth_bytes_per_s
//! [`Gpu::fp16_tflops`]: crate::gpu::Gpu::fp16_tflops
//! [`Gpu::fp8_tflops`]: crate::gpu::Gpu::fp8_tflops

use crate::host::HostKind;

/// How a runtime uses a card: the share of its memory bandwidth a decode step reaches, the share
/// of its dense FLOPS a prefill (or a compute-bound decode) reaches, and the fixed time each step
/// costs per layer and per step (kernel launches, the scheduler, sampling).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Efficiency {
    /// Model bandwidth utilisation: bytes a step must read over the time the memory takes.
    pub mbu: f64,
    /// Model FLOPs utilisation: FLOPs a step must do over the time at the dense peak.
    pub mfu: f64,
    /// Fixed time per layer per forward pass, in seconds.
    pub layer_s: f64,
    /// Fixed time per forward pass (one prefill or one decode step), in seconds.
    pub step_s: f64,
}

/// vLLM, SGLang and TensorRT-LLM: CUDA graphs, fused kernels, continuous batching.
///
/// Fitted to vLLM's CI latency runs (Llama 3.1 8B, Llama 3 70B at tp 4 and Mixtral 8x7B at tp 2
/// on H200, H100 and A100, batch 8; `vllm-ci-latency.toml`), NVIDIA NIM's Llama 3.3 70B FP8 at
/// tp 2 on H100 (`nim-llama-3.3-70b.toml`) and vLLM and TensorRT-LLM on an A100
/// (`premai-a100.toml`).
pub const BATCHED: Efficiency = Efficiency {
    mbu: 0.85,
    mfu: 0.50,
    layer_s: 20e-6,
    step_s: 2e-3,
};

/// llama.cpp on a discrete GPU (CUDA).
///
/// Fitted to llama-bench on GeForce cards (Llama 3 8B Q4_K_M and F16, pp512 and tg512, May 2024;
/// `llamacpp-cuda.toml`). The FLOPs factor is high because GeForce cards compute
/// FP16 with FP16 accumulation at twice the datasheet's dense figure (which is the FP32-accumulate
/// rate), and llama.cpp uses it; on data-center cards llama.cpp's prompt processing is not
/// calibrated (see the book's chapter on throughput).
pub const LLAMACPP: Efficiency = Efficiency {
    mbu: 0.90,
    mfu: 0.90,
    layer_s: 80e-6,
    step_s: 0.0,
};

/// llama.cpp on Apple silicon (Metal).
///
/// Fitted to the llama.cpp Apple-silicon table (Llama 2 7B F16, Q8_0 and Q4_0, pp512 and tg128
/// on M2 Ultra, M3 Max, M4 Max and M3 Ultra; `llamacpp-apple.toml`); the M3 Max's and M4 Max's
/// prompt processing left out (their catalog FP16 figures, marked as estimates, look twice too
/// high).
pub const LLAMACPP_METAL: Efficiency = Efficiency {
    mbu: 0.90,
    mfu: 0.62,
    layer_s: 160e-6,
    step_s: 0.0,
};

/// MLX (mlx-lm) on Apple silicon: decode reads the weights and the KV cache over the unified
/// memory as llama.cpp's Metal backend does, so its factors are [`LLAMACPP_METAL`]'s until
/// mlx-lm measurements of its own are in `data/throughput/` (the book's throughput chapter says
/// so).
pub const MLX_METAL: Efficiency = LLAMACPP_METAL;

/// Hugging Face transformers, eager PyTorch (`model.generate`): the same kernels as the batched
/// engines' ([`BATCHED`]'s bandwidth and FLOPs factors) and a Python and kernel-launch cost per
/// layer, fitted to the one measurement at hand (Llama 2 7B FP16 on an A100, 46.4 tokens/s;
/// `premai-a100.toml`), so that record checks nothing.
pub const TRANSFORMERS: Efficiency = Efficiency {
    mbu: BATCHED.mbu,
    mfu: BATCHED.mfu,
    layer_s: 430e-6,
    step_s: 0.0,
};

/// A tensor-parallel all-reduce's fixed cost (NCCL or a custom all-reduce: launch and
/// synchronisation), in seconds. Fitted with [`BATCHED`] to the tp 2 and tp 4 runs above.
pub const ALLREDUCE_LATENCY_S: f64 = 20e-6;

/// The share of a GPU-to-GPU link's bandwidth (per direction) an all-reduce reaches. Not
/// separable from [`BATCHED`]'s FLOPs factor in the measurements at hand (only NIM's 5,000-token
/// prefill at tp 2 moves enough data to matter); NCCL's bus bandwidth on NVLink reaches about
/// this share of the link.
pub const LINK_EFFICIENCY: f64 = 0.8;

/// The share of a collective's time that still lengthens a training step when compute hides
/// it (FSDP's prefetched all-gathers, DDP's bucketed all-reduce under the backward): NCCL's
/// kernels hold SMs and memory bandwidth beside the matrix multiplications they overlap.
///
/// Fitted to torchtitan's Llama 3.1 8B FSDP runs on one node and on 16 nodes of H100 (5,605 /
/// 5,762 = 0.973 of the one node's speed per GPU; `benchmarks/llama3_h100_202412_torchtitan.md`
/// at 31a17bfd): 0.5 gives 0.988, 1 (no overlap at all) 0.978, 0 (overlap free) 1.000; at
/// 0.5 the 64-A100 runs of `docs/performance.md` are 3 to 13 % slow (`tests/it/training_nodes.rs`).
pub const OVERLAP_COST: f64 = 0.5;

/// Training in BF16 or FP16: the share of the dense 16-bit peak spent on the step's FLOPs (the
/// recomputed forward of activation checkpointing counted, so a hardware rather than a model
/// FLOPs utilisation).
///
/// Fitted to MosaicML's llm-foundry (MPT 7B to 70B on 8 to 64 H100 or A100, FSDP) and
/// torchtitan's (Llama 3 8B and 70B on 64 A100) published throughputs
/// (`llm-foundry.toml`, `torchtitan.toml`).
pub const TRAIN_16BIT: f64 = 0.52;

/// Training in FP8 (Transformer Engine's current scaling): the share of the dense FP8 peak.
///
/// Fitted to NVIDIA Megatron-Bridge's published throughputs (Llama 3 8B, 70B and 3.1 405B on
/// H100, B200 and GB200; `megatron-bridge.toml`).
pub const TRAIN_FP8: f64 = 0.37;

/// llama.cpp reading weights from CPU memory during a decode step, on one class of host: the
/// share of the host memory's peak bandwidth (channels × 8 B × MT/s) reached, and what it was
/// fitted to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostMbu {
    /// The class of host ([`HostKind`]).
    pub kind: HostKind,
    /// The share of the peak reached.
    pub mbu: f64,
    /// The published runs it is fitted to, or why it is taken from another class.
    pub fitted_to: &'static str,
}

/// The host efficiency per class of host, fitted to the published llama.cpp runs with layers
/// (`-ngl`) or routed experts (`--n-cpu-moe`) in CPU memory (`tests/data/offload-speed.csv`,
/// checked by `tests/it/offload_speed.rs`).
///
/// A desktop's two channels are filled by its few cores: its runs need 0.62 to 0.68, and 0.60
/// keeps each on the slow side. A quad-channel workstation's are not (a 10-core i9-10900X reads
/// quad-channel DDR4 at 0.45 to 0.49 of its peak in the clean runs, and lower where another cost
/// is unmodelled: gemma-2's GPU side, gpt-oss's MXFP4 experts on the CPU): 0.40 is the largest
/// multiple of 0.05 at which none of its runs is timed more than 15 % faster than measured.
/// Servers and unified memory have no published run yet and take the lowest fitted value, the
/// safe side; so does a bandwidth given without its class ([`host_mbu`] with `None`).
pub const HOST_MBU: [HostMbu; 4] = [
    HostMbu {
        kind: HostKind::Desktop,
        mbu: 0.60,
        fitted_to: "InventiveHQ's -ngl sweep of Qwen2.5-Coder-14B Q4_K_M on an RTX 5060 Ti with an i7-8700 and dual-channel DDR4-2400 (https://inventivehq.com/blog/vram-offload-cliff-gpu-layers-benchmark): six runs need 0.62 to 0.68",
    },
    HostMbu {
        kind: HostKind::Workstation,
        mbu: 0.40,
        fitted_to: "six llama.cpp runs on an RTX 2080 with an i9-10900X and quad-channel DDR4 (https://github.com/AlexsJones/llmfit/pull/755, /775, /778, July 2026): -ngl and --n-cpu-moe runs need 0.45 to 0.49, gemma-2 and gpt-oss less",
    },
    HostMbu {
        kind: HostKind::Server,
        mbu: 0.40,
        fitted_to: "no published run: the workstation's value, the lowest fitted (a server socket's eight or twelve channels are as far from its cores' reach)",
    },
    HostMbu {
        kind: HostKind::Unified,
        mbu: 0.40,
        fitted_to: "no published run: the lowest fitted value, the safe side",
    },
];

/// The host efficiency of a class of host ([`HOST_MBU`]); `None` (a bandwidth given without its
/// class) takes the lowest of the table, the safe side.
pub fn host_mbu(kind: Option<HostKind>) -> f64 {
    let lowest = HOST_MBU.iter().map(|h| h.mbu).fold(1.0, f64::min);
    kind.and_then(|k| HOST_MBU.iter().find(|h| h.kind == k))
        .map_or(lowest, |h| h.mbu)
}

/// One hand-over between the GPU and the CPU within a pass (the hidden state copied over PCIe,
/// the streams synchronised, the CPU's threads woken), twice per block whose experts alone sit
/// in CPU memory. The `--n-cpu-moe` runs do not separate it from [`HOST_MBU`]: their errors show
/// no trend with the hand-overs' count (Qwen3-30B-A3B's 72 is timed slow, gpt-oss-20b's 24 fast),
/// so the miss of the fast ones is not this cost's.
pub const BACKEND_SWITCH_S: f64 = 60e-6;

/// The share of PCIe's per-direction bandwidth op offload's weight copies reach (pinned host
/// memory, large copies); fitted to the prompt processing of `--n-cpu-moe` runs.
pub const PCIE_EFFICIENCY: f64 = 0.80;
