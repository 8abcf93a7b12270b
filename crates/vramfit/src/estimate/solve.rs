//! Solvers: the largest batch and context that fit a card, and the fewest GPUs.

use super::Device;
use super::{EstimateInput, MAX_BATCH, MAX_SEQ, Mode, estimate};
use crate::hardware::fit::largest_fitting;
use crate::hardware::{Layout, ParallelKind};
use crate::units::Bytes;

/// What fits on the chosen card.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Solutions {
    /// The largest batch (serving: concurrent sequences of `max_model_len`) that fits.
    pub max_batch: Option<u64>,
    /// The largest sequence length (serving: `max_model_len`) that fits at the given batch.
    pub max_context: Option<u64>,
    /// The fewest GPUs of this card (tensor parallel for inference, ZeRO-3 for training) that fit.
    pub min_gpus: Option<u64>,
}

fn need(input: &EstimateInput) -> Bytes {
    // Anything the estimator refuses (e.g. a tp that does not divide the heads) never fits.
    estimate(input).map_or(crate::units::MAX_SIZE, |e| e.required_bytes)
}

/// The largest batch that fits `memory`, proven by the next one up not fitting.
pub fn largest_batch(input: &EstimateInput, memory: Bytes) -> Option<u64> {
    let f = |b: u64| {
        need(&EstimateInput {
            batch: b as f64,
            ..input.clone()
        })
    };
    largest_fitting(f, memory, 1, MAX_BATCH).map(|fit| fit.value)
}

/// The largest sequence length (serving: `max_model_len`) that fits `memory`.
pub fn largest_context(input: &EstimateInput, memory: Bytes) -> Option<u64> {
    let f = |s: u64| {
        need(&if input.mode == Mode::Serve {
            EstimateInput {
                max_model_len: Some(s as f64),
                ..input.clone()
            }
        } else {
            EstimateInput {
                seq_len: s as f64,
                ..input.clone()
            }
        })
    };
    largest_fitting(f, memory, 1, MAX_SEQ).map(|fit| fit.value)
}

/// The fewest GPUs of `memory` each, in powers of two up to 64: tensor parallel for inference and
/// serving, ZeRO-3 data parallel for training (data parallel alone never reduces per-GPU memory).
pub fn fewest_gpus(input: &EstimateInput, memory: Bytes) -> Option<u64> {
    (0..7).map(|k| 1u64 << k).find(|&n| {
        let i = if input.mode == Mode::Training {
            EstimateInput {
                gpus: n as f64,
                zero: if n > 1 { 3.0 } else { input.zero },
                ..input.clone()
            }
        } else {
            EstimateInput {
                gpus: n as f64,
                tp: n as f64,
                ..input.clone()
            }
        };
        need(&i) <= memory
    })
}

/// The memory one GPU needs when the run of `input` is spread over `layout`: the estimator run
/// again with the layout's GPUs, tensor / pipeline degrees or ZeRO-3. This is the per-layout
/// function the planner ([`crate::hardware::plan()`]) takes, shared by the CLI's and the npm
/// package's `recommend`. A layout the run cannot use (ZeRO-3 outside training, a TP degree that
/// does not divide the heads) needs [`crate::units::MAX_SIZE`], which no card has.
pub fn layout_required_bytes(input: &EstimateInput, layout: Layout) -> Bytes {
    let i = match layout.kind {
        // A MIG or vGPU slice is one (small) device; data parallel is never asked for.
        ParallelKind::Single | ParallelKind::Mig | ParallelKind::Data => input.clone(),
        ParallelKind::Zero3 if input.mode != Mode::Training => return crate::units::MAX_SIZE,
        ParallelKind::Zero3 => EstimateInput {
            gpus: f64::from(layout.gpus),
            zero: 3.0,
            ..input.clone()
        },
        ParallelKind::Tensor | ParallelKind::Pipeline | ParallelKind::TensorPipeline => {
            EstimateInput {
                gpus: f64::from(layout.gpus),
                tp: f64::from(layout.tp),
                pp: f64::from(layout.pp),
                ..input.clone()
            }
        }
    };
    need(&i)
}

/// All three solvers against `device`.
pub fn solve(input: &EstimateInput, device: &Device) -> Solutions {
    // Solve against the memory alone: the device is named in the input only for its workspace size.
    Solutions {
        max_batch: largest_batch(input, device.memory),
        max_context: largest_context(input, device.memory),
        min_gpus: fewest_gpus(input, device.memory),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Architecture, Family};

    fn tiny() -> EstimateInput {
        let a = Architecture {
            family: Family::CausalLm,
            vocab_size: 32_000,
            hidden_size: 4096,
            num_layers: 32,
            num_heads: 32,
            num_kv_heads: 32,
            head_dim: 128,
            intermediate_size: 11_008,
            gated_ffn: true,
            norms_per_layer: 2,
            max_position_embeddings: 4096,
            ..Architecture::default()
        };
        EstimateInput {
            arch: Some(a),
            seq_len: 4096.0,
            new_tokens: 0.0,
            ..EstimateInput::default()
        }
    }

    #[test]
    fn largest_batch_fits_and_next_does_not() {
        let mem = Bytes::gib(24);
        let b = largest_batch(&tiny(), mem).unwrap();
        assert!(
            need(&EstimateInput {
                batch: b as f64,
                ..tiny()
            }) <= mem
        );
        assert!(
            need(&EstimateInput {
                batch: (b + 1) as f64,
                ..tiny()
            }) > mem
        );
        // Hand: Llama-2-7B-shaped in bf16 is 12.55 GiB of weights; MHA KV at 4096 tokens is
        // 2 × 32 × 128 × 32 × 2 B × 4096 = 2 GiB per sequence, so about 5 sequences fit in 24 GiB.
        assert_eq!(b, 4);
    }

    #[test]
    fn fewest_gpus_for_a_big_model() {
        let i = EstimateInput {
            params: Some("70B".into()),
            arch: None,
            ..tiny()
        };
        // 70B in bf16 = 140 GB of weights: one 80 GiB card cannot hold it, two at tp 2 can.
        assert_eq!(fewest_gpus(&i, Bytes::gib(80)), Some(2));
        assert_eq!(fewest_gpus(&i, Bytes::gib(8)), Some(32));
    }

    #[test]
    fn layout_required_bytes_reruns_the_estimate_per_layout() {
        let i = tiny();
        let one = need(&i);
        assert_eq!(layout_required_bytes(&i, Layout::SINGLE), one);
        let tp2 = Layout::candidates(2)[0];
        assert_eq!(tp2.kind, ParallelKind::Tensor);
        let by_hand = need(&EstimateInput {
            gpus: 2.0,
            tp: 2.0,
            ..tiny()
        });
        assert_eq!(layout_required_bytes(&i, tp2), by_hand);
        // TP=2 halves the weights: 12.55 GiB of bf16 weights become about 6.3 GiB per GPU.
        assert!(by_hand < one && one.get() - by_hand.get() > 6 * crate::units::GIB);
        // ZeRO-3 is a training layout only.
        let z3 = Layout::candidates(2)[2];
        assert_eq!(z3.kind, ParallelKind::Zero3);
        assert_eq!(layout_required_bytes(&i, z3), crate::units::MAX_SIZE);
    }
}
