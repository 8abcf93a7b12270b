//! The speed model against hand calculations, written out in each test; the published
//! measurements are checked in `tests/it/throughput.rs`.

use alloc::format;

use proptest::prelude::*;

use super::*;
use crate::gpu::{find_gpu, gpus};

fn h100() -> Device {
    Device::of(find_gpu("h100-sxm5-80gb").expect("in the catalog"))
}

/// A Llama-3-8B-like dense model on one GPU: 7.5 B parameters in matrix multiplications,
/// 15 GB of weights read per step, 128 KiB of KV cache per token (2 × 32 layers × 8 KV heads ×
/// 128 × 2 B).
fn dense(runtime: Runtime) -> InferenceInput {
    InferenceInput {
        runtime,
        compute: Compute::Bits16,
        active_params: 7_500_000_000,
        dense_weight_bytes: 15_000_000_000,
        kv_bytes_per_token: 131_072,
        layers: 32,
        hidden: 4096,
        heads: 32,
        head_dim: 128,
        batch: 1,
        prompt_tokens: 1000,
        output_tokens: 200,
        tp: 1,
        pp: 1,
        ..InferenceInput::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1e-30)
}

#[test]
fn decode_step_is_bytes_over_bandwidth_plus_fixed_costs() {
    let t = inference(&dense(Runtime::Batched), &h100()).unwrap();
    // Mean context of the 199 decode steps: 1000 + 200 / 2 = 1100 tokens.
    // Memory: (15e9 + 131,072 × 1100 = 144,179,200) B / (3350 GB/s × 0.85) = 5.31841 ms.
    let memory: f64 = (15e9 + 131_072.0 * 1100.0) / (3.35e12 * 0.85);
    // Compute: 2 × 7.5e9 + 4 × 32 heads × 128 × 1100 × 32 layers = 15.5767e9 FLOP at
    // 989.4 TFLOPS × 0.5: 31 µs, so the step is memory-bound.
    let compute = (2.0 * 7.5e9 + 4.0 * 32.0 * 128.0 * 1100.0 * 32.0) / (989.4e12 * 0.5);
    assert!(compute < memory);
    // Plus 32 layers × 20 µs and 2 ms per step: 7.95841 ms.
    let step = memory + 32.0 * 20e-6 + 2e-3;
    assert!(
        close(t.decode_step_s, step),
        "{} vs {step}",
        t.decode_step_s
    );
    assert!((t.decode_step_s - 7.958_41e-3).abs() < 1e-8);
    assert_eq!(t.decode_bound, Limit::Memory);
    assert!(close(t.decode_tokens_per_s_per_sequence, 1.0 / step));
    assert!(close(t.decode_tokens_per_s, 1.0 / step));
}

#[test]
fn prefill_is_flops_over_peak_plus_fixed_costs() {
    let t = inference(&dense(Runtime::Batched), &h100()).unwrap();
    // 1000 prompt tokens: 2 × 7.5e9 × 1000 = 1.5e13 FLOP in the weights, and causal attention
    // over 500 tokens on average: 4 × 32 × 128 × 500 × 32 layers × 1000 = 2.62144e11 FLOP.
    let flops = 1.5e13 + 2.621_44e11;
    let compute = flops / (989.4e12 * 0.5);
    // Reading the weights once, 15e9 / (3350 GB/s × 0.85) = 5.27 ms, is shorter.
    assert!(15e9 / (3.35e12 * 0.85) < compute);
    let ttft = compute + 32.0 * 20e-6 + 2e-3;
    assert!(close(t.time_to_first_token_s, ttft));
    assert!((ttft - 33.491_31e-3).abs() < 1e-7, "{ttft}");
    assert_eq!(t.prefill_bound, Limit::Compute);
    assert!(close(t.prefill_tokens_per_s, 1000.0 / ttft));
    // First token, then 199 steps.
    assert!(close(t.total_s, ttft + 199.0 * t.decode_step_s));
}

