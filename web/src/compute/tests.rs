//! The calculator's computations, by hand and against the estimator.

use super::*;
use crate::i18n::Lang;
use crate::route::Route;
use crate::state::{Action, AppState};
use std::rc::Rc;
use yew::Reducible;

pub(super) fn state(hash: &str) -> Rc<AppState> {
    Rc::new(AppState::default()).reduce(Action::Open(Route::parse(hash), Lang::En))
}

#[test]
#[cfg(feature = "full")]
fn a_bare_parameter_count_is_bounded_by_its_assumed_cache_out_of_training() {
    // Its cache, of the shape assumed for the count, grows with the batch and the sequence.
    let s = state("#/fit?source=params&params=7B&gpu=h100-sxm5-80gb");
    assert_eq!(bounds(&input_with(&s, &[]).unwrap()), Bounds::Both);
    let (batch, seq) = largest(&s, Bytes::new(80 << 30));
    assert!(batch.is_some() && seq.is_some());
    // Training keeps no cache: nothing bounds them.
    let t = state("#/fit?source=params&params=7B&mode=training&gpu=h100-sxm5-80gb");
    assert_eq!(bounds(&input_with(&t, &[]).unwrap()), Bounds::None);
    assert_eq!(largest(&t, Bytes::new(80 << 30)), (None, None));
    // A preset has both.
    let p = state("#/fit?gpu=h100-sxm5-80gb");
    let (batch, seq) = largest(&p, Bytes::new(80 << 30));
    assert!(batch.is_some() && seq.is_some());
    // llama.cpp's context, not its prompt: Llama-3.1-8B in Q4_K_M at -c 8192 on a 12 GB
    // card holds a longer context than 8,192, and 3 sequences of 2,048 + 256 tokens.
    let l = state(
        "#/fit?engine=llamacpp&quantization=gguf-q4_k_m&max_model_len=8192&gpu=rtx-3060-12gb",
    );
    let (batch, ctx) = largest(&l, Bytes::new(12 << 30));
    let (ctx, bound) = ctx.unwrap();
    assert!(
        ctx.value > 8192 && bound == vramfit::estimate::Bound::Memory,
        "{ctx:?}"
    );
    let (batch, bound) = batch.unwrap();
    assert_eq!(
        (batch.value, bound),
        (3, vramfit::estimate::Bound::SharedContext)
    );
    // An image network's per-image counts bound its batch, and nothing else.
    let r = state("#/fit?model=microsoft/resnet-50&mode=training&gpu=h100-sxm5-80gb");
    assert_eq!(bounds(&input_with(&r, &[]).unwrap()), Bounds::Batch);
    let (batch, seq) = largest(&r, Bytes::new(80 << 30));
    assert!(batch.is_some_and(|(b, _)| b.value > 100) && seq.is_none());
}

/// Two cards that are not alike from the address: llama.cpp's split by free memory, each
/// card's share (23 blocks on the 3090, 9 and the output on the 3060, as the library's hand
/// count has it), and `-ts 3,1` moving two blocks.
#[test]
fn unlike_cards_from_the_address() {
    let base = "#/calc?engine=llamacpp&model=meta-llama%2FLlama-3.1-8B&quantization=gguf-q4_k_m&max_model_len=8192&cards=rtx-3090,rtx-3060-12gb";
    let e = estimate_of(&state(base)).unwrap();
    let layers: Vec<(u64, bool)> = e.cards.iter().map(|c| (c.layers, c.limits)).collect();
    assert_eq!(layers, [(23, false), (9, true)]);
    let e = estimate_of(&state(&format!("{base}&tensor_split=3,1"))).unwrap();
    assert_eq!(e.cards[0].layers, 25);
}

