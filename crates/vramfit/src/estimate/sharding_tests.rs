//! FSDP, DeepSpeed's buffers and Megatron against hand calculations and the tools' own
//! estimators (DeepSpeed 0.19.6's `estimate_zero{2,3}_model_states_mem_needs`, Megatron-LM's
//! `report_theoretical_memory` at 00caa53a), their formulas evaluated here by hand.

use super::*;
use ComponentKind as K;

/// Llama-3.1-8B: 32 layers of 218,112,000 parameters, and 1,050,677,248 outside them (the
/// embedding and the untied head, 128,256 × 4,096 each, and the final norm).
const P: u64 = 8_030_261_248;
const LAYER: u64 = 218_112_000;
const ROOT: u64 = 1_050_677_248;
const EMBED: u64 = 128_256 * 4_096;

fn train(gpus: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            seq_len: 1024.0,
            ..Default::default()
        },
        placement: PlacementInput {
            gpus: Some(gpus),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn est(i: &EstimateInput) -> Estimate {
    estimate(i).unwrap()
}

fn part(e: &Estimate, kind: ComponentKind) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.kind == kind)
        .map(|c| c.bytes.get())
        .sum()
}

/// The model states a ZeRO stage holds on one GPU: weights, gradients, optimizer states and
/// the step's fp32 gradient partition (fused AdamW: no foreach temporary).
fn model_states(e: &Estimate) -> u64 {
    e.weights_bytes.get()
        + e.gradients_bytes.get()
        + e.optimizer_bytes.get()
        + part(e, K::StepTemporaries)
}

#[test]
fn zero2_model_states_are_deepspeeds_estimate() {
    // estimate_zero2_model_states_mem_needs(cpu_offload=False): 2 Ψ + 18 Ψ / N.
    let n = 8;
    let e = est(&{
        let mut input = train(8.0);
        input.placement.zero = 2.0;
        input.training.fused_optimizer = true;
        input
    });
    assert_eq!(model_states(&e), 2 * P + 18 * P / n);
    // Its reduce bucket: DeepSpeed's default 5e8 elements × 2 B, one (overlap_comm is off
    // below ZeRO-3).
    assert_eq!(part(&e, K::ZeroBuffers), 1_000_000_000);
    // cpu_offload=True: 2 Ψ on the GPU.
    let off = est(&{
        let mut input = train(8.0);
        input.placement.zero = 2.0;
        input.placement.offload = Offload::Cpu;
        input
    });
    assert_eq!(
        off.weights_bytes.get() + off.gradients_bytes.get() + off.optimizer_bytes.get(),
        2 * P
    );
}

#[test]
fn zero3_is_never_under_deepspeeds_estimate() {
    // estimate_zero3_model_states_mem_needs(cpu_offload=False): 4 × largest module + 18 Ψ / N;
    // the largest module is the embedding (its own parameters, `model_to_params`).
    let n = 8;
    let ds = 4 * EMBED + 18 * P / n;
    let e = est(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.training.fused_optimizer = true;
        input
    });
    let z = part(&e, K::ZeroBuffers);
    // The buffers by hand: the reduce bucket (5e8 × 2 B); the embedding gathered, and beside it
    // what is kept for reuse (max_reuse_distance 1e9) up to max_live_parameters (1e9) in all:
    // 1e9 × 2 B; the embedding's full gradient (Ψ_emb × 2 B); the 65 norms (4,096 each, under
    // 1e5) whole, 7/8 beyond their partition.
    let persistent = (65 * 4096 * 2 * 7u64).div_ceil(8);
    assert_eq!(z, 1_000_000_000 + 2_000_000_000 + EMBED * 2 + persistent);
    let ours = model_states(&e) + z;
    assert!(ours >= ds, "{ours} under DeepSpeed's {ds}");
    // Over it by the 16-bit gradient partition and the fp32 one of the step (2 Ψ / N), the
    // reduce bucket, the parameters kept for reuse and the norms: 19.6 % here, stated in the
    // book (DeepSpeed's estimator counts none of its buffers).
    let over = ours as f64 / ds as f64 - 1.0;
    assert!((0.19..0.20).contains(&over), "{over}");
}

