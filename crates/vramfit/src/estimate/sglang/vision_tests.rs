//! SGLang's cut of `mem_fraction_static` for a multimodal model against hand calculations from
//! each release line's rule (`vision.rs`).

use super::super::super::{Engine, EstimateInput, Mode, estimate};
use super::super::super::{HardwareInput, ModelInput, RunInput, ServingInput};
use super::tower_factor;

fn qwen3_vl_8b(version: &str, given: Option<f64>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen3-VL-8B-Instruct".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            engine_version: Some(version.into()),
            ..Default::default()
        },
        serving: ServingInput {
            mem_fraction_static: given,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// `adjust_mem_fraction_for_vlm` by hand:
/// - Qwen3-VL-8B's tower, 27 × 1152²: 35,831,808 / 25,165,824 = 1.423828125; 1 − 0.1 × 0.423828125
///   = 0.9576171875; × 0.95 = 0.909736328125;
/// - ViT-L's 24 × 1024² (InternViT-300M, Pixtral, Qwen3-VL-4B): a ratio of 1, 0.95;
/// - SigLIP-base's 12 × 768²: 0.28125, 1.071875 clamped to 1.05, 0.9975;
/// - 48 × 1664²: 5.28, 0.572 clamped to 0.8, 0.76.
#[test]
fn the_tower_factor_by_hand() {
    assert!(close(tower_factor(27, 1152), 0.909_736_328_125));
    assert!(close(tower_factor(24, 1024), 0.95));
    assert!(close(tower_factor(12, 768), 0.9975));
    assert!(close(tower_factor(48, 1664), 0.76));
}

/// Qwen3-VL-8B on an H100 (81,090 MiB), the fraction the pool is sized by, given 0.8 or not:
/// - 0.4.3: the default 0.88 (tp 1) is printed; `ModelRunner` × 0.95: 0.836; given 0.8: 0.76;
/// - 0.4.7: the default (81,090 − 10,240) / 81,090 = 0.874; × 0.90 = 0.7866; given: 0.72;
/// - 0.4.9: `ServerArgs` × 0.90 on the default: 0.7866 printed and used; given 0.8 is kept;
/// - 0.5.23: the default 0.829 × 0.909736328125 = 0.754171416; given 0.8 is kept.
#[test]
fn qwen3_vl_8b_on_an_h100_by_release() {
    for (version, given, server, pool) in [
        ("0.4.3", None, 0.88, 0.836),
        ("0.4.3", Some(0.8), 0.8, 0.76),
        ("0.4.7", None, 0.874, 0.7866),
        ("0.4.7", Some(0.8), 0.8, 0.72),
        ("0.4.9", None, 0.7866, 0.7866),
        ("0.4.9", Some(0.8), 0.8, 0.8),
        (
            "0.5.23",
            None,
            0.829 * 0.909_736_328_125,
            0.754_171_416_015_625,
        ),
        ("0.5.23", Some(0.8), 0.8, 0.8),
    ] {
        let w = qwen3_vl_8b(version, given).resolve().unwrap();
        assert!(
            close(w.mem_fraction_static, server),
            "{version} {given:?}: server {}",
            w.mem_fraction_static
        );
        assert!(
            close(w.sglang_pool_fraction(), pool),
            "{version} {given:?}: pool {}",
            w.sglang_pool_fraction()
        );
    }
}

/// The pool follows the cut fraction: at 0.4.3 the default's pool (0.88 × 0.95 = 0.836) is the
/// pool 0.4.9 gives at a given 0.836, which it does not cut; and the text model beside it is
/// not cut at all (Llama-3.1-8B at 0.4.3 keeps 0.88).
#[test]
fn the_pool_is_sized_by_the_cut_fraction() {
    let cut = estimate(&qwen3_vl_8b("0.4.3", None)).unwrap();
    let same = estimate(&qwen3_vl_8b("0.4.9", Some(0.836))).unwrap();
    let uncut = estimate(&qwen3_vl_8b("0.4.9", Some(0.88))).unwrap();
    assert_eq!(cut.kv_cache_tokens, same.kv_cache_tokens);
    assert!(cut.kv_cache_tokens.unwrap() < uncut.kv_cache_tokens.unwrap());
    assert!(cut.notes.iter().any(|n| n.key == "sglang_vision_fraction"));
    let text = {
        let mut input = qwen3_vl_8b("0.4.3", None);
        input.model.model = Some("meta-llama/Llama-3.1-8B".into());
        input
    }
    .resolve()
    .unwrap();
    assert_eq!(text.sglang_vision_cut, None);
    assert!(close(text.sglang_pool_fraction(), 0.88));
}
