//! The sampler's Triton buffer and the fused-MoE workspaces against hand calculations.

use super::super::super::{Engine, EstimateInput, Mode};
use super::super::super::{HardwareInput, ModelInput, RunInput};
use super::SAMPLER_COPIES_PER_SEQ;
use crate::gpu::{UNKNOWN_SMS, gpus};
use crate::precision::Quantization;

fn vllm(model: &str, gpu: &str, version: &str) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            engine_version: Some(version.into()),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some(gpu.into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// 3.78 − 132 / 1,024 = 3.65109375 copies a sequence.
#[test]
fn the_copies_beside_the_buffer() {
    assert!((SAMPLER_COPIES_PER_SEQ - 3.651_093_75).abs() < 1e-12);
}

/// Llama-3.1-8B on the calibration's H100 SXM5 (132 SMs) at its 1,024 sequences: 1,024 ×
/// 128,256 × 4 × 3.65109375 + 132 × 128,256 × 4 = 1,985,772,257.28 B, rounded up to the byte as the 3.78 copies' figure
/// (1,024 × 128,256 × 4 × 3.78) the calibration gave.
#[test]
fn the_calibrations_h100_is_unchanged() {
    let w = vllm("meta-llama/Llama-3.1-8B", "h100-sxm5-80gb", "0.19.0")
        .resolve()
        .unwrap();
    let run = crate::estimate::Run::new(&w, false);
    assert_eq!(w.max_num_seqs, 1024);
    assert_eq!(run.vllm_triton_topk_sms(w.vllm_version), Some(132));
    assert_eq!(run.vllm_triton_sampler(132), 1_985_772_258);
}

/// gpt-oss-20b on an A100 80 GB (108 SMs) at 0.19.0, 256 sequences, 2,048 batched tokens:
/// - the sampler: 256 × 201,088 × 4 × 3.65109375 + 108 × 201,088 × 4 = 838,681,743.36 B (838,681,744 rounded up), 75 rows
///   (60,326,400 B) above 3.78 copies' 778,355,343;
/// - Marlin's workspaces: 2,048 × 4 experts a token = 8,192 rows × (max(2,944, 3,072) +
///   max(5,888, 3,072)) × 2 B = 146,800,640 B (N = 2,880 padded to 2,944, K = 2,880 to 3,072).
///
/// At 0.18 the workspaces are not counted (read at v0.19.0 only); on Hopper, whose MXFP4
/// backend is Triton, none are.
#[test]
fn gpt_oss_20b_on_an_a100() {
    let input = {
        let mut input = vllm("openai/gpt-oss-20b", "a100-sxm4-80gb", "0.19.0");
        input.model.quantization = Quantization::Mxfp4;
        input
    };
    let w = input.resolve().unwrap();
    let run = crate::estimate::Run::new(&w, false);
    assert_eq!((w.max_num_seqs, w.max_num_batched_tokens), (256, 2048));
    assert_eq!(run.vllm_triton_topk_sms(w.vllm_version), Some(108));
    assert_eq!(run.vllm_triton_sampler(108), 838_681_744);
    let mxfp4 = run.vllm_mxfp4_extra(w.vllm_version);
    assert_eq!(run.vllm_moe_workspaces(w.vllm_version, mxfp4), 146_800_640);
    let old = {
        let mut input = input.clone();
        input.run.engine_version = Some("0.18.0".into());
        input
    }
    .resolve()
    .unwrap();
    let run = crate::estimate::Run::new(&old, false);
    let mxfp4 = run.vllm_mxfp4_extra(old.vllm_version);
    assert_eq!(run.vllm_moe_workspaces(old.vllm_version, mxfp4), 0);
    let hopper = EstimateInput {
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..input.hardware
        },
        ..input
    }
    .resolve()
    .unwrap();
    let run = crate::estimate::Run::new(&hopper, false);
    let mxfp4 = run.vllm_mxfp4_extra(hopper.vllm_version);
    assert_eq!(run.vllm_moe_workspaces(hopper.vllm_version, mxfp4), 0);
}

