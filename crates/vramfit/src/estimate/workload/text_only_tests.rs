//! `language_model_only`: vLLM without its encoder towers, by hand from the tower counts that
//! `config/gemma4_towers_tests.rs` checks against transformers' meta count.

use crate::error::ErrorKind;
use crate::estimate::{
    ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, ServingInput,
    estimate,
};

/// google/gemma-4-E2B-it's published config, as the mock hub serves it.
const E2B: &str =
    include_str!("../../../../../tests/hub/fixtures/google/gemma-4-e2b-it/config.json");

fn e2b(text_only: bool) -> EstimateInput {
    let parsed = crate::config::parse_config(E2B).unwrap();
    EstimateInput {
        model: ModelInput {
            arch: Some(parsed.arch),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            language_model_only: text_only,
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
    }
}

/// Gemma 4 E2B text-only on vLLM: the vision tower and its embedder (167,364,608 + 768 ×
/// 1,536 = 168,544,256) and the audio tower and its embedder (304,824,608 + 1,536 × 1,536 =
/// 307,183,904) are not loaded: 475,728,160 parameters × 2 B (bf16) = 951,456,320 B less
/// weight, which the KV pool takes back with the start-up profile's encoder cache and
/// activations that the towers bring even with no image asked (`vllm/encoder.rs`), to within
/// one block of 16 tokens in every layer.
#[test]
fn gemma4_e2b_text_only_by_hand() {
    let towers = 168_544_256u64 + 307_183_904;
    assert_eq!(towers, 475_728_160);
    let all = estimate(&e2b(false)).unwrap();
    let text = estimate(&e2b(true)).unwrap();
    let weights = |e: &crate::estimate::Estimate| e.component_bytes(ComponentKind::Weights);
    assert_eq!(weights(&all) - weights(&text), towers * 2);
    assert_eq!(weights(&all) - weights(&text), 951_456_320);
    let gained =
        text.component_bytes(ComponentKind::KvCache) - all.component_bytes(ComponentKind::KvCache);
    let profile = all.component_bytes(ComponentKind::EncoderCache)
        + all.component_bytes(ComponentKind::EncoderActivations);
    assert!(profile > 0);
    assert_eq!(text.component_bytes(ComponentKind::EncoderCache), 0);
    assert!(gained <= towers * 2 + profile, "{gained}");
    assert!(towers * 2 + profile - gained < 64 << 20, "{gained}");
    assert!(text.notes.iter().any(|n| n.key == "language_model_only"));
    assert!(!all.notes.iter().any(|n| n.key == "language_model_only"));
}

/// Qwen3-VL-8B text-only: its tower (456,010,480 and 3 DeepStack mergers, `families_tests.rs`)
/// leaves the weights whole, and the model is then a text model of the same cache.
#[test]
fn qwen3_vl_text_only_drops_the_tower() {
    let base = {
        let mut input = e2b(false);
        input.model.model = Some("Qwen/Qwen3-VL-8B-Instruct".into());
        input
    };
    let tower = crate::catalog::find_model("Qwen/Qwen3-VL-8B-Instruct")
        .map(|(_, arch, _)| arch.vision_params)
        .unwrap();
    assert!(tower > 456_010_480);
    let all = estimate(&{
        let mut input = base.clone();
        input.model.arch = None;
        input
    })
    .unwrap();
    let text = estimate(&EstimateInput {
        model: ModelInput {
            arch: None,
            ..base.model
        },
        run: RunInput {
            language_model_only: true,
            ..base.run
        },
        ..base
    })
    .unwrap();
    assert_eq!(
        all.component_bytes(ComponentKind::Weights) - text.component_bytes(ComponentKind::Weights),
        tower * 2
    );
}

/// Another engine, images beside it, or a text model are refused at the field.
#[test]
fn refusals_name_the_field() {
    let mut i = e2b(true);
    i.run.engine = Engine::Hf;
    i.run.mode = Mode::Inference;
    let e = estimate(&i).unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str()),
        (ErrorKind::Conflict, "language_model_only")
    );
    let mut i = {
        let mut input = e2b(true);
        input.model.model = Some("google/gemma-3-4b-it".into());
        input.model.arch = None;
        input
    };
    i.run.images = 1.0;
    let e = estimate(&i).unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str()),
        (ErrorKind::Conflict, "language_model_only")
    );
    let e = estimate(&{
        let mut input = e2b(true);
        input.model.model = Some("meta-llama/Llama-3.1-8B".into());
        input.model.arch = None;
        input
    })
    .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str()),
        (ErrorKind::Conflict, "language_model_only")
    );
}

/// Gemma 4 E2B with two 1,024 × 1,024 images a prompt on vLLM (H100: max_num_batched_tokens
/// 8,192): each image 256 soft tokens and its 2 markers (`model/image_tokens.rs`, against
/// transformers' processor), so the prompt grows by 516; the encoder profile by hand from
/// vLLM's `compute_mm_encoder_budget`: the largest image 280 embeddings (`max_soft_tokens`),
/// budget max(8,192, 280) = 8,192, per prompt min(2, 8,192 / 280) = 2, items min(8,192 / 280
/// = 29, 1,024 sequences × 2) = 29, each embedding the text width 1,536 in bf16: 29 × 280 ×
/// 1,536 × 2 B = 24,944,640 B. Both towers stay loaded. The vision tower's forward in that
/// profile (`model::VisionTower`, Gemma 4's row of `vision_tower.rs`): 29 × 280 × 3² = 73,080
/// patches, the fp32 pixels 73,080 × 768 × 4 B = 224,501,760, the peak 73,080 × 24,834 B +
/// 2 MiB + the bf16 input 73,080 × 768 × 2 B = 1,814,868,720 + 2,097,152 + 112,250,880 =
/// 1,929,216,752 B, of which the part above the outputs and the text forward counts (none
/// here: the text forward's profile over 8,192 tokens is larger), and the fp32 pixels.
#[test]
fn gemma4_e2b_images_by_hand() {
    let mut i = e2b(false);
    i.run.images = 2.0;
    let w = i.resolve().unwrap();
    assert_eq!(w.images.map(|im| im.tokens()), Some(516));
    let e = estimate(&i).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::EncoderCache), 24_944_640);
    assert!(!e.notes.iter().any(|n| n.key == "images_tower"));
    let text = e.component_bytes(ComponentKind::Activations);
    let above = 1_929_216_752u64.saturating_sub(24_944_640 + text);
    assert_eq!(
        e.component_bytes(ComponentKind::EncoderActivations),
        224_501_760 + above
    );
    let plain = estimate(&e2b(false)).unwrap();
    assert_eq!(
        e.component_bytes(ComponentKind::Weights),
        plain.component_bytes(ComponentKind::Weights)
    );
    // transformers and llama.cpp take the same prompt.
    i.run.mode = Mode::Inference;
    i.run.engine = Engine::Hf;
    assert_eq!(i.resolve().unwrap().seq_len, 2048 + 516);
    assert!(estimate(&i).is_ok());
}
