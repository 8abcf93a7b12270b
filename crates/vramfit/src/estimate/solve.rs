//! Solvers: the largest batch and context that fit a card, the fewest GPUs, and the changes that
//! make a run fit. Every answer is the estimator's own: the value fits and the next one up does
//! not, or the answer names what else bounds it (the model's trained context, llama.cpp's
//! shared context).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Device;
use super::{AttentionImpl, Context, EstimateInput, LayerOffload, MAX_BATCH, MAX_SEQ, Mode};
use crate::gpu::fit::{Fit, largest_fitting};
use crate::precision::KvDtype;
use crate::units::Bytes;

/// What bounds a solver's answer besides the card's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Bound {
    /// The card's memory: the next value up does not fit.
    Memory,
    /// The model's trained context (`max_position_embeddings`): vLLM refuses a longer
    /// `max_model_len`, and past it the model runs untrained.
    TrainedContext,
    /// llama.cpp's context (`-c`, `max_model_len`), which its parallel sequences share: at most
    /// `max_model_len / (seq_len + new_tokens)` sequences.
    SharedContext,
}

/// A change to the input that makes the run fit the card, proven by the estimator.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FitFix {
    /// The input field it changes (`gpu_layers`, `kv_dtype`, `max_model_len`; Ollama: `attention`).
    pub field: String,
    /// The value that fits: a number, or a name such as `q8_0`.
    pub value: String,
    /// What the run then needs of the card (at most its memory).
    pub required_bytes: Bytes,
}

/// What fits on the chosen card.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Solutions {
    /// The largest batch (serving: concurrent sequences of `max_model_len`) that fits; absent
    /// when not even one fits, or when nothing bounds it (no memory grows with the batch).
    pub max_batch: Option<u64>,
    /// What bounds `max_batch`.
    pub batch_bound: Option<Bound>,
    /// The largest context that fits at the given batch: the sequence (training), the prompt
    /// (Hugging Face inference), `max_model_len` (vLLM serving, and llama.cpp's `-c`, which
    /// holds every sequence's prompt and output), at most the model's trained context.
    pub max_context: Option<u64>,
    /// What bounds `max_context`.
    pub context_bound: Option<Bound>,
    /// The model's trained context when it, not the memory, bounds `max_context`.
    pub context_limit: Option<u64>,
    /// The fewest GPUs of this card that fit: tensor parallel for inference and serving, ZeRO-3
    /// for training, llama.cpp's layer split for llama.cpp; powers of two up to 64.
    pub min_gpus: Option<u64>,
    /// When the run does not fit the card: changes of one input each that make it fit.
    pub fixes: Vec<FitFix>,
}

/// What one GPU needs for `input`, or [`crate::units::MAX_SIZE`] (which no card has) for an
/// input the estimator refuses (a tp that does not divide the heads) or cannot hold exactly.
pub fn need(input: &EstimateInput) -> Bytes {
    input
        .resolve()
        .and_then(|w| super::within_reach(w.figures()))
        .map_or(crate::units::MAX_SIZE, |e| {
            // Over cards that are not alike each card holds its own share: a run that one card
            // cannot hold needs more than any card (the safe side for the solvers, which compare
            // one memory).
            if !input.hardware.cards.is_empty() && e.cards.iter().any(|c| !c.fits) {
                crate::units::MAX_SIZE
            } else if refused_at_start(&e) {
                // An engine that refuses to start for the memory already in use (vLLM's check
                // of the free memory) runs no batch and no context: no answer fits.
                crate::units::MAX_SIZE
            } else {
                e.required_bytes
            }
        })
}

/// Whether the engine refuses to start for lack of free memory (the fit's reason
/// `vllm_free_memory_short`, which the estimate gives with or without its text).
fn refused_at_start(e: &super::Estimate) -> bool {
    e.fit
        .as_ref()
        .and_then(|f| f.reason.as_ref())
        .is_some_and(|r| r.key == "vllm_free_memory_short")
}

/// The runner splits whole layers over the GPUs and the CPU (llama.cpp, Ollama): its fixes
/// vary the layers on the GPU.
fn splits_layers(input: &EstimateInput) -> bool {
    input.runner().rules().offload.splits_layers()
}

