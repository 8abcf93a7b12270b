//! A run spread over a layout of GPUs: the input the estimator then reads, and what one GPU
//! needs. The planners ([`super::plan()`], [`super::job`]) price each layout by it; the
//! estimator ([`crate::estimate`]) knows nothing of layouts or offers.

use crate::estimate::PlacementInput;
use crate::estimate::{Engine, EstimateInput, Mode, need};
use crate::gpu::Gpu;
use crate::units::Bytes;

use super::{Layout, ParallelKind, PlanOptions};

/// Whether `input` is a serving run of an engine that runs data-parallel replicas behind one
/// endpoint and expert parallel (vLLM, SGLang).
fn serves_fleets(input: &EstimateInput) -> bool {
    input.run.mode == Mode::Serve && matches!(input.run.engine, Engine::Vllm | Engine::Sglang)
}

impl PlanOptions {
    /// These options with the layouts the run can use: data-parallel replicas for a vLLM or
    /// SGLang serving run (its `batch` is the concurrency the replicas share), and expert
    /// parallel where its model has routed experts. The CLI's `recommend`, the npm package's
    /// `recommend()` and the site's rental line all plan through this.
    pub fn for_run(self, input: &EstimateInput) -> PlanOptions {
        let fleets = serves_fleets(input);
        let moe = fleets
            && input
                .resolve()
                .is_ok_and(|w| w.arch.is_detailed() && w.arch.moe.is_some());
        PlanOptions {
            data_parallel: fleets,
            expert_parallel: moe,
            ..self
        }
    }
}

/// The run of `input` spread over `layout` on the card `on` (an offer's card, whatever card the
/// input named: its generation sets the cuBLAS workspace, its memory vLLM's default batch
/// sizes): its GPUs, tensor / pipeline degrees or ZeRO-3, data-parallel replicas with each
/// one's share of the concurrency, expert parallel; `None` for a layout the run cannot use
/// (ZeRO-3 outside training, replicas and expert parallel outside vLLM and SGLang serving).
pub fn layout_input(input: &EstimateInput, layout: Layout, on: &Gpu) -> Option<EstimateInput> {
    // The layout replaces the split the input named (its GPUs, tp and pp): one card alike.
    let input = {
        let mut spread_input = input.clone();
        spread_input.hardware.gpu = Some(on.id.into());
        spread_input.hardware.gpu_memory = None;
        spread_input.hardware.cards = alloc::vec::Vec::new();
        spread_input.placement.tensor_split = alloc::vec::Vec::new();
        spread_input.placement.gpus = None;
        spread_input.placement.tp = 1.0;
        spread_input.placement.pp = 1.0;

        // An offer's card drives no desktop: the memory in use on the person's own card is not
        // carried to the cards they might rent.
        spread_input.hardware.memory_in_use = None;
        spread_input
    };
    Some(match layout.kind {
        // A MIG or vGPU slice is one (small) device.
        ParallelKind::Single | ParallelKind::Mig => input,
        ParallelKind::Data | ParallelKind::Expert => return fleet_input(input, layout),
        ParallelKind::Zero3 if input.run.mode != Mode::Training => return None,
        ParallelKind::Zero3 => EstimateInput {
            placement: PlacementInput {
                gpus: Some(f64::from(layout.gpus)),
                zero: 3.0,
                ..input.placement
            },
            ..input
        },
        ParallelKind::Tensor | ParallelKind::Pipeline | ParallelKind::TensorPipeline => {
            EstimateInput {
                placement: PlacementInput {
                    gpus: Some(f64::from(layout.gpus)),
                    tp: f64::from(layout.tp),
                    pp: f64::from(layout.pp),

                    // One server, or each of several servers its share (memory is per GPU either
                    // way; the estimate's speed counts the hand-overs between servers).
                    gpus_per_node: Some(f64::from(layout.gpus / layout.nodes.max(1))),
                    ..input.placement
                },
                ..input
            }
        }
    })
}

