//! The kinds of memory an estimate counts, each with what the peak logic needs to know of it.
//!
//! A run shape adds its parts as [`ComponentKind`]s; the peak, the totals and the faces group
//! them by the kind's own answers ([`ComponentKind::is_transient`], [`ComponentKind::group`],
//! …), never by their names. The name is the wire form only: `kv_cache`, and `logits_off_peak`
//! for a part that is not alive at the run's peak ([`ComponentKey`]), as the JSON, the npm
//! package's types and the site have always read it.

use core::fmt;

/// One kind of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum ComponentKind {
    /// The model's parameters in their stored format.
    Weights,
    /// Keys and values of attention (serving: the engine's whole pool).
    KvCache,
    /// The fixed-size state of a hybrid model's linear-attention, state-space or
    /// short-convolution layers: a convolution and a recurrent state per sequence, not growing
    /// with the context (llama.cpp prints it as its `RS` buffer, beside the KV buffer).
    StateCache,
    /// What the forward pass keeps (training: for backward; inference: the widest point).
    Activations,
    /// The output layer's logits (training: with the loss's fp32 copies).
    Logits,
    /// One gradient per trainable parameter.
    Gradients,
    /// The optimizer's states (and fp32 master weights).
    Optimizer,
    /// The optimizer step's temporary buffers.
    StepTemporaries,
    /// Mixed precision's low-precision copies of fp32 weights.
    AutocastCopies,
    /// A quantized layer's weight dequantized for its matmul.
    DequantBuffer,
    /// The embedding backward's dense gradient.
    EmbeddingGradBuffer,
    /// DeepSpeed ZeRO's reduce and all-gather buckets.
    ZeroBuffers,
    /// DistributedDataParallel's gradient buckets.
    DdpBuckets,
    /// llama.cpp's compute buffer: the graph's largest stage.
    ComputeBuffer,
    /// The CUDA context: driver and kernel images.
    CudaContext,
    /// cuBLAS (and engine) workspaces.
    Workspace,
    /// NCCL's communicator buffers.
    Nccl,
    /// Captured CUDA graphs.
    CudaGraphs,
    /// A serving engine's memory outside PyTorch's allocator.
    NonTorch,
    /// SGLang's request-to-token table.
    ReqToTokenPool,
    /// Reserved by PyTorch's caching allocator beyond what is allocated.
    AllocatorReserve,
    // RL post-training (part `rl`): the models beside the policy and the rollout engine.
    /// RL: the frozen reference policy's weights.
    ReferenceModel,
    /// RL (PPO): the frozen reward model's weights.
    RewardModel,
    /// RL (PPO): the value model's weights and optimizer states.
    ValueModel,
    /// RL (PPO): the value model's gradients and saved activations in the training step.
    ValueModelStep,
    /// RL: the colocated rollout engine's copy of the weights.
    RolloutWeights,
    /// RL: the rollout's KV cache (a colocated vLLM's pool, or `generate`'s cache).
    RolloutKvCache,
    /// RL: the rollout engine's other memory (vLLM's profile peak, non-torch memory and CUDA
    /// graphs; `generate`'s activations and logits).
    RolloutBuffers,
    /// vLLM's LoRA adapter slots (`enable_lora`): `max_loras` adapters of `max_lora_rank` on
    /// every wrapped layer, allocated at start-up out of the pool's budget.
    LoraAdapters,
    /// Speculative decoding's drafter (vLLM `--speculative-config`): a draft model's or an
    /// EAGLE head's weights and the proposer's buffers, out of the pool's budget.
    Drafter,
    /// vLLM's encoder cache at its start-up profile: the encoder outputs of the largest
    /// multimodal items its budget holds, out of the pool's budget.
    EncoderCache,
    /// A vision encoder's own activations: vLLM's start-up profile of the largest items (their
    /// pixel input and the part of the encoder's peak above the text forward's, Qwen3-VL's
    /// DeepStack buffers), transformers' encoder forward on the request's images.
    EncoderActivations,
    /// A vision tower's weights in a buffer of their own: llama.cpp's `--mmproj` file.
    VisionWeights,
}

/// Which of an estimate's summary figures a part is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// A figure of its own: `weights_bytes`, `kv_cache_bytes`, `activations_bytes`,
    /// `gradients_bytes`, `optimizer_bytes`, `allocator_reserve_bytes`.
    OwnFigure,
    /// `temporaries_bytes`: buffers that live for a step or a stage.
    Temporaries,
    /// `overhead_bytes`: the runtime's fixed costs.
    Overhead,
}

