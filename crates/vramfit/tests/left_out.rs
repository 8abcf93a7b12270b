//! What a build leaves out with vramfit's features `nodes`, `speculative`, `mlx`, `vision`,
//! `disaggregation`, `moments`, `tei` and `speed` (here the host memory of the speed under offload):
//! the site's calculator builds, which hand such an input over to the full build. Each input that
//! asks for it is refused with an error of kind `unsupported` naming its field where the feature
//! is off, and read where it is on. Run in both shapes: `cargo test -p vramfit --test left_out`,
//! and as the calculator builds it, `cargo test -p vramfit --test left_out
//! --no-default-features --features serde,en,own-float-text` (or `zh`).

use vramfit::ErrorKind;
use vramfit::estimate::{DisaggregationMode, Engine, EstimateInput, Mode, SpecMethod, estimate};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput};

/// vLLM serving Llama 3.1 8B on an 80 GB card of no name.
fn serving() -> EstimateInput {
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
        hardware: HardwareInput {
            gpu_memory: Some("80GB".into()),
            ..Default::default()
        },
        ..Default::default()
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
    let images = |images: f64, width: Option<f64>| {
        let mut input = serving();
        input.model.model = Some("Qwen/Qwen3-VL-8B-Instruct".into());
        input.run.images = images;
        input.run.image_width = width;
        input
    };
    vec![
        (images(2.0, None), "images", vision),
        (images(0.0, Some(896.0)), "image_width", vision),
        (
            {
                let mut input = serving();
                input.run.engine = Engine::Sglang;
                input.serving.disaggregation_mode = Some(DisaggregationMode::Decode);
                input
            },
            "disaggregation_mode",
            disaggregation,
        ),
        (
            {
                let mut input = serving();
                input.run.engine = Engine::Sglang;
                input.serving.num_reserved_decode_tokens = Some(256.0);
                input
            },
            "num_reserved_decode_tokens",
            disaggregation,
        ),
        (
            {
                let mut input = serving();
                input.placement.gpus = Some(16.0);
                input.placement.tp = 8.0;
                input
            },
            "gpus",
            nodes,
        ),
        (
            {
                let mut input = serving();
                input.placement.gpus = Some(8.0);
                input.placement.tp = 8.0;
                input.placement.gpus_per_node = Some(4.0);
                input
            },
            "gpus_per_node",
            nodes,
        ),
        (
            {
                let mut input = serving();
                input.hardware.node_link = Some("200Gb/s".into());
                input
            },
            "node_link",
            nodes,
        ),
        (
            {
                let mut input = serving();
                input.serving.speculative_method = Some(SpecMethod::Ngram);
                input.serving.num_speculative_tokens = Some(3.0);
                input
            },
            "speculative_method",
            speculative,
        ),
        (
            {
                let mut input = serving();
                input.serving.acceptance_rate = Some(0.7);
                input
            },
            "acceptance_rate",
            speculative,
        ),
        (
            {
                let mut input = serving();
                input.run.engine = Engine::Mlx;
                input.run.mode = Mode::Inference;
                input
            },
            "engine",
            mlx,
        ),
        (
            {
                let mut input = serving();
                input.serving.kv_bits = Some(4.0);
                input
            },
            "kv_bits",
            mlx,
        ),
        (
            {
                let mut input = serving();
                input.hardware.wired_limit_mb = Some(30_000.0);
                input
            },
            "wired_limit_mb",
            mlx,
        ),
        (
            {
                let mut input = serving();
                input.run.engine = Engine::Llamacpp;
                input.hardware.host_memory = Some("ddr5-6000-2ch".into());
                input
            },
            "host_memory",
            speed,
        ),
        (
            {
                let mut input = serving();
                input.run.engine = Engine::Ollama;
                input.hardware.host_bandwidth = Some("80GB/s".into());
                input
            },
            "host_bandwidth",
            speed,
        ),
        (
            {
                let mut input = serving();
                input.model.model = Some("BAAI/bge-m3".into());
                input.run.engine = Engine::Tei;
                input
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
    let e = estimate(&{
        let mut input = serving();
        input.placement.gpus = Some(8.0);
        input.placement.tp = 8.0;
        input
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
