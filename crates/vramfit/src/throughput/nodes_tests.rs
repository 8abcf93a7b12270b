//! The links between nodes in the speed model, against hand calculations written out in each
//! test: the pipeline's hand-overs that cross the network, and the all-reduces of a tensor
//! group that spans nodes.

use super::*;
use crate::gpu::find_gpu;

fn h100() -> Device {
    Device::of(find_gpu("h100-sxm5-80gb").expect("in the catalog"))
}

/// A DeepSeek-V3-like decode at tp 8 × pp 2 (hidden 7168, 61 layers), 40 GB read per GPU
/// per stage, batch 1: the one hand-over between the stages crosses from node 0 to node 1.
fn deepseek(crossings: u32) -> InferenceInput {
    InferenceInput {
        runtime: Runtime::Batched,
        compute: Compute::Fp8,
        active_params: 36_625_618_432,
        dense_weight_bytes: 1_610_000_000,
        expert_weight_bytes: 42_320_000_000,
        experts: 256,
        experts_per_token: 8,
        kv_bytes_per_token: 35_712,
        layers: 61,
        hidden: 7168,
        heads: 128,
        head_dim: 192,
        batch: 1,
        prompt_tokens: 2048,
        output_tokens: 256,
        tp: 8,
        pp: 2,
        node_link_bytes_per_s: 50_000_000_000,
        pp_node_crossings: crossings,
        ..InferenceInput::default()
    }
}

#[test]
fn a_pipeline_hand_over_between_nodes_costs_its_bytes_over_the_network() {
    let one_node = inference(&deepseek(0), &h100()).unwrap();
    let two_nodes = inference(&deepseek(1), &h100()).unwrap();
    // Decode, one token: 2 tensors (hidden states, residual) × 7168 × 2 B / tp 8 = 3,584 B per
    // GPU, over 400 Gb/s = 50 GB/s at 0.8 of it, after the 20 µs fixed cost:
    // 20 µs + 3,584 / 40e9 s = 20.0896 µs.
    let decode: f64 = 20e-6 + 3_584.0 / (50e9 * 0.8);
    assert!((decode - 20.0896e-6).abs() < 1e-12, "{decode}");
    let d = two_nodes.decode_step_s - one_node.decode_step_s;
    assert!((d - decode).abs() < 1e-12, "{d} vs {decode}");
    // Prefill, 2048 tokens: 2048 × 3,584 B = 7,340,032 B: 20 µs + 183.5 µs = 203.5008 µs.
    let prefill: f64 = 20e-6 + 2048.0 * 3_584.0 / (50e9 * 0.8);
    assert!((prefill - 203.5008e-6).abs() < 1e-12, "{prefill}");
    let p = two_nodes.time_to_first_token_s - one_node.time_to_first_token_s;
    assert!((p - prefill).abs() < 1e-12, "{p} vs {prefill}");
    let f = two_nodes.formula(InferenceFigure::DecodeStep);
    assert!(
        f.en.contains("1 pipeline hand-over(s) between nodes"),
        "{}",
        f.en
    );
}

#[test]
fn a_tensor_group_across_nodes_all_reduces_at_the_networks_pace() {
    // tp 16 over two nodes of 8, no pipeline: each all-reduce moves 2 × 15/16 × 1 token × 7168
    // × 2 B = 26,880 B per GPU, over the network's 50 GB/s instead of NVLink's 450 GB/s.
    let i = InferenceInput {
        tp: 16,
        pp: 1,
        pp_node_crossings: 0,
        ..deepseek(0)
    };
    let nvlink = inference(&i, &h100()).unwrap();
    let across = inference(
        &InferenceInput {
            tp_across_nodes: true,
            ..i
        },
        &h100(),
    )
    .unwrap();
    let bytes: f64 = 2.0 * 15.0 / 16.0 * 7168.0 * 2.0;
    assert!((bytes - 26_880.0).abs() < 1e-9);
    let slower = 2.0 * 61.0 * (bytes / (50e9 * 0.8) - bytes / (450e9 * 0.8));
    let d = across.decode_step_s - nvlink.decode_step_s;
    assert!((d - slower).abs() < 1e-12, "{d} vs {slower}");
    assert!(
        across
            .formula(InferenceFigure::DecodeStep)
            .en
            .contains("(between nodes: tp spans them)")
    );
}

#[test]
fn crossing_nodes_without_a_network_is_refused_by_name() {
    let e = inference(
        &InferenceInput {
            node_link_bytes_per_s: 0,
            ..deepseek(1)
        },
        &h100(),
    )
    .unwrap_err();
    assert_eq!(e.field, "node_link_bytes_per_s");
}
