//! Megatron-Core's activations and cross-entropy by hand (Llama-3.1-8B: h 4,096, 32 query
//! heads and 8 KV heads of 128, SwiGLU ffn 14,336, 32 layers, RoPE, vocabulary 128,256; bf16).

use crate::estimate::{
    Checkpointing, ComponentKind as K, Estimate, EstimateInput, Mode, Precision, RecomputeMethod,
    estimate,
};
use crate::estimate::{ModelInput, PlacementInput, RunInput, TrainingInput};

/// Per token per layer, tp 1: the two norms' inputs and outputs 4 × 2 × 4,096 = 32,768 and two
/// dropout masks 2 × 4,096 = 8,192 → whole 40,960; attention: the fused QKV output
/// 2 × (4,096 + 2 × 1,024) = 12,288, the rotated q and k 2 × (4,096 + 1,024) = 10,240, the
/// output 2 × 4,096 = 8,192, the log-sum-exp 4 × 32 = 128; SwiGLU 2 × 3 × 14,336 = 86,016 →
/// split 116,864.
const WHOLE: u64 = 40_960;
const SPLIT: u64 = 116_864;
/// The embedding's dropout mask 4,096 (× pp) and the final norm's input and output 16,384.
const MASK: u64 = 4_096;
const FINAL_NORM: u64 = 16_384;

fn run(tp: f64, pp: f64, gpus: f64, ckpt: Checkpointing) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 1.0,
            seq_len: 4096.0,
            ..Default::default()
        },
        training: TrainingInput {
            precision: Precision::AmpBf16,
            grad_checkpointing: ckpt,
            ..Default::default()
        },
        placement: PlacementInput {
            tp,
            pp,
            gpus: Some(gpus),
            sequence_parallel: true,
            distributed_optimizer: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn part(e: &Estimate, kind: K) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.kind == kind)
        .map(|c| c.bytes.get())
        .sum()
}

#[test]
fn llama8b_tp2_selective_sp_by_hand() {
    // tp 2 with sequence parallelism: every term / 2: (40,960 + 116,864) / 2 = 78,912 B per token
    // per layer (Korthikanti's 34 s b h / t, at 38.5 h here: GQA, RoPE's copies, SwiGLU's
    // three ffn-wide tensors); 32 layers 2,525,184; edges (4,096 + 16,384) / 2 = 10,240;
    // × 4,096 tokens = 10,385,096,704 B.
    let e = estimate(&run(2.0, 1.0, 2.0, Checkpointing::Selective)).unwrap();
    let per_token = (WHOLE + SPLIT) / 2 * 32 + (MASK + FINAL_NORM) / 2;
    assert_eq!(per_token, 2_535_424);
    assert_eq!(e.activations_bytes.get(), 4096 * per_token);
    assert_eq!(e.activations_bytes.get(), 10_385_096_704);
    // The cross-entropy: 4,096 tokens × 128,256 × 6 B / 2 = 1,575,960,576, which the estimate
    // rounds up to a 512 KiB multiple, 1,576,009,728 (1,503 MiB).
    assert_eq!(
        part(&e, K::Logits),
        1_575_960_576u64.next_multiple_of(1 << 19)
    );
}

#[test]
fn sequence_parallel_off_keeps_norms_and_masks_whole() {
    // Korthikanti's 10 s b h + 24 s b h / t: the whole part stays on every rank.
    let i = {
        let mut input = run(2.0, 1.0, 2.0, Checkpointing::Selective);
        input.placement.sequence_parallel = false;
        input
    };
    let e = estimate(&i).unwrap();
    let per_token = (WHOLE + SPLIT / 2) * 32 + MASK + FINAL_NORM;
    assert_eq!(e.activations_bytes.get(), 4096 * per_token);
}

