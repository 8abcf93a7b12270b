//! Speculative decoding in vLLM, by hand.

use crate::ErrorKind;
use crate::estimate::{
    ComponentKind, Engine, Estimate, EstimateInput, HardwareInput, Mode, ModelInput, RunInput,
    ServingInput, SpecMethod, estimate,
};

/// Llama-3.1-8B served by vLLM on 79.19 GiB, bf16, max_model_len 8,192, 8,192 batched tokens,
/// 256 sequences.
fn serve(spec: impl FnOnce(&mut EstimateInput)) -> Result<Estimate, crate::InputError> {
    let mut i = EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            max_num_batched_tokens: Some(8192.0),
            max_num_seqs: Some(256.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu_memory: Some("79.19GiB".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    spec(&mut i);
    estimate(&i)
}

fn drafter_bytes(e: &Estimate) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key == ComponentKind::Drafter)
        .map(|c| c.bytes.get())
        .sum()
}

/// The pool's blocks of `block` bytes with `less` bytes fewer in the budget than a plain run
/// whose pool of `plain_block`-byte blocks is `plain`: the budget it had lies in
/// [plain, plain + plain_block), so the blocks lie between the two ends' counts.
fn blocks_between(plain: u64, plain_block: u64, less: u64, block: u64) -> (u64, u64) {
    (
        (plain - less) / block,
        (plain + plain_block - 1 - less) / block,
    )
}

/// A draft model: Llama-3.2-1B-Instruct beside Llama-3.1-8B, 4 tokens, tp 1, by hand.
/// - weights (tied embedding, counted once): 128,256 × 2,048 = 262,668,288; per layer q, o
///   2 × 2,048², k, v 2 × 2,048 × 512, gate, up, down 3 × 2,048 × 8,192, 2 norms of 2,048 =
///   60,821,504, × 16 = 973,144,064; the final norm 2,048: 1,235,814,400 parameters (the
///   preset's safetensors count), × 2 B = 2,471,628,800 B;
/// - the proposer's buffers: 8,192 tokens × (2 × 2,048 × 2 B + 4 + 8 + 4 + 8 + 2 masks) + 256
///   × 4 B = 8,192 × 8,218 + 1,024 = 67,322,880 B;
/// - the KV per token: the target's 32 × 2 × 8 × 128 × 2 B = 131,072 and the draft's 16 × 2 ×
///   8 × 64 × 2 B = 32,768: 163,840 B, 16-token blocks of 2,621,440 B out of a budget
///   2,538,951,680 B smaller.
#[test]
fn a_draft_models_weights_buffers_and_layers_by_hand() {
    let plain = serve(|_| {}).unwrap();
    let e = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::DraftModel);
        i.serving.draft_model = Some("meta-llama/Llama-3.2-1B-Instruct".into());
        i.serving.num_speculative_tokens = Some(4.0);
    })
    .unwrap();
    let drafter = 2_471_628_800 + 67_322_880;
    assert_eq!(drafter_bytes(&e), drafter);
    assert_eq!(e.kv_bytes_per_token, 163_840);
    assert_eq!(plain.kv_bytes_per_token, 131_072);
    let (lo, hi) = blocks_between(
        plain.kv_cache_bytes.get(),
        16 * 131_072,
        drafter,
        16 * 163_840,
    );
    let blocks = e.kv_cache_bytes.get() / (16 * 163_840);
    assert_eq!(e.kv_cache_bytes.get() % (16 * 163_840), 0);
    assert!((lo..=hi).contains(&blocks), "{blocks} not in {lo}..={hi}");
    assert_eq!(e.kv_cache_tokens, Some(blocks * 16));
    assert!(e.notes.iter().any(|n| n.key == "vllm_speculative"));
}

