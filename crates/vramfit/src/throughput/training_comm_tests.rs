//! The training step with its collectives, by hand: FSDP over nodes, the pipeline's bubble
//! with interleaving, and a slower network slowing the step.

use super::{
    Comm, Compute, DataSync, Device, Recompute, TrainingFigure, TrainingInput, efficiency, training,
};

/// A round card: 1 PFLOPS dense 16-bit, NVLink 450 GB/s per direction (H100's figure).
fn card() -> Device {
    Device {
        bandwidth_bytes_per_s: 3.35e12,
        flops_16bit: 1e15,
        flops_fp8: 0.0,
        link_bytes_per_s: 450e9,
        metal: false,
    }
}

/// An 8B decoder (32 layers, 32 heads of 128) under FSDP FULL_SHARD on 64 GPUs in 8 nodes at
/// 400 Gb/s per GPU: one 4096-token sequence a GPU, 16 GB of bf16 parameters and 32 GB of
/// fp32 gradients.
fn fsdp() -> TrainingInput {
    TrainingInput {
        compute: Compute::Bits16,
        active_params: 8_000_000_000,
        trainable_params: 8_000_000_000,
        layers: 32,
        heads: 32,
        head_dim: 128,
        seq_len: 4096,
        tokens_per_step: 4096 * 64,
        recompute: Recompute::None,
        gpus: 64,
        pp: 1,
        microbatches: 1,
        comm: Some(Comm {
            tp: 1,
            cp: 1,
            vp: 1,
            sequence_parallel: false,
            sync: DataSync::ShardedParams {
                reshard_after_forward: true,
            },
            hidden: 4096,
            kv_width: 1024,
            param_bytes: 16_000_000_000,
            grad_bytes: 32_000_000_000,
            gpus_per_node: 8,
            node_link_bytes_per_s: 50e9,
        }),
    }
}

#[test]
fn fsdp_over_eight_nodes_by_hand() {
    assert_eq!(efficiency::OVERLAP_COST, 0.5);
    assert_eq!(efficiency::TRAIN_16BIT, 0.52);
    let t = training(&fsdp(), &card()).unwrap();
    // Attention 4 × 32 × 32 × 128 × 2048 = 1,073,741,824 FLOP a token forward; 6 × 8e9 +
    // 3 × that = 51.2212e9 FLOP a token. Compute: 262,144 tokens × 51.2212e9 / (64 × 1e15 ×
    // 0.52) = 0.403466 s, a third of it forward (2 × 8e9 + attention of 6 × 8e9 + 3 × it).
    // Bus: min(450e9 × 0.8, 8 ranks a node × 50e9 × 0.8) = 320e9 B/s. All-gather of 16 GB:
    // 16e9 × 63/64 / 320e9 = 49.22 ms; reduce-scatter of 32 GB: 98.44 ms.
    // Forward: the gather hides under 134.5 ms of compute but the first layer's (49.22 / 32 =
    // 1.54 ms); the hidden 47.68 ms cost half: 25.38 ms. Backward: 147.66 ms of gather and
    // reduce-scatter under 269.0 ms, the last layer's reduce-scatter (3.08 ms) exposed, half
    // of the rest 72.29 ms: 75.37 ms. Step 0.403466 + 0.025378 + 0.075366 = 0.504210 s
    // (a Python line over the same figures: 0.5042102818549269).
    assert!(
        (t.step_time_s - 0.504_210_281_854_926_9).abs() < 1e-9,
        "{}",
        t.step_time_s
    );
    assert!((t.exposed_comm_s - (0.504_210_281_854_926_9 - 0.403_465_652_948_676_9)).abs() < 1e-9);
    assert!((t.tokens_per_s - 519_910.06).abs() < 0.1);
    // The formulas say it in both languages, with the same numbers.
    let f = t.formula(TrainingFigure::Collectives);
    #[cfg(feature = "en")]
    assert!(
        f.en.contains("320 GB/s") && f.en.contains("49.22 ms"),
        "{}",
        f.en
    );
    #[cfg(feature = "zh")]
    assert!(
        f.zh.contains("320 GB/s") && f.zh.contains("49.22 ms"),
        "{}",
        f.zh
    );
}

#[test]
fn the_network_and_the_nodes_slow_the_step() {
    let fast = training(&fsdp(), &card()).unwrap();
    // 100 Gb/s per GPU: bus 8 × 12.5e9 × 0.8 = 80e9; the gathers (196.9 ms) and the
    // reduce-scatter (393.8 ms) outlast the compute they hide under.
    let mut slow_in = fsdp();
    if let Some(c) = slow_in.comm.as_mut() {
        c.node_link_bytes_per_s = 12.5e9;
    }
    let slow = training(&slow_in, &card()).unwrap();
    assert!(slow.step_time_s > fast.step_time_s * 1.3);
    // One node of 64 (NVLink all the way): faster than eight.
    let mut one_in = fsdp();
    if let Some(c) = one_in.comm.as_mut() {
        c.gpus_per_node = 64;
    }
    let one = training(&one_in, &card()).unwrap();
    assert!(one.step_time_s < fast.step_time_s);
    // No collectives modelled: the compute alone.
    let bare = training(
        &TrainingInput {
            comm: None,
            ..fsdp()
        },
        &card(),
    )
    .unwrap();
    assert!((bare.step_time_s - 0.403_465_652_948_676_9).abs() < 1e-9);
    assert_eq!(bare.exposed_comm_s, 0.0);
}

#[test]
fn interleaving_shrinks_the_bubble() {
    // pp 4, 8 micro-batches, 2 virtual stages: (4 − 1) / (8 × 2) = 0.1875.
    let mut i = fsdp();
    i.pp = 4;
    i.microbatches = 8;
    if let Some(c) = i.comm.as_mut() {
        c.vp = 2;
        c.sync = DataSync::ShardedOptimizer;
    }
    let t = training(&i, &card()).unwrap();
    assert!((t.bubble - 0.1875).abs() < 1e-12);
    let mut plain = i;
    if let Some(c) = plain.comm.as_mut() {
        c.vp = 1;
    }
    let p = training(&plain, &card()).unwrap();
    assert!((p.bubble - 0.375).abs() < 1e-12);
    assert!(t.step_time_s < p.step_time_s);
    #[cfg(feature = "en")]
    {
        let f = t.formula(TrainingFigure::StepTime).en;
        assert!(f.contains("(4 − 1) / (8 × 2) bubble = 0.188"), "{f}");
    }
}

#[test]
fn a_layout_larger_than_the_gpus_is_refused_by_name() {
    let mut i = fsdp();
    if let Some(c) = i.comm.as_mut() {
        c.tp = 16;
        c.cp = 8;
    }
    assert_eq!(training(&i, &card()).unwrap_err().field, "tp");
    let mut i = fsdp();
    if let Some(c) = i.comm.as_mut() {
        c.node_link_bytes_per_s = f64::NAN;
    }
    assert_eq!(
        training(&i, &card()).unwrap_err().field,
        "node_link_bytes_per_s"
    );
}
