//! Ollama's retry of a load that runs out of memory, by hand. The KV cache is f16 with flash
//! attention (Ollama 0.30 on), `2 × layers × KV heads × head size × 2 B` a token: Qwen2.5-32B
//! 2 × 64 × 8 × 128 × 2 = 262,144 B, Llama 3.1 70B 2 × 80 × 8 × 128 × 2 = 327,680 B.

use super::*;
use crate::estimate::{
    ComponentKind, Engine, Estimate, EstimateInput, HardwareInput, ModelInput, PlacementInput,
    RunInput, ServingInput, estimate,
};
use crate::precision::{GgufFileType, Quantization};
use crate::units::GIB;

fn run(
    model: &str,
    file_type: GgufFileType,
    memory: &str,
    ctx: Option<f64>,
    ngl: Option<f64>,
) -> Estimate {
    estimate(&EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            quantization: Quantization::Gguf { file_type },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Ollama,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: ctx,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu_memory: Some(memory.into()),
            ..Default::default()
        },
        placement: PlacementInput {
            gpu_layers: ngl,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap()
}

fn part(e: &Estimate, k: ComponentKind) -> u64 {
    e.components
        .iter()
        .find(|c| c.key == k)
        .map_or(0, |c| c.bytes.get())
}

fn note<'a>(e: &'a Estimate, key: &str) -> Option<&'a crate::estimate::Difference> {
    e.notes.iter().find(|n| n.key == key)
}

fn fits(e: &Estimate) -> bool {
    e.fit.as_ref().unwrap().fits
}

/// `nextLowerAutoNumCtx`: 32,768 above it, 4,096 above that, else none.
#[test]
fn the_next_lower_automatic_num_ctx_is_ollamas() {
    assert_eq!(next_lower_auto_num_ctx(131_072), Some(32_768));
    assert_eq!(next_lower_auto_num_ctx(32_769), Some(32_768));
    assert_eq!(next_lower_auto_num_ctx(32_768), Some(4096));
    assert_eq!(next_lower_auto_num_ctx(4097), Some(4096));
    assert_eq!(next_lower_auto_num_ctx(4096), None);
    assert_eq!(next_lower_auto_num_ctx(2048), None);
}

/// Qwen2.5-32B in Q4_K_M (the file is 19.9 GB, 18.5 GiB) on a 24 GiB card with every layer
/// asked (`num_gpu` 65): the card's 24 GiB give the automatic num_ctx 32,768, whose KV is
/// 32,768 × 262,144 B = 8 GiB, and 18 + 8 GiB is over 24 GiB before any buffer, so the load
/// fails; Ollama retries at 4,096 (not above 32,768, above 4,096): KV 4,096 × 262,144 B =
/// 1 GiB, which fits with its buffers (about 20 GiB).
#[test]
fn an_automatic_num_ctx_that_runs_out_is_retried_at_4096() {
    let e = run(
        "Qwen/Qwen2.5-32B",
        GgufFileType::Q4_K_M,
        "24GiB",
        None,
        Some(65.0),
    );
    let o = e.ollama.as_ref().unwrap();
    assert_eq!((o.context, o.gpu_layers), (4096, 65));
    assert_eq!(part(&e, ComponentKind::KvCache), GIB);
    assert!(fits(&e));
    let n = note(&e, "ollama_retry").unwrap();
    assert!(
        n.en.contains("num_ctx 32,768") && n.en.contains("num_ctx 4,096"),
        "{}",
        n.en
    );
    assert!(
        n.zh.contains("num_ctx 32,768") && n.zh.contains("num_ctx 4,096"),
        "{}",
        n.zh
    );
    assert!(note(&e, "ollama_no_retry").is_none());
    // Without num_gpu llama-server's fit places fewer layers and nothing fails: the automatic
    // 32,768 stays (8 GiB of KV over the layers placed).
    let fit = run(
        "Qwen/Qwen2.5-32B",
        GgufFileType::Q4_K_M,
        "24GiB",
        None,
        None,
    );
    let o = fit.ollama.as_ref().unwrap();
    assert_eq!(o.context, 32_768);
    assert!(o.gpu_layers < 65);
    assert!(note(&fit, "ollama_retry").is_none());
}

/// The same load with num_ctx 32,768 set by the user: Ollama does not lower it
/// (`reduceAutoNumCtxForLoadOOM` returns at `!req.numCtxAuto`), so the estimate stays at 8 GiB
/// of KV and does not fit, and the note says why. An automatic 4,096 (a 16 GiB card, below
/// 24 GiB) is not lowered either: 18 GiB of weights alone are over 16 GiB.
#[test]
fn a_num_ctx_the_user_set_is_not_lowered() {
    let e = run(
        "Qwen/Qwen2.5-32B",
        GgufFileType::Q4_K_M,
        "24GiB",
        Some(32_768.0),
        Some(65.0),
    );
    assert_eq!(e.ollama.as_ref().unwrap().context, 32_768);
    assert_eq!(part(&e, ComponentKind::KvCache), 8 * GIB);
    assert!(!fits(&e));
    assert!(note(&e, "ollama_retry").is_none());
    let n = note(&e, "ollama_no_retry").unwrap();
    assert!(n.en.contains("not one set by num_ctx"), "{}", n.en);
    let small = run(
        "Qwen/Qwen2.5-32B",
        GgufFileType::Q4_K_M,
        "16GiB",
        None,
        Some(65.0),
    );
    assert_eq!(small.ollama.as_ref().unwrap().context, 4096);
    assert!(!fits(&small));
    let n = note(&small, "ollama_no_retry").unwrap();
    assert!(n.en.contains("only above 4,096"), "{}", n.en);
    assert!(n.zh.contains("4,096"), "{}", n.zh);
}

