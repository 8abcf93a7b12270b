//! llama-server without `-np`: 4 slots over one unified KV cache (`llamacpp_slots.rs`;
//! `tools/server/server.cpp` at ggml-org/llama.cpp 00dd0816: `if (params.n_parallel < 0) {
//! params.n_parallel = 4; params.kv_unified = true; }`), each buffer sized by the sequences
//! held to a hand calculation or a published log.

use super::{llama_server_auto_slots, read_command};
use crate::estimate::{
    ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, estimate,
};

/// The estimate of a pasted `llama-server` line on an H100.
fn run(line: &str) -> crate::estimate::Estimate {
    let r = read_command(line).unwrap();
    let input = EstimateInput {
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..r.input.hardware
        },
        ..r.input
    };
    estimate(&input).unwrap()
}

fn bytes(e: &crate::estimate::Estimate, kind: ComponentKind) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.kind == kind)
        .map(|c| c.bytes.get())
        .sum()
}

#[test]
fn without_np_llama_server_serves_four_unified_slots() {
    let m = "llama-server -m gpt-oss-20b-Q4_K_M.gguf -c 8192";
    // No -np, -np -1 (auto), and --no-kv-unified without -np (the server forces it on).
    for extra in ["", " -np -1", " --no-kv-unified"] {
        let r = read_command(&alloc::format!("{m}{extra}")).unwrap();
        assert_eq!(r.input.run.batch, 4.0, "{extra}");
        assert_eq!(r.input.serving.kv_unified, Some(true), "{extra}");
        assert!(r.not_read.is_empty(), "{extra}: {:?}", r.not_read);
    }
    // -np given: its slots, the cache split unless -kvu (common_params::kv_unified false).
    for (extra, slots, unified) in [
        (" -np 1", 1.0, None),
        (" -np 2 --no-kv-unified", 2.0, Some(false)),
        (" -np 8 -kvu", 8.0, Some(true)),
    ] {
        let r = read_command(&alloc::format!("{m}{extra}")).unwrap();
        assert_eq!(r.input.run.batch, slots, "{extra}");
        assert_eq!(r.input.serving.kv_unified, unified, "{extra}");
    }
}

/// The KV pool is `-c` either way; a sliding-window cache grows with the sequences. Llama 3.1
/// 8B, -c 8192: 32 layers × 8,192 cells × 8 KV heads × 128 × 2 (K, V) × 2 B = 1,073,741,824 B
/// with 4 slots or 1. gpt-oss-20b (12 full and 12 sliding layers of window 128, 8 KV heads × 64
/// × 2 × 2 B = 2,048 B per token and layer): full 12 × 8,192 × 2,048 = 201,326,592 B; the
/// window, unified, min(8,192, pad256(128 × sequences + 512)): one slot 768 cells, 12 × 768 ×
/// 2,048 = 18,874,368 B (220,200,960 B in all); four slots pad256(1,024) = 1,024 cells, 12 ×
/// 1,024 × 2,048 = 25,165,824 B (226,492,416 B in all, 6 MiB more).
#[test]
fn four_slots_keep_the_pool_and_widen_the_window() {
    let llama = |np: &str| {
        run(&alloc::format!(
            "llama-server -m Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf -c 8192{np}"
        ))
        .kv_cache_bytes
        .get()
    };
    assert_eq!(llama(""), 1_073_741_824);
    assert_eq!(llama(" -np 1"), 1_073_741_824);
    let oss = |np: &str| {
        run(&alloc::format!(
            "llama-server -m gpt-oss-20b-Q4_K_M.gguf -c 8192{np}"
        ))
        .kv_cache_bytes
        .get()
    };
    assert_eq!(oss(" -np 1"), 201_326_592 + 18_874_368);
    assert_eq!(oss(""), 201_326_592 + 25_165_824);
}

/// A hybrid's recurrent state is one per sequence (`llama_memory_recurrent`'s `mem_size =
/// n_seq_max`): Qwen3.5-9B's is 50.25 MiB with one sequence, as llama.cpp prints it
/// (`CUDA0 RS buffer size = 50.25 MiB`, the unsloth Qwen3.5-9B rows of
/// tests/data/llamacpp-buffers.csv), so 4 × 50.25 = 201.00 MiB with the automatic slots.
#[test]
fn four_slots_hold_four_recurrent_states() {
    let state = |np: &str| {
        let e = run(&alloc::format!(
            "llama-server -m Qwen3.5-9B-Q4_K_M.gguf -c 16384{np}"
        ));
        bytes(&e, ComponentKind::StateCache)
    };
    assert_eq!(state(" -np 1"), 52_690_944); // 50.25 MiB
    assert_eq!(state(""), 4 * 52_690_944); // 201.00 MiB
}

/// Builds from b6301 are counted with the automatic slots; older ones ran one. A context not
/// given is pinned first to what one sequence's batch held (`(seq_len + new_tokens) × batch`),
/// so the pool does not grow fourfold; other engines are left alone.
#[test]
fn the_automatic_slots_by_build_and_engine() {
    let input = |version: Option<&str>, engine: Engine| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            seq_len: 1000.0,
            new_tokens: 24.0,
            engine_version: version.map(Into::into),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut latest = input(None, Engine::Llamacpp);
    llama_server_auto_slots(&mut latest);
    assert_eq!(
        (
            latest.run.batch,
            latest.serving.kv_unified,
            latest.serving.max_model_len
        ),
        (4.0, Some(true), Some(1024.0))
    );
    let mut b6301 = input(Some("b6301"), Engine::Llamacpp);
    llama_server_auto_slots(&mut b6301);
    assert_eq!(b6301.run.batch, 4.0);
    for (version, engine) in [
        (Some("b6300"), Engine::Llamacpp),
        (None, Engine::Ollama),
        (None, Engine::Vllm),
    ] {
        let mut i = input(version, engine);
        let before = i.clone();
        llama_server_auto_slots(&mut i);
        assert_eq!(i, before, "{version:?} {engine:?}");
    }
}
