//! The launch follows the planner's layout: data-parallel replicas and expert parallel, on one
//! node and over several, written as vLLM and SGLang spell them, each command read back into
//! the same estimate, which fits the card.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{command_text, launch_input, read_command};
use crate::estimate::{
    Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, ServingInput, need,
};
use crate::gpu::find_gpu;
use crate::hardware::{Layout, layout_input};

fn serve(model: &str, engine: Engine, batch: f64, context: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            batch,
            seq_len: context,
            new_tokens: 0.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(context),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// `input` spread over `layout` on H100s, as the planner counted it.
fn planned(input: &EstimateInput, layout: Layout) -> EstimateInput {
    layout_input(input, layout, find_gpu("h100-sxm5-80gb").unwrap()).unwrap()
}

fn has(argv: &[String], pair: [&str; 2]) -> bool {
    argv.windows(2).any(|w| w == pair)
}

/// Every serving command of the launch reads back into the planned run's figures, and the
/// run fits the card.
fn reads_back(input: &EstimateInput, commands: &[Vec<String>]) {
    let want = input.resolve().unwrap();
    assert!(need(input) <= find_gpu("h100-sxm5-80gb").unwrap().memory);
    for argv in commands {
        let line = command_text(argv);
        let r = read_command(&line).unwrap();
        assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
        let back = EstimateInput {
            run: RunInput {
                batch: input.run.batch,
                seq_len: input.run.seq_len,
                new_tokens: input.run.new_tokens,
                ..r.input.run
            },
            hardware: HardwareInput {
                gpu: input.hardware.gpu.clone(),
                ..r.input.hardware
            },
            ..r.input
        };
        let got = back.resolve().unwrap();
        // The nodes as many; a node's GPUs beyond one node's layout are the reader's default 8.
        assert_eq!(got.nodes.nodes, want.nodes.nodes, "{line}");
        assert_eq!(got.figures(), want.figures(), "{line}");
    }
}

#[test]
fn vllm_wide_expert_parallel_over_two_nodes_uses_its_data_parallel_launcher() {
    // DeepSeek-V3, 64 sequences of 4k, planned as DP=16 + EP=16 over 2 nodes of 8: vLLM's
    // data-parallel deployment, one command a node, 8 ranks each; the head serves the API.
    let input = planned(
        &serve("deepseek-ai/DeepSeek-V3", Engine::Vllm, 64.0, 4096.0),
        Layout::expert(1, 16, 2),
    );
    let l = launch_input(&input).unwrap();
    assert_eq!(l.commands.len(), 2);
    for (node, argv) in l.commands.iter().enumerate() {
        assert_eq!(argv[..3], ["vllm", "serve", "deepseek-ai/DeepSeek-V3"]);
        assert!(has(argv, ["--data-parallel-size", "16"]), "{argv:?}");
        assert!(argv.iter().any(|w| w == "--enable-expert-parallel"));
        assert!(!argv.iter().any(|w| w == "--tensor-parallel-size"));
        assert!(has(argv, ["--data-parallel-size-local", "8"]));
        assert!(has(argv, ["--data-parallel-address", "HEAD_IP"]));
        assert!(has(argv, ["--data-parallel-rpc-port", "13345"]));
        assert_eq!(argv.iter().any(|w| w == "--headless"), node > 0);
        assert_eq!(has(argv, ["--data-parallel-start-rank", "8"]), node == 1);
    }
    assert!(
        l.script
            .starts_with("# on node 0 of 2 (the head)\nvllm serve deepseek-ai/DeepSeek-V3"),
        "{}",
        l.script
    );
    reads_back(&input, &l.commands);
}

#[test]
fn vllm_replicas_of_tp_8_over_two_nodes() {
    // Llama-3.1-70B, 256 sequences of 8k, planned as DP=2 × TP=8 over 2 nodes: one replica a
    // node, each with 128 sequences.
    let input = planned(
        &serve("meta-llama/Llama-3.1-70B", Engine::Vllm, 256.0, 8192.0),
        Layout::data(2, 8, 2),
    );
    let l = launch_input(&input).unwrap();
    assert_eq!(l.commands.len(), 2);
    for argv in &l.commands {
        for pair in [
            ["--tensor-parallel-size", "8"],
            ["--data-parallel-size", "2"],
            ["--data-parallel-size-local", "1"],
        ] {
            assert!(has(argv, pair), "{pair:?} in {argv:?}");
        }
        assert!(!argv.iter().any(|w| w == "--enable-expert-parallel"));
    }
    reads_back(&input, &l.commands);
}

#[test]
fn sglang_dp_attention_with_experts_over_two_nodes() {
    // The same DeepSeek-V3 run on SGLang, planned as DP=2 × TP=8 + EP=16: its tp spans both
    // nodes, two attention groups, the experts over all 16.
    let input = planned(
        &serve("deepseek-ai/DeepSeek-V3", Engine::Sglang, 64.0, 4096.0),
        Layout::expert(8, 2, 2),
    );
    let l = launch_input(&input).unwrap();
    assert_eq!(l.commands.len(), 2);
    for (node, argv) in l.commands.iter().enumerate() {
        for pair in [
            ["--tp-size", "16"],
            ["--attn-dp-size", "2"],
            ["--ep-size", "16"],
            ["--nnodes", "2"],
            ["--node-rank", &node.to_string()],
        ] {
            assert!(has(argv, pair), "{pair:?} in {argv:?}");
        }
        assert!(!argv.iter().any(|w| w == "--dp-size"), "{argv:?}");
    }
    reads_back(&input, &l.commands);
}

#[test]
fn vllm_tensor_parallel_with_experts_on_one_node() {
    // Qwen3-30B-A3B planned as TP=2 + EP=2: `--enable-expert-parallel` over the two GPUs.
    let input = planned(
        &serve("Qwen/Qwen3-30B-A3B", Engine::Vllm, 64.0, 4096.0),
        Layout::expert(2, 1, 1),
    );
    let l = launch_input(&input).unwrap();
    assert_eq!(l.commands.len(), 1);
    let argv = &l.commands[0];
    assert!(has(argv, ["--tensor-parallel-size", "2"]));
    assert!(argv.iter().any(|w| w == "--enable-expert-parallel"));
    assert!(!argv.iter().any(|w| w == "--data-parallel-size"));
    reads_back(&input, &l.commands);
}