#[test]
fn a_batch_reads_the_weights_once_and_the_kv_cache_of_each_sequence() {
    let mut i = dense(Runtime::Batched);
    i.batch = 16;
    let t = inference(&i, &h100()).unwrap();
    let memory = (15e9 + 16.0 * 131_072.0 * 1100.0) / (3.35e12 * 0.85);
    assert!(close(t.decode_step_s, memory + 32.0 * 20e-6 + 2e-3));
    assert!(close(
        t.decode_tokens_per_s,
        16.0 * t.decode_tokens_per_s_per_sequence
    ));
}

#[test]
fn a_huge_batch_is_compute_bound() {
    let mut i = dense(Runtime::Batched);
    i.batch = u32::MAX;
    i.prompt_tokens = 10;
    i.output_tokens = 2;
    let t = inference(&i, &h100()).unwrap();
    assert_eq!(t.decode_bound, Limit::Compute);
    // Context 11 tokens: per token 2 × 7.5e9 + 4 × 32 × 128 × 11 × 32 FLOP.
    let b = f64::from(u32::MAX);
    let compute = b * (1.5e10 + 4.0 * 32.0 * 128.0 * 11.0 * 32.0) / (989.4e12 * 0.5);
    assert!(close(t.decode_step_s, compute + 32.0 * 20e-6 + 2e-3));
    assert!(t.decode_tokens_per_s.is_finite() && t.total_s.is_finite());
}

#[test]
fn a_mixture_of_experts_reads_the_experts_its_tokens_touch() {
    // Mixtral-like: 8 experts, 2 per token, 90 GB of experts and 3 GB dense on one GPU.
    let i = InferenceInput {
        active_params: 12_900_000_000,
        dense_weight_bytes: 3_000_000_000,
        expert_weight_bytes: 90_000_000_000,
        experts: 8,
        experts_per_token: 2,
        batch: 8,
        ..dense(Runtime::Batched)
    };
    let t = inference(&i, &h100()).unwrap();
    // 8 tokens miss an expert with probability (6/8)^8 = 0.100113: 89.9887 % are read.
    let touched: f64 = 1.0 - libm::pow(0.75, 8.0);
    assert!((touched - 0.899_887).abs() < 1e-6);
    let memory = (3e9 + 90e9 * touched + 8.0 * 131_072.0 * 1100.0) / (3.35e12 * 0.85);
    assert!(close(t.decode_step_s, memory + 32.0 * 20e-6 + 2e-3));
    // One token reads 2 of 8 experts.
    let one = inference(&InferenceInput { batch: 1, ..i }, &h100()).unwrap();
    let memory = (3e9 + 90e9 * 0.25 + 131_072.0 * 1100.0) / (3.35e12 * 0.85);
    assert!(close(one.decode_step_s, memory + 32.0 * 20e-6 + 2e-3));
}

#[test]
fn tensor_parallelism_pays_two_all_reduces_per_layer() {
    // Llama-3-70B-like at tp 4 on H100 (NVLink 4, 900 GB/s both ways: 450 GB/s each way),
    // batch 8: each all-reduce moves 2 × 3/4 × 8 tokens × 8192 × 2 B = 196,608 B.
    let i = InferenceInput {
        active_params: 69_500_000_000,
        dense_weight_bytes: 35_000_000_000,
        kv_bytes_per_token: 81_920,
        layers: 80,
        hidden: 8192,
        heads: 64,
        batch: 8,
        tp: 4,
        ..dense(Runtime::Batched)
    };
    let t = inference(&i, &h100()).unwrap();
    let allreduce: f64 = 2.0 * 80.0 * (20e-6 + 196_608.0 / (450e9 * 0.8));
    assert!((allreduce - 3.287_38e-3).abs() < 1e-8, "{allreduce}");
    let memory = (35e9 + 8.0 * 81_920.0 * 1100.0) / (3.35e12 * 0.85);
    assert!(close(
        t.decode_step_s,
        memory + allreduce + 80.0 * 20e-6 + 2e-3
    ));
    assert!(
        t.formula(InferenceFigure::DecodeStep)
            .en
            .contains("all-reduce 2 × 80 layers")
    );
}

