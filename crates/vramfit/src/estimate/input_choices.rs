//! The run's choices that [`super::EstimateInput`] names: what the run does, the engine, the
//! optimizer, the precision, checkpointing, offload, attention, logits, speculative decoding,
//! RL, llama.cpp's split, vLLM's KV offloading and the runner, each with its JSON names.

/// What the run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Mode {
    /// Generate with a batch of prompts (Hugging Face `generate`, or llama.cpp).
    #[default]
    Inference,
    /// Serve many concurrent sequences from a preallocated KV pool (vLLM).
    Serve,
    /// Train or fine-tune.
    Training,
}

/// The inference engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Engine {
    /// Hugging Face transformers on PyTorch.
    #[default]
    Hf,
    /// vLLM.
    Vllm,
    /// llama.cpp.
    Llamacpp,
    /// SGLang: a token pool sized from `mem_fraction_static`.
    Sglang,
    /// Ollama: llama.cpp underneath, with its own context, parallelism and layer offload.
    Ollama,
    /// TensorRT-LLM (`trtllm-serve`, its LLM API; the PyTorch backend): a KV pool sized from
    /// `free_gpu_memory_fraction` of the memory its start-up profile leaves.
    Trtllm,
    /// mlx-lm on Apple silicon (`mlx_lm.generate`, `mlx_lm.server`; LM Studio's MLX engine):
    /// MLX's quantized weights, a KV cache growing in steps of 256 tokens, the prompt in steps
    /// of `--prefill-step-size`, within Metal's wired limit.
    Mlx,
    /// Hugging Face Text Embeddings Inference (`text-embeddings-router`, candle on CUDA):
    /// embedding and reranking models, the warmup's forward over `--max-batch-tokens`.
    Tei,
}

/// The optimizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Optimizer {
    /// AdamW: two moments per parameter.
    #[default]
    Adamw,
    /// bitsandbytes 8-bit AdamW: two 1-byte blockwise-quantized moments.
    #[cfg_attr(feature = "serde", serde(rename = "adamw-8bit"))]
    Adamw8bit,
    /// Plain SGD: no state.
    Sgd,
    /// SGD with momentum: one state.
    SgdMomentum,
    /// Adafactor (no first moment, factored second moment).
    Adafactor,
    /// Lion: one momentum state.
    Lion,
    // -- Optimizers (part `optimizers`). --
    /// bitsandbytes `PagedAdamW8bit`: 8-bit AdamW with its states in CUDA unified memory.
    #[cfg_attr(feature = "serde", serde(rename = "paged-adamw-8bit"))]
    PagedAdamw8bit,
    /// bitsandbytes `PagedAdamW` (32-bit): two fp32 moments in CUDA unified memory.
    PagedAdamw,
    /// torchao `AdamW4bit`: two 4-bit blockwise-quantized moments.
    #[cfg_attr(feature = "serde", serde(rename = "adamw-4bit"))]
    Adamw4bit,
    /// bitsandbytes `AdEMAMix`: two EMAs and a second moment, fp32.
    Ademamix,
    /// bitsandbytes `AdEMAMix8bit`: three 8-bit blockwise states.
    #[cfg_attr(feature = "serde", serde(rename = "ademamix-8bit"))]
    Ademamix8bit,
    /// Muon (torch.optim.Muon): one momentum per block matrix, AdamW for the rest.
    Muon,
    /// GaLore AdamW (galore-torch): moments of each block matrix's low-rank projected gradient.
    GaloreAdamw,
    /// GaLore 8-bit AdamW (galore-torch, bitsandbytes' 8-bit states).
    #[cfg_attr(feature = "serde", serde(rename = "galore-adamw-8bit"))]
    GaloreAdamw8bit,
    /// Schedule-free AdamW (facebookresearch/schedule_free): `z` and the second moment.
    ScheduleFreeAdamw,
}

impl Optimizer {
    /// Every optimizer, in the order of the enum.
    pub const ALL: [Optimizer; 15] = [
        Optimizer::Adamw,
        Optimizer::Adamw8bit,
        Optimizer::Sgd,
        Optimizer::SgdMomentum,
        Optimizer::Adafactor,
        Optimizer::Lion,
        Optimizer::PagedAdamw8bit,
        Optimizer::PagedAdamw,
        Optimizer::Adamw4bit,
        Optimizer::Ademamix,
        Optimizer::Ademamix8bit,
        Optimizer::Muon,
        Optimizer::GaloreAdamw,
        Optimizer::GaloreAdamw8bit,
        Optimizer::ScheduleFreeAdamw,
    ];
}