#[test]
fn zero3_optimizer_only_offload_is_deepspeeds_estimate_with_its_buffers() {
    // estimate_zero3_model_states_mem_needs(cpu_offload=True, cpu_offload_params=False)
    // (DeepSpeed 0.19.6, runtime/zero/stage3.py, read by hand): 4 × largest module + 2 Ψ / N
    // on the GPU, the 16-bit parameter partition; 16 Ψ per node in CPU memory (fp32 masters,
    // two Adam moments, the fp32 gradient partition), before its 1.5 buffer factor.
    let n = 8;
    let ds = 4 * EMBED + 2 * P / n;
    let base = {
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.training.fused_optimizer = true;
        input
    };
    let none = est(&base);
    let e = est(&{
        let mut input = base.clone();
        input.placement.offload = Offload::OptimizerCpu;
        input
    });
    // The parameter partition stays: 8,030,261,248 × 2 B / 8 = 2,007,565,312 B.
    assert_eq!(e.weights_bytes.get(), 2_007_565_312);
    assert_eq!(e.weights_bytes, none.weights_bytes);
    // Gradients (reduced into CPU partitions), optimizer states and the fp32 step copy: none.
    assert_eq!(e.gradients_bytes.get(), 0);
    assert_eq!(e.optimizer_bytes.get(), 0);
    assert_eq!(part(&e, K::StepTemporaries), 0);
    // The buffers are those without offload (the parameters are gathered from the GPUs).
    let z = part(&e, K::ZeroBuffers);
    assert_eq!(z, part(&none, K::ZeroBuffers));
    let ours = model_states(&e) + z;
    assert!(ours >= ds, "{ours} under DeepSpeed's {ds}");
    // CPU memory per GPU: (4 + 4 + 8) B × Ψ / 8 = 16,060,522,496 B; eight GPUs, 16 Ψ as
    // DeepSpeed's cpu_mem before its factor 1.5.
    assert_eq!(e.cpu_bytes.get(), 16 * P / n);
    // `cpu` (offload_param too) moves the 2 Ψ / N partition to the CPU as well.
    let all = est(&{
        let mut input = base.clone();
        input.placement.offload = Offload::Cpu;
        input
    });
    assert_eq!(all.weights_bytes.get(), 0);
    assert_eq!(all.cpu_bytes.get(), 18 * P / n);
    // NVMe: the same GPU figures, the states on the drive.
    let nvme = est(&EstimateInput {
        placement: PlacementInput {
            offload: Offload::OptimizerNvme,
            ..base.placement
        },
        ..base
    });
    assert_eq!(nvme.weights_bytes, e.weights_bytes);
    assert_eq!(
        (nvme.cpu_bytes.get(), nvme.nvme_bytes.get()),
        (0, 16 * P / n)
    );
}

#[test]
fn optimizer_only_offload_is_refused_with_fsdp() {
    let err = estimate(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input.placement.offload = Offload::OptimizerCpu;
        input
    })
    .unwrap_err();
    assert_eq!(err.field, "offload");
}

