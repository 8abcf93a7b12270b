//! Training: the time of an optimizer step, tokens per second and hours per epoch.

use super::collectives::{Comm, CommTimes, DataSync, comm_times};
use super::{Compute, Device, FormulaText, efficiency};
use crate::error::Result;

/// What activation checkpointing recomputes in the backward pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Recompute {
    /// Nothing: every activation is kept.
    #[default]
    None,
    /// The attention core (Korthikanti et al.): its forward FLOPs once more.
    Selective,
    /// Each block from its input: a second forward pass (8 × parameters per token, not 6 ×).
    Full,
}

/// What the speed of a training run depends on.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct TrainingInput {
    /// What the matrix multiplications compute in: 16 bits, FP8 (Transformer Engine), or
    /// 16 bits over quantized frozen weights (QLoRA: [`Compute::WeightOnly`]).
    pub compute: Compute,
    /// Parameters a token goes through in matrix multiplications (not the input embedding; for
    /// a mixture of experts, the experts it is routed to).
    pub active_params: u64,
    /// Parameters that get gradients: all of them in full training, the adapters' with LoRA.
    /// Weight gradients are computed for those a token goes through, at most `active_params`.
    pub trainable_params: u64,
    /// Transformer layers.
    pub layers: u32,
    /// Attention heads.
    pub heads: u32,
    /// Dimension of a head's query and key.
    pub head_dim: u32,
    /// Tokens per sequence.
    pub seq_len: u64,
    /// Tokens per optimizer step, over every GPU (the global batch).
    pub tokens_per_step: u64,
    /// Activation checkpointing.
    pub recompute: Recompute,
    /// GPUs.
    pub gpus: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Micro-batches each pipeline runs per step (the pipeline's bubble is
    /// (pp − 1) / (micro-batches × virtual stages) of the step).
    pub microbatches: u32,
    /// The run's collectives on their links; `None`: the compute and the bubble alone (the
    /// utilisation then stands for them, as in the fits of `data/throughput/`).
    pub comm: Option<Comm>,
}

/// The speed of a training run: every figure finite and non-negative.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Training {
    /// Time of one optimizer step.
    pub step_time_s: f64,
    /// Tokens trained per second, over every GPU.
    pub tokens_per_s: f64,
    /// FLOPs per token: forward, backward and recomputation.
    pub flops_per_token: f64,
    /// The pipeline's idle share, added to the step.
    pub bubble: f64,
    /// Seconds of the step spent in collectives that no compute hides (0 without
    /// [`TrainingInput::comm`]).
    pub exposed_comm_s: f64,
    /// The numbers the formulas show.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) work: TrainingWork,
}

/// One figure of [`Training`], for [`Training::formula`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrainingFigure {
    /// [`Training::flops_per_token`].
    FlopsPerToken,
    /// [`Training::step_time_s`].
    StepTime,
    /// [`Training::tokens_per_s`].
    TokensPerS,
    /// [`Training::exposed_comm_s`]: each collective, its link and what compute hides.
    Collectives,
    /// [`Training::hours_per_epoch`] for a dataset of this many tokens.
    HoursPerEpoch {
        /// Tokens in the dataset.
        dataset_tokens: u64,
    },
}

/// The numbers behind a [`Training`], kept for its formulas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct TrainingWork {
    pub input: TrainingInput,
    /// The dense peak the run computes at, in FLOPS.
    pub peak: f64,
    /// The share of it the step reaches.
    pub utilisation: f64,
    /// Whether the FP8 factor applies.
    pub fp8: bool,
    /// Trainable parameters counted (at most the active ones).
    pub trainable: f64,
    /// Attention FLOPs per token in one forward pass.
    pub attention_fwd: f64,
    /// The step's compute alone (every micro-batch, no bubble), seconds.
    pub compute_s: f64,
    /// The collectives before overlap, with the layout's sizes.
    pub comm: Option<CommTimes>,
}

impl Training {
    /// Hours to train on `dataset_tokens` tokens once.
    pub fn hours_per_epoch(&self, dataset_tokens: u64) -> f64 {
        dataset_tokens as f64 / self.tokens_per_s / 3600.0
    }

