//! What a build leaves out with vramfit's features `nodes`, `speculative`, `mlx`, `vision`,
//! `disaggregation`, `moments`, `tei` and `speed` (here the host memory of the speed under offload):
//! the site's calculator builds, which hand such an input over to the full build. Each input that
//! asks for it is refused with an error of kind `unsupported` naming its field where the feature
//! is off, and read where it is on. Run in both shapes: `cargo test -p vramfit --test left_out`,
//! and as the calculator builds it, `cargo test -p vramfit --test left_out
//! --no-default-features --features serde,en,own-float-text` (or `zh`).

use vramfit::ErrorKind;
use vramfit::estimate::{DisaggregationMode, Engine, EstimateInput, Mode, SpecMethod, estimate};

/// vLLM serving Llama 3.1 8B on an 80 GB card of no name.
fn serving() -> EstimateInput {
    EstimateInput {
        model: Some("meta-llama/Llama-3.1-8B".into()),
        mode: Mode::Serve,
        engine: Engine::Vllm,
        gpu_memory: Some("80GB".into()),
        ..EstimateInput::default()
    }
}

/// `input`, its field, and whether this build has the feature that reads it.
fn cases() -> Vec<(EstimateInput, &'static str, bool)> {
    let nodes = cfg!(feature = "nodes");
    let speculative = cfg!(feature = "speculative");
    let mlx = cfg!(feature = "mlx");
    let vision = cfg!(feature = "vision");
    let disaggregation = cfg!(feature = "disaggregation");
    let speed = cfg!(feature = "speed");
    let tei = cfg!(feature = "tei");
    let images = |images: f64, width: Option<f64>| EstimateInput {
        model: Some("Qwen/Qwen3-VL-8B-Instruct".into()),
        images,
        image_width: width,
        ..serving()
    };
    vec![
        (images(2.0, None), "images", vision),
        (images(0.0, Some(896.0)), "image_width", vision),
        (
            EstimateInput {
                engine: Engine::Sglang,
                disaggregation_mode: Some(DisaggregationMode::Decode),
                ..serving()
            },
            "disaggregation_mode",
            disaggregation,
        ),
        (
            EstimateInput {
                engine: Engine::Sglang,
                num_reserved_decode_tokens: Some(256.0),
                ..serving()
            },
            "num_reserved_decode_tokens",
            disaggregation,
        ),
        (
            EstimateInput {
                gpus: Some(16.0),
                tp: 8.0,
                ..serving()
            },
            "gpus",
            nodes,
        ),
        (
            EstimateInput {
                gpus: Some(8.0),
                tp: 8.0,
                gpus_per_node: Some(4.0),
                ..serving()
            },
            "gpus_per_node",
            nodes,
        ),
        (
            EstimateInput {
                node_link: Some("200Gb/s".into()),
                ..serving()
            },
            "node_link",
            nodes,
        ),
        (
            EstimateInput {
                speculative_method: Some(SpecMethod::Ngram),
                num_speculative_tokens: Some(3.0),
                ..serving()
            },
            "speculative_method",
            speculative,
        ),
        (
            EstimateInput {
                acceptance_rate: Some(0.7),
                ..serving()
            },
            "acceptance_rate",
            speculative,
        ),
        (
            EstimateInput {
                engine: Engine::Mlx,
                mode: Mode::Inference,
                ..serving()
            },
            "engine",
            mlx,
        ),
        (
            EstimateInput {
                kv_bits: Some(4.0),
                ..serving()
            },
            "kv_bits",
            mlx,
        ),
        (
            EstimateInput {
                wired_limit_mb: Some(30_000.0),
                ..serving()
            },
            "wired_limit_mb",
            mlx,
        ),
        (
            EstimateInput {
                engine: Engine::Llamacpp,
                host_memory: Some("ddr5-6000-2ch".into()),
                ..serving()
            },
            "host_memory",
            speed,
        ),
        (
            EstimateInput {
                engine: Engine::Ollama,
                host_bandwidth: Some("80GB/s".into()),
                ..serving()
            },
            "host_bandwidth",
            speed,
        ),
        (
            EstimateInput {
                model: Some("BAAI/bge-m3".into()),
                engine: Engine::Tei,
                ..serving()
            },
            "engine",
            tei,
        ),
    ]
}

/// Whether `e` is this build's refusal of `field`: kind `unsupported`, naming the field, and
/// saying that this build of vramfit leaves it out (in either language: other refusals of
/// kind `unsupported`, such as mlx-lm's settings on another engine, name no build).
fn left_out(e: &vramfit::InputError, field: &str) -> bool {
    e.kind == ErrorKind::Unsupported && e.field == field && e.problem.contains("vramfit")
}

#[test]
fn a_feature_left_out_refuses_its_input_as_unsupported() {
    for (input, field, built) in cases() {
        let refused = estimate(&input).is_err_and(|e| left_out(&e, field));
        assert_eq!(refused, !built, "{field}: {:?}", estimate(&input).err());
    }
}

/// Below what the features read, every build estimates alike: one node, no drafter, no Mac.
#[test]
fn one_node_without_the_features_settings_is_estimated_in_every_build() {
    let e = estimate(&EstimateInput {
        gpus: Some(8.0),
        tp: 8.0,
        ..serving()
    })
    .expect("8 GPUs fill one node");
    assert!(e.notes.iter().all(|n| n.key != "nodes"));
}

/// Feature `moments`: an inference's and a serving engine's moments where it is on, none (and
/// the same numbers) where it is off, as the calculator builds leave the chart to the full build.
#[test]
fn the_moments_are_the_feature_moments() {
    let e = estimate(&serving()).expect("vLLM on 80 GB");
    assert_eq!(e.step.is_empty(), !cfg!(feature = "moments"));
    if let Some(last) = e.step.last() {
        assert_eq!(last.bytes, e.total_bytes);
    }
}
