//! Gemma 4's vision and audio towers against transformers 5.25.0
//! (`tests/reference/gemma4-towers-reference.csv`, from `gemma4_towers_reference.py`): every
//! parameter of `Gemma4ForConditionalGeneration` on the meta device, each tower and embedder
//! apart, and google/gemma-4-E2B-it's by hand.

use alloc::format;

use crate::config::parse_config;
use crate::error::ErrorKind;

const REFERENCE: &str = include_str!("../../../../tests/reference/gemma4-towers-reference.csv");
/// google/gemma-4-E2B-it's published config, as the mock hub serves it.
const E2B: &str = include_str!("../../../../tests/hub/fixtures/google/gemma-4-e2b-it/config.json");

/// A column of a case's row, by the header's name.
fn reference(case: &str, column: &str) -> u64 {
    let mut lines = REFERENCE.lines();
    let header: alloc::vec::Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == column).unwrap();
    let row = lines
        .find(|l| l.starts_with(&format!("{case},")))
        .unwrap_or_else(|| panic!("no row {case}"));
    row.split(',').nth(at).unwrap().parse().unwrap()
}

/// The reference's small text stack (`SMALL_TEXT`), beside the towers of the last two cases.
const SMALL_TEXT: &str = r#""text_config": {"model_type": "gemma4_text", "hidden_size": 640,
    "intermediate_size": 1024, "num_hidden_layers": 6, "num_attention_heads": 4,
    "num_key_value_heads": 1, "head_dim": 128, "global_head_dim": 256,
    "hidden_size_per_layer_input": 0}"#;

fn cases() -> [(&'static str, alloc::string::String); 4] {
    [
        ("gemma4-e2b", E2B.into()),
        (
            "gemma4-towers-defaults",
            r#"{"model_type": "gemma4", "text_config": {}, "vision_config": {},
                "audio_config": {}}"#
                .into(),
        ),
        (
            "gemma4-vision-gqa",
            format!(
                r#"{{"model_type": "gemma4", {SMALL_TEXT}, "vision_config": {{"hidden_size": 1152,
                "intermediate_size": 4304, "num_hidden_layers": 27, "num_attention_heads": 16,
                "num_key_value_heads": 4, "head_dim": 72, "patch_size": 14,
                "position_embedding_size": 4096, "standardize": true}}}}"#
            ),
        ),
        (
            "gemma4-audio-narrow",
            format!(
                r#"{{"model_type": "gemma4", {SMALL_TEXT}, "audio_config": {{"hidden_size": 512,
                "num_hidden_layers": 4, "num_attention_heads": 4,
                "subsampling_conv_channels": [64, 16], "conv_kernel_size": 7,
                "output_proj_dims": 768, "use_clipped_linears": false}}}}"#
            ),
        ),
    ]
}

/// Every case exact against the meta-device count: the towers and embedders together, the
/// text stack, and the whole model.
#[test]
fn gemma4_towers_match_transformers() {
    for (case, json) in cases() {
        let arch = parse_config(&json).unwrap().arch;
        let towers = ["vision_tower", "embed_vision", "audio_tower", "embed_audio"]
            .iter()
            .map(|c| reference(case, c))
            .sum::<u64>();
        assert_eq!(arch.vision_params, towers, "{case}");
        assert_eq!(arch.params(), reference(case, "params"), "{case}");
        assert_eq!(
            arch.params() - arch.vision_params,
            reference(case, "text_params"),
            "{case}"
        );
    }
}