#[test]
fn transformers_auto_buckets_are_the_old_figures() {
    // transformers' "auto": reduce_bucket_size h², stage3_prefetch_bucket_size 0.9 h²,
    // stage3_param_persistence_threshold 10 h.
    let auto = DeepSpeedAuto::of(4096);
    assert_eq!(auto.reduce_bucket_size, 16_777_216.0);
    assert_eq!(auto.stage3_prefetch_bucket_size, 15_099_494.4);
    assert_eq!(auto.stage3_param_persistence_threshold, 40_960.0);
    // With overlap_comm (transformers' sample ZeRO-2 config) two buckets of h² × 2 B: the
    // 4 h² B vramfit held before it read DeepSpeed's settings.
    let e = est(&{
        let mut input = train(8.0);
        input.placement.zero = 2.0;
        input.training.reduce_bucket_size = Some(auto.reduce_bucket_size);
        input.training.overlap_comm = Some(true);
        input
    });
    assert_eq!(part(&e, K::ZeroBuffers), 4 * 4096 * 4096);
    // ZeRO-3: the prefetch floored (DeepSpeed's int field) and capped by max_live.
    let z3 = est(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.training.reduce_bucket_size = Some(auto.reduce_bucket_size);
        input.training.stage3_prefetch_bucket_size = Some(auto.stage3_prefetch_bucket_size);
        input.training.stage3_max_live_parameters = Some((EMBED + 1000) as f64);
        input
    });
    let persistent = (65 * 4096 * 2 * 7u64).div_ceil(8);
    assert_eq!(
        part(&z3, K::ZeroBuffers),
        16_777_216 * 2 + (EMBED + 1000) * 2 + EMBED * 2 + persistent
    );
    // allgather_bucket_size allocates nothing.
    let ag = est(&{
        let mut input = train(8.0);
        input.placement.zero = 2.0;
        input.training.allgather_bucket_size = Some(1e6);
        input
    });
    assert_eq!(part(&ag, K::ZeroBuffers), 1_000_000_000);
}

#[test]
fn fsdp2_full_shard_by_hand() {
    let n = 8u64;
    let e = est(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input.training.fused_optimizer = true;
        input
    });
    // fp32 shards (every dim 0 of Llama divides by 8: no padding), their fp32 gradients, AdamW's
    // two fp32 moments: 16 B per parameter / 8, no separate master.
    assert_eq!(e.weights_bytes.get(), P / n * 4);
    assert_eq!(e.gradients_bytes.get(), P / n * 4);
    assert_eq!(e.optimizer_bytes.get(), P / n * 8);
    assert_eq!(part(&e, K::StepTemporaries), 0);
    // Gathered in bf16, at the loss (this run's peak): the root (embedding, norm, head), not
    // resharded after forward, and the last layer gathered again for backward.
    assert_eq!(e.peak_phase, Phase::ForwardLoss);
    assert_eq!(part(&e, K::ZeroBuffers), ROOT * 2 + LAYER * 2);
    // At the end of backward (a short sequence peaks there): the first layer still gathered,
    // the root gathered with its head's and embedding's gradients (the embedding's backward),
    // less the root's fp32 shard gradient, which the gradients count and which is not built
    // yet; larger than a layer's step (the root, the head's gradient, this layer and the
    // prefetched one and this layer's gradient, less this layer's and the root's shard
    // gradients).
    let short = est(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input.training.fused_optimizer = true;
        input.run.seq_len = 16.0;
        input
    });
    let root_shard = (ROOT * 4).div_ceil(n);
    let root_step = LAYER * 2 + ROOT * 2 * 2 - root_shard;
    let layer_step =
        ROOT * 2 + (EMBED + 4096) * 2 + 3 * LAYER * 2 - root_shard - (LAYER * 4).div_ceil(n);
    assert!(root_step > layer_step);
    assert_eq!(short.peak_phase, Phase::Backward);
    assert_eq!(part(&short, K::ZeroBuffers), root_step);
    // CPU offload: nothing sharded on the GPU, the same units gathered; CPU memory holds
    // 4 + 4 + 8 B per parameter / 8.
    let off = est(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input.placement.offload = Offload::Cpu;
        input
    });
    assert_eq!(
        off.weights_bytes.get() + off.gradients_bytes.get() + off.optimizer_bytes.get(),
        0
    );
    assert_eq!(part(&off, K::ZeroBuffers), ROOT * 2 + LAYER * 2);
    assert_eq!(off.cpu_bytes.get(), P / n * 16);
    // DeepSpeed's semantics of `zero` 3 (before this) held two layers and a 0.9 h² bucket
    // gathered: 0.90 GB where FSDP holds its root and a layer, 2.54 GB (the estimate issue 40
    // found 22–40 % low).
    let old = 2 * LAYER * 2 + (0.9f64 * 4096.0 * 4096.0) as u64 * 2;
    assert!(part(&off, K::ZeroBuffers) > 2 * old);
}

