//! The sampler's Triton buffer and the fused-MoE workspaces against hand calculations.

use super::super::super::{Engine, EstimateInput, Mode};
use super::super::super::{HardwareInput, ModelInput, RunInput};
use super::{SAMPLER_COPIES_PER_SEQ, UNKNOWN_SMS};
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
    assert_eq!(UNKNOWN_SMS, 188);
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

/// A card given by its memory alone has no SM count: the catalog's most, 188 rows.
#[test]
fn an_unknown_card_takes_the_most_sms() {
    let w = {
        let mut input = vllm("meta-llama/Llama-3.1-8B", "h100-sxm5-80gb", "0.19.0");
        input.hardware.gpu = None;
        input.hardware.gpu_memory = Some("80GiB".into());
        input
    }
    .resolve()
    .unwrap();
    let run = crate::estimate::Run::new(&w, false);
    assert_eq!(run.vllm_triton_topk_sms(w.vllm_version), Some(188));
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
