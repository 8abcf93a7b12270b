//! Memory already in use on the card (`memory_in_use`), engine by engine, by hand: vLLM's
//! start-up check (0.9.1 on) and its budget before, SGLang's pool from the memory free at start,
//! TensorRT-LLM's fraction of the free memory, Ollama's layers by its free memory, llama.cpp's
//! split by each card's free memory, and the fit against what is free everywhere.

use crate::estimate::{
    Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, ServingInput, TrainingInput,
    estimate,
};
use crate::precision::{GgufFileType, Quantization};
use alloc::string::ToString;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
/// The RTX 4090 as CUDA reports it on Linux (the catalog's measured figure).
const RTX_4090: u64 = 25_253_904_384;

fn with_in_use(input: &EstimateInput, in_use: &str) -> EstimateInput {
    {
        let mut input = input.clone();
        input.hardware.memory_in_use = Some(in_use.to_string());
        input
    }
}

/// Llama-3.1-8B served by vLLM on an RTX 4090, max_model_len 8192.
fn vllm_4090(version: &str) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            engine_version: Some(version.into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("rtx-4090".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// vLLM 0.9.1 on asks `gpu_memory_utilization × total` free at start: 0.9 × 25,253,904,384 =
/// 22,728,513,945.6 B (21.17 GiB). 3 GiB in use leaves 22,032,678,912 B (20.52 GiB): refused,
/// and the largest utilisation that starts is ⌊22,032,678,912 / 25,253,904,384 × 100⌋ / 100 =
/// ⌊87.24⌋ / 100 = 0.87. 1 GiB in use leaves 24,180,162,560 B: it starts, its pool as with
/// nothing in use (the budget is of the card, less this process's own profile).
#[test]
fn vllm_refuses_below_its_utilisation_and_keeps_its_pool_above() {
    let base = vllm_4090("0.33");
    let e0 = estimate(&base).unwrap();
    assert!(e0.fit.as_ref().unwrap().fits);
    let e = estimate(&with_in_use(&base, "3GiB")).unwrap();
    let f = e.fit.as_ref().unwrap();
    assert!(!f.fits);
    let r = f.reason.as_ref().unwrap();
    assert_eq!(r.key, "vllm_free_memory_short");
    assert!(
        r.en.contains("vLLM would refuse to start: 20.52 GiB free, 21.17 GiB asked"),
        "{}",
        r.en
    );
    assert!(
        r.en.contains("gpu_memory_utilization that starts is 0.87"),
        "{}",
        r.en
    );
    assert!(r.zh.contains("空闲 20.52 GiB，请求 21.17 GiB"), "{}", r.zh);
    // At 0.87 it starts: 0.87 × 25,253,904,384 = 21,970,896,814 ≤ 22,032,678,912.
    let at = {
        let mut input = with_in_use(&base, "3GiB");
        input.serving.gpu_memory_utilization = 0.87;
        input
    };
    assert!(
        estimate(&at)
            .unwrap()
            .fit
            .unwrap()
            .reason
            .is_none_or(|r| r.key != "vllm_free_memory_short")
    );
    let e1 = estimate(&with_in_use(&base, "1GiB")).unwrap();
    assert_eq!(e1.kv_cache_bytes, e0.kv_cache_bytes);
    let f1 = e1.fit.as_ref().unwrap();
    assert!(f1.fits);
    assert_eq!(f1.in_use_bytes.get(), GIB);
    // The headroom is of what is free: 1 GiB less than with the card empty.
    let room = e0.fit.as_ref().unwrap().headroom_bytes.get();
    assert_eq!(f1.headroom_bytes.get(), room - GIB);
    // 2 GiB: vLLM's check passes (23,106,420,736 B free), but what it holds beyond the budget
    // (the total is more than 0.9 of the card) does not fit what is free.
    let e2 = estimate(&with_in_use(&base, "2GiB")).unwrap();
    let f2 = e2.fit.as_ref().unwrap();
    assert!(f2.reason.is_none() && !f2.fits);
    assert_eq!(
        f2.shortfall_bytes.get(),
        e2.total_bytes.get() - (RTX_4090 - 2 * GIB)
    );
}

/// Before 0.9.1 no start-up check: the profile counts `total − free − torch` as non-torch memory,
/// other programs' with it, so the pool's budget loses exactly the memory in use: 2 GiB is
/// 1,024 blocks of 16 tokens × 32 layers × 4,096 B (2 MiB), 16,384 tokens fewer.
#[test]
fn vllm_before_0_9_1_pays_the_memory_in_use_out_of_its_pool() {
    let base = vllm_4090("0.8.5");
    let e0 = estimate(&base).unwrap();
    let e = estimate(&with_in_use(&base, "2GiB")).unwrap();
    let lost = e0.kv_cache_bytes.get() - e.kv_cache_bytes.get();
    assert!(lost.abs_diff(2 * GIB) <= 2 * MIB, "{lost}");
    let tokens = e0.kv_cache_tokens.unwrap() - e.kv_cache_tokens.unwrap();
    assert!(tokens.abs_diff(16_384) <= 16, "{tokens}");
    assert!(e.fit.unwrap().reason.is_none());
}

/// SGLang sizes its pool from the memory free at start: rest = pre × mem_fraction_static −
/// loaded, pre the free memory less its own preload. 1 GiB in use on an H100 (default
/// mem_fraction_static 0.829) takes 0.829 × 1,073,741,824 = 890,131,972 B from the pool: at
/// 131,072 B per token (32 layers × 8 KV heads × 128 × 2 × 2 B), 6,791.2 tokens, so 6,791 or
/// 6,792 whole tokens fewer.
#[test]
fn sglang_pool_shrinks_by_its_fraction_of_the_memory_in_use() {
    let base = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let e0 = estimate(&base).unwrap();
    let e = estimate(&with_in_use(&base, "1GiB")).unwrap();
    assert_eq!(e.kv_bytes_per_token, 131_072);
    let fewer = e0.kv_cache_tokens.unwrap() - e.kv_cache_tokens.unwrap();
    assert!((6_791..=6_792).contains(&fewer), "{fewer}");
    assert!(e.notes.iter().any(|n| n.key == "memory_in_use"));
}

/// TensorRT-LLM's pool is `free_gpu_memory_fraction` (0.9) of the memory free after its
/// profile, which other programs' memory is out of: 1 GiB in use takes 966,367,641.6 B from the
/// pool, 7,372.8 tokens of 131,072 B, in whole blocks of 32 tokens: 7,360 or 7,392 fewer.
#[cfg(feature = "trtllm")]
#[test]
fn trtllm_pool_shrinks_by_its_fraction_of_the_memory_in_use() {
    let base = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Trtllm,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let e0 = estimate(&base).unwrap();
    let e = estimate(&with_in_use(&base, "1GiB")).unwrap();
    let fewer = e0.kv_cache_tokens.unwrap() - e.kv_cache_tokens.unwrap();
    assert!(fewer == 7_360 || fewer == 7_392, "{fewer}");
}

/// Ollama puts blocks on the GPU from the last while the free memory exceeds its minimum
/// (457 MiB), the graph, the first block reserved and the blocks placed (`llm/memory.go`), the
/// free memory being what `server/sched.go` reads, other programs' memory out of it.
/// Llama-3.1-8B in F16 at num_ctx 4096: a block's attention is 2 × 4096² + 2 × 4096 × 1024
/// (q, o, k, v) and its MLP 3 × 4096 × 14,336, 218,103,808 weights × 2 B, with two F32 norms
/// (32,768 B) 436,240,384 B; its KV 4096 × 1024 × 2 × 2 B = 16,777,216 B: L = 453,017,600 B.
/// On an RTX 4090 with 10 GiB in use, free = 14,516,486,144 B and k blocks fit while free >
/// 457 MiB + graph + (k + 1) × L.
#[test]
fn ollama_puts_fewer_layers_on_the_gpu_when_memory_is_in_use() {
    let base = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::F16,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Ollama,

            // Ollama up to 0.24: its Go runner and its own layer plan.
            engine_version: Some("0.24.0".into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(4096.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("rtx-4090".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let o0 = estimate(&base).unwrap().ollama.unwrap();
    assert_eq!(o0.gpu_layers, 33, "the whole model on the empty card");
    let e = estimate(&with_in_use(&base, "10GiB")).unwrap();
    let o = e.ollama.unwrap();
    let free = RTX_4090 - 10 * GIB;
    let (l, min, graph) = (453_017_600u64, 457 * MIB, o.graph_bytes.get());
    let k = (1..=32u64)
        .take_while(|k| free > min + graph + (k + 1) * l)
        .count() as u64;
    assert!(k < 32, "{k}");
    assert_eq!(o.gpu_layers, k);
    assert!(!e.fit.unwrap().fits);
}

/// llama.cpp with no `-ts` splits by each card's free memory: an RTX 3090 (25,425,870,848 B)
/// and an RTX 3060 (12,616,466,432 B), each with 4 GiB in use and the 300 MiB CUDA context:
/// 20,816,330,752 and 8,006,926,336 B, split point 20,816,330,752 / 28,823,257,088 = 0.7222.
/// Block `il` of 33 positions goes to CUDA0 while il / 33 < 0.7222, i.e. il ≤ 23: 24 blocks on
/// the 3090 (23 with nothing in use), 8 and the output layer on the 3060.
#[test]
fn llamacpp_splits_by_each_cards_free_memory() {
    let input = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            attention: crate::estimate::AttentionImpl::Flash,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            cards: alloc::vec!["rtx-3090".into(), "rtx-3060-12gb".into()],
            memory_in_use: Some("4GiB".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = estimate(&input).unwrap();
    let layers: alloc::vec::Vec<_> = e.cards.iter().map(|c| (c.layers, c.output_layer)).collect();
    assert_eq!(layers, [(24, false), (8, true)]);
    // Each card's headroom is of its free memory.
    for c in &e.cards {
        let free = c.memory_bytes.get() - 4 * GIB;
        assert_eq!(c.headroom_bytes.get(), free - c.used_bytes.get());
    }
}

/// transformers and training: the peak must fit in what is free. The headroom loses exactly the
/// memory in use, and the fit turns when the memory in use passes the headroom.
#[test]
fn transformers_and_training_fit_in_what_is_free() {
    for mode in [Mode::Inference, Mode::Training] {
        let base = EstimateInput {
            model: ModelInput {
                model: Some("Qwen/Qwen2.5-0.5B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("rtx-4090".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let f0 = estimate(&base).unwrap().fit.unwrap();
        let room = f0.headroom_bytes.get();
        assert!(f0.fits && room > GIB, "{mode:?}");
        let f = estimate(&with_in_use(&base, "1GiB")).unwrap().fit.unwrap();
        assert_eq!(f.headroom_bytes.get(), room - GIB);
        let over = alloc::format!("{}B", room + 1);
        let f = estimate(&with_in_use(&base, &over)).unwrap().fit.unwrap();
        assert!(!f.fits);
        assert_eq!(f.shortfall_bytes.get(), 1);
    }
}

/// MLX on Apple silicon: the memory in use comes out of the working set, and a note says so.
#[test]
fn mlx_takes_the_memory_in_use_from_the_working_set() {
    let base = EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen2.5-0.5B".into()),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Mlx,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("apple-m4-max-128gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let f0 = estimate(&base).unwrap().fit.unwrap();
    let e = estimate(&with_in_use(&base, "8GiB")).unwrap();
    let f = e.fit.as_ref().unwrap();
    assert_eq!(f.headroom_bytes.get(), f0.headroom_bytes.get() - 8 * GIB);
    assert!(e.notes.iter().any(|n| n.key == "memory_in_use_apple"));
}

/// The solvers answer against what is free, each answer proved by the estimator: llama.cpp's
/// longest `-c` with 4 GiB in use fits in the free memory and the next does not, shorter than
/// with the card empty; a vLLM run its start-up check refuses has no answer at all.
#[test]
fn the_solvers_answer_against_what_is_free() {
    let card = crate::catalog::find_device("rtx-3060-12gb").unwrap();
    let base = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
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
            max_model_len: Some(4096.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("rtx-3060-12gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let empty = crate::estimate::solve(&base, &card).max_context.unwrap();
    let busy = with_in_use(&base, "4GiB");
    let ctx = crate::estimate::solve(&busy, &card).max_context.unwrap();
    assert!(ctx < empty, "{ctx} {empty}");
    let at = |c: u64| {
        estimate(&{
            let mut input = busy.clone();
            input.serving.max_model_len = Some(c as f64);
            input
        })
        .unwrap()
        .fit
        .unwrap()
        .fits
    };
    assert!(at(ctx) && !at(ctx + 1), "{ctx}");
    let refused = with_in_use(&vllm_4090("0.33"), "3GiB");
    let s = crate::estimate::solve(&refused, &crate::catalog::find_device("rtx-4090").unwrap());
    assert_eq!((s.max_batch, s.max_context), (None, None));
}

/// vLLM's refusal against its own published messages: the card's memory as it prints it and the
/// memory in use as the card less the free memory it prints.
/// - vllm-project/vllm#20305 (v0.9.1, 2025-06-30): "Free memory on device (31.44/47.38 GiB) on
///   startup is less than desired GPU memory utilization (0.95, 45.01 GiB)".
/// - vllm-project/vllm#23192 (2025-09-03, an H200): "Free memory on device (7.34/139.72 GiB)
///   on startup is less than desired GPU memory utilization (0.9, 125.75 GiB)".
///
/// The largest utilisation that starts: ⌊31.44 / 47.38 × 100⌋ / 100 = ⌊66.36⌋ / 100 = 0.66, and
/// ⌊7.34 / 139.72 × 100⌋ / 100 = ⌊5.25⌋ / 100 = 0.05.
#[test]
fn vllm_refusal_reads_as_its_published_messages() {
    for (card, in_use, util, free, asked, largest) in [
        ("47.38GiB", "15.94GiB", 0.95, "31.44", "45.01", "0.66"),
        ("139.72GiB", "132.38GiB", 0.9, "7.34", "125.75", "0.05"),
    ] {
        let input = {
            let mut input = vllm_4090("0.33");
            input.hardware.gpu = None;
            input.hardware.gpu_memory = Some(card.into());
            input.hardware.memory_in_use = Some(in_use.into());
            input.serving.gpu_memory_utilization = util;
            input
        };
        let e = estimate(&input).unwrap();
        let r = e.fit.unwrap().reason.unwrap();
        let said = alloc::format!("{free} GiB free, {asked} GiB asked");
        assert!(r.en.contains(&said), "{}", r.en);
        assert!(
            r.en.contains(&alloc::format!("that starts is {largest}")),
            "{}",
            r.en
        );
    }
}

/// RL with vLLM colocated (TRL's `vllm_gpu_memory_utilization` 0.3 by default) on an H100
/// (81,090 MiB = 79.19 GiB): it asks 0.3 × 81,090 = 24,327 MiB (23.76 GiB) free at its start;
/// 60 GiB (61,440 MiB) in use leaves 19,650 MiB (19.19 GiB), and the colocated vLLM (0.33)
/// refuses to start; the largest utilisation that starts is ⌊19,650 / 81,090 × 100⌋ / 100 =
/// ⌊24.23⌋ / 100 = 0.24.
#[test]
fn a_colocated_vllm_refuses_when_memory_in_use_leaves_less_than_it_asks() {
    let input = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 2.0,
            seq_len: 256.0,
            ..Default::default()
        },
        training: TrainingInput {
            rl: Some(crate::estimate::RlAlgorithm::Grpo),
            num_generations: Some(4.0),
            max_completion_length: Some(768.0),
            rollout: Some(crate::estimate::Rollout::Colocate),
            stack: Some(crate::estimate::Stack::Trl),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            memory_in_use: Some("60GiB".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let f = estimate(&input).unwrap().fit.unwrap();
    let r = f.reason.unwrap();
    assert_eq!(r.key, "vllm_free_memory_short");
    assert!(
        r.en.contains("19.19 GiB free, 23.76 GiB asked (gpu_memory_utilization 0.30"),
        "{}",
        r.en
    );
    assert!(r.en.contains("that starts is 0.24"), "{}", r.en);
    assert!(!f.fits);
    // 50 GiB in use leaves 29,890 MiB: it starts.
    let f = estimate(&with_in_use(&input, "50GiB"))
        .unwrap()
        .fit
        .unwrap();
    assert!(f.reason.is_none_or(|r| r.key != "vllm_free_memory_short"));
}