#[test]
fn fsdp1_backward_holds_views_gradients_and_their_concatenation() {
    // FSDP1 (tests/reference/fsdp1-peaks.csv's mechanism): a unit's parameters are views of its
    // flat parameter, so in backward their gradients and the flat gradient made of them (the
    // views' split, backward: a concatenation) are alive together, 2 × the unit in bf16, the
    // unit and the prefetched one still gathered; the first layer is resharded by its
    // post-backward hook before the root's backward ends.
    let n = 8u64;
    let short = est(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(1.0);
        input.training.fused_optimizer = true;
        input.run.seq_len = 16.0;
        input
    });
    // No padding over 8 (the root's and a layer's counts divide by 8).
    assert_eq!(short.weights_bytes.get(), P / n * 4);
    let root_shard = (ROOT * 4).div_ceil(n);
    // The root gathered (2 B) beside its views' gradients and their concatenation (2 × 2 B),
    // less the root's fp32 shard gradient, not built yet: 6,304,063,488 − 525,338,624.
    let root_step = ROOT * 2 + 2 * ROOT * 2 - root_shard;
    assert_eq!(root_step, 5_778_724_864);
    // A layer's step: the root, the head's gradient, this layer and the prefetched one, this
    // layer's views' gradients and their concatenation, less two shard gradients not there.
    let layer_step =
        ROOT * 2 + (EMBED + 4096) * 2 + 4 * LAYER * 2 - root_shard - (LAYER * 4).div_ceil(n);
    assert!(root_step > layer_step);
    assert_eq!(short.peak_phase, Phase::Backward);
    assert_eq!(part(&short, K::ZeroBuffers), root_step);
}

#[test]
fn fsdp1_no_shard_is_data_parallel_without_a_bucket() {
    // FSDP1 NO_SHARD (`fsdp_version` 1, `zero` 0) all-reduces each unit's flat gradient in
    // place: DDP's figures less its bucket, a flat fp32 copy of the gradients, 4 B × P.
    let ddp = est(&train(8.0));
    let no_shard = est(&{
        let mut input = train(8.0);
        input.placement.fsdp_version = Some(1.0);
        input
    });
    assert_eq!(part(&ddp, K::DdpBuckets), P * 4);
    assert_eq!(part(&no_shard, K::DdpBuckets), 0);
    assert_eq!(no_shard.weights_bytes, ddp.weights_bytes);
    assert_eq!(no_shard.gradients_bytes, ddp.gradients_bytes);
    assert_eq!(no_shard.optimizer_bytes, ddp.optimizer_bytes);
    // With CPU offload it is refused (no ZeRO stage to offload), naming the offload.
    let err = estimate(&{
        let mut input = train(8.0);
        input.placement.fsdp_version = Some(1.0);
        input.placement.offload = Offload::Cpu;
        input
    })
    .unwrap_err();
    assert_eq!(err.field, "offload");
}

#[test]
fn fsdp_without_resharding_keeps_every_layer_gathered() {
    let shard_grad_op = |version: f64, zero: f64, reshard: Option<bool>| {
        est(&{
            let mut input = train(8.0);
            input.placement.zero = zero;
            input.placement.fsdp_version = Some(version);
            input.placement.reshard_after_forward = reshard;
            input
        })
    };
    // At the loss: the root and all 32 layers, gathered in forward and kept for backward.
    for e in [
        shard_grad_op(1.0, 2.0, None),
        shard_grad_op(2.0, 3.0, Some(false)),
        shard_grad_op(2.0, 2.0, None),
    ] {
        assert_eq!(e.peak_phase, Phase::ForwardLoss);
        assert_eq!(part(&e, K::ZeroBuffers), ROOT * 2 + 32 * LAYER * 2);
    }
}

