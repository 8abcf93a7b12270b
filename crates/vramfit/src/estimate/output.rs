//! The estimate: every figure per GPU in bytes, each part with its formula, and the bound that
//! keeps every size exact in JavaScript ([`within_reach`]).

use super::{ComponentKey, EstimateInput, Quick};
use crate::error::Result;
use crate::throughput::Runtime;
use crate::units::Bytes;
use alloc::string::String;
use alloc::vec::Vec;

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
    /// The weights loaded, before any forward pass (the first moment of an inference run's or a
    /// serving engine's start-up, `Estimate::step`).
    Load,
    /// RL post-training: the rollout, with the generating engine beside the policy.
    Rollout,
    /// Serving: the start-up's profile run, the activation peak the engine measures before it
    /// sizes its KV pool (vLLM's `profile_run`, TensorRT-LLM's KV-cache estimation run).
    ProfileRun,
    /// Serving: the KV pool allocated (llama.cpp and Ollama: the KV buffer).
    KvPool,
    /// Serving: the CUDA graphs captured.
    CudaGraphs,
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
            Phase::Serving => "the serving engine's steady state",
            Phase::Load => "the weights loaded",
            Phase::Rollout => "the RL rollout, the generating engine beside the policy",
            Phase::ProfileRun => "the start-up's profile run",
            Phase::KvPool => "the KV pool allocated",
            Phase::CudaGraphs => "the CUDA graphs captured",
        }
    }
}

/// What reports an estimate's peak on a real run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum PeakSource {
    /// PyTorch's caching allocator: `torch.cuda.max_memory_allocated()`.
    Torch,
    /// llama.cpp, which has no PyTorch: its model, KV-cache and compute buffers on the GPU, as
    /// its log prints them at load (`CUDA0 model buffer size`, `CUDA0 KV buffer size`,
    /// `CUDA0 compute buffer size`).
    Llamacpp,
    /// MLX (mlx-lm), which has no PyTorch either: its arrays in Metal buffers as
    /// `mx.get_peak_memory()` counts them.
    Mlx,
    /// candle (Text Embeddings Inference), which has no PyTorch: its CUDA tensors, each a
    /// `cudarc` allocation freed when dropped, so no cache beyond those alive at the peak.
    Candle,
}

impl PeakSource {
    /// Whether the engine's peak is its own buffers, with no PyTorch caching allocator and so
    /// no reserve beyond them (llama.cpp, MLX).
    pub const fn own_buffers(self) -> bool {
        matches!(
            self,
            PeakSource::Llamacpp | PeakSource::Mlx | PeakSource::Candle
        )
    }

    /// What reports the peak, in English.
    pub const fn describe(self) -> &'static str {
        match self {
            PeakSource::Torch => "torch.cuda.max_memory_allocated()",
            PeakSource::Llamacpp => {
                "llama.cpp's model, KV and compute buffers on the GPU, as its load log prints them"
            }
            PeakSource::Mlx => "MLX's mx.get_peak_memory(): its arrays in Metal buffers",
            PeakSource::Candle => "candle's CUDA tensors alive at the peak (no caching allocator)",
        }
    }

    /// What reports the peak, in Chinese.
    pub const fn describe_zh(self) -> &'static str {
        match self {
            PeakSource::Torch => "torch.cuda.max_memory_allocated()",
            PeakSource::Llamacpp => {
                "llama.cpp 在 GPU 上的模型、KV 与计算缓冲区（加载日志中打印的数值）"
            }
            PeakSource::Mlx => "MLX 的 mx.get_peak_memory()：Metal 缓冲区中的数组",
            PeakSource::Candle => "candle 在峰值时存活的 CUDA 张量（无缓存分配器）",
        }
    }
}

/// One part of the estimate, with its formula.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Component {
    /// Its kind, and whether it is alive at the peak: on the wire the kind's snake_case name
    /// (`weights`, `kv_cache`, `activations`, `logits`, …), with `_off_peak` after it for a
    /// part not alive at the peak ([`ComponentKey`]).
    pub key: ComponentKey,
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

