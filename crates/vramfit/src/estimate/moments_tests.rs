//! The inference and serving moments (`Estimate::step`) against the estimate and by hand: over
//! every inference and serving shape of the snapshot set, the moment at the peak's phase is the
//! estimate's total (the chart never says another peak than the verdict), no moment is above
//! it, each moment's parts sum to it, and every moment is worded in both languages; then one
//! run per shape written out by hand.

use crate::estimate::run_shapes::run_shapes;
use crate::estimate::{
    ComponentKind as K, Engine, Estimate, EstimateInput, Mode, Phase, StepMoment, estimate,
};
use crate::estimate::{HardwareInput, ModelInput, RunInput};
use crate::precision::{GgufFileType, Quantization};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The moment's bytes of `kind` (0 when it holds none).
fn part(m: &StepMoment, kind: K) -> u64 {
    m.parts
        .iter()
        .filter(|p| p.kind == kind)
        .map(|p| p.bytes.get())
        .sum()
}

/// The numbers a text carries, in order (the Chinese words carry the English ones).
fn numbers(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_digit() && c != ',')
        .map(|n| n.trim_matches(','))
        .filter(|n| !n.is_empty())
        .map(ToString::to_string)
        .collect()
}

fn phases(e: &Estimate) -> Vec<Phase> {
    e.step.iter().map(|m| m.phase).collect()
}

/// What every moment of an inference or serving estimate must hold.
fn check(e: &Estimate, what: &str) {
    assert!(!e.step.is_empty(), "{what}");
    assert_eq!(e.step[0].phase, Phase::Load, "{what}");
    let at_peak: Vec<&StepMoment> = e.step.iter().filter(|m| m.phase == e.peak_phase).collect();
    assert_eq!(at_peak.len(), 1, "{what}");
    assert_eq!(at_peak[0].bytes, e.total_bytes, "{what}");
    for m in &e.step {
        assert!(m.bytes <= e.total_bytes, "{:?} {what}", m.phase);
        let sum = m.parts.iter().map(|p| p.bytes.get()).sum::<u64>();
        assert_eq!(sum, m.bytes.get(), "{what}");
        assert!(!m.en.is_empty() && !m.zh.is_empty(), "{what}");
        assert_eq!(numbers(&m.en), numbers(&m.zh), "{what}");
        assert_eq!(part(m, K::Weights), part(&e.step[0], K::Weights), "{what}");
    }
    // A serving engine's pool moment shows the pool the estimate states.
    if let Some(pool) = e.step.iter().find(|m| m.phase == Phase::KvPool) {
        assert_eq!(part(pool, K::KvCache), e.kv_cache_bytes.get(), "{what}");
    }
}

#[test]
fn every_inference_shape_peaks_at_its_total() {
    let mut seen = 0;
    for input in run_shapes()
        .into_iter()
        .filter(|i| i.run.mode != Mode::Training)
    {
        let Ok(e) = estimate(&input) else { continue };
        seen += 1;
        check(&e, &alloc::format!("{input:?}"));
    }
    assert!(seen > 400, "{seen}");
}