#[test]
fn pipeline_stages_run_one_after_another() {
    // Two stages of 7.5 GB each read 15 GB per step, one after the other.
    let one = inference(&dense(Runtime::Llamacpp), &h100()).unwrap();
    let i = InferenceInput {
        dense_weight_bytes: 7_500_000_000,
        kv_bytes_per_token: 65_536,
        pp: 2,
        ..dense(Runtime::Llamacpp)
    };
    let two = inference(&i, &h100()).unwrap();
    assert!(close(two.decode_step_s, one.decode_step_s));
}

#[test]
fn llamacpp_on_apple_silicon_uses_the_metal_factors() {
    let m2 = Device::of(find_gpu("apple-m2-ultra-192gb").unwrap());
    assert!(m2.metal && !h100().metal);
    assert_eq!(
        Runtime::Llamacpp.efficiency(&m2),
        efficiency::LLAMACPP_METAL
    );
    assert_eq!(Runtime::Llamacpp.efficiency(&h100()), efficiency::LLAMACPP);
    let t = inference(&dense(Runtime::Llamacpp), &m2).unwrap();
    // (15e9 + 144,179,200) B / (800 GB/s × 0.9) + 32 layers × 160 µs = 26.1536 ms.
    let step: f64 = (15e9 + 131_072.0 * 1100.0) / (800e9 * 0.9) + 32.0 * 160e-6;
    assert!(close(t.decode_step_s, step));
    assert!((step - 26.153_58e-3).abs() < 1e-7, "{step}");
}

#[test]
fn fp8_computes_at_the_fp8_peak_where_the_card_has_one() {
    let mut i = dense(Runtime::Batched);
    i.compute = Compute::Fp8;
    assert_eq!(i.compute.peak_flops(&h100()), 1978.9e12);
    let a100 = Device::of(find_gpu("a100-sxm4-80gb").unwrap());
    assert_eq!(i.compute.peak_flops(&a100), 312e12);
    assert_eq!(Compute::WeightOnly.peak_flops(&h100()), 989.4e12);
    let t = inference(&i, &h100()).unwrap();
    let compute = (1.5e13 + 2.621_44e11) / (1978.9e12 * 0.5);
    assert!(close(
        t.time_to_first_token_s,
        compute + 32.0 * 20e-6 + 2e-3
    ));
}

#[test]
fn empty_prompts_and_outputs_give_finite_figures() {
    let i = InferenceInput {
        prompt_tokens: 0,
        output_tokens: 0,
        ..dense(Runtime::Batched)
    };
    let t = inference(&i, &h100()).unwrap();
    // A prompt of 0 tokens is counted as 1; with no output, the run is its prefill.
    assert_eq!(t.total_s, t.time_to_first_token_s);
    for x in [
        t.prefill_tokens_per_s,
        t.time_to_first_token_s,
        t.decode_step_s,
        t.decode_tokens_per_s,
        t.decode_tokens_per_s_per_sequence,
        t.total_s,
    ] {
        assert!(x.is_finite() && x > 0.0, "{x}");
    }
}

