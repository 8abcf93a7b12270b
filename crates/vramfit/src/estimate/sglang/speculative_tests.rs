//! SGLang 0.5.23's speculative decoding, by hand.

use crate::ErrorKind;
use crate::estimate::{
    ComponentKind, Engine, Estimate, EstimateInput, HardwareInput, Mode, ModelInput, RunInput,
    ServingInput, SpecMethod, estimate,
};

/// Llama-3.1-8B served by SGLang on an H100 at mem_fraction_static 0.88 (the plain run of
/// `the_token_pool_by_hand`), with `spec`'s drafting.
fn serve(spec: impl FnOnce(&mut EstimateInput)) -> Result<Estimate, crate::InputError> {
    let mut i = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B-Instruct".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        serving: ServingInput {
            mem_fraction_static: Some(0.88),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    spec(&mut i);
    estimate(&i)
}

fn component(e: &Estimate, kind: ComponentKind) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key == kind)
        .map(|c| c.bytes.get())
        .sum()
}

/// Llama-3.1-8B with its EAGLE-3 head (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B), 3 steps, by hand.
///
/// Before the pool, as the plain run: (85,029,027,840 − 547,608,330 context − 96,636,764
/// init) × 0.88 = 74,258,608,816 B, less the weights 16,060,522,496 and the loading
/// 311,385,129 = 57,886,701,191 B (441,640 tokens of 131,072 B without a draft).
///
/// The head, loaded before the pool is sized (`kv_cache_configurator.py`,
/// `_profile_available_bytes`: "draft weights are now counted"), h = 4,096: its attention reads
/// 2 × h into q 4,096 + k, v 2 × 1,024: 8,192 × 6,144 = 50,331,648; o 4,096 × 4,096 =
/// 16,777,216; the gated MLP 3 × 4,096 × 14,336 = 176,160,768; four norms 16,384; `fc` 3 × h × h
/// = 50,331,648: 293,617,664; its LM head over the target's vocabulary 128,256 × 4,096 =
/// 525,336,576; its own embedding, the same, which it holds until `init_lm_head` gives it the
/// target's (`speculative/eagle_worker_v2.py`, after `alloc_memory_pool`): 1,344,290,816
/// parameters × 2 B = 2,688,581,632 B. Left: 57,886,701,191 − 2,688,581,632 = 55,198,119,559 B.
///
/// The cell (`pool_configurator.py`, `DefaultPoolConfigurator.__init__`, the EAGLE branch):
/// 131,072 + int(131,072 × 1 draft layer (`spec_aux_hidden_state.py`: the head's
/// num_hidden_layers) / 32) = 131,072 + 4,096 = 135,168 B; 55,198,119,559 / 135,168 = 408,366
/// tokens (`calculate_pool_sizes`: available // cell, page 1).
#[test]
fn an_eagle3_head_by_hand() {
    let e = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Eagle3);
        i.serving.draft_model = Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B".into());
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap();
    assert_eq!(component(&e, ComponentKind::Drafter), 2_688_581_632);
    assert_eq!(e.kv_cache_tokens, Some(408_366));
    assert_eq!(e.kv_cache_bytes.get(), 408_367 * 135_168);
    assert_eq!(e.kv_bytes_per_token, 135_168);
    // `_handle_eagle_family`: max_running_requests 48 when not given; the request table is
    // 48 × (131,072 + 4) × 4 B.
    assert_eq!(
        component(&e, ComponentKind::ReqToTokenPool),
        48 * 131_076 * 4
    );
    assert!(e.notes.iter().any(|n| n.key == "sglang_speculative"));
}

