//! SGLang's P/D sides by hand, from SGLang 0.5.23's source (`memory_hook.py`,
//! `cuda_graph_hook.py`, `pd_disaggregation_hook.py`, `disaggregation/decode.py`).

use super::super::super::{
    ComponentKind, DisaggregationMode, Engine, EstimateInput, Mode, estimate,
};
use super::super::super::{HardwareInput, ModelInput, RunInput, ServingInput};
use super::super::{PrefillGraphs, Reserve, default_fraction};

/// The default fraction of a side without prefill graphs (the hand calculations below), with
/// decode graphs on.
fn side_mem_fraction(
    gpu_mib: Option<u64>,
    chunked_prefill_size: u64,
    cuda_graph_max_bs: u64,
    tp_pp: u64,
    dp_attention: u64,
    side: Option<DisaggregationMode>,
    max_running_requests: Option<u64>,
) -> f64 {
    let reserve = Reserve {
        gpu_mib,
        chunked_prefill_size,
        cuda_graph_max_bs,
        decode_graphs: true,
        prefill_graphs: PrefillGraphs::OFF,
        tp_pp,
        dp_attention,
        max_running_requests,
    };
    default_fraction(&reserve, side)
}

fn side(mode: Option<DisaggregationMode>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        serving: ServingInput {
            disaggregation_mode: mode,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

const PREFILL: Option<DisaggregationMode> = Some(DisaggregationMode::Prefill);
const DECODE: Option<DisaggregationMode> = Some(DisaggregationMode::Decode);

/// `_handle_gpu_memory_settings` by side, H100 (81,090 MiB), 8192-token chunk, 256 graphs, tp 1.
/// Plain: 512 + 8192 × 1.5 + 256 × 2 + 128 = 13,440 MiB → 0.834. Prefill (no decode graphs):
/// 512 + 12,288 + 128 = 12,928 → (81,090 − 12,928) / 81,090 = 0.8406 → 0.841. Decode (the batch
/// of max(cuda_graph_max_bs 256, 2048) tokens, no prefill chunk): 512 + 2048 × 1.5 + 128 + 512 =
/// 4,224, under the 10 GiB floor: (81,090 − 10,240) / 81,090 = 0.8737 → 0.874. RTX 4090
/// (24,084 MiB, 2048-token chunk, 24 graphs): prefill 512 + 3,072 + 128 = 3,712 → 0.8459 →
/// 0.846; decode 512 + 3,072 + 128 + 48 = 3,760 → 0.844, a plain server's. With SGLang 0.5.23's
/// prefill graphs (58 up to 8192 tokens, 464 MiB on the H100), which the decode side does not
/// capture: plain 13,904 → 0.829, prefill 13,392 → 67,698 / 81,090 = 0.8349 → 0.835, decode
/// 0.874 as before.
#[test]
fn each_sides_default_fraction_by_hand() {
    let h100 = |s| side_mem_fraction(Some(81_090), 8192, 256, 1, 1, s, None);
    assert_eq!(h100(None), 0.834);
    assert_eq!(h100(PREFILL), 0.841);
    assert_eq!(h100(DECODE), 0.874);
    let rtx = |s| side_mem_fraction(Some(24_084), 2048, 24, 1, 1, s, None);
    assert_eq!(rtx(PREFILL), 0.846);
    assert_eq!(rtx(DECODE), 0.844);
    // max_running_requests 4,096 on the decode side: 512 + 6,144 + 128 + 512 = 7,296, still
    // under the floor on an H100; on a 48 GB card (46,068 MiB, 4096-token chunk, 32 graphs):
    // 512 + 6,144 + 128 + 64 = 6,848 → (46,068 − 6,848) / 46,068 = 0.8513 → 0.851.
    assert_eq!(
        side_mem_fraction(Some(81_090), 8192, 256, 1, 1, DECODE, Some(4096)),
        0.874
    );
    assert_eq!(
        side_mem_fraction(Some(46_068), 4096, 32, 1, 1, DECODE, Some(4096)),
        0.851
    );
    // No card: 0.88 on every side.
    assert_eq!(side_mem_fraction(None, 4096, 160, 1, 1, DECODE, None), 0.88);
    // The resolved input carries each side's, and the other side's, prefill graphs counted.
    let w = side(PREFILL).resolve().unwrap();
    assert_eq!(w.mem_fraction_static, 0.835);
    assert_eq!(w.disaggregation.unwrap().other_mem_fraction_static, 0.874);
}

/// Under DP attention (dp_size 8 of tp 8, 143,771 MiB, 8192-token chunk, 512 graphs): the plain
/// server reserves 512 + 12,288 + 8 / 8 × 1,024 + 512 × 2 + 512 × 8 × 3 + 512 × 8 × 1.5 =
/// 33,280 MiB → (143,771 − 33,280) / 143,771 = 0.7685 → 0.769; the prefill side keeps neither
/// graphs nor DP attention's padding (SGLang pads only where `disaggregation_mode != "prefill"`):
/// 512 + 12,288 + 1,024 = 13,824 → 0.9038 → 0.904; the decode side the batch of 2048 tokens and
/// both: 512 + 3,072 + 1,024 + 1,024 + 12,288 + 6,144 = 24,064 → 0.8326 → 0.833.
#[test]
fn dp_attention_padding_stays_off_the_prefill_side() {
    let f = |s| side_mem_fraction(Some(143_771), 8192, 512, 8, 8, s, None);
    assert_eq!(f(None), 0.769);
    assert_eq!(f(PREFILL), 0.904);
    assert_eq!(f(DECODE), 0.833);
}

/// Llama-3.1-8B on one H100 at SGLang's defaults, each side against a plain server, by hand.
/// Free before loading: 85,029,027,840 − 547,608,330 (CUDA context) − 96,636,764 (a one-GPU
/// server's init) = 84,384,782,746 B; less the weights 16,060,522,496 and the loading
/// 311,385,129 (16,371,907,625 in all); in cells of 131,072 B per token.
/// - plain, 0.829: ⌈84,384,782,746 × 0.829⌉ = 69,954,984,897 − 16,371,907,625 = 53,583,077,272
///   → 408,806 tokens;
/// - prefill, 0.835: 70,461,293,593 − 16,371,907,625 = 54,089,385,968 → 412,669 tokens, 3.14
///   requests of the 131,072-token context at once (412,669 / 131,072 = 3.1484 → 3.14);
/// - decode, 0.874: 73,752,300,121 − 16,371,907,625 = 57,380,392,496 → 437,777 tokens; each
///   request takes 131,072 + 512 reserved tokens: 437,777 / 131,584 = 3.3270 → 3.32 at once.
#[test]
fn llama_8b_h100_each_sides_pool_by_hand() {
    let plain = estimate(&side(None)).unwrap();
    let prefill = estimate(&side(PREFILL)).unwrap();
    let decode = estimate(&side(DECODE)).unwrap();
    assert_eq!(plain.kv_cache_tokens, Some(408_806));
    assert_eq!(prefill.kv_cache_tokens, Some(412_669));
    assert_eq!(decode.kv_cache_tokens, Some(437_777));
    // 412,669 / 131,072 = 3.1484, to two places down.
    let two_places = |x: f64| libm::floor(x * 100.0) / 100.0;
    assert_eq!(
        prefill.max_concurrency_exact,
        Some(two_places(412_669.0 / 131_072.0))
    );
    assert_eq!(decode.max_concurrency_exact, Some(3.32));
    let has = |e: &crate::estimate::Estimate, k| e.components.iter().any(|c| c.key == k);
    let bytes = |e: &crate::estimate::Estimate, k| {
        e.components
            .iter()
            .find(|c| c.key == k)
            .map(|c| c.bytes.get())
    };
    // The prefill side captures no decode graphs, only its 58 prefill graphs (464 MiB); the
    // decode side the 36 decode graphs alone; the plain server both.
    let mib = 1024 * 1024;
    assert!(has(&prefill, ComponentKind::CudaGraphs));
    assert_eq!(bytes(&prefill, ComponentKind::CudaGraphs), Some(464 * mib));
    assert_eq!(
        bytes(&decode, ComponentKind::CudaGraphs).map(|d| d + 464 * mib),
        bytes(&plain, ComponentKind::CudaGraphs)
    );
    // The decode side's table: max(437,777 × 512 / 131,072 = 1,710, 2,048) requests, no extra
    // rows without max_running_requests, × (131,072 + 4) × 4 B.
    assert_eq!(
        bytes(&decode, ComponentKind::ReqToTokenPool),
        Some(2048 * 131_076 * 4)
    );
    // Its largest forward is one token of each of the 2,048 running requests, a quarter of the
    // plain server's 8,192-token chunk.
    let (p, d) = (
        bytes(&plain, ComponentKind::Activations).unwrap(),
        bytes(&decode, ComponentKind::Activations).unwrap(),
    );
    assert_eq!(p, d * 4);
    // The notes give the other side's pool.
    let note = |e: &crate::estimate::Estimate, key: &str| {
        e.notes.iter().find(|n| n.key == key).map(|n| n.en.clone())
    };
    let pn = note(&prefill, "sglang_pd_prefill").unwrap();
    assert!(pn.contains("437,777 tokens, 3.32 requests"), "{pn}");
    assert!(pn.contains("no GPU memory of its own"), "{pn}");
    let dn = note(&decode, "sglang_pd_decode").unwrap();
    assert!(dn.contains("412,669 tokens, 3.14 requests"), "{dn}");
}

/// `disaggregation_decode_extra_slots` as SGLang defaults it: max_running_requests 16 per group
/// (≤ 32) gives 2 × 16 = 32 rows more on the decode side: (16 + 32) × (8,192 + 4) × 4 B; the
/// prefill side keeps 16 rows.
#[test]
fn small_batches_get_extra_decode_rows() {
    let with = |mode| {
        let mut input = side(mode);
        input.serving.max_num_seqs = Some(16.0);
        input.serving.max_model_len = Some(8192.0);
        input
    };
    let table = |mode| {
        estimate(&with(mode))
            .unwrap()
            .components
            .iter()
            .find(|c| c.key == ComponentKind::ReqToTokenPool)
            .unwrap()
            .bytes
            .get()
    };
    assert_eq!(table(DECODE), 48 * 8196 * 4);
    assert_eq!(table(PREFILL), 16 * 8196 * 4);
    // 64 requests: none.
    let w = {
        let mut input = with(DECODE);
        input.serving.max_num_seqs = Some(64.0);
        input
    }
    .resolve()
    .unwrap();
    assert_eq!(w.disaggregation.unwrap().extra_slots, 0);
}

#[test]
fn disaggregation_is_checked() {
    let err = |i: EstimateInput| i.resolve().unwrap_err();
    let e = err({
        let mut input = side(None);
        input.serving.disaggregation_transfer_backend =
            Some(crate::estimate::TransferBackend::Nixl);
        input
    });
    assert_eq!(e.field, "disaggregation_transfer_backend");
    let e = err({
        let mut input = side(None);
        input.serving.num_reserved_decode_tokens = Some(256.0);
        input
    });
    assert_eq!(e.field, "num_reserved_decode_tokens");
    let e = err({
        let mut input = side(DECODE);
        input.run.engine = Engine::Llamacpp;
        input.run.mode = Mode::Inference;
        input
    });
    assert_eq!(e.field, "disaggregation_mode");
    assert!(e.problem.contains("llama.cpp"), "{e}");
    let vllm = || {
        let mut input = side(DECODE);
        input.run.engine = Engine::Vllm;
        input
    };
    let e = err({
        let mut input = vllm();
        input.serving.num_reserved_decode_tokens = Some(256.0);
        input
    });
    assert_eq!(e.field, "num_reserved_decode_tokens");
    let e = err({
        let mut input = vllm();
        input.run.engine_version = Some("0.19".into());
        input
    });
    assert_eq!(e.field, "disaggregation_mode");
    for bad in [-1.0, 0.5, f64::NAN, 2e6] {
        let e = err({
            let mut input = side(DECODE);
            input.serving.num_reserved_decode_tokens = Some(bad);
            input
        });
        assert_eq!(e.field, "num_reserved_decode_tokens");
    }
    // num_reserved_decode_tokens 0: a request takes context_length alone.
    let w = {
        let mut input = side(DECODE);
        input.serving.num_reserved_decode_tokens = Some(0.0);
        input
    };
    assert_eq!(estimate(&w).unwrap().kv_cache_tokens, Some(437_777));
}

/// vLLM's connectors register the pool vLLM already allocated: both sides' figures are a plain
/// server's, and the note says so with its numbers.
#[test]
fn vllm_sides_are_a_plain_servers_memory() {
    let vllm = |mode| {
        let mut input = side(mode);
        input.run.engine = Engine::Vllm;
        input
    };
    let plain = vllm(None).resolve().unwrap().figures();
    for mode in [PREFILL, DECODE] {
        let e = estimate(&vllm(mode)).unwrap();
        assert_eq!(vllm(mode).resolve().unwrap().figures(), plain);
        let n = e.notes.iter().find(|n| n.key == "vllm_pd").unwrap();
        assert!(n.en.contains("NixlConnector"), "{}", n.en);
        let tokens = crate::estimate::thousands(plain.kv_cache_tokens.unwrap());
        assert!(n.en.contains(&tokens), "{}", n.en);
    }
}