#[test]
fn bad_input_names_its_field() {
    let d = h100();
    for (field, i) in [
        (
            "batch",
            InferenceInput {
                batch: 0,
                ..dense(Runtime::Batched)
            },
        ),
        (
            "tp",
            InferenceInput {
                tp: 0,
                ..dense(Runtime::Batched)
            },
        ),
        (
            "layers",
            InferenceInput {
                layers: 0,
                ..dense(Runtime::Batched)
            },
        ),
        (
            "active_params",
            InferenceInput {
                active_params: 0,
                ..dense(Runtime::Batched)
            },
        ),
        (
            "dense_weight_bytes",
            InferenceInput {
                dense_weight_bytes: 0,
                ..dense(Runtime::Batched)
            },
        ),
        (
            "expert_weight_bytes",
            InferenceInput {
                expert_weight_bytes: 1,
                ..dense(Runtime::Batched)
            },
        ),
        (
            "experts_per_token",
            InferenceInput {
                experts: 8,
                experts_per_token: 9,
                expert_weight_bytes: 1,
                ..dense(Runtime::Batched)
            },
        ),
        (
            "windowed_layers",
            InferenceInput {
                windowed_layers: 33,
                ..dense(Runtime::Batched)
            },
        ),
    ] {
        assert_eq!(inference(&i, &d).unwrap_err().field, field);
    }
    // A card without bandwidth data, or with a figure that is not a number.
    for bad in [
        Device {
            bandwidth_bytes_per_s: 0.0,
            ..d
        },
        Device {
            bandwidth_bytes_per_s: f64::NAN,
            ..d
        },
        Device {
            flops_16bit: f64::INFINITY,
            ..d
        },
        Device {
            flops_16bit: -1.0,
            ..d
        },
    ] {
        let e = inference(&dense(Runtime::Batched), &bad).unwrap_err();
        assert_eq!(e.field, "gpu");
        let e = training(&train(), &bad).unwrap_err();
        assert_eq!(e.field, "gpu");
    }
    assert_eq!(
        training(
            &TrainingInput {
                microbatches: 0,
                ..train()
            },
            &d
        )
        .unwrap_err()
        .field,
        "microbatches"
    );
    assert_eq!(
        training(&TrainingInput { pp: 16, ..train() }, &d)
            .unwrap_err()
            .field,
        "pp"
    );
}

#[test]
fn an_unknown_link_falls_back_to_pcie_and_says_so() {
    let d = Device {
        link_bytes_per_s: f64::NAN,
        ..h100()
    };
    let i = InferenceInput {
        tp: 2,
        ..dense(Runtime::Batched)
    };
    let t = inference(&i, &d).unwrap();
    // 2 × 1/2 × 1 token × 4096 × 2 B = 8192 B per all-reduce over 31.5 GB/s × 0.8.
    let allreduce = 2.0 * 32.0 * (20e-6 + 8192.0 / (31.5e9 * 0.8));
    let memory: f64 = (15e9 + 131_072.0 * 1100.0) / (3.35e12 * 0.85);
    assert!(close(
        t.decode_step_s,
        memory + allreduce + 32.0 * 20e-6 + 2e-3
    ));
    let f = t.formula(InferenceFigure::DecodeStep);
    assert!(f.en.contains("link unknown: PCIe 4.0 x16"), "{}", f.en);
    assert!(f.zh.contains("互联未知"), "{}", f.zh);
}

#[test]
fn links_are_read_from_the_catalog_text() {
    for (text, bytes) in [
        ("NVLink 4 900 GB/s", 450e9),
        ("NVLink 5 1800 GB/s", 900e9),
        ("NVLink bridge 112.5 GB/s", 56.25e9),
        ("HCCS 392 GB/s", 196e9),
        ("Infinity Fabric 896 GB/s", 448e9),
        // 16 GT/s × 128/130 / 8 bits × 16 lanes.
        ("PCIe 4.0 x16", 16e9 * 128.0 / 130.0 / 8.0 * 16.0),
        (
            "PCIe 4.0 x16 (NVLink bridge 600 GB/s)",
            16e9 * 128.0 / 130.0 / 8.0 * 16.0,
        ),
        (
            "PCIe 3.0 x16 (NVLink bridge 100 GB/s)",
            8e9 * 128.0 / 130.0 / 8.0 * 16.0,
        ),
        ("PCIe 5.0 x8", 32e9 * 128.0 / 130.0 / 8.0 * 8.0),
        ("Infinity Fabric", 0.0),
        ("unified memory", 0.0),
        ("", 0.0),
    ] {
        assert!(
            close(link_bytes_per_s(text), bytes) || bytes == link_bytes_per_s(text),
            "{text}"
        );
    }
    assert!((link_bytes_per_s("PCIe 4.0 x16") - 31.5e9).abs() < 0.01e9);
}