/// An EAGLE head for Llama-3.1-8B (one layer of its shape), tp 1, by hand:
/// - q, k, v 4,096 × (4,096 + 2 × 1,024) = 25,165,824, o 4,096² = 16,777,216, gate, up, down
///   3 × 4,096 × 14,336 = 176,160,768, 2 norms 8,192, fc 2 × 4,096 × 4,096 = 33,554,432 and its
///   bias 4,096: 251,670,528 parameters × 2 B = 503,341,056 B (the embedding and the LM head
///   are the target's);
/// - buffers 8,192 × (2 × 4,096 × 2 + 24) + 1,024 = 134,415,360 B;
/// - KV: one more layer, 33 × 4,096 = 135,168 B per token.
#[test]
fn an_eagle_head_is_one_layer_of_the_targets_shape() {
    let e = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Eagle);
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap();
    assert_eq!(drafter_bytes(&e), 503_341_056 + 134_415_360);
    assert_eq!(e.kv_bytes_per_token, 135_168);
    assert_eq!(e.kv_cache_bytes.get() % (16 * 135_168), 0);
}

/// An EAGLE-3 head for Llama-3.1-8B, tp 1, by hand: attention over 2 × 4,096 inputs, 8,192 ×
/// 6,144 = 50,331,648, o 16,777,216, the MLP 176,160,768, 4 norms 16,384, fc 3 × 4,096² =
/// 50,331,648, its LM head 128,256 × 4,096 = 525,336,576: 818,954,240 parameters × 2 B =
/// 1,637,908,480 B, with the same buffers as EAGLE's; at tp 2 the layer and the LM head halve,
/// the norms and fc do not: (243,269,632 + 525,336,576) / 2 + 16,384 + 50,331,648 =
/// 434,651,136 parameters.
#[test]
fn an_eagle3_head_fuses_three_layers_and_keeps_its_lm_head() {
    let e = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Eagle3);
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap();
    assert_eq!(drafter_bytes(&e), 1_637_908_480 + 134_415_360);
    let t = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Eagle3);
        i.serving.num_speculative_tokens = Some(3.0);
        i.placement.tp = 2.0;
    })
    .unwrap();
    assert_eq!(drafter_bytes(&t), 434_651_136 * 2 + 134_415_360);
    // Per GPU at tp 2: 32 + 1 layers × 2 × 4 KV heads × 128 × 2 B.
    assert_eq!(t.kv_bytes_per_token, 33 * 2_048);
    // The notes' figures: a 32,000-token draft vocabulary holds (128,256 − 32,000) × 4,096 ×
    // 2 B / 2 = 394,264,576 B (376.00 MiB) less per GPU at tp 2; draft_tensor_parallel_size 1
    // holds (818,954,240 − 434,651,136) × 2 B = 768,606,208 B (733.00 MiB) more.
    let note = |key: &str| {
        t.notes
            .iter()
            .find(|n| n.key == key)
            .map(|n| n.en.clone())
            .unwrap_or_default()
    };
    assert!(
        note("vllm_eagle3_vocab").contains("376.00 MiB"),
        "{}",
        note("vllm_eagle3_vocab")
    );
    assert!(
        note("vllm_speculative_tp").contains("733.00 MiB"),
        "{}",
        note("vllm_speculative_tp")
    );
}

/// N-grams draft on the CPU: no GPU bytes, the pool as without speculation.
#[test]
fn ngram_drafting_adds_nothing_on_the_gpu() {
    let plain = serve(|_| {}).unwrap();
    let e = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Ngram);
        i.serving.num_speculative_tokens = Some(5.0);
    })
    .unwrap();
    assert_eq!(drafter_bytes(&e), 0);
    assert_eq!(e.kv_cache_bytes, plain.kv_cache_bytes);
    assert_eq!(e.kv_bytes_per_token, plain.kv_bytes_per_token);
}