/// llama.cpp's own `-c` is shared by its sequences; Ollama gives each its own `num_ctx`.
fn shared_context(input: &EstimateInput) -> bool {
    matches!(input.runner().rules().context, Context::Shared { .. })
}

/// The context is the engine's own setting (`max_model_len` in the input): the serving
/// engines, llama.cpp and Ollama.
fn context_is_max_model_len(input: &EstimateInput) -> bool {
    input.runner().rules().context.is_engine_setting()
}

/// The tokens one sequence takes: the prompt and, except in training, the generated tokens.
fn tokens_per_sequence(input: &EstimateInput) -> Option<u64> {
    let w = input.resolve().ok()?;
    Some(if w.mode == Mode::Training {
        w.seq_len
    } else {
        w.seq_len.saturating_add(w.new_tokens)
    })
}

/// The largest batch that fits `memory`, with the proof: the next batch up and what it needs,
/// and what bounds the answer. `None` when not even one sequence fits, or when nothing bounds
/// the batch.
pub fn largest_batch_fit(input: &EstimateInput, memory: Bytes) -> Option<(Fit, Bound)> {
    let f = |b: u64| {
        need(&{
            let mut input = input.clone();
            input.run.batch = b as f64;
            input
        })
    };
    // llama.cpp with a given context: its sequences share it.
    let shared = match (shared_context(input), input.serving.max_model_len) {
        (true, Some(ctx)) if ctx.is_finite() && ctx >= 1.0 => {
            let per = tokens_per_sequence(input)?.max(1);
            Some((ctx as u64 / per).min(MAX_BATCH))
        }
        _ => None,
    };
    let hi = shared.unwrap_or(MAX_BATCH);
    let fit = largest_fitting(f, memory, 1, hi)?;
    let bound = match (fit.next_value, shared) {
        (Some(_), _) => Bound::Memory,
        (None, Some(_)) => Bound::SharedContext,
        // The search's own bound: no memory grows with the batch, so no answer is a largest.
        (None, None) => return None,
    };
    Some((fit, bound))
}

/// The largest batch that fits `memory` (see [`largest_batch_fit`]).
pub fn largest_batch(input: &EstimateInput, memory: Bytes) -> Option<u64> {
    largest_batch_fit(input, memory).map(|(fit, _)| fit.value)
}

/// The model's trained context as a bound on what [`largest_context`] varies: `max_model_len`
/// in serving (and llama.cpp's context, once per sequence), the sequence in training, the prompt
/// in Hugging Face inference (which adds the generated tokens); `None` when the model does not
/// say (a bare parameter count).
pub fn context_bound(input: &EstimateInput) -> Option<u64> {
    trained_bound(&input.resolve().ok()?)
}

/// [`context_bound`] of a validated workload.
fn trained_bound(w: &crate::estimate::Workload) -> Option<u64> {
    let trained = w.arch.max_position_embeddings;
    if trained == 0 {
        return None;
    }
    match w.rules().context {
        Context::Sequence | Context::PerSequence { .. } => Some(trained),
        Context::Shared { .. } => Some(trained.saturating_mul(w.batch)),
        Context::Prompt => trained.checked_sub(w.new_tokens).filter(|&t| t > 0),
    }
}

/// The input with its context set to `n`: `max_model_len` for vLLM serving and llama.cpp,
/// else the sequence.
fn with_context(input: &EstimateInput, n: u64) -> EstimateInput {
    if context_is_max_model_len(input) {
        {
            let mut input = input.clone();
            input.serving.max_model_len = Some(n as f64);
            input
        }
    } else {
        {
            let mut input = input.clone();
            input.run.seq_len = n as f64;
            input
        }
    }
}

/// The largest context that fits `memory`, with the proof and what bounds it (see
/// [`Solutions::max_context`]).
pub fn largest_context_fit(input: &EstimateInput, memory: Bytes) -> Option<(Fit, Bound)> {
    let trained = context_bound(input);
    let hi = trained.map_or(MAX_SEQ, |b| b.min(MAX_SEQ));
    // llama.cpp's context holds at least one sequence's prompt and output. The sequence is read
    // at the largest context searched: the input's own context, or the engine's default (Ollama's
    // num_ctx of 4096 on a small card), may be shorter than one sequence, which the estimator
    // refuses.
    let lo = if splits_layers(input) {
        tokens_per_sequence(&with_context(input, hi))?
    } else {
        1
    };
    let fit = largest_fitting(|n| need(&with_context(input, n)), memory, lo, hi)?;
    let bound = match (fit.next_value, trained) {
        (Some(_), _) => Bound::Memory,
        (None, Some(_)) => Bound::TrainedContext,
        (None, None) => return None,
    };
    Some((fit, bound))
}