/// The card's row carries its link's bandwidth, computed from its text when the table is
/// generated: every card's equals the reading of its text, and two by hand (the H100 SXM5's
/// NVLink 4 at 900 GB/s counted both ways, the RTX 4090's PCIe 4.0 x16 at 16 GT/s × 128/130).
#[test]
fn each_card_row_holds_its_links_bandwidth() {
    for g in gpus() {
        assert_eq!(
            Device::of(g).link_bytes_per_s,
            link_bytes_per_s(g.interconnect()),
            "{}",
            g.id
        );
    }
    let card = |id: &str| Device::of(gpus().iter().find(|g| g.id == id).unwrap());
    assert_eq!(card("h100-sxm5-80gb").link_bytes_per_s, 450e9);
    assert!(close(
        card("rtx-4090").link_bytes_per_s,
        16e9 * 128.0 / 130.0 / 8.0 * 16.0
    ));
}

#[test]
fn every_catalog_card_has_the_figures_the_model_reads() {
    for g in gpus() {
        let d = Device::of(g);
        assert!(inference(&dense(Runtime::Llamacpp), &d).is_ok(), "{}", g.id);
        assert!(training(&train(), &d).is_ok(), "{}", g.id);
        assert_eq!(d.metal, g.unified_memory, "{}", g.id);
    }
}

/// A 7B model trained on 8 A100s: 1,048,576 tokens a step at 2048 tokens a sequence.
fn train() -> TrainingInput {
    TrainingInput {
        compute: Compute::Bits16,
        active_params: 7_000_000_000,
        trainable_params: 7_000_000_000,
        layers: 32,
        heads: 32,
        head_dim: 128,
        seq_len: 2048,
        tokens_per_step: 1_048_576,
        recompute: Recompute::None,
        gpus: 8,
        pp: 1,
        microbatches: 1,
        comm: None,
    }
}

fn a100() -> Device {
    Device::of(find_gpu("a100-sxm4-80gb").unwrap())
}

#[test]
fn training_is_six_times_the_parameters_per_token() {
    let t = training(&train(), &a100()).unwrap();
    // Attention: 4 × 32 layers × 32 heads × 128 × 1024 (half the sequence, causal) =
    // 536,870,912 FLOP forward, three times over with the backward.
    let attention = 4.0 * 32.0 * 32.0 * 128.0 * 1024.0;
    assert_eq!(attention, 536_870_912.0);
    let flops = 6.0 * 7e9 + 3.0 * attention;
    assert!(close(t.flops_per_token, flops));
    // 1,048,576 × 43.6106e9 FLOP over 8 × 312 TFLOPS × 0.52 = 35.2326 s.
    let step: f64 = 1_048_576.0 * flops / (8.0 * 312e12 * 0.52);
    assert!(close(t.step_time_s, step));
    assert!((step - 35.232_6).abs() < 1e-3, "{step}");
    assert!(close(t.tokens_per_s, 1_048_576.0 / step));
    // An epoch of 10^9 tokens.
    assert!(close(
        t.hours_per_epoch(1_000_000_000),
        1e9 / (1_048_576.0 / step) / 3600.0
    ));
    assert_eq!(t.hours_per_epoch(0), 0.0);
}

