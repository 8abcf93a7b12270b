//! Property tests of the solvers on every engine and mode: each answer is proved by the
//! estimator. The largest batch and context fit and the next value up does not, or the answer is
//! what else bounds it (the model's trained context, llama.cpp's shared context), said so; the
//! fewest GPUs fit and every smaller power of two does not; every fix makes the run fit.

use proptest::prelude::*;
use vramfit::Bytes;
use vramfit::estimate::{
    Bound, Engine, EstimateInput, MAX_BATCH, Mode, context_bound, estimate, fixes, largest_batch,
    largest_batch_fit, largest_context_fit, solve,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, ServingInput, TrainingInput};
use vramfit::precision::{GgufFileType, KvDtype, Quantization};

/// What the run needs of one GPU, from the full estimate (not the solvers' numbers-only path), or
/// "never fits" when the estimator refuses it.
fn need(input: &EstimateInput) -> Bytes {
    estimate(input).map_or(Bytes::new(u64::MAX), |e| e.required_bytes)
}

/// llama.cpp runs it, itself or under Ollama: its context is `max_model_len`.
fn llamacpp(input: &EstimateInput) -> bool {
    matches!(input.run.engine, Engine::Llamacpp | Engine::Ollama)
        && input.run.mode != Mode::Training
}

/// The input with its context at `n`, as each engine takes it: llama.cpp's `-c`, Ollama's
/// `num_ctx`, vLLM's `max_model_len` and SGLang's `context_length` (serving or offline: either
/// sizes its pool for it), or the sequence (training, transformers).
fn at_context(input: &EstimateInput, n: u64) -> EstimateInput {
    let transformers = input.run.mode == Mode::Inference && input.run.engine == Engine::Hf;
    if input.run.mode != Mode::Training && !transformers {
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

/// The input over `n` GPUs as its engine spreads a model.
fn over(input: &EstimateInput, n: u64) -> EstimateInput {
    let (tp, zero) = if input.run.mode == Mode::Training {
        (1.0, if n > 1 { 3.0 } else { input.placement.zero })
    } else if llamacpp(input) {
        (1.0, input.placement.zero)
    } else {
        (n as f64, input.placement.zero)
    };
    {
        let mut input = input.clone();
        input.placement.gpus = Some(n as f64);
        input.placement.tp = tp;
        input.placement.pp = 1.0;
        input.placement.zero = zero;
        input
    }
}

const MODELS: [&str; 6] = [
    "openai-community/gpt2",
    "Qwen/Qwen2.5-0.5B",
    "meta-llama/Llama-3.1-8B",
    "Qwen/Qwen3-32B",
    "mistralai/Mixtral-8x7B-v0.1",
    "google/gemma-3-27b-it",
];

const CARDS: [&str; 5] = [
    "rtx-3060-12gb",
    "rtx-4090",
    "a100-pcie-40gb",
    "l40s",
    "h100-sxm5-80gb",
];

/// Every engine and mode the solvers distinguish, with the formats each loads.
fn run() -> impl Strategy<Value = (Mode, Engine, Quantization, KvDtype)> {
    let q4 = Quantization::Gguf {
        file_type: GgufFileType::Q4_K_M,
    };
    let q8 = Quantization::Gguf {
        file_type: GgufFileType::Q8_0,
    };
    prop::sample::select(vec![
        (
            Mode::Inference,
            Engine::Hf,
            Quantization::None,
            KvDtype::Auto,
        ),
        (
            Mode::Inference,
            Engine::Vllm,
            Quantization::None,
            KvDtype::Auto,
        ),
        (Mode::Serve, Engine::Vllm, Quantization::None, KvDtype::Auto),
        (Mode::Serve, Engine::Vllm, Quantization::None, KvDtype::Fp8),
        (Mode::Inference, Engine::Llamacpp, q4, KvDtype::Auto),
        (Mode::Inference, Engine::Llamacpp, q8, KvDtype::Q8_0),
        (Mode::Serve, Engine::Llamacpp, q4, KvDtype::Auto),
        (
            Mode::Serve,
            Engine::Sglang,
            Quantization::None,
            KvDtype::Auto,
        ),
        (
            Mode::Serve,
            Engine::Sglang,
            Quantization::None,
            KvDtype::Fp8,
        ),
        (Mode::Inference, Engine::Ollama, q4, KvDtype::Auto),
        (Mode::Serve, Engine::Ollama, q8, KvDtype::Auto),
        (
            Mode::Training,
            Engine::Hf,
            Quantization::None,
            KvDtype::Auto,
        ),
    ])
}

fn input() -> impl Strategy<Value = EstimateInput> {
    (
        prop::sample::select(MODELS.to_vec()),
        prop::sample::select(CARDS.to_vec()),
        run(),
        1u64..=8,
        prop::sample::select(vec![128u64, 512, 2048, 8192]),
        prop::option::of(prop::sample::select(vec![4096u64, 16_384, 32_768, 131_072])),
        prop::sample::select(vec![0u64, 16]),
    )
        .prop_map(
            |(model, gpu, (mode, engine, q, kv), batch, seq, ctx, lora)| EstimateInput {
                model: ModelInput {
                    model: Some(model.into()),
                    quantization: q,
                    ..Default::default()
                },
                run: RunInput {
                    mode,
                    engine,
                    kv_dtype: kv,
                    batch: batch as f64,
                    seq_len: seq as f64,
                    ..Default::default()
                },
                training: TrainingInput {
                    lora_rank: if mode == Mode::Training {
                        lora as f64
                    } else {
                        0.0
                    },
                    ..Default::default()
                },
                serving: ServingInput {
                    max_model_len: ctx.map(|c| c as f64),
                    ..Default::default()
                },
                hardware: HardwareInput {
                    gpu: Some(gpu.into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        // llama.cpp refuses a context shorter than one sequence's prompt and output.
        .prop_filter("a valid input", |i| i.resolve().is_ok())
}

/// The memory of the card the input names (every input here is valid and names one).
fn memory(input: &EstimateInput) -> Bytes {
    let w = input.resolve().expect("a valid input");
    w.device.expect("a catalog card").memory
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The largest batch fits; the next one up does not, or llama.cpp's context holds no more
    /// sequences of prompt and output; no answer means one sequence does not fit.
    #[test]
    fn the_largest_batch_is_proved(input in input()) {
        let mem = memory(&input);
        let at = |b: u64| need(&{
let mut input = input.clone();
input.run.batch = b as f64;
input
});
        match largest_batch_fit(&input, mem) {
            Some((fit, bound)) => {
                let b = fit.value;
                prop_assert!(b < MAX_BATCH, "the search bound {b} given as an answer");
                prop_assert!(at(b) <= mem, "batch {b} needs {:?} > {mem:?}", at(b));
                match bound {
                    Bound::Memory => prop_assert!(at(b + 1) > mem, "batch {} fits too", b + 1),
                    Bound::SharedContext => {
                        let ctx = input.serving.max_model_len.unwrap_or_default() as u64;
                        let per = input.run.seq_len as u64 + input.run.new_tokens as u64;
                        prop_assert!(input.run.engine == Engine::Llamacpp);
                        prop_assert_eq!(b, ctx / per);
                    }
                    Bound::TrainedContext => prop_assert!(false, "a batch bound by the context"),
                }
            }
            None => prop_assert!(
                at(1) > mem || at(MAX_BATCH) <= mem,
                "one sequence fits, yet no largest batch"
            ),
        }
    }

    /// The largest context (llama.cpp's `-c`, vLLM's `max_model_len`, or the sequence) fits;
    /// the next one up does not, or it is the model's trained context.
    #[test]
    fn the_largest_context_is_proved(input in input()) {
        let mem = memory(&input);
        let at = |n: u64| need(&at_context(&input, n));
        match largest_context_fit(&input, mem) {
            Some((fit, bound)) => {
                let c = fit.value;
                prop_assert!(at(c) <= mem, "context {c} needs {:?} > {mem:?}", at(c));
                match bound {
                    Bound::Memory => prop_assert!(at(c + 1) > mem, "context {} fits too", c + 1),
                    Bound::TrainedContext => prop_assert_eq!(Some(c), context_bound(&input)),
                    Bound::SharedContext => prop_assert!(false, "a context bound by itself"),
                }
            }
            None => {
                // Not one sequence fits: in memory, or (llama.cpp) within the trained context.
                let lo = if llamacpp(&input) { (input.run.seq_len + input.run.new_tokens) as u64 } else { 1 };
                let past_trained = context_bound(&input).is_some_and(|b| b < lo);
                prop_assert!(at(lo) > mem || past_trained);
            }
        }
    }

    /// The fewest GPUs fit, and every smaller power of two does not.
    #[test]
    fn the_fewest_gpus_are_proved(input in input()) {
        let mem = memory(&input);
        let s = solve(&input, &input.resolve().unwrap().device.unwrap());
        let powers = (0..7).map(|k| 1u64 << k);
        match s.min_gpus {
            Some(n) => {
                prop_assert!(need(&over(&input, n)) <= mem);
                for m in powers.take_while(|&m| m < n) {
                    prop_assert!(need(&over(&input, m)) > mem, "{m} GPUs fit too");
                }
            }
            None => {
                for m in powers {
                    prop_assert!(need(&over(&input, m)) > mem, "{m} GPUs fit");
                }
            }
        }
    }

    /// A run that does not fit gets fixes, each of which makes it fit; a run that fits gets none.
    #[test]
    fn every_fix_makes_the_run_fit(input in input()) {
        let mem = memory(&input);
        let found = fixes(&input, mem);
        if need(&input) <= mem {
            prop_assert!(found.is_empty());
        }
        for f in &found {
            let changed = match f.field.as_str() {
                "gpu_layers" => {
let mut input = input.clone();
input.placement.gpu_layers = Some(f.value.parse().unwrap());
input
},
                "attention" => {
                    prop_assert_eq!(f.value.as_str(), "flash");
                    {
let mut input = input.clone();
input.run.attention = vramfit::estimate::AttentionImpl::Flash;
input
}
                }
                "kv_dtype" => {
let mut input = input.clone();
input.run.kv_dtype = KvDtype::parse("kv_dtype", &f.value).unwrap();
input
},
                "max_model_len" => {
let mut input = input.clone();
input.serving.max_model_len = Some(f.value.parse().unwrap());
input
},
                "n_cpu_moe" => {
let mut input = input.clone();
input.placement.n_cpu_moe = Some(f.value.parse().unwrap());
input
},
                other => return Err(TestCaseError::fail(format!("unknown fix {other}"))),
            };
            prop_assert_eq!(need(&changed), f.required_bytes);
            prop_assert!(f.required_bytes <= mem, "{f:?} does not fit {mem:?}");
        }
    }
}

/// The case by hand: Qwen3-32B in Q4_K_M under llama.cpp on a 24 GB RTX 4090. At
/// `-c 16384` it fits, and the solver's largest context is a context the card holds, not the
/// model's 40,960 positions; at `-c 32768` it does not fit, and the fixes say what does.
#[test]
fn llamacpp_solves_its_context_not_the_prompt() {
    let base = EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen3-32B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(16_384.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("rtx-4090".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let w = base.resolve().unwrap();
    let device = w.device.clone().unwrap();
    let s = solve(&base, &device);
    let c = s.max_context.unwrap();
    assert_eq!(s.context_bound, Some(Bound::Memory));
    assert!((16_384..40_960).contains(&c), "{c}");
    let long = {
        let mut input = base.clone();
        input.serving.max_model_len = Some(32_768.0);
        input
    };
    assert!(need(&long) > device.memory);
    let s = solve(&long, &device);
    // One context, whatever -c was asked for: the same largest context.
    assert_eq!(s.max_context, Some(c));
    assert_eq!(s.max_batch, None);
    let fields: Vec<&str> = s.fixes.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(fields, ["gpu_layers", "kv_dtype", "max_model_len"]);
    // A 16,384-token context holds 7 sequences of 2,048 + 256 tokens: the context, not the
    // memory, bounds llama.cpp's parallel sequences there (16,384 / 2,304 = 7.1).
    assert_eq!(largest_batch(&base, device.memory), Some(7));
    let (_, bound) = largest_batch_fit(&base, device.memory).unwrap();
    assert_eq!(bound, Bound::SharedContext);
    // More GPUs for llama.cpp split its layers (tp stays 1): two 4090s hold -c 32768.
    assert_eq!(s.min_gpus, Some(2));
}

/// A prompt longer than the engine's default context: Ollama on a 12 GB card defaults to
/// `num_ctx` 4096, which an 8,192 + 256-token sequence does not fit, yet a context of its own
/// (`num_ctx` 16384 here) holds it. The largest context is still found, from that sequence
/// (8,448 tokens) up, and Qwen2.5-0.5B in Q4_K_M holds its whole trained context (32,768) on
/// the card: its weights are under 0.5 GB and its KV cache 12 KiB a token (2 × 24 layers × 2 KV
/// heads × 64 × 2 B), 0.4 GiB at 32,768 tokens.
#[test]
fn a_prompt_past_the_default_context_still_has_a_largest_context() {
    let input = EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen2.5-0.5B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Ollama,
            seq_len: 8192.0,
            new_tokens: 256.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(16_384.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("rtx-3060-12gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let mem = memory(&input);
    assert!(need(&input) <= mem);
    let (fit, bound) = largest_context_fit(&input, mem).expect("a largest context");
    assert_eq!((fit.value, bound), (32_768, Bound::TrainedContext));
    assert_eq!(context_bound(&input), Some(32_768));
}