/// Ollama's load: the layers it puts on the GPUs and the split `ollama ps` prints, from its own
/// estimate (`llm/memory.go`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OllamaLoad {
    /// Layers on the GPUs (`-ngl`), the output layer counting as one.
    pub gpu_layers: u64,
    /// Layers asked for: `num_gpu`, else every block and the output layer.
    pub requested_layers: u64,
    /// Layers in all: the blocks and the output layer.
    pub model_layers: u64,
    /// Ollama's estimate of what the GPUs hold (its log's `memory.required.partial`).
    pub vram_bytes: Bytes,
    /// Ollama's estimate of the whole load (`memory.required.full`).
    pub total_bytes: Bytes,
    /// `ollama ps`: the percent of `total_bytes` on the CPU (the rest on the GPU).
    pub cpu_percent: u8,
    /// Ollama's KV estimate (`memory.required.kv`).
    pub kv_bytes: Bytes,
    /// Ollama's graph estimate, for a full offload or a partial one as it decided
    /// (`memory.graph.full`, `memory.graph.partial`).
    pub graph_bytes: Bytes,
    /// The context llama.cpp gets: `num_ctx × OLLAMA_NUM_PARALLEL`.
    pub context: u64,
    /// Of several GPUs, the one Ollama loads the model on alone (its catalog id), the others
    /// idle: the estimate's figures are that GPU's while `gpus` stays the GPUs given. `None`
    /// with one GPU or where it uses them all.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub loaded_on: Option<String>,
}

/// One card of a llama.cpp run over several GPUs: what it holds against its own memory. The
/// fit is per card; the card that limits is the one with the least memory left.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CardUse {
    /// The card's catalog id (`custom` for a memory size, `gpu` without a card).
    pub gpu: String,
    /// Its memory as the CUDA runtime reports it (0 without a card).
    pub memory_bytes: Bytes,
    /// The blocks llama.cpp gives it.
    pub layers: u64,
    /// Whether the output layer is on it.
    pub output_layer: bool,
    /// Its model buffer (`CUDAn model buffer size`).
    pub weights_bytes: Bytes,
    /// Its KV buffer (the KV cache of its blocks), with a hybrid's recurrent state.
    pub kv_cache_bytes: Bytes,
    /// Its compute buffer.
    pub compute_bytes: Bytes,
    /// Everything it holds: the buffers and its CUDA context.
    pub used_bytes: Bytes,
    /// `used_bytes ≤ memory_bytes` (true without a card).
    pub fits: bool,
    /// Memory left (zero when it does not fit).
    pub headroom_bytes: Bytes,
    /// Memory missing (zero when it fits).
    pub shortfall_bytes: Bytes,
    /// Whether this card limits the run: the least memory left of them all (the estimate's
    /// per-GPU figures are its).
    pub limits: bool,
}

/// How the estimate compares with a device.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Fit {
    /// The device id.
    pub gpu: String,
    /// Its memory.
    pub memory_bytes: Bytes,
    /// Memory already in use on it before the run (`memory_in_use`, 0 when not given): the run
    /// fits in `memory_bytes − in_use_bytes`, what is free.
    #[cfg_attr(feature = "serde", serde(default))]
    pub in_use_bytes: Bytes,
    /// `total_bytes ≤ memory_bytes − in_use_bytes`.
    pub fits: bool,
    /// Free memory left over (zero when it does not fit).
    pub headroom_bytes: Bytes,
    /// Memory missing from what is free (zero when it fits).
    pub shortfall_bytes: Bytes,
    /// Why it does not fit when memory alone does not say (serving: the KV pool is too small).
    pub reason: Option<Difference>,
}

