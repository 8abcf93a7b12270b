//! Solvers: the largest batch and context that fit a card, and the fewest GPUs.

use super::Device;
use super::{EstimateInput, MAX_BATCH, MAX_SEQ, Mode, estimate};
use crate::hardware::fit::largest_fitting;
use crate::hardware::{Gpu, Layout, ParallelKind};
use crate::units::Bytes;

/// What fits on the chosen card.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Solutions {
    /// The largest batch (serving: concurrent sequences of `max_model_len`) that fits.
    pub max_batch: Option<u64>,
    /// The largest sequence length (serving: `max_model_len`) that fits at the given batch, at
    /// most the model's trained context.
    pub max_context: Option<u64>,
    /// The model's trained context (`max_position_embeddings`, less the generated tokens for
    /// inference) when it, not the memory, bounds `max_context`: vLLM refuses a longer
    /// `max_model_len`, and past it the model runs untrained.
    pub context_limit: Option<u64>,
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

/// The model's trained context as a bound on what [`largest_context`] varies: `max_model_len`
/// in serving, the sequence in training, the prompt in inference (which adds the generated
/// tokens); `None` when the model does not say (a bare parameter count).
pub fn context_bound(input: &EstimateInput) -> Option<u64> {
    trained_bound(&input.resolve().ok()?)
}

/// [`context_bound`] of a validated workload.
fn trained_bound(w: &crate::estimate::Workload) -> Option<u64> {
    let trained = w.arch.max_position_embeddings;
    if trained == 0 {
        return None;
    }
    match w.mode {
        Mode::Serve | Mode::Training => Some(trained),
        Mode::Inference => trained.checked_sub(w.new_tokens).filter(|&t| t > 0),
    }
}

/// The largest sequence length (serving: `max_model_len`) that fits `memory`, up to the model's
/// trained context ([`context_bound`]).
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
    let hi = context_bound(input).map_or(MAX_SEQ, |b| b.min(MAX_SEQ));
    largest_fitting(f, memory, 1, hi).map(|fit| fit.value)
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

/// The memory one GPU of `on` needs when the run of `input` is spread over `layout`: the estimator run
/// again with the layout's GPUs, tensor / pipeline degrees or ZeRO-3. This is the per-layout
/// function the planner ([`crate::hardware::plan()`]) takes, shared by the CLI's and the npm
/// package's `recommend`. A layout the run cannot use (ZeRO-3 outside training, a TP degree that
/// does not divide the heads) needs [`crate::units::MAX_SIZE`], which no card has.
pub fn layout_required_bytes(input: &EstimateInput, layout: Layout, on: &Gpu) -> Bytes {
    // On the offer's card, whatever card the input named: its generation sets the cuBLAS
    // workspace, its memory vLLM's default batch sizes.
    let input = &EstimateInput {
        gpu: Some(on.id.into()),
        gpu_memory: None,
        ..input.clone()
    };
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
    // A bare parameter count has no KV cache or per-token activations to grow: no batch or
    // context bounds it, so none is given (it said 1,048,576 and 16,777,216). A convolutional
    // network's per-image counts bound its batch; no sequence length reaches it.
    let w = input.resolve().ok();
    let detailed = w.as_ref().is_some_and(|w| w.arch.is_detailed());
    let images = w.as_ref().is_some_and(|w| w.arch.has_image_counts());
    let max_context = largest_context(input, device.memory).filter(|_| detailed);
    Solutions {
        max_batch: largest_batch(input, device.memory).filter(|_| detailed || images),
        max_context,
        context_limit: w
            .as_ref()
            .and_then(trained_bound)
            .filter(|&b| max_context == Some(b)),
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

    /// An H100 SXM5 as CUDA reports it (81,090 MiB).
    fn h100() -> Device {
        Device {
            id: "h100-sxm5-80gb".into(),
            memory: Bytes::new(81_090 * crate::units::MIB),
            hopper_or_newer: true,
            a100: false,
            bf16: true,
        }
    }

    #[test]
    fn the_context_stops_at_the_models_trained_length() {
        // Llama-3.1-8B (max_position_embeddings 131,072) served by vLLM on an H100: the memory
        // holds a longer max_model_len, vLLM refuses one: 131,072, bound by the model.
        let h100 = h100();
        let serve = EstimateInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            mode: Mode::Serve,
            gpu: Some("h100-sxm5-80gb".into()),
            ..EstimateInput::default()
        };
        let s = solve(&serve, &h100);
        assert_eq!(s.max_context, Some(131_072));
        assert_eq!(s.context_limit, Some(131_072));
        // HF inference adds the 256 generated tokens to the prompt: 131,072 − 256.
        let infer = EstimateInput {
            mode: Mode::Inference,
            ..serve.clone()
        };
        assert_eq!(context_bound(&infer), Some(130_816));
        // The tiny model on 24 GiB: memory, not its 4096 positions, is the bound at batch 64.
        let busy = EstimateInput {
            batch: 64.0,
            ..tiny()
        };
        let mem = Bytes::gib(24);
        let s = largest_context(&busy, mem).unwrap();
        assert!(s < 4096, "{s}");
    }

    #[test]
    fn a_bare_parameter_count_has_no_batch_or_context_bound() {
        // 7B in bf16 is 14 GB whatever the batch or context (no KV cache to grow): the solvers
        // give no largest batch or context, only the cards it needs.
        let h100 = h100();
        for mode in [Mode::Serve, Mode::Inference] {
            let s = solve(
                &EstimateInput {
                    params: Some("7B".into()),
                    mode,
                    ..EstimateInput::default()
                },
                &h100,
            );
            assert_eq!((s.max_batch, s.max_context), (None, None), "{mode:?}");
            assert_eq!(s.min_gpus, Some(1));
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
        // On the H100 the input now names (its workspace is Hopper's).
        let h100 = crate::hardware::find_gpu("h100-sxm5-80gb").unwrap();
        let i = EstimateInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..tiny()
        };
        let one = need(&i);
        assert_eq!(layout_required_bytes(&tiny(), Layout::SINGLE, h100), one);
        let tp2 = Layout::candidates(2)[0];
        assert_eq!(tp2.kind, ParallelKind::Tensor);
        let by_hand = need(&EstimateInput {
            gpus: 2.0,
            tp: 2.0,
            ..i.clone()
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
        let a100 = crate::hardware::find_gpu("a100-sxm4-80gb").unwrap();
        let on_h100 = layout_required_bytes(&i, Layout::SINGLE, h100);
        let on_a100 = layout_required_bytes(&i, Layout::SINGLE, a100);
        assert!(on_a100 < on_h100, "{on_a100:?} {on_h100:?}");
    }
}