impl ComponentKind {
    /// Every kind, in the order estimates list them.
    pub const ALL: [ComponentKind; 33] = [
        ComponentKind::Weights,
        ComponentKind::KvCache,
        ComponentKind::StateCache,
        ComponentKind::Activations,
        ComponentKind::Logits,
        ComponentKind::Gradients,
        ComponentKind::Optimizer,
        ComponentKind::StepTemporaries,
        ComponentKind::AutocastCopies,
        ComponentKind::DequantBuffer,
        ComponentKind::EmbeddingGradBuffer,
        ComponentKind::ZeroBuffers,
        ComponentKind::DdpBuckets,
        ComponentKind::ComputeBuffer,
        ComponentKind::CudaContext,
        ComponentKind::Workspace,
        ComponentKind::Nccl,
        ComponentKind::CudaGraphs,
        ComponentKind::NonTorch,
        ComponentKind::ReqToTokenPool,
        ComponentKind::AllocatorReserve,
        ComponentKind::ReferenceModel,
        ComponentKind::RewardModel,
        ComponentKind::ValueModel,
        ComponentKind::ValueModelStep,
        ComponentKind::RolloutWeights,
        ComponentKind::RolloutKvCache,
        ComponentKind::RolloutBuffers,
        ComponentKind::LoraAdapters,
        ComponentKind::Drafter,
        ComponentKind::EncoderCache,
        ComponentKind::EncoderActivations,
        ComponentKind::VisionWeights,
    ];

    /// Its name on the wire, snake_case.
    pub const fn name(self) -> &'static str {
        match self {
            ComponentKind::Weights => "weights",
            ComponentKind::KvCache => "kv_cache",
            ComponentKind::StateCache => "state_cache",
            ComponentKind::Activations => "activations",
            ComponentKind::Logits => "logits",
            ComponentKind::Gradients => "gradients",
            ComponentKind::Optimizer => "optimizer",
            ComponentKind::StepTemporaries => "step_temporaries",
            ComponentKind::AutocastCopies => "autocast_copies",
            ComponentKind::DequantBuffer => "dequant_buffer",
            ComponentKind::EmbeddingGradBuffer => "embedding_grad_buffer",
            ComponentKind::ZeroBuffers => "zero_buffers",
            ComponentKind::DdpBuckets => "ddp_buckets",
            ComponentKind::ComputeBuffer => "compute_buffer",
            ComponentKind::CudaContext => "cuda_context",
            ComponentKind::Workspace => "workspace",
            ComponentKind::Nccl => "nccl",
            ComponentKind::CudaGraphs => "cuda_graphs",
            ComponentKind::NonTorch => "non_torch",
            ComponentKind::ReqToTokenPool => "req_to_token_pool",
            ComponentKind::AllocatorReserve => "allocator_reserve",
            ComponentKind::ReferenceModel => "reference_model",
            ComponentKind::RewardModel => "reward_model",
            ComponentKind::ValueModel => "value_model",
            ComponentKind::ValueModelStep => "value_model_step",
            ComponentKind::RolloutWeights => "rollout_weights",
            ComponentKind::RolloutKvCache => "rollout_kv_cache",
            ComponentKind::RolloutBuffers => "rollout_buffers",
            ComponentKind::LoraAdapters => "lora_adapters",
            ComponentKind::Drafter => "drafter",
            ComponentKind::EncoderCache => "encoder_cache",
            ComponentKind::EncoderActivations => "encoder_activations",
            ComponentKind::VisionWeights => "vision_weights",
        }
    }

    /// The kind of a wire name.
    pub fn from_name(name: &str) -> Option<ComponentKind> {
        ComponentKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Freed and allocated again within a step, so that PyTorch's caching allocator keeps
    /// blocks of them cached: the base of its reserve (`peak.rs`).
    pub const fn is_transient(self) -> bool {
        matches!(
            self,
            ComponentKind::Activations
                | ComponentKind::Logits
                | ComponentKind::StepTemporaries
                | ComponentKind::AutocastCopies
                | ComponentKind::DequantBuffer
                | ComponentKind::EmbeddingGradBuffer
        )
    }

    /// The summary figure it is counted in.
    pub const fn group(self) -> Group {
        match self {
            ComponentKind::Logits
            | ComponentKind::StepTemporaries
            | ComponentKind::AutocastCopies
            | ComponentKind::DequantBuffer
            | ComponentKind::EmbeddingGradBuffer
            | ComponentKind::ZeroBuffers
            | ComponentKind::DdpBuckets
            | ComponentKind::ComputeBuffer => Group::Temporaries,
            ComponentKind::CudaContext
            | ComponentKind::Workspace
            | ComponentKind::Nccl
            | ComponentKind::CudaGraphs
            | ComponentKind::NonTorch
            | ComponentKind::ReqToTokenPool => Group::Overhead,
            ComponentKind::Weights
            | ComponentKind::KvCache
            | ComponentKind::StateCache
            | ComponentKind::Activations
            | ComponentKind::Gradients
            | ComponentKind::Optimizer
            | ComponentKind::AllocatorReserve
            | ComponentKind::ReferenceModel
            | ComponentKind::RewardModel
            | ComponentKind::ValueModel
            | ComponentKind::ValueModelStep
            | ComponentKind::RolloutWeights
            | ComponentKind::RolloutKvCache
            | ComponentKind::RolloutBuffers
            | ComponentKind::LoraAdapters
            | ComponentKind::Drafter
            | ComponentKind::EncoderCache
            | ComponentKind::EncoderActivations
            | ComponentKind::VisionWeights => Group::OwnFigure,
        }
    }

    /// Grows with the tokens of a batch (so that a run too large for any card is bounded by
    /// `batch × seq_len`, not by the model).
    pub const fn grows_with_tokens(self) -> bool {
        matches!(
            self,
            ComponentKind::Activations
                | ComponentKind::KvCache
                | ComponentKind::Logits
                | ComponentKind::ComputeBuffer
                | ComponentKind::CudaGraphs
                | ComponentKind::ValueModelStep
                | ComponentKind::RolloutKvCache
        )
    }

    /// One of the buffers llama.cpp prints at load (`model`, `KV`, `compute buffer size`): its
    /// peak is their sum.
    pub const fn is_llamacpp_buffer(self) -> bool {
        matches!(
            self,
            ComponentKind::Weights
                | ComponentKind::KvCache
                | ComponentKind::StateCache
                | ComponentKind::ComputeBuffer
                | ComponentKind::VisionWeights
                | ComponentKind::EncoderActivations
        )
    }
}