#[test]
fn full_checkpointing_is_eight_times_and_lora_its_own_count() {
    let attention = 536_870_912.0;
    let full = training(
        &TrainingInput {
            recompute: Recompute::Full,
            ..train()
        },
        &a100(),
    )
    .unwrap();
    assert!(close(full.flops_per_token, 8.0 * 7e9 + 4.0 * attention));
    let selective = training(
        &TrainingInput {
            recompute: Recompute::Selective,
            ..train()
        },
        &a100(),
    )
    .unwrap();
    assert!(close(
        selective.flops_per_token,
        6.0 * 7e9 + 4.0 * attention
    ));
    // LoRA with 20 M adapter weights: forward 2 × 7e9, activations' gradients 2 × 7e9, weights'
    // gradients 2 × 20e6.
    let lora = training(
        &TrainingInput {
            trainable_params: 20_000_000,
            ..train()
        },
        &a100(),
    )
    .unwrap();
    assert!(close(
        lora.flops_per_token,
        4.0 * 7e9 + 2.0 * 20e6 + 3.0 * attention
    ));
    // More trainable than active weights (every expert of a mixture): counted up to the active.
    let moe = training(
        &TrainingInput {
            trainable_params: 50_000_000_000,
            ..train()
        },
        &a100(),
    );
    assert!(close(
        moe.unwrap().flops_per_token,
        6.0 * 7e9 + 3.0 * attention
    ));
}

#[test]
fn the_pipeline_bubble_lengthens_the_step() {
    let flat = training(&train(), &a100()).unwrap();
    let piped = training(
        &TrainingInput {
            pp: 4,
            microbatches: 8,
            ..train()
        },
        &a100(),
    )
    .unwrap();
    // (4 − 1) / 8 = 0.375 of the step idle.
    assert_eq!(piped.bubble, 0.375);
    assert!(close(piped.step_time_s, flat.step_time_s * 1.375));
}

#[test]
fn fp8_training_uses_the_fp8_factor_where_the_card_has_fp8() {
    let i = TrainingInput {
        compute: Compute::Fp8,
        ..train()
    };
    let h = training(&i, &h100()).unwrap();
    let flops = 6.0 * 7e9 + 3.0 * 536_870_912.0;
    assert!(close(
        h.step_time_s,
        1_048_576.0 * flops / (8.0 * 1978.9e12 * 0.37)
    ));
    // The A100 has no FP8: 16-bit peak and factor.
    let a = training(&i, &a100()).unwrap();
    assert!(close(
        a.step_time_s,
        1_048_576.0 * flops / (8.0 * 312e12 * 0.52)
    ));
}

#[test]
fn formulas_show_the_numbers_in_both_languages() {
    let t = inference(&dense(Runtime::Batched), &h100()).unwrap();
    let f = t.formula(InferenceFigure::DecodeStep);
    if cfg!(feature = "en") {
        assert!(
            f.en.contains("15.14 GB") || f.en.contains("15.00 GB"),
            "{}",
            f.en
        );
        assert!(f.en.contains("3350 GB/s × 0.85"), "{}", f.en);
        assert!(f.en.contains("= 5.32 ms"), "{}", f.en);
        assert!(f.en.ends_with("= 7.96 ms (memory-bound)"), "{}", f.en);
    }
    if cfg!(feature = "zh") {
        assert!(f.zh.contains("3350 GB/s × 0.85"), "{}", f.zh);
        assert!(f.zh.ends_with("= 7.96 ms（受显存带宽限制）"), "{}", f.zh);
    }
    let ttft = t.formula(InferenceFigure::TimeToFirstToken);
    if cfg!(feature = "en") {
        assert!(
            ttft.en.contains("2 × 7,500,000,000 params × 1000 tokens"),
            "{}",
            ttft.en
        );
        assert!(
            ttft.en.ends_with("= 33.49 ms (compute-bound)"),
            "{}",
            ttft.en
        );
    }
    let tr = training(&train(), &a100()).unwrap();
    let step = tr.formula(TrainingFigure::StepTime);
    if cfg!(feature = "en") {
        assert!(step.en.contains("1,048,576 tokens"), "{}", step.en);
        assert!(step.en.ends_with("= 35.23 s"), "{}", step.en);
    }
    if cfg!(feature = "zh") {
        assert!(step.zh.ends_with("= 35.23 s"), "{}", step.zh);
    }
    let epoch = tr.formula(TrainingFigure::HoursPerEpoch {
        dataset_tokens: 1_000_000_000,
    });
    let hours = crate::units::fixed(tr.hours_per_epoch(1_000_000_000), 2);
    if cfg!(feature = "en") {
        assert!(epoch.en.ends_with(&format!("= {hours} h")), "{}", epoch.en);
    }
    if cfg!(feature = "zh") {
        assert!(
            epoch.zh.ends_with(&format!("= {hours} 小时")),
            "{}",
            epoch.zh
        );
    }
}