/// A vLLM or SGLang serving run over data-parallel replicas or expert parallel: `gpus` =
/// `dp × tp` over the layout's nodes, and the concurrency `batch` = N shared by the replicas
/// (or DP attention's groups) as the engines share it, each holding ceil(N / dp), which the
/// estimator counts from the whole N: vLLM's every data-parallel rank schedules its own
/// `--max-num-seqs`; SGLang's DP attention divides the batch among its groups itself (its `tp`
/// is then every GPU and `--attn-dp-size` the groups), and its `--dp-size` replicas without
/// DP attention are vramfit's `gpus = tp × copies`, on one node only (it refuses replicas over
/// several). `None` outside vLLM and SGLang serving; the estimator refuses what the model cannot use (experts that `ep` does not
/// divide, DP attention without MLA), which the planner reads as no fit.
fn fleet_input(input: EstimateInput, layout: Layout) -> Option<EstimateInput> {
    if !serves_fleets(&input) {
        return None;
    }
    // SGLang refuses replicas over several nodes ("multi-node data-parallel replicas are not
    // supported; use attention DP across nodes": 0.5.23, `arg_groups/validation_hook.py`).
    if input.run.engine == Engine::Sglang && layout.kind == ParallelKind::Data && layout.nodes > 1 {
        return None;
    }
    let (tp, dp) = (layout.tp.max(1), layout.dp.max(1));
    let gpus = f64::from(tp * dp);
    let per_node = Some(f64::from(layout.gpus / layout.nodes.max(1)));
    let expert = layout.kind == ParallelKind::Expert;
    Some(match input.run.engine {
        Engine::Sglang if expert => EstimateInput {
            placement: PlacementInput {
                gpus: Some(gpus),
                tp: gpus,
                ep: f64::from(layout.ep),
                enable_dp_attention: dp > 1,
                dp_size: (dp > 1).then_some(f64::from(dp)),
                gpus_per_node: per_node,
                ..input.placement
            },
            ..input
        },
        _ => EstimateInput {
            placement: PlacementInput {
                gpus: Some(gpus),
                tp: f64::from(tp),
                ep: if expert { f64::from(layout.ep) } else { 1.0 },

                // Replicas of the whole server: SGLang's DP attention is the expert layout's.
                enable_dp_attention: false,
                dp_size: None,
                gpus_per_node: per_node,
                ..input.placement
            },
            ..input
        },
    })
}

/// The memory one GPU of `on` needs when the run of `input` is spread over `layout`
/// ([`layout_input`]). This is the per-layout function the planner ([`super::plan()`])
/// takes, shared by the CLI's and the npm package's `recommend`. A layout the run cannot use
/// (ZeRO-3 outside training, a TP degree that does not divide the heads) needs
/// [`crate::units::MAX_SIZE`], which no card has.
pub fn layout_required_bytes(input: &EstimateInput, layout: Layout, on: &Gpu) -> Bytes {
    layout_input(input, layout, on).map_or(crate::units::MAX_SIZE, |i| need(&i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::ModelInput;
    use crate::estimate::RunInput;
    use crate::gpu::find_gpu;

    /// A Llama-2-7B-shaped model in bf16 (the solvers' test model).
    fn tiny() -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                arch: Some(crate::model::tests::llama2_7b()),
                ..Default::default()
            },
            run: RunInput {
                seq_len: 4096.0,
                new_tokens: 0.0,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn layout_required_bytes_reruns_the_estimate_per_layout() {
        // On the H100 the input now names (its workspace is Hopper's).
        let h100 = find_gpu("h100-sxm5-80gb").unwrap();
        let i = {
            let mut input = tiny();
            input.hardware.gpu = Some("h100-sxm5-80gb".into());
            input
        };
        let one = need(&i);
        assert_eq!(layout_required_bytes(&tiny(), Layout::SINGLE, h100), one);
        let tp2 = Layout::candidates(2)[0];
        assert_eq!(tp2.kind, ParallelKind::Tensor);
        let by_hand = need(&{
            let mut input = i.clone();
            input.placement.gpus = Some(2.0);
            input.placement.tp = 2.0;
            input
        });
        assert_eq!(layout_required_bytes(&i, tp2, h100), by_hand);
        // TP=2 halves the weights: 12.55 GiB of bf16 weights become about 6.3 GiB per GPU.
        assert!(by_hand < one && one.get() - by_hand.get() > 6 * crate::units::GIB);
        // ZeRO-3 is a training layout only.
        let z3 = Layout::candidates(2)[2];
        assert_eq!(z3.kind, ParallelKind::Zero3);
        assert_eq!(layout_required_bytes(&i, z3, h100), crate::units::MAX_SIZE);
        // The offer's card, not the one the input names: an A100 has the 4 MiB cuBLAS workspace
        // of the cards before Hopper, 28 MiB less than the H100's 32 MiB.
        let a100 = find_gpu("a100-sxm4-80gb").unwrap();
        let on_h100 = layout_required_bytes(&i, Layout::SINGLE, h100);
        let on_a100 = layout_required_bytes(&i, Layout::SINGLE, a100);
        assert!(on_a100 < on_h100, "{on_a100:?} {on_h100:?}");
    }

    /// The layout is the split, whatever the input named: one card of the offer is tp 1 on one
    /// GPU, not the input's tp 2 over 2 GPUs (which halved the weights of a card the offer
    /// rents alone, and made an 80 GiB card hold a run it cannot).
    #[test]
    fn a_layout_replaces_the_split_the_input_named() {
        let h100 = find_gpu("h100-sxm5-80gb").unwrap();
        let split = {
            let mut input = tiny();
            input.placement.gpus = Some(2.0);
            input.placement.tp = 2.0;
            input
        };
        assert_eq!(
            layout_required_bytes(&split, Layout::SINGLE, h100),
            layout_required_bytes(&tiny(), Layout::SINGLE, h100)
        );
        let tp2 = Layout::candidates(2)[0];
        let pp = {
            let mut input = tiny();
            input.placement.pp = 2.0;
            input.placement.gpus = Some(2.0);
            input
        };
        assert_eq!(
            layout_required_bytes(&pp, tp2, h100),
            layout_required_bytes(&tiny(), tp2, h100)
        );
    }
}
