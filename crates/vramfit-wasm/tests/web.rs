//! The bindings in a real browser (headless Chromium through ChromeDriver):
//! `cargo test -p vramfit-wasm --target wasm32-unknown-unknown` with `CHROMEDRIVER` set.
//! Each number is checked against a hand calculation written here; each error against the field
//! it must name.
#![cfg(target_arch = "wasm32")]

use vramfit_wasm::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn obj(json: &str) -> JsValue {
    js_sys::JSON::parse(json).expect("test JSON")
}

fn input(json: &str) -> JsEstimateInput {
    obj(json).unchecked_into()
}

fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(v.clone(), |v, k| {
        js_sys::Reflect::get(&v, &JsValue::from_str(k)).expect("a property")
    })
}

fn num(v: &JsValue, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is a number"))
}

fn ok<T: Into<JsValue>>(r: Result<T, JsValue>) -> JsValue {
    match r {
        Ok(v) => v.into(),
        Err(e) => panic!("unexpected error: {:?}", get(&e, "message")),
    }
}

/// The thrown value: a JavaScript `Error`; returns its message.
fn err<T>(r: Result<T, JsValue>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(v) => {
            assert!(v.is_instance_of::<js_sys::Error>(), "thrown as an Error");
            get(&v, "message").as_string().expect("a message")
        }
    }
}

