//! `M_theory` (`required_bytes`) of the serving engines is the smallest card the verdict
//! accepts: a card of that many bytes fits the run as asked, and a card a little smaller does
//! not. Searched here by bisection on `gpu_memory`, independently of each engine's formula.

use super::{Engine, EstimateInput, Mode, estimate};
use super::{ModelInput, RunInput, ServingInput};

/// The run on a card of `bytes`.
fn on_card(input: &EstimateInput, bytes: u64) -> EstimateInput {
    {
        let mut input = input.clone();
        input.hardware.gpu_memory = Some(alloc::format!("{bytes}B"));
        input
    }
}

/// Whether a card of `bytes` holds the run.
fn fits(input: &EstimateInput, bytes: u64) -> bool {
    estimate(&on_card(input, bytes))
        .ok()
        .and_then(|e| e.fit)
        .is_some_and(|f| f.fits)
}

/// `M_theory` of the run on a card of `bytes`.
fn required_on(input: &EstimateInput, bytes: u64) -> u64 {
    estimate(&on_card(input, bytes))
        .unwrap()
        .required_bytes
        .get()
}

/// The smallest card of whole MiB the verdict accepts, by bisection (the verdict is monotone in
/// the card's memory).
fn smallest_fitting(input: &EstimateInput) -> u64 {
    const MIB: u64 = 1 << 20;
    let (mut lo, mut hi) = (1u64, 4u64 << 20); // 1 MiB to 4 TiB, in MiB
    assert!(fits(input, hi * MIB), "fits no card up to 4 TiB");
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(input, mid * MIB) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo * MIB
}

fn serve(model: &str, engine: Engine) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The cases: each engine, a small and a large model, one and several requests, images.
fn cases() -> alloc::vec::Vec<EstimateInput> {
    let mut out = alloc::vec::Vec::new();
    for engine in [Engine::Vllm, Engine::Sglang, Engine::Trtllm] {
        for model in ["Qwen/Qwen2.5-0.5B-Instruct", "meta-llama/Llama-3.1-8B"] {
            for batch in [1.0, 16.0] {
                out.push({
                    let mut input = serve(model, engine);
                    input.run.batch = batch;
                    input
                });
            }
        }
    }
    // The case that said "fits" and then "does not fit" (a budget close to the card's).
    out.push({
        let mut input = serve("Qwen/Qwen3-VL-8B-Instruct", Engine::Vllm);
        input.serving.max_model_len = Some(16384.0);
        input.run.images = 2.0;
        input.run.image_width = Some(1920.0);
        input.run.image_height = Some(1080.0);
        input
    });
    // Memory other programs hold: in vLLM's rest (0.9.1 and later), in its budget before.
    for engine_version in [None, Some(alloc::string::String::from("0.8.5"))] {
        out.push({
            let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
            input.hardware.memory_in_use = Some("1.5GiB".into());
            input.run.engine_version = engine_version;
            input
        });
    }
    // SGLang's LoRA pool, out of the static fraction like the weights.
    out.push({
        let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Sglang);
        input.serving.enable_lora = true;
        input.serving.max_lora_rank = Some(64.0);
        input
    });
    for engine in [Engine::Sglang, Engine::Trtllm] {
        out.push({
            let mut input = serve("meta-llama/Llama-3.1-8B", engine);
            input.hardware.memory_in_use = Some("1.5GiB".into());
            input
        });
    }
    out
}

/// On the smallest card that fits and on one a MiB smaller, the estimate's `M_theory` says the
/// same as its verdict: more than the card where it does not fit, and at most the card where it
/// fits give or take the pool's rounding to whole blocks (vLLM's pool of 2 MiB blocks leaves up
/// to a block of its budget unused, which `M_theory` does not count on: up to a block over
/// `1 − gpu_memory_utilization`, 20 MiB here, on the safe side). SGLang's defaults (its memory
/// fraction, prefill chunk and CUDA graphs) follow the card, so its `M_theory` is the card's,
/// with the settings it picks there.
#[test]
fn m_theory_agrees_with_the_verdict_at_the_edge() {
    const MIB: u64 = 1 << 20;
    let mut bad = alloc::vec::Vec::new();
    for input in cases() {
        let smallest = smallest_fitting(&input);
        let below = smallest - MIB;
        let (at, under) = (required_on(&input, smallest), required_on(&input, below));
        if at > smallest + 32 * MIB || under <= below {
            bad.push(alloc::format!(
                "{:?} {:?} batch {}: fits from {} MiB; M_theory there {} MiB, a MiB below {} MiB",
                input.run.engine,
                input.model.model,
                input.run.batch,
                smallest / MIB,
                at / MIB,
                under / MIB
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// vLLM's and TensorRT-LLM's settings do not follow the card's memory (the cards here are of
/// one class): named without a card, `M_theory` is the smallest card that fits, to a MiB (the
/// bisection's step) and a block of KV.
#[test]
fn m_theory_without_a_card_is_the_smallest_card_that_fits() {
    const MIB: u64 = 1 << 20;
    let mut bad = alloc::vec::Vec::new();
    for input in cases()
        .into_iter()
        .filter(|i| i.run.engine != Engine::Sglang && i.hardware.memory_in_use.is_none())
    {
        let required = estimate(&input).unwrap().required_bytes.get();
        let smallest = smallest_fitting(&input);
        if required > smallest + 32 * MIB || smallest > required + MIB {
            bad.push(alloc::format!(
                "{:?} {:?} batch {}: required {} MiB, smallest fitting {} MiB",
                input.run.engine,
                input.model.model,
                input.run.batch,
                required / MIB,
                smallest / MIB
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