/// The largest context that fits `memory` (see [`largest_context_fit`]).
pub fn largest_context(input: &EstimateInput, memory: Bytes) -> Option<u64> {
    largest_context_fit(input, memory).map(|(fit, _)| fit.value)
}

/// The input spread over `n` GPUs of one card as its engine spreads a model: ZeRO-3 for
/// training, layers for llama.cpp, tensor parallel otherwise.
fn over_gpus(input: &EstimateInput, n: u64) -> EstimateInput {
    // A list of cards: `n` of its first card (the fewest GPUs are asked of one card).
    if let Some(first) = input.hardware.cards.first() {
        let card = super::card_count(first).1;
        let one = {
            let mut input = input.clone();
            input.hardware.cards = alloc::vec::Vec::new();
            input.hardware.gpu = Some(card.into());
            input.placement.tensor_split = alloc::vec::Vec::new();
            input
        };
        return over_gpus(&one, n);
    }
    if input.run.mode == Mode::Training {
        {
            let mut spread_input = input.clone();
            spread_input.placement.gpus = Some(n as f64);
            spread_input.placement.zero = if n > 1 { 3.0 } else { input.placement.zero };
            spread_input
        }
    } else if splits_layers(input) {
        {
            let mut input = input.clone();
            input.placement.gpus = Some(n as f64);
            input.placement.tp = 1.0;
            input.placement.pp = 1.0;
            input
        }
    } else {
        {
            let mut input = input.clone();
            input.placement.gpus = Some(n as f64);
            input.placement.tp = n as f64;
            input.placement.pp = 1.0;
            input
        }
    }
}

/// The fewest GPUs of `memory` each, in powers of two up to 64 (see [`Solutions::min_gpus`]):
/// every smaller power of two does not fit. Data parallel alone never reduces per-GPU memory.
pub fn fewest_gpus(input: &EstimateInput, memory: Bytes) -> Option<u64> {
    (0..7)
        .map(|k| 1u64 << k)
        .find(|&n| need(&over_gpus(input, n)) <= memory)
}

