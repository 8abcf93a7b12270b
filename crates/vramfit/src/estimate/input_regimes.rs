//! The training stack's own regimes, as [`EstimateInput`](super::EstimateInput) names them: the
//! loss's form ([`Loss`]) and the stack whose defaults pick the knobs ([`Stack`]).

/// How the cross-entropy loss meets the logits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Loss {
    /// transformers' loss: the logits of every position upcast to fp32, their log-softmax and
    /// its gradient.
    #[default]
    Full,
    /// torchtune's `LinearCrossEntropyLoss` (and the `CEWithChunkedOutputLoss` before it): the
    /// head and the fp32 upcast run chunk by chunk over the sequence (`num_output_chunks`,
    /// default 8); each chunk's fp32 log-softmax is saved for backward.
    Chunked,
    /// Fused linear cross-entropy (Liger's `LigerFusedLinearCrossEntropyLoss`, Unsloth's, Apple's
    /// Cut Cross-Entropy): the logits never exist in full; one chunk's logits and the hidden
    /// states' gradient do.
    Fused,
}

/// The fine-tuning stack, whose defaults pick the regimes a run does not state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Stack {
    /// Hugging Face TRL (`SFTTrainer` over transformers' `Trainer`).
    Trl,
    /// Unsloth (`FastLanguageModel`).
    Unsloth,
    /// torchtune's recipes.
    Torchtune,
    /// LLaMA-Factory.
    Llamafactory,
    /// axolotl.
    Axolotl,
    /// DeepSpeed.
    Deepspeed,
    /// PyTorch FSDP.
    Fsdp,
    /// Megatron-LM / Megatron-Core.
    Megatron,
    /// verl.
    Verl,
    /// OpenRLHF.
    Openrlhf,
}

impl Stack {
    /// Every stack, in the order of the enum.
    pub const ALL: [Stack; 10] = [
        Stack::Trl,
        Stack::Unsloth,
        Stack::Torchtune,
        Stack::Llamafactory,
        Stack::Axolotl,
        Stack::Deepspeed,
        Stack::Fsdp,
        Stack::Megatron,
        Stack::Verl,
        Stack::Openrlhf,
    ];

    /// The name its users write (`--stack`, JSON).
    pub const fn name(self) -> &'static str {
        match self {
            Stack::Trl => "trl",
            Stack::Unsloth => "unsloth",
            Stack::Torchtune => "torchtune",
            Stack::Llamafactory => "llamafactory",
            Stack::Axolotl => "axolotl",
            Stack::Deepspeed => "deepspeed",
            Stack::Fsdp => "fsdp",
            Stack::Megatron => "megatron",
            Stack::Verl => "verl",
            Stack::Openrlhf => "openrlhf",
        }
    }
}

impl Loss {
    /// Every loss, in the order of the enum.
    pub const ALL: [Loss; 3] = [Loss::Full, Loss::Chunked, Loss::Fused];

    /// The name its users write (`--loss`, JSON).
    pub const fn name(self) -> &'static str {
        match self {
            Loss::Full => "full",
            Loss::Chunked => "chunked",
            Loss::Fused => "fused",
        }
    }
}
