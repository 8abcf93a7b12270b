//! Property tests: the estimator is total, finite, non-negative and monotone in what grows a run.

use proptest::prelude::*;
use vramfit::estimate::{
    Checkpointing, Engine, Estimate, EstimateInput, Mode, Precision, estimate,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, ServingInput, TrainingInput};
use vramfit::model::{Architecture, Family, Moe};
use vramfit::precision::{Dtype, GgufFileType, Quantization};

fn arch() -> impl Strategy<Value = Architecture> {
    (
        1u64..=8,
        0usize..4,
        prop::sample::select(vec![64u64, 80, 128, 256]),
        1u64..=48,
        1000u64..=200_000,
        any::<bool>(),
        any::<bool>(),
        prop::option::of((2u64..=64, 1u64..=8)),
    )
        .prop_map(
            |(kv, group_pow, head_dim, layers, vocab, tied, gated, moe)| {
                let heads = kv << group_pow;
                let hidden = heads * head_dim;
                Architecture {
                    family: Family::CausalLm,
                    vocab_size: vocab,
                    hidden_size: hidden,
                    num_layers: layers,
                    num_heads: heads,
                    num_kv_heads: kv,
                    head_dim,
                    intermediate_size: hidden * 3,
                    gated_ffn: gated,
                    tied_embeddings: tied,
                    norms_per_layer: 2,
                    max_position_embeddings: 8192,
                    moe: moe.map(|(e, k)| Moe {
                        num_experts: e,
                        experts_per_token: k.min(e),
                        expert_intermediate_size: hidden,
                        shared_intermediate_size: 0,
                        shared_expert_gate: false,
                        first_dense_layers: 0,
                        router_bias: false,
                        expert_bias: false,
                    }),
                    ..Architecture::default()
                }
            },
        )
}

fn mode() -> impl Strategy<Value = (Mode, Engine)> {
    prop::sample::select(vec![
        (Mode::Inference, Engine::Hf),
        (Mode::Inference, Engine::Llamacpp),
        (Mode::Training, Engine::Hf),
        (Mode::Serve, Engine::Vllm),
        (Mode::Serve, Engine::Sglang),
        (Mode::Inference, Engine::Ollama),
    ])
}