    /// The formula of `figure` with its numbers, in English and Chinese.
    pub fn formula(&self, figure: TrainingFigure) -> FormulaText {
        super::text::training(self, figure)
    }
}

/// The speed of `input` on GPUs like `device`.
///
/// Errors name the field: a parameter, layer, head, token, GPU, stage or micro-batch count of 0,
/// or a device whose bandwidth or 16-bit throughput is missing or out of range.
pub fn training(input: &TrainingInput, device: &Device) -> Result<Training> {
    let device = super::device::checked(device)?;
    validate(input)?;
    let fp8 = input.compute == Compute::Fp8 && device.flops_fp8 > 0.0;
    let (peak, utilisation) = if fp8 {
        (device.flops_fp8, efficiency::TRAIN_FP8)
    } else {
        (device.flops_16bit, efficiency::TRAIN_16BIT)
    };
    let active = input.active_params as f64;
    let trainable = (input.trainable_params as f64).min(active);
    // Causal attention: a token attends to seq_len / 2 tokens on average; Q·Kᵀ and scores·V
    // take 2 FLOPs per multiply-add each, per head per layer.
    let attention_fwd = 4.0
        * f64::from(input.layers)
        * f64::from(input.heads)
        * f64::from(input.head_dim)
        * (input.seq_len as f64 / 2.0);
    // Forward 2 × parameters; backward 2 × for the activations' gradients and 2 × per trainable
    // parameter for the weights'; attention's backward twice its forward.
    let mut flops = 2.0 * active + 2.0 * active + 2.0 * trainable + 3.0 * attention_fwd;
    flops += match input.recompute {
        Recompute::None => 0.0,
        Recompute::Selective => attention_fwd,
        Recompute::Full => 2.0 * active + attention_fwd,
    };
    let tokens = input.tokens_per_step as f64;
    let compute_s = tokens * flops / (f64::from(input.gpus) * peak * utilisation);
    let forward_share = (2.0 * active + attention_fwd) / flops;
    let (step_time_s, bubble, exposed_comm_s, comm) =
        step(input, compute_s, forward_share, device.link_bytes_per_s);
    Ok(Training {
        step_time_s,
        tokens_per_s: tokens / step_time_s,
        flops_per_token: flops,
        bubble,
        exposed_comm_s,
        work: TrainingWork {
            input: *input,
            peak,
            utilisation,
            fp8,
            trainable,
            attention_fwd,
            compute_s,
            comm,
        },
    })
}

