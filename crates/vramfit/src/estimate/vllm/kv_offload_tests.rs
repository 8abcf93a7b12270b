//! vLLM's KV offloading to CPU memory (`--kv-offloading-size`), by hand: host memory, and the
//! GPU's figures unchanged.

use super::super::{Engine, EstimateInput, KvOffloadingBackend, Mode, estimate};
use super::super::{HardwareInput, ModelInput, RunInput, ServingInput};
use crate::error::ErrorKind;

fn llama8b(size: Option<f64>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            kv_offloading_size: size,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// 64 GiB of offloaded blocks are 64 × 2^30 = 68,719,476,736 B of host memory (vLLM's
/// `cpu_bytes_to_use = kv_offloading_size × 2^30`), for two data-parallel copies twice that;
/// every figure on the GPU is the one without offloading: the pool, its tokens and the
/// requests it holds at once.
#[test]
fn offloaded_blocks_are_host_memory_and_the_gpu_pool_is_unchanged() {
    let plain = estimate(&llama8b(None)).unwrap();
    let offload = estimate(&llama8b(Some(64.0))).unwrap();
    assert_eq!(plain.cpu_bytes.get(), 0);
    assert_eq!(offload.cpu_bytes.get(), 68_719_476_736);
    assert_eq!(offload.components, plain.components);
    assert_eq!(offload.kv_cache_tokens, plain.kv_cache_tokens);
    assert_eq!(offload.max_concurrency_exact, plain.max_concurrency_exact);
    assert_eq!(offload.total_bytes, plain.total_bytes);
    let copies = estimate(&{
        let mut input = llama8b(Some(64.0));
        input.placement.gpus = Some(2.0);
        input
    })
    .unwrap();
    assert_eq!(copies.cpu_bytes.get(), 2 * 68_719_476_736);
    // LMCache's server sizes its own memory: none counted here.
    let lmcache = estimate(&{
        let mut input = llama8b(Some(64.0));
        input.serving.kv_offloading_backend = Some(KvOffloadingBackend::Lmcache);
        input
    })
    .unwrap();
    assert_eq!(lmcache.cpu_bytes.get(), 0);
    assert!(lmcache.notes.iter().any(|n| n.key == "vllm_kv_offloading"));
}

/// Refused with the field named: another engine, a vLLM before 0.14, a size out of range, a
/// backend alone.
#[test]
fn kv_offloading_is_checked() {
    let err = |input: EstimateInput| input.resolve().err().unwrap();
    let sglang = err({
        let mut input = llama8b(Some(8.0));
        input.run.engine = Engine::Sglang;
        input
    });
    assert_eq!(
        (sglang.field.as_str(), sglang.kind),
        ("kv_offloading_size", ErrorKind::Unsupported)
    );
    let old = err({
        let mut input = llama8b(Some(8.0));
        input.run.engine_version = Some("0.13".into());
        input
    });
    assert_eq!(old.field, "kv_offloading_size");
    assert_eq!(err(llama8b(Some(0.0))).kind, ErrorKind::OutOfRange);
    assert_eq!(err(llama8b(Some(f64::NAN))).kind, ErrorKind::OutOfRange);
    let alone = err({
        let mut input = llama8b(None);
        input.serving.kv_offloading_backend = Some(KvOffloadingBackend::Native);
        input
    });
    assert_eq!(alone.field, "kv_offloading_backend");
}