/// Changes of one input each that make a run that does not fit `memory` fit it: for llama.cpp
/// the most layers on the GPU (`-ngl`), the fewest blocks' experts in CPU memory
/// (`--n-cpu-moe`, a MoE model), a quantized KV cache (q8_0, then q4_0), the longest
/// context; for vLLM an fp8 KV cache and the longest `max_model_len`. Each is the estimator's
/// answer, at most `memory`; none when the run fits.
pub fn fixes(input: &EstimateInput, memory: Bytes) -> Vec<FitFix> {
    let mut out = Vec::new();
    if need(input) <= memory {
        return out;
    }
    // The change, if the run then fits.
    let fits = |field: &str, value: String, changed: EstimateInput| {
        let required = need(&changed);
        (required <= memory).then(|| FitFix {
            field: field.to_string(),
            value,
            required_bytes: required,
        })
    };
    let Ok(w) = input.resolve() else { return out };
    if splits_layers(input) {
        let layers = w.arch.num_layers;
        // More blocks on the GPU never need less memory: the most that fit, if any.
        let ngl = |n: u64| {
            need(&{
                let mut input = input.clone();
                input.placement.gpu_layers = Some(n as f64);
                input
            })
        };
        if let Some(fit) = largest_fitting(ngl, memory, 1, layers) {
            let changed = {
                let mut input = input.clone();
                input.placement.gpu_layers = Some(fit.value as f64);
                input
            };
            out.extend(fits("gpu_layers", fit.value.to_string(), changed));
        }
        // llama.cpp's MoE offload: more blocks' experts in CPU memory never need more of the
        // card, so the fewest that fit (every block's experts, if even that does not, none).
        if w.rules().expert_offload && w.arch.moe.is_some() && w.n_cpu_moe < layers {
            let with = |n: u64| {
                let mut input = input.clone();
                input.placement.n_cpu_moe = Some(n as f64);
                input
            };
            let gpu_blocks = |k: u64| need(&with(layers - k));
            if let Some(fit) = largest_fitting(gpu_blocks, memory, 0, layers - 1) {
                let n = layers - fit.value;
                out.extend(fits("n_cpu_moe", n.to_string(), with(n)));
            }
        }
        // Ollama quantizes its KV cache only with flash attention: that first.
        let ollama = w.rules().offload == LayerOffload::EngineDecides;
        if ollama && input.run.attention != AttentionImpl::Flash {
            let changed = {
                let mut input = input.clone();
                input.run.attention = AttentionImpl::Flash;
                input
            };
            out.extend(fits("attention", String::from("flash"), changed));
        }
        // The first of q8_0 and q4_0, smaller than the cache asked for, that fits.
        let smaller: &[KvDtype] = match w.kv_dtype {
            _ if ollama && input.run.attention != AttentionImpl::Flash => &[],
            KvDtype::Q4_0 => &[],
            KvDtype::Q8_0 => &[KvDtype::Q4_0],
            _ => &[KvDtype::Q8_0, KvDtype::Q4_0],
        };
        let kv_fix = smaller.iter().find_map(|&kv| {
            let changed = {
                let mut input = input.clone();
                input.run.kv_dtype = kv;
                input
            };
            fits("kv_dtype", kv.name().to_string(), changed)
        });
        out.extend(kv_fix);
    } else if w.kv_dtype != KvDtype::Fp8
        && w.rules()
            .kv_dtypes
            .is_some_and(|k| k.contains(&KvDtype::Fp8))
    {
        let changed = {
            let mut input = input.clone();
            input.run.kv_dtype = KvDtype::Fp8;
            input
        };
        out.extend(fits("kv_dtype", KvDtype::Fp8.name().to_string(), changed));
    }
    if context_is_max_model_len(input)
        && let Some((fit, _)) = largest_context_fit(input, memory)
    {
        let changed = with_context(input, fit.value);
        out.extend(fits("max_model_len", fit.value.to_string(), changed));
    }
    out
}

