//! Megatron against its own theoretical memory: `tests/reference/megatron-theoretical.csv`,
//! written by `tests/reference/megatron_theoretical.py` with Megatron-LM's
//! `report_theoretical_memory` (`megatron/training/theoretical_memory_usage.py` at 1bcb3b9e).

use vramfit::estimate::{Checkpointing, Estimate, EstimateInput, Mode, estimate};
use vramfit::estimate::{ModelInput, PlacementInput, RunInput, TrainingInput};

struct MegatronCase {
    id: String,
    input: EstimateInput,
    states: u64,
    activations: u64,
}

fn cases() -> Vec<MegatronCase> {
    crate::calibration::csv(
        include_str!("../reference/megatron-theoretical.csv"),
        |row| {
            let g = |n: &str| row.get(n);
            let num = |n: &str| g(n).parse::<f64>().unwrap();
            let (tp, pp, dp) = (num("tp"), num("pp"), num("dp"));
            let sp = g("sequence_parallel") == "true";
            let vp = g("vp").parse::<f64>().ok();
            MegatronCase {
                id: format!(
                    "{} tp {tp} pp {pp} vp {} dp {dp} sp {sp} do {}",
                    g("model"),
                    g("vp"),
                    g("distributed_optimizer")
                ),
                input: EstimateInput {
                    model: ModelInput {
                        model: Some(g("model").to_string()),
                        ..Default::default()
                    },
                    run: RunInput {
                        mode: Mode::Training,
                        batch: num("micro_batch"),
                        seq_len: num("seq_len"),
                        ..Default::default()
                    },
                    training: TrainingInput {
                        grad_checkpointing: if sp {
                            Checkpointing::Selective
                        } else {
                            Checkpointing::None
                        },
                        ..Default::default()
                    },
                    placement: PlacementInput {
                        tp,
                        pp,
                        vp,

                        // `--context-parallel-size 1`: a Megatron run (its settings given).
                        cp: Some(1.0),
                        gpus: Some(tp * pp * dp),
                        sequence_parallel: sp,
                        distributed_optimizer: g("distributed_optimizer") == "true",
                        ..Default::default()
                    },
                    ..Default::default()
                },
                states: g("weight_and_optimizer_bytes").parse().unwrap(),
                activations: g("activation_bytes").parse().unwrap(),
            }
        },
    )
}

fn states(e: &Estimate) -> u64 {
    e.weights_bytes.get() + e.gradients_bytes.get() + e.optimizer_bytes.get()
}

/// Weights, gradients and optimizer states within 0.1 % of Megatron's 18 B (or 6 + 12 / dp B)
/// per parameter of the most loaded shard (vramfit's is the last stage, with the head; Megatron's
/// the first, with the embedding: the same size but for the final norm). Activations: vramfit
/// counts Megatron-Core's layer (`training/megatron_acts.rs`: SwiGLU's `2 ffn + ffn`, GQA's
/// fused QKV output and RoPE's rotated q and k, the dropout masks), Megatron's formula
/// Korthikanti's GPT layer (`18 + 4 ffn / h` per `s b h`); the error is printed for the book's
/// table and bounded here.
/// vramfit's Megatron-Core layer against Megatron's own formula: +2.2 % (pp 1, no sequence
/// parallelism: the formula's 5 % overhead and fp32 logits against the masks and SwiGLU) to
/// +20.7 % (pp 4: the formula's `18 + 4 ffn / h` is GeLU's MLP and MHA's attention; SwiGLU keeps
/// `6 ffn` bytes and RoPE new q and k). The measured runs (`megatron_published.rs`) side with
/// vramfit's count.
const ACTS_LOW: f64 = 0.0;
const ACTS_HIGH: f64 = 0.25;

#[test]
fn megatron_matches_its_theoretical_memory() {
    let cases = cases();
    assert_eq!(cases.len(), 7);
    let mut errors = Vec::new();
    for c in &cases {
        let e = estimate(&c.input).unwrap();
        let s = states(&e) as f64 / c.states as f64 - 1.0;
        let a = e.activations_bytes.get() as f64 / c.activations as f64 - 1.0;
        eprintln!(
            "{}: states {} vs {} ({:+.2} %), activations {} vs {} ({:+.1} %)",
            c.id,
            states(&e),
            c.states,
            s * 100.0,
            e.activations_bytes.get(),
            c.activations,
            a * 100.0
        );
        assert!(s.abs() < 0.001, "{}: states {s}", c.id);
        errors.push(a);
    }
    eprintln!("activations vs Megatron's formula: {errors:?}");
    for a in &errors {
        // Above Megatron's formula, never under (the book says why).
        assert!((ACTS_LOW..ACTS_HIGH).contains(a), "activations {a}");
    }
    // The interleaved schedule multiplies the first stage's activations as Megatron's penalty
    // does: 1 + (pp − 1) / (pp × vp), 11/8 at pp 4, vp 2, and 23/20 at pp 4, vp 5.
    for (plain, interleaved) in [(3, 4), (5, 6)] {
        let ours = |i: usize| estimate(&cases[i].input).unwrap().activations_bytes.get() as f64;
        let theirs = |i: usize| cases[i].activations as f64;
        let (r1, r2) = (
            ours(interleaved) / ours(plain),
            theirs(interleaved) / theirs(plain),
        );
        assert!((r1 - r2).abs() < 1e-3, "{r1} {r2}");
    }
}
