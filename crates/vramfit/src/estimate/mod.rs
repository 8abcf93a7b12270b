//! The estimator: every byte of a training, inference or serving run, per GPU.
//!
//! [`EstimateInput`] is plain data (the CLI's flags, the npm package's object, the site's URL
//! state). [`EstimateInput::resolve`] validates it once into a [`Workload`], naming the field and
//! the accepted range on failure; [`Workload::estimate`] then cannot fail.

// Built with no language (the `no_std` check), the values computed only for the formulas' text
// go unused (see `Formula`), and the branches that differ only in their words are alike.
#![cfg_attr(
    not(any(feature = "en", feature = "zh")),
    allow(
        unused_variables,
        unused_mut,
        unused_assignments,
        clippy::if_same_then_else
    )
)]

/// A note's text in one language: `format!(…)` (or the bare literal, as a `&str`, with `str`)
/// when the crate is built with that language's feature, an empty string without it, so that
/// the text and its formatting code are in no module built so (the site's calculator in the
/// other language). The arguments are used either way. The formulas are written in both
/// languages too ([`formula!`]), and so are the input errors (`input_error!`).
macro_rules! note_text {
    ($lang:tt, str $text:literal) => {
        if cfg!(feature = $lang) { $text } else { "" }
    };
    ($lang:tt, $($arg:tt)*) => {
        if cfg!(feature = $lang) {
            alloc::format!($($arg)*)
        } else {
            alloc::string::String::new()
        }
    };
}

/// A Chinese note ([`note_text!`] under feature `zh`).
macro_rules! zh {
    ($($arg:tt)*) => { note_text!("zh", $($arg)*) };
}

/// A Chinese note without numbers, as a `&str`.
macro_rules! zh_str {
    ($text:literal) => { note_text!("zh", str $text) };
}

/// An English note ([`note_text!`] under feature `en`).
macro_rules! en {
    ($($arg:tt)*) => { note_text!("en", $($arg)*) };
}

/// An English note without numbers, as a `&str`.
macro_rules! en_str {
    ($text:literal) => { note_text!("en", str $text) };
}

/// A [`Formula`] from one `format!` per language, built only when `$on` (the run's `text`) is
/// true, so that an estimate asked for its numbers alone ([`Workload::figures`]) formats
/// nothing: `formula!(self.text; ["…", args], ["…", args])`. Values computed only for the text
/// go in `let`s before the two sides (`formula!(on; let size = b(x); ["{size}"], ["{size}"])`),
/// which run only when the text is built. Each side, its arguments included, is compiled only
/// under its language's feature, so that a module in one language neither holds nor computes the
/// other's text.
///
/// `formula!(on; text "…", "…")`: two literals without arguments, copied as they are.
macro_rules! formula {
    ($on:expr; text $en:literal, $zh:literal) => {
        if $on {
            $crate::estimate::parts::Formula {
                #[cfg(feature = "en")]
                en: alloc::string::String::from($en),
                #[cfg(feature = "zh")]
                zh: alloc::string::String::from($zh),
            }
        } else {
            $crate::estimate::parts::Formula::default()
        }
    };
    ($on:expr; $(let $p:pat = $e:expr;)* [$($en:tt)*], [$($zh:tt)*]) => {
        if $on {
            $(let $p = $e;)*
            $crate::estimate::parts::Formula {
                #[cfg(feature = "en")]
                en: alloc::format!($($en)*),
                #[cfg(feature = "zh")]
                zh: alloc::format!($($zh)*),
            }
        } else {
            $crate::estimate::parts::Formula::default()
        }
    };
}

mod activations;
#[cfg(test)]
mod bare_tests;
#[cfg(test)]
mod checkpoint_dtype_tests;
mod common;
mod component;
mod compressed;
#[cfg(test)]
mod copies_tests;
mod engine;
#[cfg(test)]
mod formula_zh;
mod guide;
mod hf;
mod hf_images;
#[cfg(feature = "moments")]
mod hf_moments;
mod hf_version;
#[cfg(test)]
mod in_use_tests;
mod indexer;
mod input;
mod input_choices;
mod input_disaggregation;
mod input_regimes;
mod input_sections;
mod input_wire;
#[cfg(all(test, feature = "serde"))]
mod input_wire_tests;
mod llamacpp;
mod llamacpp_alloc;
#[cfg(test)]
mod llamacpp_alloc_tests;
mod llamacpp_build;
mod llamacpp_mmproj;
mod llamacpp_pooling;
#[cfg(test)]
mod llamacpp_pooling_tests;
mod llamacpp_split;
#[cfg(test)]
mod llamacpp_split_tests;
#[cfg(test)]
mod llamacpp_streams_tests;
#[cfg(test)]
mod llamacpp_tests;
mod llamacpp_text;
mod lora_slots;
mod mlx;
#[cfg(all(test, feature = "mlx"))]
mod mlx_tests;
#[cfg(feature = "moments")]
mod moments;
#[cfg(all(test, feature = "moments"))]
mod moments_tests;
mod nodes;
mod ollama;
mod ollama_tags;
mod output;
mod parts;
mod peak;
#[cfg(test)]
mod pooling_tests;
mod quick;
mod release;
mod rl;
#[cfg(test)]
mod run_shapes;
#[cfg(test)]
mod run_shapes_pd;
#[cfg(test)]
mod run_shapes_speculative;
mod sglang;
mod solve;
#[cfg(feature = "speed")]
mod speed;
#[cfg(feature = "speed")]
mod speed_offload;
#[cfg(feature = "speed")]
mod speed_speculative;
#[cfg(feature = "speed")]
mod speed_training;
mod state;
mod tei;
#[cfg(test)]
mod tei_tests;
#[cfg(test)]
mod text_snapshot;
mod training;
/// Each stack's cited defaults, for the launches that must state where the run differs.
#[cfg(feature = "launch")]
pub(crate) use training::stacks::defaults as stack_defaults;
mod trtllm;
mod vllm;
mod weights;
mod workload;