/// All the solvers against `device`.
pub fn solve(input: &EstimateInput, device: &Device) -> Solutions {
    // Solve against the memory alone: the device is named in the input only for its workspace size.
    // A bare parameter count grows by the KV cache of the shape assumed for it, out of training
    // (which keeps no cache, and whose activations are then a share of the weights): its batch
    // and context are bounded there, and nowhere else. A convolutional network's per-image
    // counts bound its batch; no sequence length reaches it.
    let w = input.resolve().ok();
    let detailed = w.as_ref().is_some_and(|w| w.arch.is_detailed());
    let images = w.as_ref().is_some_and(|w| w.arch.has_image_counts());
    let cached = w
        .as_ref()
        .is_some_and(|w| w.arch.is_bare_decoder() && w.mode != Mode::Training);
    // Against what is free: the card's memory less what the input says is in use on it.
    let in_use = w
        .as_ref()
        .and_then(|w| w.device.as_ref())
        .map_or(Bytes::ZERO, |d| d.in_use);
    let memory = device.memory.minus(in_use);
    let batch = largest_batch_fit(input, memory).filter(|_| detailed || images || cached);
    let context = largest_context_fit(input, memory).filter(|_| detailed || cached);
    let trained = w.as_ref().and_then(trained_bound);
    Solutions {
        max_batch: batch.map(|(fit, _)| fit.value),
        batch_bound: batch.map(|(_, bound)| bound),
        max_context: context.map(|(fit, _)| fit.value),
        context_bound: context.map(|(_, bound)| bound),
        context_limit: context
            .filter(|(_, bound)| *bound == Bound::TrainedContext)
            .and(trained),
        min_gpus: fewest_gpus(input, memory),
        fixes: if detailed {
            fixes(input, memory)
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::HardwareInput;
    use crate::estimate::ModelInput;
    use crate::estimate::RunInput;

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

    /// An H100 SXM5 as CUDA reports it (81,090 MiB).
    fn h100() -> Device {
        Device {
            id: "h100-sxm5-80gb",
            gpu: crate::gpu::find_gpu("h100-sxm5-80gb"),
            memory: Bytes::new(81_090 * crate::units::MIB),
            hopper_or_newer: true,
            a100: false,
            bf16: true,
            fp8: true,
            fp4: false,
            in_use: Bytes::ZERO,
        }
    }

    #[test]
    fn the_context_stops_at_the_models_trained_length() {
        // Llama-3.1-8B (max_position_embeddings 131,072) served by vLLM on an H100: the memory
        // holds a longer max_model_len, vLLM refuses one: 131,072, bound by the model.
        let h100 = h100();
        let serve = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let s = solve(&serve, &h100);
        assert_eq!(s.max_context, Some(131_072));
        assert_eq!(s.context_limit, Some(131_072));
        // HF inference adds the 256 generated tokens to the prompt: 131,072 − 256.
        let infer = {
            let mut input = serve.clone();
            input.run.mode = Mode::Inference;
            input
        };
        assert_eq!(context_bound(&infer), Some(130_816));
        // The tiny model on 24 GiB: memory, not its 4096 positions, is the bound at batch 64.
        let busy = {
            let mut input = tiny();
            input.run.batch = 64.0;
            input
        };
        let mem = Bytes::gib(24);
        let s = largest_context(&busy, mem).unwrap();
        assert!(s < 4096, "{s}");
    }

    #[test]
    fn a_bare_parameter_count_is_bounded_by_its_assumed_cache() {
        // 7B in bf16 is 14 GB; the cache of the shape assumed for it (47 layers × 8 KV heads ×
        // 128, 188 KiB a token) grows with the batch and the context, which the solvers bound.
        let h100 = h100();
        for mode in [Mode::Serve, Mode::Inference] {
            let i = EstimateInput {
                model: ModelInput {
                    params: Some("7B".into()),
                    ..Default::default()
                },
                run: RunInput {
                    mode,
                    ..Default::default()
                },
                ..Default::default()
            };
            let s = solve(&i, &h100);
            assert!(s.max_batch.is_some() && s.max_context.is_some(), "{mode:?}");
            assert_eq!(s.min_gpus, Some(1));
        }
        // Training keeps no cache: 7B there is its weights' multiple whatever the batch or
        // context, so no largest batch or context is given.
        let s = solve(
            &EstimateInput {
                model: ModelInput {
                    params: Some("7B".into()),
                    ..Default::default()
                },
                run: RunInput {
                    mode: Mode::Training,
                    ..Default::default()
                },
                ..Default::default()
            },
            &h100,
        );
        assert_eq!((s.max_batch, s.max_context), (None, None));
    }

    #[test]
    fn largest_batch_fits_and_next_does_not() {
        let mem = Bytes::gib(24);
        let b = largest_batch(&tiny(), mem).unwrap();
        assert!(
            need(&{
                let mut input = tiny();
                input.run.batch = b as f64;
                input
            }) <= mem
        );
        assert!(
            need(&{
                let mut input = tiny();
                input.run.batch = (b + 1) as f64;
                input
            }) > mem
        );
        // Hand: Llama-2-7B-shaped in bf16 is 12.55 GiB of weights; MHA KV at 4096 tokens is
        // 2 × 32 × 128 × 32 × 2 B × 4096 = 2 GiB per sequence, so about 5 sequences fit in 24 GiB.
        assert_eq!(b, 4);
    }

    #[test]
    fn fewest_gpus_for_a_big_model() {
        let i = {
            let mut input = tiny();
            input.model.params = Some("70B".into());
            input.model.arch = None;
            input
        };
        // 70B in bf16 = 140 GB of weights: one 80 GiB card cannot hold it. Two at tp 2 hold
        // 65.2 GiB of weights and the guide's 13.0 GiB of activations each, and the cache of the
        // shape assumed for a bare count (83 layers × 8 KV heads × 128, 166 KiB a token on each
        // of the two, 0.65 GiB for 4,096 tokens) with the CUDA context takes them past 80 GiB.
        assert!(need(&over_gpus(&i, 2)) > Bytes::gib(80));
        assert_eq!(fewest_gpus(&i, Bytes::gib(80)), Some(4));
        assert_eq!(fewest_gpus(&i, Bytes::gib(8)), Some(32));
    }
}