#[test]
fn settings_are_checked_with_their_fields() {
    let field = |f: fn(&mut EstimateInput)| {
        let e = serve(f).unwrap_err();
        (e.kind, e.field)
    };
    assert_eq!(
        field(|i| i.serving.num_speculative_tokens = Some(3.0)),
        (ErrorKind::Conflict, "num_speculative_tokens".into())
    );
    assert_eq!(
        field(|i| i.serving.speculative_method = Some(SpecMethod::Eagle)),
        (ErrorKind::Missing, "num_speculative_tokens".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::Eagle);
            i.serving.num_speculative_tokens = Some(17.0);
        }),
        (ErrorKind::OutOfRange, "num_speculative_tokens".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::Eagle);
            i.serving.num_speculative_tokens = Some(2.0);
            i.serving.acceptance_rate = Some(1.0);
        }),
        (ErrorKind::OutOfRange, "acceptance_rate".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::Eagle);
            i.serving.num_speculative_tokens = Some(2.0);
            i.serving.acceptance_rate = Some(f64::NAN);
        }),
        (ErrorKind::OutOfRange, "acceptance_rate".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::DraftModel);
            i.serving.num_speculative_tokens = Some(2.0);
        }),
        (ErrorKind::Missing, "draft_model".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::Ngram);
            i.serving.num_speculative_tokens = Some(2.0);
            i.serving.draft_model = Some("meta-llama/Llama-3.2-1B".into());
        }),
        (ErrorKind::Conflict, "draft_model".into())
    );
    // Qwen3's vocabulary is not Llama's.
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::DraftModel);
            i.serving.num_speculative_tokens = Some(2.0);
            i.serving.draft_model = Some("Qwen/Qwen3-4B".into());
        }),
        (ErrorKind::Conflict, "draft_model".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::DraftModel);
            i.serving.num_speculative_tokens = Some(2.0);
            i.serving.draft_model = Some("no/such-model".into());
        }),
        (ErrorKind::UnknownModel, "draft_model".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::Eagle);
            i.serving.num_speculative_tokens = Some(2.0);
            // SGLang serves it too (`sglang/speculative_tests.rs`); TensorRT-LLM is not modelled.
            i.run.engine = Engine::Trtllm;
        }),
        (ErrorKind::Unsupported, "speculative_method".into())
    );
    assert_eq!(
        field(|i| {
            i.serving.speculative_method = Some(SpecMethod::Eagle);
            i.serving.num_speculative_tokens = Some(2.0);
            i.model.arch = None;
            i.model.model = Some("Qwen/Qwen3-30B-A3B".into());
        }),
        (ErrorKind::Unsupported, "speculative_method".into())
    );
}

/// The speed with drafting: Llama-3.1-8B on an H100 SXM with an EAGLE head, k 3, α 0.8: the
/// expected tokens per step by hand, (1 − 0.8⁴) / (1 − 0.8) = 2.952; the decode faster than
/// without drafting, by less than 2.952×; without an acceptance rate no speculative figure.
#[cfg(feature = "speed")]
#[test]
fn the_speed_with_drafting_reads_the_acceptance_rate() {
    let run = |alpha: Option<f64>| {
        serve(|i| {
            i.hardware.gpu_memory = None;
            i.hardware.gpu = Some("h100-sxm5-80gb".into());
            i.serving.speculative_method = Some(SpecMethod::Eagle);
            i.serving.num_speculative_tokens = Some(3.0);
            i.serving.acceptance_rate = alpha;
        })
        .unwrap()
        .throughput
        .unwrap()
    };
    let t = run(Some(0.8));
    assert_eq!(t.speculative_tokens_per_step, Some(2.952));
    let (with, without) = (
        t.speculative_decode_tokens_per_s_per_sequence.unwrap(),
        t.decode_tokens_per_s_per_sequence.unwrap(),
    );
    assert!(with > without && with < 2.952 * without, "{with} {without}");
    assert!(
        t.formulas
            .iter()
            .any(|f| f.key == "speculative_decode_tokens_per_s" && f.en.contains("2.952"))
    );
    let none = run(None);
    assert_eq!(none.speculative_decode_tokens_per_s, None);
    assert_eq!(
        none.decode_tokens_per_s_per_sequence,
        t.decode_tokens_per_s_per_sequence
    );
}