/// The step's time from its compute (`compute_s`, of which `forward_share` is the forward):
/// `(m + (p − 1)/v)` micro-batch slots of the busiest stage, each its compute, its tensor- and
/// context-parallel collectives and its hand-overs (none of them overlapped: Megatron's
/// default), and FSDP's gathers where the neighbouring layer's compute does not hide them;
/// then the data-parallel sync that the last backward does not hide. Returns the step, the
/// bubble, the exposed collectives and their times.
///
/// Overlap, on the slow side: a prefetched all-gather or a bucketed reduction hides under the
/// compute of its own phase (forward or backward) of its micro-batch, never under another's; the
/// first layer's gather and the last bucket's reduction (1/layers of them) are always exposed;
/// the all-gather after the optimizer's step (ZeRO-1/2, the distributed optimizer) is exposed.
fn step(
    i: &TrainingInput,
    compute_s: f64,
    forward_share: f64,
    nvlink: f64,
) -> (f64, f64, f64, Option<CommTimes>) {
    let (pp, m) = (f64::from(i.pp), f64::from(i.microbatches));
    let vp = f64::from(i.comm.map_or(1, |c| c.vp.max(1)));
    let bubble = (pp - 1.0) / (m * vp);
    let Some(c) = i.comm else {
        return (compute_s * (1.0 + bubble), bubble, 0.0, None);
    };
    let nvlink = if nvlink > 0.0 {
        nvlink
    } else {
        super::FALLBACK_LINK_BYTES_PER_S
    };
    let replicas = f64::from(i.gpus) / (pp * f64::from(c.tp.max(1)) * f64::from(c.cp.max(1)));
    let mb_tokens = i.tokens_per_step as f64 / (m * replicas.max(1.0));
    let t = comm_times(
        &c,
        u64::from(i.gpus),
        u64::from(i.pp),
        u64::from(i.layers),
        mb_tokens,
        i.recompute == Recompute::Full,
        nvlink,
    );
    let mb = compute_s / m;
    let (forward, backward) = (mb * forward_share, mb * (1.0 - forward_share));
    let layers = libm::ceil(f64::from(i.layers) / pp).max(1.0);
    // What no compute hides, plus the share of the hidden rest that its kernels still take
    // from the compute beside it ([`efficiency::OVERLAP_COST`]).
    let hidden = |comm: f64, under: f64, first: f64| {
        let exposed = (comm - under).max(first).clamp(0.0, comm.max(0.0));
        exposed + efficiency::OVERLAP_COST * (comm - exposed)
    };
    let sharded = hidden(t.gather_forward_s, forward, t.gather_forward_s / layers)
        + match c.sync {
            DataSync::ShardedParams { .. } => hidden(
                t.gather_backward_s + t.reduce_s,
                backward,
                t.reduce_s / layers,
            ),
            _ => 0.0,
        };
    let per_mb = t.tp_s + t.cp_s + t.pp_s + sharded;
    let sync = match c.sync {
        DataSync::ShardedParams { .. } => 0.0,
        _ => hidden(t.reduce_s, backward, t.reduce_s / layers) + t.gather_after_step_s,
    };
    let slots = m + (pp - 1.0) / vp;
    let step_s = (mb + per_mb) * slots + sync;
    let exposed = step_s - compute_s * (1.0 + bubble);
    (step_s, bubble, exposed.max(0.0), Some(t))
}

/// The input's ranges.
fn validate(i: &TrainingInput) -> Result<()> {
    let counts = [
        ("active_params", i.active_params),
        ("trainable_params", i.trainable_params),
        ("seq_len", i.seq_len),
        ("tokens_per_step", i.tokens_per_step),
        ("layers", u64::from(i.layers)),
        ("heads", u64::from(i.heads)),
        ("head_dim", u64::from(i.head_dim)),
        ("gpus", u64::from(i.gpus)),
        ("pp", u64::from(i.pp)),
        ("microbatches", u64::from(i.microbatches)),
    ];
    for (field, v) in counts {
        if v == 0 {
            return Err(input_error!(
                OutOfRange,
                field,
                "is 0",
                "为 0",
                "an integer of at least 1",
                "至少为 1 的整数"
            ));
        }
    }
    if let Some(c) = i.comm {
        let group = u64::from(c.tp.max(1)) * u64::from(c.cp.max(1)) * u64::from(i.pp);
        if group > u64::from(i.gpus) {
            return Err(input_error!(
                OutOfRange,
                "tp",
                ["tp × cp × pp is {group}, more than the {} GPUs", i.gpus],
                ["tp × cp × pp 为 {group}，多于 GPU 数 {}", i.gpus],
                ["at most the GPU count ({})", i.gpus],
                ["不超过 GPU 数（{}）", i.gpus]
            ));
        }
        let link = c.node_link_bytes_per_s;
        if !(1e8..=1e13).contains(&link) {
            return Err(input_error!(
                OutOfRange,
                "node_link_bytes_per_s",
                ["is {}", crate::units::number_text(link)],
                ["为 {}", crate::units::number_text(link)],
                "from 1e8 to 1e13 bytes per second",
                "1e8 到 1e13 字节每秒"
            ));
        }
    }
    if i.pp > i.gpus {
        return Err(input_error!(
            OutOfRange,
            "pp",
            ["is {}, more than the {} GPUs", i.pp, i.gpus],
            ["为 {}，多于 GPU 数 {}", i.pp, i.gpus],
            ["at most the GPU count ({})", i.gpus],
            ["不超过 GPU 数（{}）", i.gpus]
        ));
    }
    Ok(())
}