/// google/gemma-4-E2B-it by hand (vision_config: width 768, 16 layers, 12 heads and 12 KV heads
/// of 64, FFN 3,072, patch 16, 10,240 positions; audio_config: width 1,024, 12 layers, 8 heads,
/// channels 128 and 32, kernel 5, output 1,536; text width 1,536).
/// Vision: patch projection 3 × 16² × 768 = 589,824 and position table 2 × 10,240 × 768 =
/// 15,728,640 → 16,318,464; a block: q, k, v, o 4 × 768 × 768 = 2,359,296, q and k norms 2 × 64,
/// MLP 3 × 768 × 3,072 = 7,077,888, four norms 3,072 → 9,440,384, × 16 = 151,046,144; tower
/// 167,364,608; embedder 768 × 1,536 = 1,179,648. Audio: convolutions 128 × 9 + 128 and 32 ×
/// 128 × 9 + 32 = 38,176, their projection 128 / 4 × 32 × 1,024 = 1,048,576 → 1,086,752; a
/// block 24 × 1,024² + 9 × 1,024 + 1,024 × 5 + 1,024 / 8 = 25,180,288, × 12 = 302,163,456;
/// output 1,024 × 1,536 + 1,536 = 1,574,400; tower 304,824,608; embedder 1,536 × 1,536 =
/// 2,359,296. All: 168,544,256 + 307,183,904 = 475,728,160 (the colleague's "about 0.47B").
#[test]
fn gemma4_e2b_towers_by_hand() {
    let vision_block = 4 * 768 * 768 + 2 * 64 + 3 * 768 * 3072 + 4 * 768;
    assert_eq!(vision_block, 9_440_384);
    let vision = 3 * 16 * 16 * 768 + 2 * 10_240 * 768 + 16 * vision_block;
    assert_eq!(vision, reference("gemma4-e2b", "vision_tower"));
    assert_eq!(768 * 1536, reference("gemma4-e2b", "embed_vision"));
    let audio_block = 24 * 1024 * 1024 + 9 * 1024 + 1024 * 5 + 1024 / 8;
    assert_eq!(audio_block, 25_180_288);
    let convs = 128 * 9 + 128 + 32 * 128 * 9 + 32;
    let audio = convs + 128 / 4 * 32 * 1024 + 12 * audio_block + 1024 * 1536 + 1536;
    assert_eq!(audio, reference("gemma4-e2b", "audio_tower"));
    assert_eq!(1536 * 1536, reference("gemma4-e2b", "embed_audio"));
    let all = vision + 768 * 1536 + audio + 1536 * 1536;
    assert_eq!(all, 475_728_160);
    let parsed = parse_config(E2B).unwrap();
    assert_eq!(parsed.arch.vision_params, all);
    // The buffers the checkpoint also holds (the clipped linears' bounds): 928 values.
    assert_eq!(reference("gemma4-e2b", "towers_state_dict") - all, 928);
    assert!(
        parsed
            .notes
            .iter()
            .any(|n| n.contains("168544256 parameters") && n.contains("(307183904)")),
        "{:?}",
        parsed.notes
    );
    assert!(
        !parsed.notes.iter().any(|n| n.contains("not counted")),
        "{:?}",
        parsed.notes
    );
}

/// A `gemma4` file without towers counts none and says nothing of them.
#[test]
fn gemma4_without_towers_counts_none() {
    let parsed = parse_config(r#"{"model_type": "gemma4", "text_config": {}}"#).unwrap();
    assert_eq!(parsed.arch.vision_params, 0);
    assert!(!parsed.notes.iter().any(|n| n.contains("embedder")));
}

/// Bad tower keys are refused at their field.
#[test]
fn gemma4_tower_refusals_name_their_field() {
    for (audio, field, kind) in [
        (
            r#"{"hidden_size": 1000, "num_attention_heads": 3}"#,
            "config.json: audio_config.num_attention_heads",
            ErrorKind::Conflict,
        ),
        (
            r#"{"subsampling_conv_channels": [128]}"#,
            "config.json: audio_config.subsampling_conv_channels",
            ErrorKind::ConfigJson,
        ),
        (
            r#"{"subsampling_conv_channels": [128, 0]}"#,
            "config.json: audio_config.subsampling_conv_channels",
            ErrorKind::ConfigJson,
        ),
    ] {
        let json =
            format!(r#"{{"model_type": "gemma4", "text_config": {{}}, "audio_config": {audio}}}"#);
        let e = parse_config(&json).unwrap_err();
        assert_eq!((e.field.as_str(), e.kind), (field, kind), "{audio}");
    }
    let e = parse_config(
        r#"{"model_type": "gemma4", "text_config": {}, "vision_config": {"hidden_size": 0}}"#,
    )
    .unwrap_err();
    assert_eq!(e.field, "config.json: vision_config.hidden_size");
}
