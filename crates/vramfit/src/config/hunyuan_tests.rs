//! Hunyuan-MoE against transformers 5.25.0's `HunYuanMoEV1ForCausalLM` on the meta device
//! (`tests/reference/hunyuan_reference.py`, `hunyuan-reference.csv`), and by hand.

use super::super::parse_config;
use crate::estimate::{
    ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, estimate,
};

/// tencent/Hunyuan-A13B-Instruct's config.json, as the mock hub serves it.
const A13B: &str =
    include_str!("../../../../tests/hub/fixtures/tencent/hunyuan-a13b-instruct/config.json");
const REFERENCE: &str = include_str!("../../../../tests/reference/hunyuan-reference.csv");
/// A tiny config with a top-k per layer and no head_dim default to lean on.
const TINY: &str = r#"{"model_type": "hunyuan_v1_moe", "hidden_size": 64, "intermediate_size": 96,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "vocab_size": 100, "num_experts": 4, "moe_topk": [2, 3], "tie_word_embeddings": false}"#;

fn reference(case: &str) -> u64 {
    REFERENCE
        .lines()
        .find_map(|l| {
            let mut f = l.split(',');
            (f.next() == Some(case)).then(|| f.next().unwrap().parse().unwrap())
        })
        .unwrap()
}

/// Hunyuan-A13B by hand: embeddings (tied) 128,167 × 4,096 = 524,972,032; a layer: q and o
/// 2 × 4,096² = 33,554,432, k and v 2 × 4,096 × 8 × 128 = 8,388,608, q/k norms 2 × 128, the
/// router 4,096 × 64 = 262,144, 64 experts 64 × 3 × 4,096 × 3,072 = 2,415,919,104, the shared
/// MLP 3 × 4,096 × 3,072 = 37,748,736, two norms 8,192: 2,495,881,472, × 32 = 79,868,207,104;
/// the final norm 4,096: 80,393,183,232, transformers' meta count. The tiny config: embeddings
/// and head 2 × 100 × 64; a layer 2 × 64² + 2 × 64 × 32 + 32 + 64 × 4 + 4 × 3 × 64 × 96 + 3 ×
/// 64 × 96 + 128 = 104,864; 2 layers and the final norm: 222,592.
#[test]
fn params_match_transformers_and_the_hand() {
    let layer = 2 * 4096 * 4096
        + 2 * 4096 * 1024
        + 256
        + 4096 * 64
        + 64 * 3 * 4096 * 3072
        + 3 * 4096 * 3072
        + 8192;
    assert_eq!(layer, 2_495_881_472u64);
    let all = 128_167 * 4096 + 32 * layer + 4096;
    assert_eq!(all, reference("hunyuan-a13b"));
    let a = parse_config(A13B).unwrap();
    assert_eq!(a.arch.params(), all);
    let moe = a.arch.moe.unwrap();
    assert_eq!((moe.num_experts, moe.experts_per_token), (64, 8));
    assert!(a.notes.iter().any(|n| n.contains("fp32")), "{:?}", a.notes);
    let tiny_layer = 2 * 64 * 64 + 2 * 64 * 32 + 32 + 64 * 4 + 4 * 3 * 64 * 96 + 3 * 64 * 96 + 128;
    assert_eq!(tiny_layer, 104_864u64);
    let t = parse_config(TINY).unwrap().arch;
    assert_eq!(t.params(), 2 * 100 * 64 + 2 * tiny_layer + 64);
    assert_eq!(t.params(), reference("hunyuan-tiny"));
    assert_eq!(t.moe.unwrap().experts_per_token, 3);
}

/// The KV cache by the reference rule (every layer caches its own K and V, `use_cla` false):
/// 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 131,072 B a token in bf16; transformers
/// with the default 2,048-token prompt and 256 new tokens: 2,304 × 131,072 = 301,989,888 B.
/// `hunyuan-reference.csv`'s tiny run measured its DynamicCache at 2 layers × 2 heads × 16 ×
/// 2 × 4 B (fp32) = 512 B a token.
#[test]
fn kv_cache_by_the_reference_rule() {
    let a = parse_config(A13B).unwrap().arch;
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(a),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 2304 * 131_072);
    let tiny = parse_config(TINY).unwrap().arch;
    assert_eq!(
        2 * 2 * 16 * 2 * 4,
        reference("hunyuan-tiny-cache-bytes-per-token")
    );
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(tiny),
            ..Default::default()
        },
        run: RunInput {
            dtype: Some(crate::precision::Dtype::Fp32),
            seq_len: 10.0,
            new_tokens: 6.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 16 * 512);
    // vLLM serves it (HunYuanMoEV1ForCausalLM).
    let v = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(parse_config(A13B).unwrap().arch),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h200-sxm-141gb".into()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(v.is_ok(), "{v:?}");
}

/// What transformers does not build is refused by its key.
#[test]
fn refusals_name_their_key() {
    for (from, to, key) in [
        (r#""use_cla": false"#, r#""use_cla": true"#, "use_cla"),
        (
            r#""intermediate_size": 3072"#,
            r#""intermediate_size": 2048"#,
            "moe_intermediate_size",
        ),
    ] {
        let json = A13B.replacen(from, to, 1);
        let e = parse_config(&json).unwrap_err();
        assert_eq!(e.field, alloc::format!("config.json: {key}"), "{e:?}");
    }
    let json = TINY.replace("[2, 3]", "[2]");
    assert_eq!(
        parse_config(&json).unwrap_err().field,
        "config.json: moe_topk"
    );
}