pub use crate::catalog::Device;
pub use activations::{Kernel, Trainable, role_bit};
pub use common::{CUDA_CONTEXT, cublas_workspace};
pub use component::{ComponentKey, ComponentKind, Group};
pub use engine::{
    CardTraits, CompressedCache, Context, ExpertParallel, Formats, LayerOffload, PastTrained,
    Required, Rules, Runner, UnlikeCards,
};
pub use hf_version::TransformersVersion;
pub use input::{
    AttentionImpl, Checkpointing, Engine, EstimateInput, HardwareInput, KvOffloadingBackend,
    Logits, Loss, Mode, ModelInput, Offload, Optimizer, PlacementInput, Precision, RecomputeMethod,
    RlAlgorithm, Rollout, RunInput, RunnerType, ServingInput, SpecMethod, SplitMode, Stack,
    TrainingInput,
};
pub use input_disaggregation::{DisaggregationMode, TransferBackend};
pub use llamacpp::LLAMACPP_CONTEXT;
pub use llamacpp_build::LlamacppBuild;
pub use nodes::{
    DEFAULT_GPUS_PER_NODE, DEFAULT_NODE_LINK_BYTES_PER_S, Nodes, handover_bytes_per_token,
};
pub(crate) use ollama::ollama_embedding_batch;
pub use ollama::{OLLAMA_BATCH, OLLAMA_MINIMUM_MEMORY, OllamaVersion};
pub use ollama_tags::{
    OllamaModel, OllamaName, OllamaTag, default_tag_of, is_ollama_name, ollama_models,
    resolve_ollama_name,
};
pub use output::{
    CardUse, Component, Difference, Estimate, Fit, MAX_TOTAL, OllamaLoad, PeakSource, Phase,
    StepMoment, StepPart, Throughput, estimate, within_reach,
};
pub use parts::thousands;
pub use quick::{Quick, guide_bytes_per_param, m_rec};
pub use rl::{
    MAX_GENERATIONS, OPENRLHF_KL_COEF, OPENRLHF_MAX_LEN, OPENRLHF_ROLLOUT_UTILIZATION, RlReport,
    RlRun, TRL_BETA, TRL_DPO_MAX_LENGTH, TRL_ENGINE_BATCHED_TOKENS, TRL_MAX_COMPLETION_LENGTH,
    TRL_NUM_GENERATIONS, TRL_PPO_KL_COEF, TRL_PPO_RESPONSE_LENGTH, TRL_ROLLOUT_UTILIZATION,
    VERL_MAX_RESPONSE_LENGTH, VERL_ROLLOUT_UTILIZATION,
};
#[cfg(feature = "launch")]
pub(crate) use sglang::speculative_algorithm as sglang_speculative_algorithm;
pub use sglang::{
    FractionRule, PrefillGraphs, SGLANG_CUDA_GRAPH_PER_LAYER, SGLANG_DIST_INIT,
    SGLANG_DIST_INIT_PCIE, SGLANG_INIT_ONE_GPU, SGLANG_LOAD_OVERHEAD, SglangVersion,
};
pub use solve::{
    Bound, FitFix, Solutions, context_bound, fewest_gpus, fixes, largest_batch, largest_batch_fit,
    largest_context, largest_context_fit, need, solve,
};
pub use tei::{TEI_CUDA_CONTEXT, TEI_MAX_BATCH_TOKENS};
pub use training::{
    FSDP_OFFLOAD_ALLOWANCE_PERCENT, NCCL_BUFFERS, NCCL_BUFFERS_PAIR, SHARDED_CACHE_PERCENT,
};
pub use trtllm::{
    TRTLLM_FREE_FRACTION, TRTLLM_MAX_BATCH_SIZE, TRTLLM_MAX_NUM_TOKENS, TRTLLM_PROFILE_EXTRA,
    TRTLLM_TOKENS_PER_BLOCK, pool_tokens as trtllm_pool_tokens,
};
pub use vllm::{
    CUDA_GRAPH_BASE_GIB, CUDA_GRAPH_PER_LAYER_GIB, SAMPLER_FP32_COPIES, VLLM_BLOCK,
    VLLM_CUDA_CONTEXT_PARALLEL, VLLM_NON_TORCH, VLLM_NON_TORCH_PP, VLLM_NON_TORCH_TP, VllmVersion,
};
pub use weights::{gguf_type, per_gpu_weight_bytes, per_gpu_weight_bytes_ep, tensor_bytes};
pub use workload::{
    DEEPSPEED_DEFAULTS, DEFAULT_IMAGE_SIDE, DeepSpeedAuto, Disaggregation, FromStack, Fsdp,
    FsdpVersion, GpuLookup, Images, LoraRules, LoraSlots, LoraTargets, MACOS_RESERVE,
    MAX_ACCEPTANCE, MAX_BATCH, MAX_CARDS, MAX_IMAGE_SIDE, MAX_IMAGES, MAX_SEQ,
    MAX_SPECULATIVE_TOKENS, MLX_KV_GROUP_SIZE, MLX_QUANTIZED_KV_START, Megatron, MlxSettings,
    ModelLookup, Regimes, SGLANG_RESERVED_DECODE_TOKENS, Sharding, Speculative, VLLM_LORA_FROM,
    VLLM_LORA_RANKS, Workload, ZeroBucketSizes, card_count, lora_mask, split_card_list,
};

use parts::{Formula, Parts, Run, ServePool, b};

#[cfg(all(test, feature = "training"))]
mod sharding_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod theory_tests;