/// STANDALONE with Llama-3.2-1B as the draft, by hand: its 1,235,814,400 parameters × 2 B =
/// 2,471,628,800 B loaded before the pool, leaving 57,886,701,191 − 2,471,628,800 =
/// 55,415,072,391 B. SGLang sizes the draft's KV with the target's per-layer size
/// (`DefaultPoolConfigurator`: "assumes the draft shares the target's per-layer KV size"):
/// 131,072 + int(131,072 × 16 / 32) = 196,608 B per token; 55,415,072,391 / 196,608 = 281,855
/// tokens. (The 1B's own KV is 32,768 B per token: SGLang's pool, and so vramfit's, is smaller
/// than the draft needs, the safe side.)
#[test]
fn a_standalone_draft_by_hand() {
    let e = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::DraftModel);
        i.serving.draft_model = Some("meta-llama/Llama-3.2-1B-Instruct".into());
        i.serving.num_speculative_tokens = Some(4.0);
    })
    .unwrap();
    assert_eq!(component(&e, ComponentKind::Drafter), 2_471_628_800);
    assert_eq!(e.kv_cache_tokens, Some(281_855));
    assert_eq!(e.kv_bytes_per_token, 196_608);
    // A given max_running_requests stays.
    let given = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::DraftModel);
        i.serving.draft_model = Some("meta-llama/Llama-3.2-1B-Instruct".into());
        i.serving.num_speculative_tokens = Some(4.0);
        i.serving.max_num_seqs = Some(8.0);
    })
    .unwrap();
    assert_eq!(
        component(&given, ComponentKind::ReqToTokenPool),
        8 * 131_076 * 4
    );
}