fn any_inference() -> impl Strategy<Value = (InferenceInput, Device)> {
    (
        (
            0u8..3,
            0u8..3,
            1u64..2_000_000_000_000,
            0u64..2_000_000_000_000,
            0u32..300,
        ),
        (
            1u32..200,
            1u32..50_000,
            1u32..256,
            1u32..1024,
            1u32..=u32::MAX,
        ),
        (
            0u64..10_000_000,
            0u64..10_000_000,
            1u32..64,
            1u32..64,
            0u64..1_000_000,
        ),
        (
            1e6f64..1e16,
            1e9f64..1e19,
            -1e10f64..1e19,
            -1e10f64..1e16,
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (r, c, params, bytes, experts),
                (layers, hidden, heads, hd, batch),
                (p, o, tp, pp, kv),
                d,
            )| {
                let runtime =
                    [Runtime::Transformers, Runtime::Batched, Runtime::Llamacpp][r as usize];
                let compute = [Compute::Bits16, Compute::Fp8, Compute::WeightOnly][c as usize];
                let input = InferenceInput {
                    runtime,
                    compute,
                    active_params: params,
                    dense_weight_bytes: bytes.max(1),
                    expert_weight_bytes: if experts > 0 { bytes } else { 0 },
                    experts,
                    experts_per_token: experts.min(8),
                    kv_bytes_per_token: kv,
                    windowed_kv_bytes_per_token: kv / 2,
                    window: p / 3,
                    state_bytes_per_sequence: 0,
                    layers,
                    windowed_layers: layers / 2,
                    hidden,
                    heads,
                    head_dim: hd,
                    batch,
                    prompt_tokens: p,
                    output_tokens: o,
                    tp,
                    pp,
                    ..InferenceInput::default()
                };
                let device = Device {
                    bandwidth_bytes_per_s: d.0,
                    flops_16bit: d.1,
                    flops_fp8: d.2,
                    link_bytes_per_s: d.3,
                    metal: d.4,
                };
                (input, device)
            },
        )
}

proptest! {
    #[test]
    fn every_figure_is_finite_and_positive((input, device) in any_inference()) {
        let t = inference(&input, &device).unwrap();
        for x in [
            t.prefill_tokens_per_s,
            t.time_to_first_token_s,
            t.decode_step_s,
            t.decode_tokens_per_s,
            t.decode_tokens_per_s_per_sequence,
            t.total_s,
        ] {
            prop_assert!(x.is_finite() && x > 0.0, "{x} for {input:?}");
        }
        let f = t.formula(InferenceFigure::DecodeStep);
        prop_assert!(!f.en.contains("NaN") && !f.en.contains("inf"));
        let train = TrainingInput {
            active_params: input.active_params,
            trainable_params: input.active_params,
            layers: input.layers,
            heads: input.heads,
            head_dim: input.head_dim,
            seq_len: input.prompt_tokens.max(1),
            tokens_per_step: input.output_tokens.max(1),
            gpus: input.tp * input.pp,
            pp: input.pp,
            microbatches: input.tp,
            ..TrainingInput::default()
        };
        let tr = training(&train, &device).unwrap();
        for x in [tr.step_time_s, tr.tokens_per_s, tr.flops_per_token, tr.hours_per_epoch(u64::MAX)] {
            prop_assert!(x.is_finite() && x > 0.0, "{x} for {train:?}");
        }
    }
}