#[test]
fn full_recompute_keeps_layer_inputs_and_one_layer() {
    // `--recompute-granularity full --recompute-method uniform --recompute-num-layers 1`: each
    // layer's input 2 × 4,096 / 2 = 4,096 B per token × 32 + the edges 10,240 → 141,312 × 4,096
    // = 578,813,952 B kept; in backward one layer recomputed, 4,096 × 78,912 = 323,223,552.
    let e = estimate(&run(2.0, 1.0, 2.0, Checkpointing::Full)).unwrap();
    let kept = 4096 * (4096 * 32 + 10_240);
    assert_eq!(kept, 578_813_952);
    let layer = 4096 * 78_912;
    assert_eq!(layer, 323_223_552);
    assert_eq!(e.activations_bytes.get(), kept + layer);
    // The recomputed layer is alive only once the loss's tensors (1,575,960,576 B) are freed:
    // the end of forward holds the larger, the logits, and the peak does not add the layer
    // (before the fix it also took the layer off the logits: 323,223,552 B short).
    assert_eq!(
        e.peak_allocated_bytes.get(),
        peak_without(&e, K::Activations) + kept + part(&e, K::Logits)
    );
}

/// The peak less the part of `kind`, every other part alive at it (the end of forward).
fn peak_without(e: &Estimate, kind: K) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.at_peak && c.torch && c.key.kind != kind && c.key.kind != K::Logits)
        .map(|c| c.bytes.get())
        .sum()
}

fn recompute(method: RecomputeMethod, n: f64, i: EstimateInput) -> EstimateInput {
    EstimateInput {
        training: TrainingInput {
            recompute_method: Some(method),
            recompute_num_layers: Some(n),
            ..i.training
        },
        ..i
    }
}

#[test]
fn uniform_recompute_keeps_one_input_per_chunk_of_n_layers() {
    // `--recompute-method uniform --recompute-num-layers 4` (megatron/core/recompute.py: every
    // run of 4 layers is one checkpoint): 32 / 4 = 8 inputs of 4,096 B per token (tp 2, sequence
    // parallel) + the edges 10,240 → 43,008 × 4,096 = 176,160,768 kept; in backward a chunk of
    // 4 layers recomputed at once, 4 × 78,912 × 4,096 = 1,292,894,208.
    let e = estimate(&recompute(
        RecomputeMethod::Uniform,
        4.0,
        run(2.0, 1.0, 2.0, Checkpointing::Full),
    ))
    .unwrap();
    let kept = 4096 * (8 * 4096 + 10_240);
    assert_eq!(kept, 176_160_768);
    let chunk = 4096 * 4 * 78_912;
    assert_eq!(chunk, 1_292_894_208);
    assert_eq!(e.activations_bytes.get(), kept + chunk);
    // The chunk (1.29 GB) is below the logits (1.58 GB): the end of forward is the peak.
    assert_eq!(
        e.peak_allocated_bytes.get(),
        peak_without(&e, K::Activations) + kept + part(&e, K::Logits)
    );
    // 8 layers a chunk: 4 inputs, the chunk (2.59 GB) now above the logits and at the peak.
    let e8 = estimate(&recompute(
        RecomputeMethod::Uniform,
        8.0,
        run(2.0, 1.0, 2.0, Checkpointing::Full),
    ))
    .unwrap();
    let kept8 = 4096 * (4 * 4096 + 10_240);
    let chunk8 = 4096 * 8 * 78_912;
    assert_eq!(e8.activations_bytes.get(), kept8 + chunk8);
    assert_eq!(
        e8.peak_allocated_bytes.get(),
        peak_without(&e8, K::Activations) + kept8 + chunk8
    );
}

#[test]
fn block_recompute_keeps_n_inputs_and_the_other_layers_whole() {
    // `--recompute-method block --recompute-num-layers 8`: the first 8 layers keep their input
    // (4,096 B per token), the other 24 every activation (78,912 B): (8 × 4,096 + 24 × 78,912
    // + 10,240) × 4,096 = 1,936,896 × 4,096 = 7,933,526,016; one layer recomputed at a time.
    let e = estimate(&recompute(
        RecomputeMethod::Block,
        8.0,
        run(2.0, 1.0, 2.0, Checkpointing::Full),
    ))
    .unwrap();
    let kept = 4096 * (8 * 4096 + 24 * 78_912 + 10_240);
    assert_eq!(kept, 7_933_526_016);
    assert_eq!(e.activations_bytes.get(), kept + 4096 * 78_912);
    // pp 4, vp 2: eight model chunks of 4 layers, block 2 → 16 inputs and 16 whole layers (tp
    // 1: 8,192 and 157,824 B per token), 4 embedding masks + the final norm 32,768; × 11/8
    // interleaved; + one layer recomputed.
    let p = estimate(&recompute(RecomputeMethod::Block, 2.0, {
        let mut input = run(1.0, 4.0, 4.0, Checkpointing::Full);
        input.placement.vp = Some(2.0);
        input
    }))
    .unwrap();
    let total = 4096 * (16 * 8192 + 16 * (WHOLE + SPLIT) + 4 * MASK + FINAL_NORM);
    assert_eq!(
        p.activations_bytes.get(),
        (total * 11).div_ceil(8) + 4096 * (WHOLE + SPLIT)
    );
    // Block with as many layers as a chunk has is uniform with 1 layer.
    let all = estimate(&recompute(
        RecomputeMethod::Block,
        32.0,
        run(2.0, 1.0, 2.0, Checkpointing::Full),
    ))
    .unwrap();
    let one = estimate(&run(2.0, 1.0, 2.0, Checkpointing::Full)).unwrap();
    assert_eq!(all.activations_bytes, one.activations_bytes);
}