/// A card given by its memory alone has no SM count: `data/engine-defaults.toml`'s fallback, 304
/// (the MI300X's compute units, the catalog's most), capped by the batch as vLLM caps it: at the
/// H100 preset's 1,024 sequences min(next_power_of_2(min(304, 1,024)), 304) = min(512, 304) = 304
/// rows; at 64 sequences min(64, 304) = 64.
#[test]
fn an_unknown_card_takes_the_fallback_sms() {
    assert_eq!(UNKNOWN_SMS, 304);
    let unknown = |seqs: Option<f64>| {
        let mut input = vllm("meta-llama/Llama-3.1-8B", "h100-sxm5-80gb", "0.19.0");
        input.hardware.gpu = None;
        input.hardware.gpu_memory = Some("80GiB".into());
        input.serving.max_num_seqs = seqs;
        input
    };
    let w = unknown(Some(1024.0)).resolve().unwrap();
    let run = crate::estimate::Run::new(&w, false);
    assert_eq!(run.vllm_triton_topk_sms(w.vllm_version), Some(304));
    let w = unknown(Some(64.0)).resolve().unwrap();
    let run = crate::estimate::Run::new(&w, false);
    assert_eq!(run.vllm_triton_topk_sms(w.vllm_version), Some(64));
    // Before 0.17 the sort runs and no buffer is kept.
    let sort = {
        let mut input = vllm("meta-llama/Llama-3.1-8B", "h100-sxm5-80gb", "0.19.0");
        input.run.engine_version = Some("0.16.0".into());
        input
    }
    .resolve()
    .unwrap();
    let run = crate::estimate::Run::new(&sort, false);
    assert_eq!(run.vllm_triton_topk_sms(sort.vllm_version), None);
}

/// The buffer by hand from vLLM v0.19.0's `apply_top_k_top_p_triton`
/// (`vllm/v1/sample/ops/topk_topp_triton.py`: `NUM_PROGRAMS = min(num_sm, batch_size)`,
/// `size = min(next_power_of_2(NUM_PROGRAMS), num_sm)`, `logits.new_empty((size, vocab))` in
/// fp32), Llama-3.1-8B's 128,256-token vocabulary (a row 513,024 B), 256 sequences:
/// - L4, 58 SMs (TechPowerUp): min(next_pow2(min(58, 256)) = 64, 58) = 58 rows, 29,755,392 B;
/// - RTX 4090, 128 SMs (Ada whitepaper): min(128, 128) = 128 rows, 65,667,072 B;
/// - MI300X, 304 compute units (AMD), ROCm's default sampler being the same `forward_native`:
///   min(next_pow2(256) = 256, 304) = 256 rows, 131,334,144 B;
/// - RTX 5090, 170 SMs (Blackwell RTX whitepaper), at 100 sequences: min(next_pow2(100) = 128,
///   170) = 128 rows, not 170.
///
/// The sampler figure on the L4: 256 × 513,024 = 131,334,144 B of rows; × 3 = 394,002,432, ×
/// 0.65109375 = 85,510,840.32, so 479,513,272.32 B for the sequences, + 58 × 513,024 =
/// 29,755,392 B of buffer = 509,268,664.32 B, 509,268,665 rounded up.
#[test]
fn the_buffer_rows_by_hand_on_three_cards() {
    let rows = |gpu: &str, seqs: f64| {
        let w = {
            let mut input = vllm("meta-llama/Llama-3.1-8B", gpu, "0.19.0");
            input.serving.max_num_seqs = Some(seqs);
            input
        }
        .resolve()
        .unwrap();
        assert_eq!(w.max_num_seqs, seqs as u64);
        let run = crate::estimate::Run::new(&w, false);
        let sms = run.vllm_triton_topk_sms(w.vllm_version).unwrap();
        (sms, run.vllm_triton_sampler(sms))
    };
    let row = 128_256 * 4;
    let (l4, l4_sampler) = rows("l4", 256.0);
    assert_eq!((l4, l4 * row), (58, 29_755_392));
    assert_eq!(l4_sampler, 509_268_665);
    let (ada, _) = rows("rtx-4090", 256.0);
    assert_eq!((ada, ada * row), (128, 65_667_072));
    let (amd, _) = rows("mi300x", 256.0);
    assert_eq!((amd, amd * row), (256, 131_334_144));
    assert_eq!(rows("rtx-5090", 100.0).0, 128);
}

/// No card in the catalog has more SMs than the fallback (the sourcegen test checks the data;
/// this checks the table the estimator reads), and every NVIDIA card but GB200's, which NVIDIA
/// gives no count for (`data/engine-defaults.toml`), has its own.
#[test]
fn every_nvidia_card_has_its_sms_or_is_unknown_on_purpose() {
    for g in gpus() {
        assert!(g.sms <= UNKNOWN_SMS, "{}", g.id);
        if g.vendor == "NVIDIA" {
            assert_eq!(g.sms == 0, g.id == "gb200-186gb", "{}", g.id);
        }
    }
}