#[test]
fn fsdp_pads_its_shards() {
    // Over 3 GPUs: FSDP1 rounds each unit's flat parameter up to a multiple of 3, FSDP2 each
    // parameter's dim 0 (4,096 and 1,024 rows: 4,098 and 1,026; 14,336: 14,337; 128,256: 128,256).
    let w = |v: f64| {
        est(&{
            let mut input = train(3.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(v);
            input
        })
        .weights_bytes
        .get()
    };
    let v1 = (32 * LAYER.div_ceil(3) + ROOT.div_ceil(3)) * 4;
    assert_eq!(w(1.0), v1);
    let padded = |rows: u64, cols: u64| rows.div_ceil(3) * 3 * cols;
    let layer = 2 * padded(4096, 4096) + 2 * padded(1024, 4096) + 2 * padded(14336, 4096)
        + padded(4096, 14336)
        // A block's two norms are one vector of 8,192 in the estimator's tensors (FSDP2 pads
        // each: 2 elements apart, below the bytes shown).
        + padded(8192, 1);
    let v2 = (32 * layer + 2 * padded(128_256, 4096) + padded(4096, 1)).div_ceil(3) * 4;
    assert!(v2 > v1);
    assert_eq!(w(2.0), v2);
}

#[test]
fn fsdp_refuses_what_it_does_not_do() {
    let err = |i: EstimateInput| estimate(&i).unwrap_err().field;
    let fsdp = {
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(2.0);
        input
    };
    assert_eq!(
        err({
            let mut input = fsdp.clone();
            input.placement.fsdp_version = Some(3.0);
            input
        }),
        "fsdp_version"
    );
    assert_eq!(
        err({
            let mut input = fsdp.clone();
            input.placement.zero = 1.0;
            input
        }),
        "zero"
    );
    assert_eq!(
        err({
            let mut input = fsdp.clone();
            input.placement.offload = Offload::Nvme;
            input
        }),
        "offload"
    );
    assert_eq!(
        err({
            let mut input = fsdp.clone();
            input.training.reduce_bucket_size = Some(1e6);
            input
        }),
        "reduce_bucket_size"
    );
    assert_eq!(
        err({
            let mut input = fsdp.clone();
            input.placement.zero = 2.0;
            input.placement.reshard_after_forward = Some(true);
            input
        }),
        "reshard_after_forward"
    );
    assert_eq!(
        err({
            let mut input = fsdp.clone();
            input.placement.fsdp_version = Some(1.0);
            input.placement.reshard_after_forward = Some(false);
            input
        }),
        "reshard_after_forward"
    );
    assert_eq!(
        err(EstimateInput {
            training: TrainingInput {
                reduce_bucket_size: Some(f64::NAN),
                ..fsdp.training
            },
            placement: PlacementInput {
                zero: 2.0,
                fsdp_version: None,
                ..fsdp.placement
            },
            ..fsdp
        }),
        "reduce_bucket_size"
    );
}

/// `compute_weight_and_optimizer_memory`: 18 B per parameter of the most loaded shard, or
/// `6 + 12 / dp` with the distributed optimizer.
#[test]
fn megatron_model_states_are_its_theoretical_memory() {
    let m = |distributed_optimizer: bool| {
        let e = est(&{
            let mut input = train(8.0);
            input.placement.distributed_optimizer = distributed_optimizer;
            input.placement.sequence_parallel = true;
            input
        });
        e.weights_bytes.get()
            + e.gradients_bytes.get()
            + e.optimizer_bytes.get()
            + part(&e, K::StepTemporaries)
            + part(&e, K::DdpBuckets)
    };
    assert_eq!(m(false), 18 * P);
    // 6 + 12 / 8 = 7.5 B per parameter.
    assert_eq!(m(true), 2 * P + 4 * P + (12 * P).div_ceil(8));
}

/// `--stack megatron` alone is Megatron's regime at its defaults (no sequence parallel, no
/// distributed optimizer, no interleaving): the same estimate as any one of its settings at
/// its default value (`vp` 1), and not transformers' Trainer's (18 B per parameter of model
/// states against the Trainer's 16, Megatron's own layer and loss).
#[test]
fn megatron_stack_alone_is_megatron_regime() {
    let stack = est(&{
        let mut input = train(8.0);
        input.training.stack = Some(Stack::Megatron);
        input
    });
    let by_setting = est(&{
        let mut input = train(8.0);
        input.training.stack = Some(Stack::Megatron);
        input.placement.vp = Some(1.0);
        input
    });
    let trainer = est(&train(8.0));
    assert_eq!(stack.total_bytes, by_setting.total_bytes);
    assert_eq!(stack.components, by_setting.components);
    assert_ne!(stack.total_bytes, trainer.total_bytes);
    let states = |e: &Estimate| {
        e.weights_bytes.get()
            + e.gradients_bytes.get()
            + e.optimizer_bytes.get()
            + part(e, K::StepTemporaries)
            + part(e, K::DdpBuckets)
    };
    assert_eq!(states(&stack), 18 * P);
}

#[test]
fn megatron_splits_activations_as_korthikanti() {
    let acts = |tp: f64, pp: f64, gpus: f64, sp: bool, vp: Option<f64>, cp: Option<f64>| {
        est(&{
            let mut input = train(gpus);
            input.placement.tp = tp;
            input.placement.pp = pp;
            input.placement.sequence_parallel = sp;
            input.placement.vp = vp;
            input.placement.cp = cp;
            input.placement.distributed_optimizer = true;
            input
        })
        .activations_bytes
        .get()
    };
    let one = acts(1.0, 1.0, 1.0, true, None, None);
    // Sequence parallel: every activation of the layer / tp (34 s b h / t).
    assert_eq!(acts(4.0, 1.0, 4.0, true, None, None), one.div_ceil(4));
    // Without it the norms' inputs stay whole: more than 1/tp.
    assert!(acts(4.0, 1.0, 4.0, false, None, None) > one.div_ceil(4));
    // Context parallel: the sequence / cp.
    assert_eq!(acts(1.0, 1.0, 2.0, true, None, Some(2.0)), one.div_ceil(2));
    // Interleaving: Megatron's penalty 1 + (pp − 1) / (pp × vp) = 1 + 3/8 at pp 4, vp 2.
    let plain = acts(1.0, 4.0, 4.0, true, None, None);
    assert_eq!(
        acts(1.0, 4.0, 4.0, true, Some(2.0), None),
        (plain * 11).div_ceil(8)
    );
    // Without interleaving the first stage holds pp micro-batches of L / pp layers: L layers,
    // and pp embedding dropout masks (1,024 tokens × 4,096 B each, 3 more than at pp 1).
    assert_eq!(plain, one + 3 * 1024 * 4096);
}

#[test]
fn megatron_refuses_what_it_does_not_do() {
    let err = |i: EstimateInput| estimate(&i).unwrap_err().field;
    assert_eq!(
        err({
            let mut input = train(1.0);
            input.placement.vp = Some(2.0);
            input
        }),
        "vp"
    );
    assert_eq!(
        err({
            let mut input = train(4.0);
            input.placement.pp = 4.0;
            input.placement.vp = Some(9.0);
            input
        }),
        "vp"
    );
    assert_eq!(
        err({
            let mut input = train(8.0);
            input.placement.cp = Some(3.0);
            input
        }),
        "gpus"
    );
    assert_eq!(
        err({
            let mut input = train(8.0);
            input.placement.zero = 1.0;
            input.placement.distributed_optimizer = true;
            input
        }),
        "distributed_optimizer"
    );
    // cp alone: gpus defaults to tp × pp × cp.
    let i = {
        let mut input = train(1.0);
        input.placement.cp = Some(2.0);
        input.placement.gpus = None;
        input
    };
    assert!(estimate(&i).is_ok());
}

/// Every sharding setting on every kind of model (a dense decoder, a MoE, a tied small model, a
/// vision transformer, a CNN, an encoder-decoder, a bare count) either estimates, within the
/// sizes a screen shows, or is refused naming a field: never a panic.
#[test]
fn sharding_settings_on_every_kind_of_model_estimate_or_name_a_field() {
    let models = [
        (Some("meta-llama/Llama-3.1-8B"), None),
        (Some("mistralai/Mixtral-8x7B-v0.1"), None),
        (Some("google/vit-large-patch16-224"), None),
        (Some("microsoft/resnet-50"), None),
        (Some("openai/whisper-tiny"), None),
        (None, Some("7B")),
    ];
    let mut runs = 0;
    for (model, params) in models {
        let base = EstimateInput {
            model: ModelInput {
                model: model.map(alloc::string::String::from),
                params: params.map(alloc::string::String::from),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                ..Default::default()
            },
            placement: PlacementInput {
                gpus: Some(8.0),
                ..Default::default()
            },
            ..Default::default()
        };
        let variants = [
            {
                let mut input = base.clone();
                input.placement.zero = 3.0;
                input.placement.fsdp_version = Some(1.0);
                input
            },
            {
                let mut input = base.clone();
                input.placement.zero = 2.0;
                input.placement.fsdp_version = Some(2.0);
                input.placement.offload = Offload::Cpu;
                input
            },
            {
                let mut input = base.clone();
                input.placement.zero = 3.0;
                input.placement.fsdp_version = Some(2.0);
                input.training.lora_rank = 8.0;
                input
            },
            {
                let mut input = base.clone();
                input.placement.zero = 3.0;
                input.placement.fsdp_version = Some(2.0);
                input.training.qlora = true;
                input.training.lora_rank = 8.0;
                input
            },
            {
                let mut input = base.clone();
                input.placement.zero = 3.0;
                input.placement.fsdp_version = Some(2.0);
                input.placement.tp = 2.0;
                input
            },
            {
                let mut input = base.clone();
                input.placement.zero = 3.0;
                input.training.reduce_bucket_size = Some(0.0);
                input.training.stage3_max_live_parameters = Some(1e12);
                input.training.stage3_prefetch_bucket_size = Some(1e12);
                input.training.stage3_param_persistence_threshold = Some(1e12);
                input
            },
            {
                let mut input = base.clone();
                input.placement.zero = 1.0;
                input.training.overlap_comm = Some(true);
                input.training.reduce_bucket_size = Some(1e12);
                input
            },
            {
                let mut input = base.clone();
                input.placement.tp = 2.0;
                input.placement.pp = 2.0;
                input.placement.vp = Some(2.0);
                input.placement.sequence_parallel = true;
                input
            },
            {
                let mut input = base.clone();
                input.placement.cp = Some(4.0);
                input.placement.distributed_optimizer = true;
                input.training.lora_rank = 8.0;
                input
            },
            {
                let mut input = base.clone();
                input.placement.cp = Some(8.0);
                input.training.grad_checkpointing = Checkpointing::Full;
                input
            },
            {
                let mut input = base.clone();
                input.placement.vp = Some(1024.0);
                input.placement.pp = 2.0;
                input
            },
            {
                let mut input = base.clone();
                input.placement.fsdp_version = Some(1.5);
                input
            },
            {
                let mut input = base.clone();
                input.training.stage3_prefetch_bucket_size = Some(-1.0);
                input.placement.zero = 3.0;
                input
            },
        ];
        for v in variants {
            match estimate(&v) {
                Ok(e) => {
                    assert!(within_reach(e).is_ok(), "{v:?}");
                    runs += 1;
                }
                Err(err) => assert!(!err.field.is_empty(), "{v:?}"),
            }
        }
    }
    assert!(runs > 40, "{runs}");
}

/// The allocator-cache margin of a sharded run, by hand from the estimate's own parts: Llama-3.1-8B
/// (32 blocks) on 8 GPUs, 1,024 tokens. Every run's reserve is 5 % of its transient tensors plus
/// 1 MiB × 32 blocks; ZeRO-3 and FSDP (`FULL_SHARD`, `SHARD_GRAD_OP`) add ⌈25 % × the peak
/// allocated⌉ (`SHARDED_CACHE_PERCENT`), which `peak_allocated` itself does not hold; DDP, ZeRO-1
/// and 2 and FSDP1's `NO_SHARD` (which gather nothing) add none. Only FSDP with CPU offload says
/// that its published runs read above the total.
#[test]
fn the_cache_margin_is_zero3_and_fsdps_alone() {
    let transient = |e: &Estimate| {
        e.components
            .iter()
            .filter(|c| c.key.kind.is_transient())
            .map(|c| c.bytes.get())
            .sum::<u64>()
    };
    let margin = |i: &EstimateInput| {
        let e = est(i);
        let base = transient(&e) / 20 + 32 * (1 << 20);
        (part(&e, K::AllocatorReserve) - base, e)
    };
    assert_eq!(SHARDED_CACHE_PERCENT, 25);
    for sharded in [
        {
            let mut input = train(8.0);
            input.placement.zero = 3.0;
            input
        },
        {
            let mut input = train(8.0);
            input.placement.zero = 3.0;
            input.placement.fsdp_version = Some(2.0);
            input
        },
        {
            let mut input = train(8.0);
            input.placement.zero = 2.0;
            input.placement.fsdp_version = Some(1.0);
            input
        },
    ] {
        let (m, e) = margin(&sharded);
        assert_eq!(m, (e.peak_allocated_bytes.get() * 25).div_ceil(100));
        assert!(e.notes.iter().all(|n| n.key != "fsdp_cpu_offload"));
    }
    for plain in [
        train(8.0),
        {
            let mut input = train(8.0);
            input.placement.zero = 2.0;
            input
        },
        {
            let mut input = train(8.0);
            input.placement.fsdp_version = Some(1.0);
            input
        },
    ] {
        assert_eq!(margin(&plain).0, 0);
    }
    let offloaded = est(&{
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(1.0);
        input.placement.offload = Offload::Cpu;
        input
    });
    assert!(offloaded.notes.iter().any(|n| n.key == "fsdp_cpu_offload"));
}

/// FSDP's CPU-offload allowance, by hand: Llama-3.1-8B fully trained under FSDP1 `FULL_SHARD` on
/// 8 GPUs keeps each unit's flat parameter shard in CPU memory, the root's 1,050,677,248 / 8 =
/// 131,334,656 and each block's 218,112,000 / 8 = 27,264,000 (no padding: both divide by 8), in
/// all 131,334,656 + 32 × 27,264,000 = 1,003,782,656 parameters, fp32: 4,015,130,624 B. The
/// allowance is ⌈35 % × 4,015,130,624⌉ = 1,405,295,719 B (`FSDP_OFFLOAD_ALLOWANCE_PERCENT`; the
/// gradients and AdamW's states in CPU memory are not in it). DeepSpeed's ZeRO-3 offload and FSDP
/// without offload add none. What the card must hold (`required_bytes`) is the total less the
/// cache margin, with the allowance.
#[test]
fn the_offload_allowance_is_fsdps_cpu_offload_alone() {
    assert_eq!(FSDP_OFFLOAD_ALLOWANCE_PERCENT, 35);
    let extra = |i: &EstimateInput| {
        let e = est(i);
        let transient: u64 = e
            .components
            .iter()
            .filter(|c| c.key.kind.is_transient())
            .map(|c| c.bytes.get())
            .sum();
        let margin = (e.peak_allocated_bytes.get() * 25).div_ceil(100);
        assert_eq!(e.required_bytes.get(), e.total_bytes.get() - margin);
        part(&e, K::AllocatorReserve) - transient / 20 - 32 * (1 << 20) - margin
    };
    let fsdp = |offload: Offload| {
        let mut input = train(8.0);
        input.placement.zero = 3.0;
        input.placement.fsdp_version = Some(1.0);
        input.placement.offload = offload;
        input
    };
    assert_eq!(131_334_656 + 32 * 27_264_000, P / 8);
    assert_eq!((P / 8) * 4, 4_015_130_624);
    assert_eq!(extra(&fsdp(Offload::Cpu)), 1_405_295_719);
    assert_eq!(extra(&fsdp(Offload::None)), 0);
    assert_eq!(
        extra(&{
            let mut input = train(8.0);
            input.placement.zero = 3.0;
            input.placement.offload = Offload::Cpu;
            input
        }),
        0
    );
}