/// The training precision regime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Precision {
    /// Everything in fp32.
    Fp32,
    /// Pure fp16: weights, gradients and optimizer states in fp16.
    Fp16,
    /// Pure bf16.
    Bf16,
    /// Mixed precision with fp32 master weights, fp16 compute (autocast).
    AmpFp16,
    /// Mixed precision with fp32 master weights, bf16 compute (autocast). The default.
    #[default]
    AmpBf16,
}

impl Precision {
    /// Master weights, gradients and optimizer states are fp32.
    pub const fn fp32_master(self) -> bool {
        matches!(
            self,
            Precision::Fp32 | Precision::AmpFp16 | Precision::AmpBf16
        )
    }
    /// Bytes per element of activations.
    pub const fn act_bytes(self) -> u64 {
        match self {
            Precision::Fp32 => 4,
            _ => 2,
        }
    }
    /// Bytes per element of master weights, gradients and states.
    pub const fn state_bytes(self) -> u64 {
        if self.fp32_master() { 4 } else { 2 }
    }
}

/// Gradient checkpointing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Checkpointing {
    /// Keep every activation.
    #[default]
    None,
    /// Keep each block's input only and recompute the block in backward.
    Full,
    /// Recompute only the attention core (Korthikanti et al.): drops the `S × S` terms.
    Selective,
}

/// Megatron-LM's `--recompute-method` under `--recompute-granularity full`: which layers of
/// each model chunk are recomputed (Megatron-Core core_v0.19.0 `megatron/core/recompute.py`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum RecomputeMethod {
    /// The layers divided into chunks of `--recompute-num-layers`: each chunk keeps its input
    /// and is recomputed whole in backward.
    #[default]
    Uniform,
    /// The first `--recompute-num-layers` layers of each chunk keep their inputs and are
    /// recomputed one by one; the other layers keep every activation.
    Block,
}

/// Where ZeRO offloads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Offload {
    /// Nothing offloaded.
    #[default]
    None,
    /// Optimizer states (and, under ZeRO-3, parameters) in CPU memory; under FSDP its CPU
    /// offload; with ZeRO 0 under torchtune on one GPU, torchao's `CPUOffloadOptimizer` with
    /// `offload_gradients=True` (the gradients too).
    Cpu,
    /// Optimizer states (and, under ZeRO-3, parameters) on NVMe.
    Nvme,
    /// The optimizer's states alone in CPU memory: DeepSpeed's `offload_optimizer` without
    /// `offload_param` (under ZeRO-3 the 16-bit parameters stay sharded on the GPUs; under
    /// ZeRO-1/2 it is `cpu`); with ZeRO 0 under torchtune on one GPU, torchao's
    /// `CPUOffloadOptimizer` (the gradients stay on the GPU).
    #[cfg_attr(feature = "serde", serde(rename = "optimizer-cpu"))]
    OptimizerCpu,
    /// The optimizer's states alone on NVMe: `offload_optimizer` `device: nvme` without
    /// `offload_param`.
    #[cfg_attr(feature = "serde", serde(rename = "optimizer-nvme"))]
    OptimizerNvme,
}

impl Offload {
    /// Whether the optimizer's states (fp32 masters, moments) and the gradient partitions
    /// leave the GPU: every choice but [`Offload::None`].
    #[must_use]
    pub fn optimizer(self) -> bool {
        self != Self::None
    }

    /// Whether ZeRO-3's 16-bit parameters leave the GPU too (`offload_param`).
    #[must_use]
    pub fn params(self) -> bool {
        matches!(self, Self::Cpu | Self::Nvme)
    }

    /// Whether what is offloaded lies on NVMe rather than in CPU memory.
    #[must_use]
    pub fn nvme(self) -> bool {
        matches!(self, Self::Nvme | Self::OptimizerNvme)
    }
}

/// Attention implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum AttentionImpl {
    /// PyTorch SDPA (flash or memory-efficient kernel): no `S × S` matrix.
    #[default]
    Sdpa,
    /// FlashAttention-2/3.
    Flash,
    /// Eager attention: materialises the `heads × S × S` scores.
    Eager,
}

/// Which positions' logits are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Logits {
    /// The last position only (`generate`, `logits_to_keep = 1`).
    #[default]
    Last,
    /// Every position (scoring, perplexity).
    All,
}