/// An embedding run from the address (issue 42): bge-m3 in F16 under llama.cpp's
/// `--embedding` keeps no KV cache and the compute buffer of its 512-token ubatch, 32.5 MiB
/// by hand (`vramfit`'s test `bge_m3_on_llamacpp_keeps_no_cache_by_hand`); under Ollama it
/// runs too, with one sequence.
#[test]
fn an_embedding_run_on_llamacpp_and_ollama_from_the_address() {
    let base = "model=BAAI%2Fbge-m3&runner=pooling&quantization=gguf-f16&seq_len=512&new_tokens=0&gpu=h100-sxm5-80gb";
    let e = estimate_of(&state(&format!("#/calc?engine=llamacpp&{base}"))).unwrap();
    assert_eq!(
        e.component_bytes(vramfit::estimate::ComponentKind::KvCache),
        0
    );
    assert_eq!(
        e.component_bytes(vramfit::estimate::ComponentKind::ComputeBuffer),
        34_078_720
    );
    let o = estimate_of(&state(&format!("#/calc?engine=ollama&{base}"))).unwrap();
    assert_eq!(
        o.component_bytes(vramfit::estimate::ComponentKind::KvCache),
        0
    );
    assert!(o.notes.iter().any(|n| n.key == "ollama_embedding"));
}

#[test]
fn a_preset_typed_with_ollama_runs_as_its_default_tag() {
    let s = state("#/calc?engine=ollama&model=Qwen%2FQwen3-32B&gpu=rtx-4090");
    let e = estimate_of(&s).unwrap();
    assert_eq!(e.model, "qwen3:32b");
    let tag = estimate_of(&state(
        "#/calc?engine=ollama&model=qwen3%3A32b&gpu=rtx-4090",
    ));
    assert_eq!(e, tag.unwrap());
    let d = engine_defaults(&s, Some(&e));
    let get = |k: &str| d.iter().find(|(f, _)| *f == k).map(|(_, v)| v.as_str());
    assert_eq!(get("quantization"), Some("Q4_K_M"));
    // Ollama's num_ctx for the RTX 4090's 23.5 GiB (below its 24 GiB tier), and its own
    // choice of layers: all 65.
    assert_eq!(get("max_model_len"), Some("4,096"));
    assert_eq!(get("gpu_layers"), Some("65"));
    // Another engine keeps the checkpoint.
    let v = estimate_of(&state("#/calc?engine=vllm&model=Qwen%2FQwen3-32B")).unwrap();
    assert_eq!(v.model, "Qwen/Qwen3-32B");
}

#[test]
fn default_state_estimates_the_default_model() {
    let e = estimate_of(&state("")).unwrap();
    assert_eq!(e.model, fields::DEFAULT_MODEL);
    assert!(e.total_bytes.get() > e.weights_bytes.get());
}

#[test]
fn the_guides_example_by_parameter_count() {
    let e = estimate_of(&state("#/calc?source=params&params=7B&dtype=fp16")).unwrap();
    // Guide: 7B fp16 weights = 14 GB.
    assert_eq!(e.quick.weights_bytes.get(), 14_000_000_000);
}

#[test]
#[cfg(feature = "full")]
fn what_ifs_save_memory_in_training() {
    let s = state("#/calc?mode=training&batch=8");
    let base = estimate_of(&s).unwrap();
    let w = what_ifs(&s, &base);
    let keys: Vec<_> = w.iter().map(|w| w.key).collect();
    for k in [
        "whatif.half_batch",
        "whatif.checkpointing",
        "whatif.lora",
        "whatif.qlora",
    ] {
        assert!(keys.contains(&k), "{k} missing from {keys:?}");
    }
    for w in &w {
        assert!(
            w.estimate.total_bytes < base.total_bytes,
            "{} does not save",
            w.key
        );
    }
}

#[test]
fn prices_round_to_four_significant_digits() {
    assert_eq!(round_price(2.48934), 2.489);
    assert_eq!(round_price(1234.56), 1235.0);
    // A tiny price keeps its digits (it rounded to 0 at four decimals).
    assert_eq!(round_price(0.000_012_345), 0.000_012_35);
    assert_eq!(format!("{}", round_price(0.0001)), "0.0001");
    assert_eq!(round_price(0.0), 0.0);
    assert_eq!(format!("{}", round_price(0.001_408_2)), "0.001408");
    assert_eq!(format!("{}", round_price(12_345.6)), "12350");
}