impl fmt::Display for ComponentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A component's key: its kind, and whether it is alive at the run's peak. On the wire it is
/// the kind's name, with `_off_peak` after it for a part that is not (`logits_off_peak`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ComponentKey {
    /// The kind of memory.
    pub kind: ComponentKind,
    /// Alive at the peak: counted in the peak and the total.
    pub at_peak: bool,
}

/// The wire form's suffix of a part not alive at the peak.
const OFF_PEAK: &str = "_off_peak";

impl ComponentKey {
    /// A part alive at the peak.
    pub const fn at_peak(kind: ComponentKind) -> ComponentKey {
        ComponentKey {
            kind,
            at_peak: true,
        }
    }

    /// The key of a wire name: `logits`, `logits_off_peak`.
    pub fn parse(name: &str) -> Option<ComponentKey> {
        match name.strip_suffix(OFF_PEAK) {
            Some(base) => ComponentKind::from_name(base).map(|kind| ComponentKey {
                kind,
                at_peak: false,
            }),
            None => ComponentKind::from_name(name).map(ComponentKey::at_peak),
        }
    }
}

impl From<ComponentKind> for ComponentKey {
    fn from(kind: ComponentKind) -> ComponentKey {
        ComponentKey::at_peak(kind)
    }
}

impl PartialEq<ComponentKind> for ComponentKey {
    /// The same kind, alive at the peak or not.
    fn eq(&self, kind: &ComponentKind) -> bool {
        self.kind == *kind
    }
}

impl fmt::Display for ComponentKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        if !self.at_peak {
            f.write_str(OFF_PEAK)?;
        }
        Ok(())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ComponentKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for ComponentKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ComponentKey, D::Error> {
        let name = <alloc::borrow::Cow<'de, str>>::deserialize(d)?;
        ComponentKey::parse(&name)
            .ok_or_else(|| serde::de::Error::custom(alloc::format!("no component named `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name_alive_or_not() {
        for kind in ComponentKind::ALL {
            for at_peak in [true, false] {
                let key = ComponentKey { kind, at_peak };
                let wire = alloc::format!("{key}");
                assert_eq!(ComponentKey::parse(&wire), Some(key), "{wire}");
            }
        }
        assert_eq!(
            ComponentKey::parse("logits_off_peak").map(|k| k.at_peak),
            Some(false)
        );
        assert_eq!(ComponentKey::parse("kv"), None);
        assert_eq!(ComponentKey::parse("_off_peak"), None);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn the_wire_names_are_the_serde_names() {
        for kind in ComponentKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, alloc::format!("\"{}\"", kind.name()));
            let key = serde_json::to_string(&ComponentKey {
                kind,
                at_peak: false,
            })
            .unwrap();
            assert_eq!(key, alloc::format!("\"{}_off_peak\"", kind.name()));
        }
    }
}
