//! The training step's moments (`Estimate::step`) against the estimate itself: over every
//! training shape of the snapshot set, the moment at the peak's phase is the estimate's total
//! (the chart never says another peak than the verdict), no moment is above it, and each moment
//! holds what its phase holds — no gradient at the end of forward (`zero_grad` sets them to
//! None), no activation after backward, the step's temporaries at the step alone.

use crate::estimate::run_shapes::run_shapes;
use crate::estimate::{ComponentKind as K, Mode, Phase, estimate};

#[test]
fn the_peak_moment_is_the_total_and_each_moment_holds_its_phase() {
    let mut seen = 0;
    for input in run_shapes()
        .into_iter()
        .filter(|i| i.run.mode == Mode::Training)
    {
        let Ok(e) = estimate(&input) else { continue };
        if e.rl.is_some() {
            assert!(e.step.is_empty());
            continue;
        }
        seen += 1;
        let phases: alloc::vec::Vec<Phase> = e.step.iter().map(|m| m.phase).collect();
        assert_eq!(
            phases,
            [Phase::ForwardLoss, Phase::Backward, Phase::OptimizerStep],
            "{input:?}"
        );
        let at_peak = e.step.iter().find(|m| m.phase == e.peak_phase).unwrap();
        assert_eq!(at_peak.bytes, e.total_bytes, "{input:?}");
        for m in &e.step {
            assert!(m.bytes <= e.total_bytes, "{:?} {input:?}", m.phase);
            let sum = m.parts.iter().map(|p| p.bytes.get()).sum::<u64>();
            assert_eq!(sum, m.bytes.get());
            let has = |k: K| m.parts.iter().any(|p| p.kind == k);
            let megatron = input.placement.distributed_optimizer
                || input.placement.sequence_parallel
                || input.placement.vp.is_some()
                || input.placement.cp.is_some();
            match m.phase {
                // Megatron's main-gradient buffer is alive at the end of forward too.
                Phase::ForwardLoss => assert!(
                    (!has(K::Gradients) || megatron) && !has(K::StepTemporaries),
                    "{input:?}"
                ),
                Phase::Backward => assert!(!has(K::Activations) && !has(K::StepTemporaries)),
                _ => assert!(!has(K::Activations) && !has(K::Logits)),
            }
            // The weights (none on the GPU under ZeRO-3 with CPU offload) are the same at
            // every moment.
            let weights = |m: &crate::estimate::StepMoment| {
                m.parts
                    .iter()
                    .filter(|p| p.kind == K::Weights)
                    .map(|p| p.bytes.get())
                    .sum::<u64>()
            };
            assert_eq!(weights(m), weights(&e.step[0]), "{input:?}");
        }
    }
    assert!(seen > 20, "{seen}");
}