#[test]
#[cfg(feature = "full")]
fn the_kv_what_if_is_the_engines_own() {
    // fp8 in vLLM, q8_0 in llama.cpp, none in transformers (it has neither); each saves.
    for (hash, key) in [
        (
            "#/calc?mode=serve&engine=vllm&gpu=h100-sxm5-80gb",
            Some("whatif.kv_fp8"),
        ),
        ("#/calc?engine=llamacpp&seq_len=32768", Some("whatif.kv_q8")),
        ("#/calc?engine=hf", None),
    ] {
        let s = state(hash);
        let base = estimate_of(&s).unwrap();
        let w = what_ifs(&s, &base);
        let kv: Vec<_> = w
            .iter()
            .filter(|w| w.key.starts_with("whatif.kv_"))
            .collect();
        assert_eq!(kv.iter().map(|w| w.key).next(), key, "{hash}");
        // llama.cpp's q8_0 cache: 34 B per 32 values instead of 64, under half the bytes
        // of the cache it replaces.
        if key == Some("whatif.kv_q8") {
            let k = kv[0].estimate.kv_cache_bytes.get() as f64;
            let ratio = k / base.kv_cache_bytes.get() as f64;
            assert!((ratio - 34.0 / 64.0).abs() < 1e-3, "{ratio}");
        }
    }
}

#[test]
fn bad_input_gives_the_estimators_error_not_a_panic() {
    let s = state("#/calc?batch=-3");
    assert_eq!(estimate_of(&s).unwrap_err().field, "batch");
    assert!(context_curve(&s).is_empty());
    let s = state("#/calc?source=config");
    assert_eq!(estimate_of(&s).unwrap_err().field, "config.json");
    // Every field in range, the run past 8 PiB: eager attention holds batch × 32 heads ×
    // seq_len² × 6 B of scores (bf16 and the fp32 softmax), 64 × 32 × 2^48 × 6 = 3 × 2^61 B
    // for Llama-3.1-8B at 2^24 tokens.
    let s = state(
        "#/calc?model=meta-llama%2FLlama-3.1-8B&engine=hf&attention=eager&batch=64&seq_len=16777216",
    );
    assert_eq!(estimate_of(&s).unwrap_err().field, "batch × seq_len");
}

#[test]
fn weights_round_trip_through_the_url_text() {
    let s = state("#/fit?weights=memory%3D3%2Csupport%3D0");
    let w = weights_of(&s).unwrap();
    assert_eq!((w.memory, w.support, w.billing), (3, 0, 1));
    assert_eq!(weights_text(&w), "memory=3,support=0");
    assert_eq!(weights_text(&Weights::default()), "");
    let w2 = with_weight(&w, "memory", 1);
    assert_eq!(weights_text(&w2), "support=0");
    assert_eq!(with_weight(&w, "billing", 500).billing, 100);
    // The ranking is the core's, with these weights.
    let m = matrix_of(&s, vramfit::hardware::offers()).unwrap();
    let core = rank_platforms(
        vramfit::hardware::platforms(),
        vramfit::hardware::offers(),
        vramfit::hardware::gpus(),
        &w,
    );
    assert_eq!(m, core);
    // Every weight 0, or a bad text: the field's error, no ranking.
    let zero = "memory=0,billing=0,slicing=0,interconnect=0,frameworks=0,support=0";
    let s0 = state(&format!("#/fit?weights={}", crate::route::encode(zero)));
    assert_eq!(
        matrix_of(&s0, vramfit::hardware::offers())
            .unwrap_err()
            .field,
        "weights"
    );
    let bad = state("#/fit?weights=memory%3Dlots");
    assert_eq!(
        matrix_of(&bad, vramfit::hardware::offers())
            .unwrap_err()
            .field,
        "weights"
    );
}