/// What SGLang's path refuses, by field: n-grams (not modelled), an older release (whose
/// fraction reserves for drafting), a P/D side, a sliding-window target.
#[test]
fn sglangs_refusals_name_the_field() {
    let ngram = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Ngram);
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap_err();
    assert_eq!(
        (ngram.kind, ngram.field.as_str()),
        (ErrorKind::Unsupported, "speculative_method")
    );
    let old = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Eagle);
        i.serving.num_speculative_tokens = Some(3.0);
        i.run.engine_version = Some("0.5.10".into());
    })
    .unwrap_err();
    assert_eq!(old.field, "speculative_method");
    assert!(old.problem.contains("0.5.10"), "{}", old.problem);
    let pd = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Eagle);
        i.serving.num_speculative_tokens = Some(3.0);
        i.serving.disaggregation_mode = Some(crate::estimate::DisaggregationMode::Decode);
    })
    .unwrap_err();
    assert_eq!(pd.field, "speculative_method");
    let windows = serve(|i| {
        i.model.model = Some("google/gemma-3-27b-it".into());
        i.serving.speculative_method = Some(SpecMethod::DraftModel);
        i.serving.draft_model = Some("google/gemma-3-1b-it".into());
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap_err();
    assert_eq!(windows.field, "speculative_method");
}

/// DeepSeek-V3 served by SGLang on 8 × H200 at tp 8, with `spec`'s drafting.
fn deepseek(spec: impl FnOnce(&mut EstimateInput)) -> Result<Estimate, crate::InputError> {
    let mut i = EstimateInput {
        model: ModelInput {
            model: Some("deepseek-ai/DeepSeek-V3".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h200-sxm-141gb".into()),
            ..Default::default()
        },
        placement: crate::estimate::PlacementInput {
            tp: 8.0,
            gpus: Some(8.0),
            ..Default::default()
        },
        ..Default::default()
    };
    spec(&mut i);
    estimate(&i)
}

/// DeepSeek-V3's NEXTN draft (`--speculative-algorithm NEXTN`, its config.json's
/// `num_nextn_predict_layers` 1) at tp 8, by hand.
///
/// The draft as sglang 0.5.23 builds it (`models/deepseek_nextn.py`, `DeepseekModelNextN`): one
/// `DeepseekV2DecoderLayer` with `is_nextn=True`, so routed experts
/// (`_is_layer_sparse`: `is_nextn or …`), in the checkpoint's FP8 as vramfit holds the target's
/// layers (1 B a weight and an fp32 scale per output row; norms, the router and its bias in
/// bf16), split 8 ways but for `q_a_proj`, `kv_a_proj_with_mqa` and the router (replicated):
/// - `q_a_proj` 7,168 × 1,536 + 1,536 × 4 = 11,016,192 and its norm 1,536 × 2 = 3,072;
/// - `q_b_proj` 1,536 × 24,576 (128 heads × 192) + 24,576 × 4 = 37,847,040 / 8 = 4,730,880;
/// - `kv_a_proj_with_mqa` 7,168 × 576 + 576 × 4 = 4,131,072 and its norm 512 × 2 = 1,024;
/// - `kv_b_proj` 512 × 32,768 + 32,768 × 4 = 16,908,288 / 8 = 2,113,536;
/// - `o_proj` 16,384 × 7,168 + 7,168 × 4 = 117,469,184 / 8 = 14,683,648;
/// - the router 7,168 × 256 × 2 = 3,670,016 and its bias 256 × 2 = 512;
/// - 256 experts' gate and up, each 7,168 × 2,048 × 256 + 2,048 × 256 × 4 = 3,760,193,536 / 8
///   = 470,024,192, their down 2,048 × 7,168 × 256 + 7,168 × 256 × 4 = 3,765,436,416 / 8 =
///   470,679,552;
/// - the shared expert's gate and up 7,168 × 2,048 + 2,048 × 4 = 14,688,256 / 8 = 1,836,032
///   each, its down 2,048 × 7,168 + 7,168 × 4 = 14,708,736 / 8 = 1,838,592;
/// - the layer's two norms 2 × 7,168 × 2 = 28,672:
///   1,456,617,216 B in all (11,520,983,808 B on one GPU).
///
/// In bf16: its own embedding and LM head, 129,280 × 7,168 / 8 = 115,834,880 each (held until
/// `init_lm_head` gives it the target's, after the pool is sized), `eh_proj` 2 × 7,168 × 7,168 =
/// 102,760,448 (an `nn.Linear` on every GPU) and `enorm`, `hnorm`, `shared_head.norm` 3 × 7,168 =
/// 21,504: 334,451,712 × 2 B = 668,903,424 B. The draft: 2,125,520,640 B.
///
/// The cell (`pool_configurator.py`, the EAGLE branch NEXTN resolves to): the MLA latent
/// 61 layers × 576 × 2 B = 70,272 B + int(70,272 × 1 / 61) = 1,152 B = 71,424 B a token; the
/// pool is what the plain run had before its pool less the draft, over that cell.
#[test]
fn deepseek_v3_nextn_by_hand() {
    let plain = deepseek(|_| {}).unwrap();
    let e = deepseek(|i| {
        i.serving.speculative_method = Some(SpecMethod::Mtp);
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap();
    let draft = 1_456_617_216 + 668_903_424;
    assert_eq!(component(&e, ComponentKind::Drafter), draft);
    assert_eq!(plain.kv_bytes_per_token, 70_272);
    assert_eq!(e.kv_bytes_per_token, 71_424);
    // The plain run's budget for its pool: its tokens' bytes, and less than one cell more.
    let low = plain.kv_cache_tokens.unwrap() * 70_272;
    let tokens = e.kv_cache_tokens.unwrap();
    assert!(
        tokens >= (low - draft) / 71_424 && tokens <= (low + 70_271 - draft) / 71_424,
        "{tokens}"
    );
    // `_handle_eagle_family`: 48 running requests when none is given.
    assert_eq!(
        component(&e, ComponentKind::ReqToTokenPool),
        48 * (163_840 + 4) * 4
    );
}

/// NEXTN needs the model's own MTP layers, routed experts, and SGLang.
#[test]
fn nextn_refusals_name_the_field() {
    let no_mtp = serve(|i| {
        i.serving.speculative_method = Some(SpecMethod::Mtp);
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap_err();
    assert_eq!(no_mtp.field, "speculative_method");
    assert!(
        no_mtp.problem.contains("num_nextn_predict_layers"),
        "{no_mtp}"
    );
    let vllm = deepseek(|i| {
        i.run.engine = Engine::Vllm;
        i.serving.speculative_method = Some(SpecMethod::Mtp);
        i.serving.num_speculative_tokens = Some(3.0);
    })
    .unwrap_err();
    assert_eq!(vllm.field, "speculative_method");
    assert_eq!(vllm.kind, ErrorKind::Unsupported);
}