/// vLLM's speculative-decoding method (`--speculative-config`'s `method`, spelled as vLLM
/// spells it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum SpecMethod {
    /// Prompt lookup: drafts from n-grams of the context, on the CPU; no weights, no KV.
    Ngram,
    /// A smaller model of the same vocabulary (`draft_model`), loaded whole beside the target,
    /// its every attention layer in the target's KV pool.
    DraftModel,
    /// An EAGLE head: one decoder layer of the target's shape and its `fc` (2 × hidden to
    /// hidden), the embedding and the LM head shared with the target.
    Eagle,
    /// An EAGLE-3 head: one decoder layer whose attention reads 2 × hidden, its `fc`
    /// (3 × hidden to hidden) fusing three of the target's layers, and its own LM head.
    Eagle3,
    /// The checkpoint's own multi-token-prediction layers as the draft
    /// (`num_nextn_predict_layers`: DeepSeek-V3/R1, GLM-4.5): SGLang's `--speculative-algorithm
    /// NEXTN`, each a decoder layer of the target's last kind with `eh_proj`, three norms, an
    /// embedding and an LM head. vLLM's `mtp` is not modelled.
    Mtp,
}

impl SpecMethod {
    /// The name vLLM's `method` key takes.
    pub const fn name(self) -> &'static str {
        match self {
            SpecMethod::Ngram => "ngram",
            SpecMethod::DraftModel => "draft_model",
            SpecMethod::Eagle => "eagle",
            SpecMethod::Eagle3 => "eagle3",
            SpecMethod::Mtp => "mtp",
        }
    }

    /// Every method, in vLLM's spelling order above.
    pub const ALL: [SpecMethod; 5] = [
        SpecMethod::Ngram,
        SpecMethod::DraftModel,
        SpecMethod::Eagle,
        SpecMethod::Eagle3,
        SpecMethod::Mtp,
    ];
}

/// RL post-training (`--rl`): which models share the card beside the trained policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum RlAlgorithm {
    /// GRPO: the policy, and a frozen reference only when the KL coefficient `beta` is above 0;
    /// `num_generations` completions per prompt.
    Grpo,
    /// PPO: the policy, a frozen reference (with a KL term), a frozen reward model and a trained value model
    /// (the critic, with its own gradients and optimizer states).
    Ppo,
    /// DPO: the policy and a frozen reference (none with `precompute_ref_log_probs`), a chosen
    /// and a rejected sequence per example; no rollout.
    Dpo,
}

/// Where an RL run generates its completions (`--rollout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Rollout {
    /// vLLM in the training process, on the same GPU (TRL `vllm_mode="colocate"`, verl's hybrid
    /// engine, OpenRLHF `--train.colocate_all`): its weights and its KV pool at
    /// `rollout_memory_utilization` of the card.
    Colocate,
    /// A vLLM server on other GPUs (TRL `vllm_mode="server"`): nothing on this card.
    Server,
    /// The policy's own `generate` (TRL's default, `use_vllm=False`): the KV cache of the
    /// rollout's sequences.
    Hf,
}

/// llama.cpp `--split-mode` (`-sm`): how a run over several GPUs is divided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum SplitMode {
    /// `layer` (the default): whole blocks to each GPU by the tensor split, each block's KV
    /// cache with it.
    #[default]
    Layer,
    /// `row`: every matrix split by rows over the GPUs, the rest on the main GPU.
    Row,
    /// `none`: one GPU (`--main-gpu`) holds the whole model.
    None,
}

impl SplitMode {
    /// The word llama.cpp's `-sm` takes.
    pub const fn name(self) -> &'static str {
        match self {
            SplitMode::Layer => "layer",
            SplitMode::Row => "row",
            SplitMode::None => "none",
        }
    }
}

/// vLLM `--kv-offloading-backend`: where the KV blocks evicted from the GPU go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum KvOffloadingBackend {
    /// vLLM's own CPU offloading (`OffloadingConnector`): `kv_offloading_size` GiB of pinned
    /// host memory, the default from vLLM 0.14.
    #[default]
    Native,
    /// LMCache (`LMCacheMPConnector`): its own server holds the blocks and sizes its memory.
    Lmcache,
}

impl KvOffloadingBackend {
    /// The word vLLM's flag takes.
    pub const fn name(self) -> &'static str {
        match self {
            KvOffloadingBackend::Native => "native",
            KvOffloadingBackend::Lmcache => "lmcache",
        }
    }
}

/// What a server runs the model for: vLLM `--runner` (`generate` or `pooling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum RunnerType {
    /// Text generation: a sampler over the vocabulary after each step.
    #[default]
    Generate,
    /// Embedding, scoring and classification: one forward over each input and a pooler
    /// (vLLM `--runner pooling`, before it `--task embed|score|classify` or `--convert
    /// embed|classify`; SGLang `--is-embedding`; transformers' forward of the base model, as
    /// sentence-transformers' `encode` runs it).
    Pooling,
}

impl RunnerType {
    /// The word vLLM's flag takes.
    pub const fn name(self) -> &'static str {
        match self {
            RunnerType::Generate => "generate",
            RunnerType::Pooling => "pooling",
        }
    }
}