#[test]
fn spot_defaults_come_from_the_cheapest_offers() {
    let s = state("#/fit");
    let opts = plan_of(
        &s,
        vramfit::hardware::offers(),
        &PlanOptions {
            include_spot: true,
            ..PlanOptions::default()
        },
    )
    .unwrap();
    let d = spot_defaults(&opts, "");
    let od = d.on_demand.clone().unwrap();
    let first_od = opts.iter().find(|o| o.market == Market::OnDemand).unwrap();
    assert_eq!(od, (first_od.offer.clone(), first_od.price_per_hour));
    assert_eq!(
        spot_value(&s, "spot_od", &d),
        format!("{}", round_price(od.1))
    );
    assert_eq!(spot_value(&s, "spot_hours", &d), "24");
    // The comparison is the core's for the same numbers.
    let c = spot_of(&s, &d).unwrap();
    let sp: f64 = spot_value(&s, "spot_price", &d).parse().unwrap();
    let want = compare(&SpotInput {
        hours: 24.0,
        on_demand_price: round_price(od.1),
        spot_price: sp,
        mtbi_hours: 12.0,
        checkpoint_every_hours: 0.5,
        restart_hours: 0.25,
    })
    .unwrap();
    assert_eq!(c, want);
    // Hand check of the on-demand cost: 24 h at the rounded price.
    assert_eq!(c.on_demand_cost, 24.0 * round_price(od.1));
    // A chosen card narrows the defaults to its offers.
    let on_4090 = spot_defaults(&opts, "rtx-4090");
    if opts
        .iter()
        .any(|o| o.gpu == "rtx-4090" && o.market == Market::OnDemand)
    {
        let id = on_4090.on_demand.unwrap().0;
        assert!(opts.iter().any(|o| o.offer == id && o.gpu == "rtx-4090"));
    }
    // Typed values win; a bad one is named like the core names it.
    let bad = state("#/fit?spot_hours=abc");
    assert_eq!(spot_of(&bad, &d).unwrap_err().field, "hours");
    let bad = state("#/fit?spot_mtbi=-2");
    assert_eq!(spot_of(&bad, &d).unwrap_err().field, "mtbi");
    let none = SpotDefaults::default();
    assert_eq!(spot_of(&s, &none).unwrap_err().field, "on_demand_price");
}

#[test]
fn the_curve_grows_with_context() {
    let c = context_curve(&state("#/calc?seq_len=3000"));
    assert!(c.len() >= 5);
    assert!(c.iter().any(|(n, _)| *n == 3000));
    for w in c.windows(2) {
        assert!(w[0].1.total_bytes <= w[1].1.total_bytes);
    }
}

/// Issue 40's RL case on the site: GRPO with TRL's vLLM colocated on one H100, from the
/// address the form writes, estimates as the estimator does for the same run given as the npm
/// package's JSON (not through the form), with the policy's parts and the rollout's weights, KV
/// pool and buffers on the one card, each labelled in English and Chinese.
#[test]
#[cfg(feature = "full")]
fn an_rl_run_shows_the_policy_and_the_rollout_on_one_card() {
    use vramfit::estimate::{ComponentKind as K, EstimateInput, estimate};
    let site = estimate_of(&state(
        "#/calc?model=Qwen%2FQwen2.5-7B-Instruct&mode=training&stack=trl&rl=grpo&rollout=colocate&lora_rank=16&batch=1&seq_len=512&gpu=h100-sxm5-80gb",
    ))
    .unwrap();
    let json = r#"{"model": "Qwen/Qwen2.5-7B-Instruct", "mode": "training", "stack": "trl",
        "rl": "grpo", "rollout": "colocate", "lora_rank": 16, "batch": 1, "seq_len": 512,
        "gpu": "h100-sxm5-80gb"}"#;
    let npm: EstimateInput = serde_json::from_str(json).unwrap();
    let core = estimate(&npm).unwrap();
    assert_eq!(site.total_bytes, core.total_bytes);
    let kinds: Vec<K> = site.components.iter().map(|c| c.key.kind).collect();
    for k in [
        K::Weights,
        K::Activations,
        K::RolloutWeights,
        K::RolloutKvCache,
        K::RolloutBuffers,
    ] {
        assert!(kinds.contains(&k), "{k:?} in {kinds:?}");
        let key = crate::components::chart::label_key(k);
        let (en, zh) = (Lang::En.t(key), Lang::Zh.t(key));
        assert!(!en.is_empty() && zh != en, "{k:?}: {en} / {zh}");
    }
    // vLLM's copy of the policy's bf16 weights, 7,615,616,512 parameters × 2 B, and its rotary
    // cos/sin cache in bf16, max_position_embeddings 32,768 × head dim 128 × 2 B = 8 MiB.
    let rollout_weights = site
        .components
        .iter()
        .find(|c| c.key.kind == K::RolloutWeights)
        .map(|c| c.bytes.get());
    assert_eq!(rollout_weights, Some(7_615_616_512 * 2 + 32_768 * 128 * 2));
}
