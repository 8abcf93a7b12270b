//! Launches over several nodes: vLLM on a Ray cluster, SGLang's `--nnodes`, each command on
//! its node, read back into the same estimate.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{command_text, launch_input, read_command};
use crate::estimate::{
    Engine, EstimateInput, HardwareInput, Mode, ModelInput, PlacementInput, RunInput, ServingInput,
};

fn words(s: &[&str]) -> Vec<String> {
    s.iter().map(|w| w.to_string()).collect()
}

/// DeepSeek-V3 (fp8) at tp 8 × pp 2 on two nodes of eight H100s.
fn deepseek(engine: Engine) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("deepseek-ai/DeepSeek-V3".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(32768.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        placement: PlacementInput {
            tp: 8.0,
            pp: 2.0,
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn vllm_over_two_nodes_starts_a_ray_cluster_then_serves_from_the_head() {
    let l = launch_input(&deepseek(Engine::Vllm)).unwrap();
    assert_eq!(l.commands.len(), 3);
    assert_eq!(
        l.commands[0],
        words(&["ray", "start", "--head", "--port", "6379"])
    );
    assert_eq!(
        l.commands[1],
        words(&["ray", "start", "--address", "HEAD_IP:6379"])
    );
    let serve = &l.commands[2];
    assert_eq!(
        serve[..3],
        words(&["vllm", "serve", "deepseek-ai/DeepSeek-V3"])
    );
    for pair in [
        ["--tensor-parallel-size", "8"],
        ["--pipeline-parallel-size", "2"],
        ["--distributed-executor-backend", "ray"],
    ] {
        assert!(serve.windows(2).any(|w| w == pair), "{pair:?} in {serve:?}");
    }
    assert!(l.script.starts_with("# on node 0 of 2 (the head)\nray start --head --port 6379\n# on node 1 of 2 (a worker)\nray start --address HEAD_IP:6379\n# on node 0 of 2 (the head)\nvllm serve"), "{}", l.script);
    assert!(
        l.notes
            .iter()
            .any(|n| n.en.contains("HEAD_IP is the head node's address"))
    );
}

#[test]
fn sglang_over_two_nodes_is_one_command_per_node_rank() {
    let l = launch_input(&deepseek(Engine::Sglang)).unwrap();
    assert_eq!(l.commands.len(), 2);
    for (rank, argv) in l.commands.iter().enumerate() {
        let tail = &argv[argv.len() - 6..];
        assert_eq!(
            tail,
            words(&[
                "--nnodes",
                "2",
                "--node-rank",
                &rank.to_string(),
                "--dist-init-addr",
                "HEAD_IP:5000"
            ])
        );
        assert!(argv.windows(2).any(|w| w == ["--tp-size", "8"]));
        assert!(argv.windows(2).any(|w| w == ["--pp-size", "2"]));
    }
}

#[test]
fn every_node_launch_reads_back_as_the_same_estimate() {
    // The serving command of each engine (and every node's, for SGLang), read back: the same
    // figures, 2 nodes of 8 (vLLM's through tp × pp and the default 8 GPUs a node; SGLang's
    // through --nnodes).
    for engine in [Engine::Vllm, Engine::Sglang] {
        let input = deepseek(engine);
        let want = input.resolve().unwrap();
        assert_eq!(want.nodes.nodes, 2);
        let l = launch_input(&input).unwrap();
        let serving = l.commands.iter().filter(|c| c[0] != "ray");
        for argv in serving {
            let line = command_text(argv);
            let r = read_command(&line).unwrap();
            assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
            let back = EstimateInput {
                hardware: HardwareInput {
                    gpu: input.hardware.gpu.clone(),
                    ..r.input.hardware
                },
                ..r.input
            };
            let got = back.resolve().unwrap();
            assert_eq!(got.nodes, want.nodes, "{line}");
            assert_eq!(got.figures(), want.figures(), "{line}");
        }
    }
}

#[test]
fn nnodes_that_do_not_divide_the_gpus_are_listed_as_not_read() {
    let r = read_command(
        "python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 4 --nnodes 3 --node-rank 0",
    )
    .unwrap();
    assert_eq!(r.not_read, ["--nnodes", "3"]);
    assert_eq!(r.input.placement.gpus_per_node, None);
    // vLLM's own multi-node launcher, read too: 16 GPUs over --nnodes 2 are nodes of 8.
    let r = read_command(
        "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 -pp 2 --nnodes 2 --node-rank 1 --master-addr 10.0.0.1 --master-port 29501 --headless",
    )
    .unwrap();
    assert!(r.not_read.is_empty(), "{:?}", r.not_read);
    assert_eq!(r.input.placement.gpus_per_node, Some(8.0));
}

#[test]
fn trtllm_over_nodes_is_refused_by_name() {
    let e = launch_input(&deepseek(Engine::Trtllm)).unwrap_err();
    assert_eq!(e.field, "gpus");
    assert!(e.problem.contains("over 2 nodes"), "{}", e.problem);
}
