//! How fast a run goes: prefill and decode tokens per second for inference, step time and
//! tokens per second for training, from the numbers the estimator already knows and a card's
//! datasheet figures, with calibrated efficiency factors.
//!
//! The model is a roofline. A prefill costs its FLOPs (2 × active parameters per token, plus
//! attention) at the card's dense 16-bit or FP8 peak times a FLOPs factor; a decode step costs
//! the bytes it reads (the weights of the experts it touches, and the KV cache at the current
//! context) at the card's bandwidth times a bandwidth factor, or its FLOPs if the batch makes it
//! compute-bound, whichever is slower; both pay a fixed time per layer and per step, and
//! tensor parallelism two all-reduces per layer over the link. Training costs
//! 6 × parameters × tokens (8 × with full checkpointing; LoRA its own count) at the peak times a
//! utilisation, with the pipeline's bubble and the collectives on their links (`collectives.rs`:
//! NVLink inside a node, the network between nodes) where no compute hides them. The factors ([`efficiency`]) are fitted to published
//! measurements, each cited in `crates/vramfit/data/throughput/`.
//!
//! The numbers are computed without allocating; the working is kept in the result, and
//! [`Inference::formula`] and [`Training::formula`] write it out in English and Chinese only
//! when asked, so a sweep of thousands of estimates pays nothing for text.
//!
//! Input is plain numbers ([`InferenceInput`], [`TrainingInput`]) and a card's figures
//! ([`Device`]); it is validated once ([`inference`], [`training`] return an [`InputError`]
//! naming the field), and no figure that comes out is NaN, infinite or negative.
//!
//! [`InputError`]: crate::InputError

use alloc::string::String;

mod collectives;
mod device;
pub mod efficiency;
mod inference;
mod offload;
mod speculative;
mod text;
mod training;

#[cfg(test)]
mod nodes_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod training_comm_tests;

pub use collectives::{Comm, CommTimes, DataSync};
pub use device::{Device, link_bytes_per_s};
pub use efficiency::Efficiency;
pub use inference::{
    FALLBACK_LINK_BYTES_PER_S, Inference, InferenceFigure, InferenceInput, inference,
};
pub use offload::OP_OFFLOAD_MIN_BATCH;
pub use speculative::{Speculation, speculation, tokens_per_step};
#[cfg(feature = "speed")]
pub(crate) use text::rate;
pub use training::{Recompute, Training, TrainingFigure, TrainingInput, training};

/// The engine that runs the model: it decides the efficiency factors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Runtime {
    /// Hugging Face transformers, eager PyTorch.
    #[default]
    Transformers,
    /// A batching server: vLLM, SGLang, TensorRT-LLM.
    Batched,
    /// llama.cpp (and its front ends: Ollama, LM Studio); Metal on Apple silicon.
    Llamacpp,
    /// MLX (mlx-lm, and LM Studio's MLX engine) on Apple silicon.
    Mlx,
}

impl Runtime {
    /// This runtime's factors on `device`.
    pub fn efficiency(self, device: &Device) -> Efficiency {
        match self {
            Runtime::Transformers => efficiency::TRANSFORMERS,
            Runtime::Batched => efficiency::BATCHED,
            Runtime::Llamacpp if device.metal => efficiency::LLAMACPP_METAL,
            Runtime::Llamacpp => efficiency::LLAMACPP,
            Runtime::Mlx => efficiency::MLX_METAL,
        }
    }
}

/// What the matrix multiplications compute in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Compute {
    /// BF16 or FP16 weights and activations.
    #[default]
    Bits16,
    /// FP8 weights and activations (W8A8): the card's FP8 peak, or its 16-bit peak where it has
    /// no FP8 (the engine then dequantizes, as vLLM's FP8 Marlin kernels do on Ampere).
    Fp8,
    /// Weight-only quantization (GPTQ, AWQ, GGUF, bitsandbytes, MXFP4): the weights are stored in
    /// fewer bits and multiplied in 16 bits, so the 16-bit peak.
    WeightOnly,
}

impl Compute {
    /// The dense peak this computes at on `device`, in FLOPS.
    pub fn peak_flops(self, device: &Device) -> f64 {
        match self {
            Compute::Fp8 if device.flops_fp8 > 0.0 => device.flops_fp8,
            _ => device.flops_16bit,
        }
    }
}

/// Whether a phase is limited by memory bandwidth or by compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "lowercase")
)]
pub enum Limit {
    /// Reading weights and KV cache takes longer than the arithmetic.
    Memory,
    /// The arithmetic takes longer than reading.
    Compute,
}

/// A formula with its numbers, in English and in Chinese; each is empty in a build without its
/// language's feature (`en`, `zh`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FormulaText {
    /// English.
    pub en: String,
    /// Chinese: the same numbers, units and names.
    pub zh: String,
}
