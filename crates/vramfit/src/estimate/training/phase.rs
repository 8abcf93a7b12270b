//! The peak's phase: the end of forward (activations, logits, autocast copies alive; no gradients
//! yet, since `zero_grad` sets them to None) against the end of backward and the optimizer step
//! (gradients and step temporaries), and which parts are alive at it.

use super::figures::TrainingFigures;
use crate::estimate::{ComponentKind, Parts, Phase, Run, StepMoment, StepPart};
use crate::units::Bytes;

/// The phase that holds the most of the run's parts.
pub(super) struct PeakFigures {
    pub(super) phase: Phase,
    /// With full checkpointing, the loss's tensors and the recomputed block are not alive
    /// together: the end of forward holds the larger of the two, and this is the smaller.
    pub(super) overlap: u64,
    /// The gradients are a buffer alive through the whole step (Megatron's main gradients).
    pub(super) persistent_grads: bool,
}

impl PeakFigures {
    /// Weighs the end of forward (activations, the loss's tensors, autocast copies, the
    /// dequant buffer and, under ZeRO, its buffers) against the end of backward (gradients, the
    /// embedding's gradient buffer, the buckets) and the optimizer step (gradients, the step's
    /// temporaries, the buckets).
    pub(super) fn of(f: &TrainingFigures, zero: u8) -> Self {
        let acts = f.activations.bytes;
        let overlap = f.activations.recomputed.min(f.logits).min(acts);
        let b = f.buckets.bytes;
        let [b_forward, b_backward, b_step] = f.buckets.by_phase.unwrap_or([b, b, b]);
        let g = f.gradients.bytes;
        let forward = acts
            .saturating_add(f.logits - overlap)
            .saturating_add(if f.gradients.persistent { g } else { 0 })
            .saturating_add(f.autocast_copies)
            .saturating_add(f.dequant)
            .saturating_add(if zero == 0 { 0 } else { b_forward });
        let step = g.saturating_add(f.step.bytes).saturating_add(b_step);
        let backward = g
            .saturating_add(f.embedding_buffer.bytes)
            .saturating_add(b_backward);
        let phase = if forward >= step && forward >= backward {
            Phase::ForwardLoss
        } else if backward > step {
            Phase::Backward
        } else {
            Phase::OptimizerStep
        };
        PeakFigures {
            phase,
            overlap,
            persistent_grads: f.gradients.persistent,
        }
    }
}

/// The step's moments, in order.
const MOMENTS: [Phase; 3] = [Phase::ForwardLoss, Phase::Backward, Phase::OptimizerStep];

/// What is alive at each moment of the step, from the parts as the run shape added them (before
/// the peak's phase marks the others): each part alive then, the buffers that differ by phase at
/// that phase's size (`by_phase`, FSDP's gathered units), and at the end of forward the loss's
/// tensors less their overlap with the recomputed block (full checkpointing), as [`PeakFigures`]
/// weighs them.
pub(super) fn step_moments(
    p: &Parts,
    f: &TrainingFigures,
    peak: &PeakFigures,
) -> alloc::vec::Vec<StepMoment> {
    MOMENTS
        .iter()
        .enumerate()
        .map(|(i, &phase)| {
            // Room for every part and the allocator's reserve that `step_with_reserve` adds
            // after: one allocation, never grown.
            let mut parts = alloc::vec::Vec::with_capacity(p.comps.len() + 1);
            parts.extend(
                p.comps
                    .iter()
                    .filter(|c| {
                        c.key.at_peak && alive_at(phase, c.key.kind, f.gradients.persistent)
                    })
                    .map(|c| {
                        let bytes = match (c.key.kind, f.buckets.by_phase) {
                            (k, Some(by_phase)) if k == f.buckets.kind => by_phase[i],
                            (ComponentKind::Logits, _) if phase == Phase::ForwardLoss => {
                                c.bytes.get().saturating_sub(peak.overlap)
                            }
                            _ => c.bytes.get(),
                        };
                        StepPart {
                            kind: c.key.kind,
                            bytes: Bytes::new(bytes),
                        }
                    })
                    .filter(|s| s.bytes.get() > 0),
            );
            let bytes = parts
                .iter()
                .map(|s| s.bytes.get())
                .fold(0, u64::saturating_add);
            let (en, zh) = moment_words(p.text, phase);
            StepMoment {
                phase,
                en,
                zh,
                parts,
                bytes: Bytes::new(bytes),
            }
        })
        .collect()
}

/// A training moment's words (none when the run builds no text).
fn moment_words(text: bool, phase: Phase) -> (alloc::string::String, alloc::string::String) {
    if !text {
        return Default::default();
    }
    let (en, zh) = match phase {
        Phase::ForwardLoss => (
            en_str!("End of forward, with the loss"),
            zh_str!("前向传播结束（含损失）"),
        ),
        Phase::Backward => (
            en_str!("End of backward (every gradient)"),
            zh_str!("反向传播结束（全部梯度）"),
        ),
        _ => (en_str!("Optimizer step"), zh_str!("优化器更新")),
    };
    (en.into(), zh.into())
}

impl Run<'_> {
    /// Keeps only the components alive at the peak in the torch total (the others are shown,
    /// marked not at the peak); at the end of forward, takes the checkpointing overlap off the
    /// PyTorch peak.
    pub(super) fn keep_alive_at_peak(&self, peak: &PeakFigures, p: &mut Parts) {
        let phase = peak.phase;
        for c in &mut p.comps {
            if alive_at(phase, c.key.kind, peak.persistent_grads) {
                continue;
            }
            if self.text {
                super::render::not_at_peak(c, phase);
            }
            c.torch = false;
            c.key.at_peak = false;
        }
        if phase == Phase::ForwardLoss && peak.overlap > 0 {
            let alive = p
                .comps
                .iter()
                .filter(|c| c.torch)
                .map(|c| c.bytes.get())
                .fold(0, u64::saturating_add);
            p.peak = Some(alive.saturating_sub(peak.overlap));
        }
    }
}

/// Whether a training part is alive at `phase`: the end of forward holds no gradients yet
/// (`zero_grad` sets them to None; a persistent gradient buffer, Megatron's, is alive) nor the
/// step's buffers; the optimizer step no longer holds the forward's tensors; the end of backward
/// holds neither the forward's nor the step's.
fn alive_at(phase: Phase, kind: ComponentKind, persistent_grads: bool) -> bool {
    use ComponentKind as K;
    if persistent_grads && kind == K::Gradients {
        return true;
    }
    !matches!(
        (phase, kind),
        (
            Phase::ForwardLoss,
            K::Gradients | K::StepTemporaries | K::DdpBuckets | K::EmbeddingGradBuffer
        ) | (
            Phase::OptimizerStep,
            K::Activations
                | K::Logits
                | K::AutocastCopies
                | K::DequantBuffer
                | K::EmbeddingGradBuffer
        ) | (
            Phase::Backward,
            K::Activations | K::Logits | K::AutocastCopies | K::DequantBuffer | K::StepTemporaries
        )
    )
}