/// Llama 3.1 70B on a 48 GiB card, every layer asked (`num_gpu` 81): the automatic num_ctx is
/// 262,144 clamped to the trained 131,072, KV 131,072 × 327,680 B = 40 GiB, over 48 GiB with
/// any file; the retry is at 32,768: 10 GiB. In Q2_K (24.2 GiB of weights) it fits, and the
/// batch is sized again for 32,768: above 4,096 tokens 1024 while the prediction (24.2 + 10 =
/// 34.2 GiB) is within 75 % of 48 GiB (36 GiB). In Q4_K_M (39.0 GiB) 39 + 10 GiB is over
/// 48 GiB: the retry fails too, and the estimate says so and does not fit.
#[test]
fn a_large_automatic_num_ctx_is_retried_at_32768() {
    let e = run(
        "meta-llama/Llama-3.1-70B",
        GgufFileType::Q2_K,
        "48GiB",
        None,
        Some(81.0),
    );
    assert_eq!(e.ollama.as_ref().unwrap().context, 32_768);
    assert_eq!(part(&e, ComponentKind::KvCache), 10 * GIB);
    assert!(fits(&e));
    let n = note(&e, "ollama_retry").unwrap();
    assert!(
        n.en.contains("num_ctx 131,072") && !n.en.contains("fails too"),
        "{}",
        n.en
    );
    let server = note(&e, "ollama_server").unwrap();
    assert!(server.en.contains("-b 1024 -ub 1024"), "{}", server.en);
    let big = run(
        "meta-llama/Llama-3.1-70B",
        GgufFileType::Q4_K_M,
        "48GiB",
        None,
        Some(81.0),
    );
    assert_eq!(big.ollama.as_ref().unwrap().context, 32_768);
    assert!(!fits(&big));
    let n = note(&big, "ollama_retry").unwrap();
    assert!(n.en.contains("fails too"), "{}", n.en);
    assert!(n.zh.contains("同样失败"), "{}", n.zh);
}

/// Where even no layer on the GPU leaves its buffers more than is free, the load fails:
/// llama-server's fit (`common/fit.cpp`, `common_params_fit_impl` at ggml-org/llama.cpp
/// 08033df0: the layers filled from 0 while under `free − 1024 MiB`, none kept when none fits,
/// no exception) places 0 layers, and the GPU still holds the CUDA context. Llama 3.1 8B at
/// num_ctx 8192, 0 of 33 layers: weights 0, KV 0, compute 0 and the CUDA context 300 MiB =
/// 314,572,800 B. On 256 MiB (268,435,456 B) that is 46,137,344 B short: an out-of-memory
/// error, not a slow run on the CPU; on 512 MiB it runs, all on the CPU.
#[test]
fn no_layer_on_the_gpu_and_still_short_is_out_of_memory() {
    let run = |memory: &str| {
        let i = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: crate::estimate::Mode::Serve,
                engine: Engine::Ollama,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu_memory: Some(memory.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        estimate(&i).unwrap()
    };
    let e = run("256MiB");
    assert_eq!(e.ollama.as_ref().unwrap().gpu_layers, 0);
    assert_eq!(e.total_bytes.get(), 314_572_800);
    let fit = e.fit.unwrap();
    assert!(!fit.fits);
    assert_eq!(fit.shortfall_bytes.get(), 314_572_800 - 268_435_456);
    let reason = fit.reason.unwrap();
    assert_eq!(reason.key, "ollama_out_of_memory");
    #[cfg(feature = "en")]
    assert!(
        reason.en.contains("runs out of GPU memory"),
        "{}",
        reason.en
    );
    let e = run("512MiB");
    assert_eq!(e.ollama.as_ref().unwrap().gpu_layers, 0);
    assert_eq!(e.fit.unwrap().reason.unwrap().key, "ollama_partial_offload");
}

/// The system memory a split load needs, as Ollama checks it: its estimate's total less its GPU
/// part. llama3.1:70b is a 42.5 GB (39.6 GiB) Q4_K_M file; on a 24 GiB card at num_ctx 4096
/// under 24 GiB go to the GPU, so over 15.6 GiB stay in CPU memory. The Go runner (0.24.0)
/// refuses the load where free memory and swap are short ("model requires more system memory
/// … than is available", `llm/server.go`), without a retry; 0.30 on makes no such check, and
/// its retry lowers num_ctx only. A load all on the GPU has no such note.
#[test]
fn a_split_load_says_the_system_memory_it_needs() {
    let load = |version: &str, memory: &str| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some("llama3.1:70b".into()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Ollama,
                engine_version: Some(version.into()),
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(4096.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu_memory: Some(memory.into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    for (version, go_runner) in [("0.24.0", true), ("0.32.15", false)] {
        let e = load(version, "24GiB");
        let o = e.ollama.as_ref().unwrap();
        let cpu = o.total_bytes.get() - o.vram_bytes.get();
        assert!(cpu > 15 * GIB + GIB / 2, "{version}: {cpu}");
        let n = note(&e, "ollama_system_memory").expect(version);
        #[cfg(feature = "en")]
        {
            let need = crate::estimate::b(cpu);
            assert!(n.en.contains(&need), "{version}: {}", n.en);
            assert_eq!(
                n.en.contains("fails with \"model requires more system memory"),
                go_runner,
                "{}",
                n.en
            );
        }
        #[cfg(feature = "zh")]
        assert!(n.zh.contains("CPU 内存"), "{}", n.zh);
        let _ = (n, go_runner);
        // All of it on an 80 GiB card: nothing in CPU memory, no note.
        assert!(note(&load(version, "80GiB"), "ollama_system_memory").is_none());
    }
}