#[wasm_bindgen_test]
fn guide_quick_numbers() {
    // Guide: 7B in fp16 is 7e9 × 2 B = 14 GB of weights.
    let e = ok(estimate(input(r#"{"params":"7B","dtype":"fp16"}"#)));
    assert_eq!(num(&e, "weights_bytes"), 14_000_000_000.0);
    assert_eq!(num(&e, "params"), 7e9);
    // A bare parameter count: the cache of the shape assumed for it (47 layers × 8 KV heads ×
    // 128 × 2 × 2 B = 192,512 B a token) fills in the prompt's forward pass, its peak.
    assert_eq!(num(&e, "kv_bytes_per_token"), 192_512.0);
    assert_eq!(
        get(&e, "peak_phase").as_string().as_deref(),
        Some("prefill")
    );
}

#[wasm_bindgen_test]
fn llama_3_1_8b_kv_per_token_and_weights() {
    let e = ok(estimate(input(r#"{"model":"meta-llama/Llama-3.1-8B"}"#)));
    // 8 KV heads × 128 head_dim × 32 layers × 2 (K, V) × 2 B (bf16).
    assert_eq!(num(&e, "kv_bytes_per_token"), 131_072.0);
    assert_eq!(num(&e, "params"), 8_030_261_248.0);
    assert_eq!(num(&e, "weights_bytes"), 16_060_522_496.0);
    // Sizes are exact integers, not strings or BigInts.
    assert!(
        get(&e, "total_bytes")
            .as_f64()
            .is_some_and(|t| t.fract() == 0.0)
    );
    // A GPU named: the fit is reported.
    let e = ok(estimate(input(
        r#"{"model":"meta-llama/Llama-3.1-8B","gpu":"h100-sxm5-80gb"}"#,
    )));
    assert_eq!(get(&e, "fit.fits").as_bool(), Some(true));
}

#[wasm_bindgen_test]
fn errors_name_the_field() {
    assert!(err(estimate(input(r#"{"params":"7B","batch":0}"#))).starts_with("batch: "));
    // The estimator's input errors carry their Chinese too, as the site writes it.
    let thrown = estimate(input(r#"{"params":"7B","tp":2,"gpus":1}"#))
        .err()
        .expect("an error");
    assert_eq!(
        get(&thrown, "message_zh").as_string().as_deref(),
        Some(
            "gpus：1 个 GPU，而 tp = 2 × pp = 1，每份模型副本需要 2 个。可接受：tp × pp 的倍数，即 2。"
        )
    );
    // Every thrown error carries its kind (as JSON writes it) and field, for a program to act on.
    assert_eq!(
        get(&thrown, "kind").as_string().as_deref(),
        Some("conflict")
    );
    assert_eq!(get(&thrown, "field").as_string().as_deref(), Some("gpus"));
    let thrown = estimate(input(r#"{"params":"7B","batch":0}"#))
        .err()
        .expect("an error");
    // And the message's parts, as the native JSON has them.
    assert_eq!(
        get(&thrown, "problem").as_string().as_deref(),
        Some("0 is out of range")
    );
    assert!(
        get(&thrown, "accepted")
            .as_string()
            .is_some_and(|a| a.contains("1 to"))
    );
    let thrown = estimate(input(r#"{"params":"7B","batch":0}"#))
        .err()
        .expect("an error");
    assert_eq!(
        get(&thrown, "kind").as_string().as_deref(),
        Some("out_of_range")
    );
    let thrown = estimate(input(r#"{"model":"zzz"}"#))
        .err()
        .expect("an error");
    assert_eq!(
        get(&thrown, "kind").as_string().as_deref(),
        Some("unknown_model")
    );
    let m = err(estimate(input(r#"{"params":"7B","seq_len":"long"}"#)));
    assert!(m.starts_with("seq_len: invalid type: string"), "{m}");
    let m = err(estimate(input(r#"{"params":"7B","seqLen":4096}"#)));
    assert!(m.starts_with("seqLen: unknown field `seqLen`"), "{m}");
    let m = err(estimate(input(r#"{"params":"7B","mode":"flying"}"#)));
    assert!(m.starts_with("mode: unknown variant `flying`"), "{m}");
    let m = err(estimate(JsValue::UNDEFINED.unchecked_into()));
    assert!(m.starts_with("EstimateInput: missing"), "{m}");
    let m = err(estimate(input(r#"{"model":"no/such-model"}"#)));
    assert!(m.starts_with("model: "), "{m}");
    assert!(m.contains("; accepted: "), "{m}");
}

#[wasm_bindgen_test]
fn solve_needs_a_gpu_and_answers_on_one() {
    let m = err(solve(input(r#"{"model":"meta-llama/Llama-3.1-8B"}"#)));
    assert!(m.starts_with("gpu: no GPU given"), "{m}");
    let s = ok(solve(input(
        r#"{"model":"meta-llama/Llama-3.1-8B","seq_len":4096,"gpu":"rtx-4090"}"#,
    )));
    let b = num(&s, "max_batch");
    assert!(b >= 1.0);
    // The answer fits and the next batch up does not.
    let at = |batch: f64| {
        let e = ok(estimate(input(&format!(
            r#"{{"model":"meta-llama/Llama-3.1-8B","seq_len":4096,"gpu":"rtx-4090","batch":{batch}}}"#
        ))));
        get(&e, "fit.fits").as_bool().expect("a fit")
    };
    assert!(at(b));
    assert!(!at(b + 1.0));
    assert_eq!(num(&s, "min_gpus"), 1.0);
}

#[wasm_bindgen_test]
fn recommend_ranks_offers() {
    let options: JsRecommendOptions = obj(r#"{"limit":3}"#).unchecked_into();
    let r = ok(recommend(input(r#"{"params":"70B"}"#), Some(options)));
    let list: js_sys::Array = get(&r, "options").unchecked_into();
    assert!(list.length() >= 1 && list.length() <= 3);
    // 70B in bf16 = 140 GB: more than one 80 GB card, or one bigger card.
    let first = list.get(0);
    assert!(num(&first, "count") > 1.0 || num(&first, "usable_bytes") > 140e9);
    assert_eq!(
        get(&r, "tier.min_params").as_f64().map(|m| m <= 70e9),
        Some(true)
    );
    let bad: JsRecommendOptions = obj(r#"{"currency":"EUR"}"#).unchecked_into();
    let m = err(recommend(input(r#"{"params":"7B"}"#), Some(bad)));
    assert!(m.starts_with("currency: "), "{m}");
    let bad: JsRecommendOptions = obj(r#"{"max_gpus":0}"#).unchecked_into();
    assert!(err(recommend(input(r#"{"params":"7B"}"#), Some(bad))).starts_with("max_gpus: "));
}

#[wasm_bindgen_test]
fn plan_mig_guide_5_3() {
    // Guide §5.3: a 13B debug job and two 7B services share one A100 80GB as
    // 3g.40gb + 2 × 2g.20gb.
    let jobs: JsMigJobs =
        obj(r#"[{"name":"debug","memory":"36GiB"},{"memory":"16GiB"},{"memory":"16GiB"}]"#)
            .unchecked_into();
    let r = ok(plan_mig("a100-sxm4-80gb", jobs, None));
    let cards: js_sys::Array = get(&r, "plan.cards").unchecked_into();
    assert_eq!(cards.length(), 1);
    let slices: js_sys::Array = get(&cards.get(0), "slices").unchecked_into();
    let mut names: Vec<String> = slices
        .iter()
        .map(|s| get(&s, "profile").as_string().expect("a profile"))
        .collect();
    names.sort();
    assert_eq!(names, ["2g.20gb", "2g.20gb", "3g.40gb"]);
    let first_job = js_sys::Array::from(&get(&r, "jobs")).get(0);
    assert_eq!(num(&first_job, "bytes"), 36.0 * (1u64 << 30) as f64);
    assert_eq!(
        get(&first_job, "name").as_string().as_deref(),
        Some("debug")
    );

    let m = err(plan_mig(
        "rtx-4090",
        obj(r#"[{"memory":"8GB"}]"#).unchecked_into(),
        None,
    ));
    assert!(m.starts_with("gpu: rtx-4090 does not support MIG"), "{m}");
    let m = err(plan_mig(
        "a100-sxm4-80gb",
        obj(r#"[{"name":"x"}]"#).unchecked_into(),
        None,
    ));
    assert!(m.starts_with("job: "), "{m}");
    let m = err(plan_mig(
        "a100-sxm4-80gb",
        obj(r#"[{"size":"8GB"}]"#).unchecked_into(),
        None,
    ));
    assert!(m.starts_with("jobs[0].size: unknown field"), "{m}");
    let m = err(plan_mig(
        "a100-sxm4-80gb",
        obj(r#""8GB""#).unchecked_into(),
        None,
    ));
    assert!(m.starts_with("jobs: not an array"), "{m}");
}

#[wasm_bindgen_test]
fn diagnose_a_capacity_oom() {
    // 20 MiB asked with 4.25 MiB free on a full 79 GiB card: capacity.
    let d = ok(diagnose(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB of which 4.25 MiB is free. Of the allocated memory 78.23 GiB is allocated by PyTorch, and 405.52 MiB is reserved by PyTorch but unallocated.",
    ));
    assert_eq!(get(&d, "kind").as_string().as_deref(), Some("capacity"));
    let d = ok(diagnose("hello"));
    assert_eq!(get(&d, "kind").as_string().as_deref(), Some("unknown"));
}

#[wasm_bindgen_test]
fn config_json_then_estimate() {
    let c = ok(parse_config(
        r#"{"model_type":"llama","vocab_size":128256,"hidden_size":4096,"num_hidden_layers":32,
            "num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"torch_dtype":"bfloat16"}"#,
    ));
    assert_eq!(num(&c, "arch.num_layers"), 32.0);
    // The parsed architecture goes back in as `arch`: Llama-3.1-8B's 8,030,261,248 parameters.
    let i = js_sys::Object::new();
    js_sys::Reflect::set(&i, &"arch".into(), &get(&c, "arch")).unwrap();
    let e = ok(estimate(i.unchecked_into()));
    assert_eq!(num(&e, "params"), 8_030_261_248.0);
    assert!(!err(parse_config("{")).is_empty());
}

#[wasm_bindgen_test]
fn headers_from_their_bytes() {
    // A safetensors file: 8-byte little-endian header length, then the JSON header.
    let json = br#"{"w":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]}}"#;
    let mut file = (json.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(json);
    let n = safetensors_header_length(&file[..8])
        .map_err(|_| ())
        .unwrap();
    assert_eq!(n, json.len() as f64);
    let h = ok(parse_safetensors_header(&file));
    assert_eq!(num(&h, "total_params"), 6.0);
    assert_eq!(num(&h, "total_bytes"), 12.0);
    assert!(err(safetensors_header_length(&[1, 2])).contains("; accepted: "));
    let m = err(parse_gguf_header(b"GGUF"));
    assert!(m.starts_with("gguf"), "{m}");
}

#[wasm_bindgen_test]
fn catalogs_and_version() {
    let g: js_sys::Array = ok(gpus()).unchecked_into();
    let h100 = g
        .iter()
        .find(|x| get(x, "id").as_string().as_deref() == Some("h100-sxm5-80gb"))
        .expect("the H100 in the catalog");
    // torch prints total_memory = 81090 MB (MiB) on the "80 GB" H100: 79.19 GiB.
    assert_eq!(num(&h100, "memory_bytes"), (81_090u64 << 20) as f64);
    let m: js_sys::Array = ok(models()).unchecked_into();
    assert!(m.length() >= 40);
    let found: js_sys::Array = ok(search_models("llama-3.1-8b")).unchecked_into();
    assert_eq!(
        get(&found.get(0), "id").as_string().as_deref(),
        Some("meta-llama/Llama-3.1-8B")
    );
    let o: js_sys::Array = ok(offers()).unchecked_into();
    assert!(o.length() > 0);
    let p: js_sys::Array = ok(platforms()).unchecked_into();
    assert!(p.length() > 0);
    assert_eq!(version(), env!("CARGO_PKG_VERSION"));
}