/// How fast the run goes on its card (`throughput` in an estimate's JSON): inference's figures
/// for an inference or serving run, training's for a training run, each with its formula.
/// Absent without a catalog card (a memory size alone has no bandwidth or compute figures), and
/// in a build without the crate's `speed` feature (the site's calculator builds).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Throughput {
    /// The engine's class of efficiency: `transformers`, `batched` (vLLM), `llamacpp`.
    pub runtime: Runtime,
    /// Prompt tokens per second during the prefill, over the batch.
    pub prefill_tokens_per_s: Option<f64>,
    /// Seconds from the batch's prompts to the first token.
    pub time_to_first_token_s: Option<f64>,
    /// Tokens per second one sequence generates.
    pub decode_tokens_per_s_per_sequence: Option<f64>,
    /// Tokens per second the batch generates.
    pub decode_tokens_per_s: Option<f64>,
    /// Seconds to generate every sequence's output (the prefill, then the decode steps).
    pub generation_s: Option<f64>,
    /// Speculative decoding with an acceptance rate given: tokens each sequence gains per
    /// step, (1 − α^(k+1)) / (1 − α).
    pub speculative_tokens_per_step: Option<f64>,
    /// Speculative decoding: tokens per second one sequence generates (the decode figures
    /// above are without drafting).
    pub speculative_decode_tokens_per_s_per_sequence: Option<f64>,
    /// Speculative decoding: tokens per second the batch generates.
    pub speculative_decode_tokens_per_s: Option<f64>,
    /// Training: seconds per optimizer step.
    pub step_time_s: Option<f64>,
    /// Training: tokens per second over every GPU.
    pub tokens_per_s: Option<f64>,
    /// The working of each figure (`key` is the figure's name), in English and Chinese; empty in
    /// an estimate of numbers alone.
    pub formulas: Vec<Difference>,
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
    /// What `torch.cuda.max_memory_allocated()` would report (llama.cpp: its buffers on the
    /// GPU, see `peak_source`).
    pub peak_allocated_bytes: Bytes,
    /// What reports `peak_allocated_bytes` on a real run.
    pub peak_source: PeakSource,
    /// What `nvidia-smi` would show for the process.
    pub total_bytes: Bytes,
    /// The guide's `M_rec = 1.2 × (M_theory + 2 GB)` with `M_theory = peak_allocated_bytes`
    /// (serving: the card memory that holds `batch` sequences of `max_model_len`).
    pub recommended_bytes: Bytes,
    /// The card memory the run needs, as the CUDA runtime counts it: `total_bytes` (for ZeRO-3
    /// and FSDP training less the margin for the allocator's cache, which PyTorch's caching
    /// allocator gives back before it fails an allocation), or for vLLM serving the memory whose
    /// utilisation budget holds `batch` sequences of `max_model_len`. The fit compares it.
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
    /// Nodes those GPUs fill, of `gpus_per_node` each (1: one server).
    pub nodes: u64,
    /// The parts, with formulas.
    pub components: Vec<Component>,
    /// The guide's quick estimate.
    pub quick: Quick,
    /// Why the detailed estimate differs from the quick one.
    pub differences: Vec<Difference>,
    /// Against the chosen device.
    pub fit: Option<Fit>,
    /// How fast the run goes on the chosen catalog card.
    pub throughput: Option<super::Throughput>,
    /// Assumptions worth knowing.
    pub notes: Vec<Difference>,
    /// Ollama: the layers it offloads and its CPU/GPU split; absent for the other engines.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub ollama: Option<OllamaLoad>,
    /// RL post-training: the rollout's and the training step's phases and the rollout's pool;
    /// absent for other runs.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub rl: Option<super::RlReport>,
    /// llama.cpp over several GPUs with a card named: each card's share and which one limits;
    /// empty for other runs.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub cards: Vec<CardUse>,
    /// Where the memory goes over one run, moment by moment, with what is alive on the GPU at
    /// each; the moment at `peak_phase` is the estimate's total and no moment is above it.
    /// Training: the end of forward, the end of backward, the optimizer step. Transformers
    /// inference: the weights loaded, the prefill, the last generated token. A serving engine's
    /// start-up: the weights, the profile run (vLLM, TensorRT-LLM), the KV pool, the CUDA
    /// graphs, serving. llama.cpp and Ollama: the model buffers, the KV buffer, the compute
    /// buffer (generating). MLX: the weights, then its bound. Empty for RL, whose phases are its
    /// own.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub step: Vec<StepMoment>,
}

/// One moment of a run (a training step, an inference, a serving engine's start-up): the parts
/// alive on the GPU then, the allocator's reserve and what lives outside PyTorch among them.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StepMoment {
    /// Which moment: `forward_loss`, `backward`, `optimizer_step` (training); `load`,
    /// `prefill`, `decode` (inference); `load`, `profile_run`, `kv_pool`, `cuda_graphs`,
    /// `serving` (a serving engine's start-up).
    pub phase: Phase,
    /// The moment in English, with its numbers (tokens, batch); empty in a build without English.
    pub en: String,
    /// The moment in Chinese, with the same numbers; empty in a build without Chinese.
    pub zh: String,
    /// Each part alive then and its bytes at that moment.
    pub parts: Vec<StepPart>,
    /// Their sum: at the peak's phase, the estimate's total.
    pub bytes: Bytes,
}

/// One part of a [`StepMoment`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StepPart {
    /// The kind of part.
    pub kind: super::ComponentKind,
    /// Its bytes at that moment.
    pub bytes: Bytes,
}

impl Estimate {
    /// The bytes of the run's component of `kind`, 0 when the run has none.
    pub fn component_bytes(&self, kind: super::ComponentKind) -> u64 {
        self.components
            .iter()
            .find(|c| c.key.kind == kind)
            .map_or(0, |c| c.bytes.get())
    }
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
        .map(|c| c.key.kind);
    let per_token = largest.is_some_and(|k| k.grows_with_tokens());
    let largest = largest.map_or("", |k| k.name());
    Err(input_error!(
        TooLarge,
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