fn sane(e: &Estimate) {
    let all = [
        e.weights_bytes,
        e.kv_cache_bytes,
        e.activations_bytes,
        e.gradients_bytes,
        e.optimizer_bytes,
        e.temporaries_bytes,
        e.overhead_bytes,
        e.peak_allocated_bytes,
        e.total_bytes,
        e.recommended_bytes,
    ];
    for b in all {
        // Bytes are u64, so non-negative by type; bound them far below overflow.
        assert!(b.get() < 1 << 62, "{b:?}");
    }
    assert!(e.total_bytes >= e.peak_allocated_bytes);
    for c in &e.components {
        assert!(
            !c.formula.contains("NaN") && !c.formula.contains("inf"),
            "{}",
            c.formula
        );
    }
    if let Some(c) = e.max_concurrency_exact {
        assert!(c.is_finite() && c >= 0.0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn total_and_finite(a in arch(), (m, eng) in mode(), batch in 1u64..64, seq in 1u64..32_768, gpu in prop::option::of(8u64..200)) {
        let input = EstimateInput {
model: ModelInput {
arch: Some(a),
..Default::default()
},
run: RunInput {
mode: m,
engine: eng,
batch: batch as f64,
seq_len: seq as f64,
..Default::default()
},
serving: ServingInput {

            // Ollama's num_ctx holds each sequence's prompt and output.
max_model_len: (eng == Engine::Ollama).then_some((seq + 256) as f64),
..Default::default()
},
hardware: HardwareInput {
gpu_memory: gpu.map(|g| format!("{g}GiB")),
..Default::default()
},
..Default::default()
};
        let e = estimate(&input).unwrap();
        sane(&e);
    }

    #[test]
    fn monotone_in_batch_and_sequence(a in arch(), training in any::<bool>(), ckpt in any::<bool>(), batch in 1u64..32, seq in 16u64..8192) {
        let mode = if training { Mode::Training } else { Mode::Inference };
        let base = EstimateInput {
model: ModelInput {
arch: Some(a),
..Default::default()
},
run: RunInput {
mode,
batch: batch as f64,
seq_len: seq as f64,
..Default::default()
},
training: TrainingInput {
grad_checkpointing: if ckpt { Checkpointing::Full } else { Checkpointing::None },
..Default::default()
},
..Default::default()
};
        let e0 = estimate(&base).unwrap();
        let eb = estimate(&{
let mut input = base.clone();
input.run.batch = (batch + 1) as f64;
input
}).unwrap();
        let es = estimate(&EstimateInput {
run: RunInput {
seq_len: (seq * 2) as f64,
..base.run
},
..base
}).unwrap();
        prop_assert!(eb.peak_allocated_bytes >= e0.peak_allocated_bytes);
        prop_assert!(es.peak_allocated_bytes >= e0.peak_allocated_bytes);
        prop_assert!(eb.total_bytes >= e0.total_bytes);
        prop_assert!(es.total_bytes >= e0.total_bytes);
    }

    #[test]
    fn monotone_in_parameters(p in 1_000_000u64..1_000_000_000_000, training in any::<bool>()) {
        let mode = if training { Mode::Training } else { Mode::Inference };
        let e0 = estimate(&EstimateInput {
model: ModelInput {
params: Some(p.to_string()),
..Default::default()
},
run: RunInput {
mode,
..Default::default()
},
..Default::default()
}).unwrap();
        let e1 = estimate(&EstimateInput {
model: ModelInput {
params: Some((p + p / 10 + 1).to_string()),
..Default::default()
},
run: RunInput {
mode,
..Default::default()
},
..Default::default()
}).unwrap();
        prop_assert!(e1.total_bytes > e0.total_bytes);
        prop_assert!(e1.quick.theory_bytes > e0.quick.theory_bytes);
    }

    #[test]
    fn monotone_in_precision_bits(a in arch()) {
        let w = |d: Dtype, q: Quantization| {
            estimate(&EstimateInput {
model: ModelInput {
arch: Some(a),
quantization: q,
..Default::default()
},
run: RunInput {
dtype: Some(d),
..Default::default()
},
..Default::default()
})
                .unwrap()
                .weights_bytes
        };
        let fp32 = w(Dtype::Fp32, Quantization::None);
        let bf16 = w(Dtype::Bf16, Quantization::None);
        let fp8 = w(Dtype::Bf16, Quantization::Fp8);
        let nf4 = w(Dtype::Bf16, Quantization::BnbNf4 { double_quant: true });
        prop_assert!(fp32 > bf16 && bf16 > fp8 && fp8 > nf4);
    }

    #[test]
    fn quick_and_detailed_agree_on_unquantized_weights(a in arch(), fp32 in any::<bool>()) {
        let d = if fp32 { Dtype::Fp32 } else { Dtype::Fp16 };
        let e = estimate(&EstimateInput {
model: ModelInput {
arch: Some(a),
..Default::default()
},
run: RunInput {
dtype: Some(d),
..Default::default()
},
..Default::default()
}).unwrap();
        // P × b both ways: the detailed sum over tensors equals the guide's P × b exactly.
        prop_assert_eq!(e.weights_bytes, e.quick.weights_bytes);
    }

    #[test]
    fn training_regimes_order(a in arch()) {
        let t = |p: Precision| {
            let e = estimate(&EstimateInput {
model: ModelInput {
arch: Some(a),
..Default::default()
},
run: RunInput {
mode: Mode::Training,
..Default::default()
},
training: TrainingInput {
precision: p,
..Default::default()
},
..Default::default()
}).unwrap();
            e.weights_bytes.get() + e.gradients_bytes.get() + e.optimizer_bytes.get()
        };
        // fp32 and AMP AdamW: 16 B per parameter; pure bf16: 8 B.
        let p = a.params();
        prop_assert_eq!(t(Precision::Fp32), 16 * p);
        prop_assert_eq!(t(Precision::AmpBf16), 16 * p);
        prop_assert_eq!(t(Precision::Bf16), 8 * p);
    }
}

/// A dense decoder whose every matrix dimension is a multiple of 256, so that llama.cpp's
/// K-quants apply to every tensor (it falls back to other types for rows that are not).
fn dense_arch() -> impl Strategy<Value = Architecture> {
    (
        1u64..=16,
        1u64..=4,
        1u64..=40,
        1u64..=4,
        4u64..=40,
        32_000u64..=160_000,
        any::<bool>(),
    )
        .prop_map(|(k, kv, layers, ffn, ffn_k, vocab, tied)| {
            let head_dim = 128;
            let hidden = 256 * k;
            let heads = hidden / head_dim;
            Architecture {
                family: Family::CausalLm,
                vocab_size: vocab / 256 * 256,
                hidden_size: hidden,
                num_layers: layers,
                num_heads: heads,
                num_kv_heads: if heads % kv == 0 { heads / kv } else { heads },
                head_dim,
                intermediate_size: 256 * ffn_k * ffn,
                gated_ffn: true,
                tied_embeddings: tied,
                norms_per_layer: 2,
                max_position_embeddings: 8192,
                ..Architecture::default()
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Training in one dtype throughout keeps the weights in it: P × b, as the guide counts them.
    /// (The quick estimate reads `dtype`, the detailed one `precision`: they are given alike here.)
    #[test]
    fn quick_and_detailed_agree_on_unquantized_weights_in_training(
        a in arch(),
        (p, d) in prop::sample::select(vec![
            (Precision::Fp32, Dtype::Fp32),
            (Precision::Fp16, Dtype::Fp16),
            (Precision::Bf16, Dtype::Bf16),
        ]),
    ) {
        let e = estimate(&EstimateInput {
model: ModelInput {
arch: Some(a),
..Default::default()
},
run: RunInput {
mode: Mode::Training,
dtype: Some(d),
..Default::default()
},
training: TrainingInput {
precision: p,
..Default::default()
},
..Default::default()
})
        .unwrap();
        prop_assert_eq!(e.weights_bytes, e.quick.weights_bytes);
    }

    /// More bits per weight, more weight bytes, across llama.cpp's usual file types.
    #[test]
    fn gguf_types_order_by_bits(a in dense_arch()) {
        let w = |t: GgufFileType| {
            estimate(&EstimateInput {
model: ModelInput {
arch: Some(a),
quantization: Quantization::Gguf { file_type: t },
..Default::default()
},
run: RunInput {
engine: Engine::Llamacpp,
..Default::default()
},
..Default::default()
})
            .unwrap()
            .weights_bytes
        };
        let order = [
            GgufFileType::Q8_0,
            GgufFileType::Q6_K,
            GgufFileType::Q5_K_M,
            GgufFileType::Q4_K_M,
            GgufFileType::Q3_K_M,
            GgufFileType::Q2_K,
        ];
        for pair in order.windows(2) {
            let (hi, lo) = (w(pair[0]), w(pair[1]));
            prop_assert!(hi > lo, "{:?} {hi:?} <= {:?} {lo:?}", pair[0], pair[1]);
        }
    }
}
