//! config.json tests: real configs of every supported family and hostile ones.

use super::*;
use crate::estimate::{Engine, EstimateInput, ModelInput, RunInput, ServingInput, estimate};

/// The estimate of the model `json` describes under `engine`: `batch` prompts of `seq` tokens,
/// none generated, a context of 4,096 (the families' tiny reference models).
pub(super) fn run(engine: Engine, json: &str, batch: f64, seq: f64) -> crate::estimate::Estimate {
    estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(parse_config(json).unwrap().arch),
            ..Default::default()
        },
        run: RunInput {
            engine,
            batch,
            seq_len: seq,
            new_tokens: 0.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(4096.0),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap()
}

fn err(json: &str) -> InputError {
    parse_config(json).unwrap_err()
}

#[test]
fn refuses_hostile_input() {
    let deep = "[".repeat(100_000);
    let e = err(&deep);
    assert_eq!(e.field, "config.json");
    assert!(e.problem.contains("nested"));
    let big = alloc::format!("{{\"x\": \"{}\"}}", "a".repeat(MAX_CONFIG_BYTES));
    assert!(err(&big).problem.contains("bytes"));
    assert!(err("").problem.contains("JSON"));
    assert!(err("[1, 2]").problem.contains("object"));
    // Brackets inside strings do not count as nesting.
    let quoted = alloc::format!("{{\"model_type\": \"{}\"}}", "[".repeat(1000));
    assert!(err(&quoted).field.contains("model_type"));
}

#[test]
fn names_the_key() {
    let e = err(r#"{"model_type": "llama", "hidden_size": 4096}"#);
    assert_eq!(e.field, "config.json: num_attention_heads");
    assert_eq!(e.problem, "missing");
    let e = err(
        r#"{"model_type": "llama", "vocab_size": 10, "hidden_size": -1, "num_attention_heads": 1}"#,
    );
    assert_eq!(e.field, "config.json: hidden_size");
    let e = err(
        r#"{"model_type": "llama", "vocab_size": 10, "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 3,
        "intermediate_size": 128}"#,
    );
    assert_eq!(e.field, "config.json: num_key_value_heads");
    // A model_type vramfit does not name is read as Llama's layout: the first shape missing is
    // named, with the type.
    let e = err(r#"{"model_type": "t5"}"#);
    assert_eq!(e.field, "config.json: hidden_size");
    assert!(e.problem.contains("`t5`"), "{}", e.problem);
    assert!(e.accepted.contains("llama"));
    let e = err(r#"{"model_type": "gemma3", "text_config": 3}"#);
    assert_eq!(e.field, "config.json: text_config");
    let e = err(r#"{"model_type": "llama", "hidden_size": 1e300}"#);
    assert_eq!(e.field, "config.json: hidden_size");
}

#[test]
fn resnet_by_hand() {
    // ResNet-18: stem 9,408 + 128; stage 1 (64): 2 × (2 × 36,864 + 256) = 147,968;
    // stages 2–4 with a 1×1 shortcut each; fc 512 × 1000 + 1000. torchvision: 11,689,512.
    let cfg = parse_config(
        r#"{"model_type": "resnet", "embedding_size": 64, "hidden_sizes": [64, 128, 256, 512],
            "depths": [2, 2, 2, 2], "layer_type": "basic", "num_labels": 1000}"#,
    )
    .unwrap();
    assert_eq!(cfg.arch.params(), 11_689_512);
    // Per 224 × 224 image, training saves: the image 150,528; the stem's conv and ReLU outputs
    // 2 × 802,816 and the max-pool's 200,704; each basic block's two conv outputs, its first
    // ReLU's and its final ReLU's (4 × 64 × 56², 4 × 128 × 28², 4 × 256 × 14², 4 × 512 × 7²,
    // two blocks a stage) and the strided stages' shortcut convs (128 × 28², 256 × 14²,
    // 512 × 7²); the classifier's 512 inputs.
    let saved = 150_528
        + 2 * 802_816
        + 200_704
        + 2 * 4 * (64 * 3136 + 128 * 784 + 256 * 196 + 512 * 49)
        + (128 * 784 + 256 * 196 + 512 * 49)
        + 512;
    assert_eq!(saved, 5_143_552);
    assert_eq!(
        (cfg.arch.image_activations, cfg.arch.image_indices),
        (saved, 64 * 3136)
    );
}