fn hf(model: &str, batch: f64, seq: f64, new: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.to_string()),
            ..Default::default()
        },
        run: RunInput {
            batch,
            seq_len: seq,
            new_tokens: new,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".to_string()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Llama-3.1-8B in bf16 on transformers, one H100, batch 1, prompt 1,024, 256 new tokens:
/// - weights 16,060,522,496 B (8,030,261,248 parameters × 2 B); CUDA context 547,608,330 B
///   (0.51 GiB); cuBLAS workspace on Hopper 32 MiB = 33,554,432 B;
/// - the cache per token 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B: after the
///   prefill × 1,024 = 134,217,728 B, at the last token × 1,280 = 167,772,160 B;
/// - the prefill's widest op of one block, per token: 2 B × (2 × 4,096 + 3 × 14,336 gated
///   MLP, wider than the attention's 6,144 + 4,096) + 8 × 4,096 = 2 × 51,200 + 32,768 =
///   135,168 B; × 1,024 tokens = 138,412,032 B, above the head (1 × 128,256 × 2 B logits +
///   1,024 × 4,096 × 2 B norm output = 8,645,120 B);
/// - the last token's logits 128,256 × (2 B + 4 B fp32 copy) = 769,536 B.
///
/// Prefill 16,060,522,496 + 33,554,432 + 547,608,330 + 134,217,728 + 138,412,032 =
/// 16,914,315,018 B before the reserve; decode 16,060,522,496 + 33,554,432 + 547,608,330 +
/// 167,772,160 + 769,536 = 16,810,226,954 B: the prefill peaks.
#[test]
fn llama_8b_on_transformers_by_hand() {
    let e = estimate(&hf("meta-llama/Llama-3.1-8B", 1.0, 1024.0, 256.0)).unwrap();
    assert_eq!(phases(&e), [Phase::Load, Phase::Prefill, Phase::Decode]);
    let [load, prefill, decode] = &e.step[..] else {
        panic!()
    };
    assert_eq!(load.bytes.get(), 16_060_522_496 + 547_608_330);
    assert_eq!(part(prefill, K::KvCache), 134_217_728);
    assert_eq!(part(prefill, K::Activations), 138_412_032);
    assert_eq!(part(prefill, K::Logits), 0);
    assert_eq!(part(decode, K::KvCache), 167_772_160);
    assert_eq!(part(decode, K::Logits), 769_536);
    assert_eq!(part(decode, K::Activations), 0);
    let reserve = e.allocator_reserve_bytes.get();
    assert_eq!(prefill.bytes.get(), 16_914_315_018 + reserve);
    assert_eq!(decode.bytes.get(), 16_810_226_954 + reserve);
    assert_eq!(e.peak_phase, Phase::Prefill);
    assert_eq!(e.total_bytes, prefill.bytes);
}

/// Several models and batches on transformers — a MoE (Qwen3-30B-A3B), a vision model with
/// images (Gemma 3 4B, two 896 × 896 images a prompt), a long decode that peaks at the last
/// token — each peaking at its total, the images' fp32 pixels alive to the end.
#[test]
fn transformers_moments_over_models_and_batches() {
    for (model, batch, seq, new) in [
        ("Qwen/Qwen3-30B-A3B", 4.0, 2048.0, 512.0),
        ("Qwen/Qwen3-30B-A3B", 1.0, 512.0, 16_000.0),
        ("meta-llama/Llama-3.1-8B", 8.0, 128.0, 8192.0),
        ("google/gemma-3-4b-it", 2.0, 1024.0, 128.0),
    ] {
        let e = estimate(&hf(model, batch, seq, new)).unwrap();
        check(&e, model);
        assert_eq!(phases(&e), [Phase::Load, Phase::Prefill, Phase::Decode]);
    }
    // A long generation over a short prompt peaks at the last token.
    let e = estimate(&hf("meta-llama/Llama-3.1-8B", 8.0, 128.0, 8192.0)).unwrap();
    assert_eq!(e.peak_phase, Phase::Decode);
    let images = {
        let mut input = hf("google/gemma-3-4b-it", 2.0, 1024.0, 128.0);
        input.run.images = 2.0;
        input.run.image_width = Some(896.0);
        input.run.image_height = Some(896.0);
        input
    };
    let e = estimate(&images).unwrap();
    check(&e, "images");
    let (prefill, decode) = (&e.step[1], &e.step[2]);
    assert!(part(prefill, K::EncoderActivations) >= part(decode, K::EncoderActivations));
    assert!(part(decode, K::EncoderActivations) > 0);
}

/// vLLM serving Llama-3.1-8B on one H100 (the snapshot's run 81, whose parts its own tests
/// hold to the calibration runs): weights 16,094,076,928, CUDA context 547,608,330, profile
/// activations 1,985,772,258, non-torch 268,435,456, reserve 132,843,044, pool 436,880 tokens ×
/// 131,072 B = 57,262,735,360, CUDA graphs 914,398,538 B.
/// - loaded: 16,094,076,928 + 547,608,330 = 16,641,685,258
/// - profile: + 1,985,772,258 + 268,435,456 + 132,843,044 = 19,028,736,016
/// - pool (the profile's activations freed): 16,641,685,258 + 268,435,456 + 132,843,044 +
///   57,262,735,360 = 74,305,699,118
/// - graphs: + 914,398,538 = 75,220,097,656
/// - serving: + 1,985,772,258 = 77,205,869,914, the estimate's total.
#[test]
fn vllm_start_up_by_hand() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    check(&e, "vllm");
    let want = [
        (Phase::Load, 16_641_685_258),
        (Phase::ProfileRun, 19_028_736_016),
        (Phase::KvPool, 74_305_699_118),
        (Phase::CudaGraphs, 75_220_097_656),
        (Phase::Serving, 77_205_869_914),
    ];
    let got: Vec<(Phase, u64)> = e.step.iter().map(|m| (m.phase, m.bytes.get())).collect();
    assert_eq!(got, want);
    assert_eq!(part(&e.step[2], K::KvCache), 436_880 * 131_072);
    assert!(e.step[2].en.contains("436,880 tokens"), "{}", e.step[2].en);
}

/// SGLang: no profile run; TensorRT-LLM: its graphs captured in the estimation run, before
/// the pool; llama.cpp: model, KV and compute buffers, the last the total; MLX: the weights,
/// then its bound.
#[test]
fn the_other_engines_stages() {
    let serve = |engine| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = estimate(&serve(Engine::Sglang)).unwrap();
    check(&e, "sglang");
    assert_eq!(
        phases(&e),
        [
            Phase::Load,
            Phase::KvPool,
            Phase::CudaGraphs,
            Phase::Serving
        ]
    );
    #[cfg(feature = "trtllm")]
    {
        let e = estimate(&serve(Engine::Trtllm)).unwrap();
        check(&e, "trtllm");
        assert_eq!(
            phases(&e),
            [
                Phase::Load,
                Phase::ProfileRun,
                Phase::KvPool,
                Phase::Serving
            ]
        );
        assert!(part(&e.step[1], K::CudaGraphs) > 0);
        assert_eq!(part(&e.step[2], K::Activations), 0);
    }
    let e = estimate(&{
        let mut input = hf("meta-llama/Llama-3.1-8B", 1.0, 1024.0, 256.0);
        input.run.engine = Engine::Llamacpp;
        input.model.quantization = Quantization::Gguf {
            file_type: GgufFileType::Q4_K_M,
        };
        input
    })
    .unwrap();
    check(&e, "llama.cpp");
    assert_eq!(phases(&e), [Phase::Load, Phase::KvPool, Phase::Decode]);
    // Its buffers by hand: the KV buffer and the compute buffer as the estimate states them.
    let (kv, compute) = (e.kv_cache_bytes.get(), e.component_bytes(K::ComputeBuffer));
    assert_eq!(e.step[1].bytes.get(), e.step[0].bytes.get() + kv);
    assert_eq!(e.step[2].bytes.get(), e.step[1].bytes.get() + compute);
}