#[test]
fn recompute_settings_are_refused_without_full_granularity() {
    // Megatron (core_v0.19.0 TransformerConfig) refuses a method or a layer count with
    // `selective`; vramfit names the field, and a count above the layers per stage.
    let err = |i: EstimateInput| estimate(&i).unwrap_err().field;
    assert_eq!(
        err(recompute(
            RecomputeMethod::Block,
            2.0,
            run(2.0, 1.0, 2.0, Checkpointing::Selective)
        )),
        "recompute_method"
    );
    assert_eq!(
        err({
            let mut input = run(2.0, 1.0, 2.0, Checkpointing::None);
            input.training.recompute_num_layers = Some(2.0);
            input
        }),
        "recompute_num_layers"
    );
    // pp 4: 8 layers per stage.
    for n in [0.0, 9.0, 1.5, f64::NAN] {
        assert_eq!(
            err(recompute(
                RecomputeMethod::Uniform,
                n,
                run(1.0, 4.0, 4.0, Checkpointing::Full)
            )),
            "recompute_num_layers"
        );
    }
}

#[test]
fn pipeline_holds_pp_micro_batches_and_interleaving_its_factor() {
    // pp 4, tp 1: the first stage's 8 layers × 4 micro-batches = 32 layers' worth, and 4
    // embedding masks: (157,824 × 32 + 4 × 4,096 + 16,384) × 4,096.
    let plain = estimate(&run(1.0, 4.0, 4.0, Checkpointing::Selective)).unwrap();
    let per_token = (WHOLE + SPLIT) * 32 + 4 * MASK + FINAL_NORM;
    assert_eq!(plain.activations_bytes.get(), 4096 * per_token);
    // vp 2: × (1 + 3/8) = 11/8 (Megatron's interleaved_schedule_memory_penalty).
    let vp = estimate(&{
        let mut input = run(1.0, 4.0, 4.0, Checkpointing::Selective);
        input.placement.vp = Some(2.0);
        input
    })
    .unwrap();
    assert_eq!(
        vp.activations_bytes.get(),
        (4096 * per_token * 11).div_ceil(8)
    );
}

#[test]
fn context_parallel_halves_the_tokens() {
    let e = estimate(&{
        let mut input = run(2.0, 1.0, 4.0, Checkpointing::Selective);
        input.placement.cp = Some(2.0);
        input
    })
    .unwrap();
    assert_eq!(e.activations_bytes.get(), 2048 * 2_535_424);
    assert_eq!(
        part(&e, K::Logits),
        (2048 * 128_256 * 6 / 2u64).next_multiple_of(1 << 19)
    );
}

#[test]
fn megatrons_command_line_gives_the_recompute_settings() {
    // Megatron-LM's flags as its arguments.py spells them, read back by the command reader.
    let r = crate::launch::read_command(
        "torchrun --nproc-per-node 2 pretrain_gpt.py --tensor-model-parallel-size 2 \
         --recompute-granularity full --recompute-method block --recompute-num-layers 8",
    )
    .unwrap();
    assert_eq!(r.input.training.grad_checkpointing, Checkpointing::Full);
    assert_eq!(
        r.input.training.recompute_method,
        Some(RecomputeMethod::Block)
    );
    assert_eq!(r.input.training.recompute_num_layers, Some(8.0));
    assert!(!r.not_read.iter().any(|w| w.contains("recompute")));
}
