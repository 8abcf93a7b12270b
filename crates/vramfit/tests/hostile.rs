//! Hostile input: numbers too big, negative or not numbers at all, JSON nested past reason,
//! headers that claim absurd sizes, and pastes of many megabytes. Each one ends in a clear
//! `InputError` that names its field, or an `unknown` diagnosis; none panics, and none
//! allocates what the input claims rather than what it holds.
//!
//! Time is not asserted here (benchmarks measure it); a quadratic path would show as a test
//! that never ends. Crashes found by the fuzz targets (`fuzz/`) become cases in this file.

use vramfit::InputError;
use vramfit::config::parse_config;
use vramfit::diagnose::{self, Kind, Parsed};
use vramfit::estimate::ModelInput;
use vramfit::estimate::{EstimateInput, estimate};
use vramfit::headers::{
    gguf_prefix_needed, parse_gguf_header, parse_safetensors_header, safetensors_header_len,
};

/// The error names `field` (exactly, or as its first segment: `config.json: hidden_size`),
/// and says what it accepts.
#[track_caller]
fn names(e: &InputError, field: &str) {
    assert!(
        e.field == field || e.field.starts_with(field),
        "expected an error on `{field}`, got `{e}`"
    );
    assert!(!e.problem.is_empty() && !e.accepted.is_empty(), "{e}");
}

#[track_caller]
fn refused(input: &EstimateInput, field: &str) {
    match estimate(input) {
        Ok(e) => panic!("accepted {input:?}: {:?}", e.total_bytes),
        Err(e) => names(&e, field),
    }
}

/// An estimate input from JSON, as the npm package and the CLI's `--json` receive it.
fn from_json(json: &str) -> Result<EstimateInput, serde_json::Error> {
    serde_json::from_str(json)
}

#[track_caller]
fn refused_json(json: &str, field: &str) {
    let input = from_json(json).unwrap_or_else(|e| panic!("{json}: {e}"));
    refused(&input, field);
}

fn llama() -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn numbers_out_of_range_name_their_field() {
    for (field, value) in [
        ("batch", "1e308"),
        ("batch", "-1"),
        ("batch", "0"),
        ("batch", "1.5"),
        ("batch", "18446744073709551616"),
        ("seq_len", "1e300"),
        ("seq_len", "-2048"),
        ("new_tokens", "-1"),
        ("new_tokens", "1e20"),
        ("lora_rank", "-8"),
        ("lora_rank", "1e18"),
        ("zero", "4"),
        ("zero", "-1"),
        ("gpus", "1e15"),
        ("gpus", "0"),
        ("tp", "0"),
        ("tp", "3.5"),
        ("pp", "-1"),
        ("gpu_memory_utilization", "1e308"),
        ("gpu_memory_utilization", "-0.5"),
        ("gpu_memory_utilization", "0"),
        ("max_model_len", "1e20"),
        ("max_model_len", "0"),
        ("max_num_seqs", "-5"),
        ("max_num_batched_tokens", "1e300"),
        ("gpu_layers", "-3"),
        ("ubatch", "0"),
        ("ubatch", "1e100"),
        ("mem_fraction_static", "0"),
        ("mem_fraction_static", "1"),
        ("mem_fraction_static", "1e308"),
        ("cuda_graph_max_bs", "0"),
        ("cuda_graph_max_bs", "1e9"),
        ("ep", "0"),
        ("ep", "2.5"),
        ("ep", "1e300"),
    ] {
        let json = format!(r#"{{"model": "meta-llama/Llama-3.1-8B", "{field}": {value}}}"#);
        refused_json(&json, field);
    }
}

#[test]
fn non_finite_numbers_from_rust_and_js_are_refused() {
    // JSON cannot carry NaN or infinity, but JavaScript (through the npm package) and Rust can.
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, -0.5] {
        refused(
            &{
                let mut input = llama();
                input.run.batch = v;
                input
            },
            "batch",
        );
        refused(
            &{
                let mut input = llama();
                input.run.seq_len = v;
                input
            },
            "seq_len",
        );
        refused(
            &{
                let mut input = llama();
                input.placement.gpus = Some(v);
                input
            },
            "gpus",
        );
        refused(
            &{
                let mut input = llama();
                input.serving.gpu_memory_utilization = v;
                input.run.mode = vramfit::estimate::Mode::Serve;
                input.run.engine = vramfit::estimate::Engine::Vllm;
                input
            },
            "gpu_memory_utilization",
        );
        refused(
            &{
                let mut input = llama();
                input.serving.max_model_len = Some(v);
                input
            },
            "max_model_len",
        );
        refused(
            &{
                let mut input = llama();
                input.serving.mem_fraction_static = Some(v);
                input.run.mode = vramfit::estimate::Mode::Serve;
                input.run.engine = vramfit::estimate::Engine::Sglang;
                input
            },
            "mem_fraction_static",
        );
        refused(
            &{
                let mut input = llama();
                input.serving.cuda_graph_max_bs = Some(v);
                input
            },
            "cuda_graph_max_bs",
        );
        refused(
            &{
                let mut input = llama();
                input.placement.ep = v;
                input
            },
            "ep",
        );
    }
}

#[test]
fn strings_that_are_not_numbers_are_refused() {
    for bad in [
        "NaN", "nan", "inf", "-inf", "Infinity", "1e309", "-7B", "0", "1e400B", "", " ", "7B7B",
        "0x10", "१२",
    ] {
        refused(
            &EstimateInput {
                model: ModelInput {
                    params: Some(bad.into()),
                    ..Default::default()
                },
                ..Default::default()
            },
            "params",
        );
    }
    for bad in [
        "NaN GB",
        "infGiB",
        "-80GB",
        "1e309GB",
        "80",
        "80 parsecs",
        "GiB",
        "18446744073709551616GiB",
    ] {
        refused(
            &{
                let mut input = llama();
                input.hardware.gpu_memory = Some(bad.into());
                input
            },
            "gpu_memory",
        );
    }
}

#[test]
fn json_numbers_beyond_f64_are_a_json_error_not_a_panic() {
    // `1e309` is not an f64: serde_json refuses it with a position, before the estimator sees it.
    for json in [
        r#"{"batch": 1e309}"#,
        r#"{"seq_len": -1e309}"#,
        r#"{"batch": "NaN"}"#,
        r#"{"batch": NaN}"#,
        r#"{"batch": Infinity}"#,
        r#"{"arch": {"hidden_size": -1}}"#,
        r#"{"arch": {"hidden_size": 1e309}}"#,
        r#"{"arch": {"hidden_size": 18446744073709551616}}"#,
        r#"{"no_such_field": 1}"#,
    ] {
        let e = from_json(json).expect_err(json);
        assert!(e.line() >= 1, "{json}: {e}");
    }
}

/// One edit of an architecture.
type Damage = fn(&mut vramfit::model::Architecture);

#[test]
fn absurd_architectures_are_refused_by_field() {
    let base = vramfit::presets::find("meta-llama/Llama-3.1-8B")
        .unwrap()
        .arch;
    let cases: [(&str, Damage); 6] = [
        ("hidden_size", |a| a.hidden_size = u64::MAX),
        ("num_layers", |a| a.num_layers = u64::MAX),
        ("vocab_size", |a| a.vocab_size = 1 << 62),
        ("num_heads", |a| a.num_heads = 0),
        ("intermediate_size", |a| a.intermediate_size = u64::MAX),
        ("head_dim", |a| a.head_dim = u64::MAX),
    ];
    for (field, damage) in cases {
        let mut a = base;
        damage(&mut a);
        let input = EstimateInput {
            model: ModelInput {
                arch: Some(a),
                ..Default::default()
            },
            ..Default::default()
        };
        match estimate(&input) {
            Err(e) => assert!(
                e.field.contains(field) || e.field.starts_with("arch"),
                "{field}: {e}"
            ),
            // Accepted only if every figure stays far below overflow.
            Ok(e) => assert!(
                e.total_bytes.get() < u64::MAX / 2,
                "{field}: {:?}",
                e.total_bytes
            ),
        }
    }
}

/// `[[[[…]]]]` and `{"a":{"a":…}}`, `depth` levels.
fn nested(depth: usize, object: bool) -> String {
    let (open, close) = if object { ("{\"a\":", "}") } else { ("[", "]") };
    let mut s = open.repeat(depth);
    s.push('1');
    s.push_str(&close.repeat(depth));
    s
}

#[test]
fn deeply_nested_json_is_refused_without_recursing() {
    for depth in [200, 100_000, 1_000_000] {
        for object in [false, true] {
            let inner = nested(depth, object);
            let e = parse_config(&inner).unwrap_err();
            names(&e, "config.json");
            let e = parse_config(&format!(r#"{{"hidden_size": 4096, "x": {inner}}}"#)).unwrap_err();
            names(&e, "config.json");
            // EstimateInput: serde_json's recursion limit (128) refuses it with a JSON error…
            assert!(from_json(&inner).is_err());
            // …except under `arch`, whose unknown keys are skipped (serde_json skips them
            // without recursing): then the empty architecture is refused by the estimator.
            match from_json(&format!(r#"{{"arch": {inner}}}"#)) {
                Err(_) => {}
                Ok(input) => {
                    let e = estimate(&input).expect_err("an empty architecture");
                    assert!(!e.field.is_empty(), "{e}");
                }
            }
            // A safetensors header holding it.
            let mut b = (inner.len() as u64).to_le_bytes().to_vec();
            b.extend_from_slice(inner.as_bytes());
            names(&parse_safetensors_header(&b).unwrap_err(), "safetensors");
        }
    }
}

#[test]
fn config_numbers_out_of_range() {
    for value in [
        "1e309",
        "-4096",
        "1e300",
        "18446744073709551616",
        "\"NaN\"",
        "\"inf\"",
        "4096.5",
        "null",
        "[]",
    ] {
        let json = format!(
            r#"{{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": {value},
                "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                "intermediate_size": 14336, "vocab_size": 128256}}"#
        );
        match parse_config(&json) {
            Err(e) => names(&e, "config.json"),
            Ok(c) => panic!("hidden_size {value} accepted: {:?}", c.arch.hidden_size),
        }
    }
}

#[test]
fn config_larger_than_its_limit() {
    let mut json = String::from(r#"{"hidden_size": 4096, "pad": ""#);
    json.push_str(&"x".repeat(10 << 20));
    json.push_str("\"}");
    names(&parse_config(&json).unwrap_err(), "config.json");
}

fn gguf_prefix(version: u32, tensors: u64, kvs: u64) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&version.to_le_bytes());
    b.extend_from_slice(&tensors.to_le_bytes());
    b.extend_from_slice(&kvs.to_le_bytes());
    b
}

#[test]
fn gguf_header_claiming_2_pow_60_tensors() {
    for (tensors, kvs) in [(1u64 << 60, 0u64), (0, 1 << 60), (u64::MAX, u64::MAX)] {
        let b = gguf_prefix(3, tensors, kvs);
        let e = parse_gguf_header(&b).unwrap_err();
        names(&e, "gguf");
        // Asking for more bytes is fine only if the request is bounded.
        if let Some(n) = gguf_prefix_needed(&e) {
            assert!(n <= 1 << 32, "asks for {n} bytes: {e}");
        }
        // With a megabyte of zeros after it, still an error, not a 2^60-element allocation.
        let mut long = b.clone();
        long.resize(1 << 20, 0);
        names(&parse_gguf_header(&long).unwrap_err(), "gguf");
    }
}

#[test]
fn gguf_strings_and_arrays_claiming_2_pow_63_bytes() {
    // One key whose length is 2^63, then one array value of 2^60 strings.
    let mut b = gguf_prefix(3, 0, 1);
    b.extend_from_slice(&(1u64 << 63).to_le_bytes());
    b.extend_from_slice(b"general.architecture");
    names(&parse_gguf_header(&b).unwrap_err(), "gguf");

    let mut b = gguf_prefix(3, 0, 1);
    let key = b"tokenizer.ggml.tokens";
    b.extend_from_slice(&(key.len() as u64).to_le_bytes());
    b.extend_from_slice(key);
    b.extend_from_slice(&9u32.to_le_bytes()); // array
    b.extend_from_slice(&8u32.to_le_bytes()); // of strings
    b.extend_from_slice(&(1u64 << 60).to_le_bytes());
    b.resize(1 << 16, 0);
    names(&parse_gguf_header(&b).unwrap_err(), "gguf");
}

#[test]
fn safetensors_header_length_of_2_pow_63() {
    for n in [1u64 << 63, u64::MAX, (1 << 63) - 1, 1 << 40] {
        let le = n.to_le_bytes();
        names(&safetensors_header_len(&le).unwrap_err(), "safetensors");
        let mut b = le.to_vec();
        b.extend_from_slice(br#"{"__metadata__":{}}"#);
        names(&parse_safetensors_header(&b).unwrap_err(), "safetensors");
    }
}

#[test]
fn safetensors_tensor_shapes_that_overflow() {
    for shape in [
        "[18446744073709551615, 18446744073709551615]",
        "[4294967296, 4294967296, 4294967296]",
        "[-1, 4]",
        "[1e309]",
        "[1.5]",
    ] {
        let json = format!(
            r#"{{"model.embed_tokens.weight":{{"dtype":"BF16","shape":{shape},"data_offsets":[0,64]}}}}"#
        );
        let mut b = (json.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(json.as_bytes());
        match parse_safetensors_header(&b) {
            Err(e) => names(&e, "safetensors"),
            // Accepted only with a count that did not wrap.
            Ok(h) => assert!(
                h.total_params >= 1 << 32,
                "{shape}: {} params",
                h.total_params
            ),
        }
    }
}

#[track_caller]
fn unknown_or_read(text: &str) {
    let d = diagnose::diagnose(text);
    for e in &d.evidence {
        assert!(e.value.is_none_or(|v| v.is_finite() && v >= 0.0), "{e:?}");
    }
    if d.kind == Kind::Unknown {
        assert!(d.what_to_paste_instead.is_some());
    }
}

#[test]
fn ten_megabyte_pastes() {
    const TEN_MB: usize = 10 << 20;
    // Noise without a newline.
    let noise = "x".repeat(TEN_MB);
    let d = diagnose::diagnose(&noise);
    assert_eq!(d.kind, Kind::Unknown);
    unknown_or_read(&noise);

    // Lines of digits and units that look almost like numbers.
    let digits = "9".repeat(400) + " MiB 1e309 GiB NaN GiB -5 MiB inf bytes\n";
    let text = digits.repeat(TEN_MB / digits.len());
    unknown_or_read(&text);

    // A real OOM message at the end of ten megabytes of training log: found.
    let mut log = "step 1000 loss 2.31 lr 3e-4\n".repeat(TEN_MB / 28);
    log.push_str(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total \
         capacity of 79.19 GiB of which 1.50 GiB is free. Including non-PyTorch memory, this \
         process has 77.68 GiB memory in use. Of the allocated memory 75.20 GiB is allocated by \
         PyTorch, and 1.98 GiB is reserved by PyTorch but unallocated.\n",
    );
    let d = diagnose::diagnose(&log);
    assert_ne!(d.kind, Kind::Unknown, "{:?}", d.explanation);

    // Ten megabytes of nvidia-smi CSV: read (the last part), with finite trends.
    let mut smi = String::from("timestamp, index, name, memory.used [MiB], memory.total [MiB]\n");
    let mut t = 0u64;
    while smi.len() < TEN_MB {
        smi.push_str(&format!(
            "2026/11/30 05:{:02}:{:02}.100, 0, NVIDIA H100 80GB HBM3, {} MiB, 81559 MiB\n",
            t / 60 % 60,
            t % 60,
            2048 + t % 70_000
        ));
        t += 1;
    }
    let d = diagnose::diagnose(&smi);
    assert!(matches!(d.parsed, Parsed::NvidiaSmi(_)), "{:?}", d.input);
    unknown_or_read(&smi);

    // Memory-summary tables repeated, with absurd sizes in them.
    let row = "|       from large pool |  99999999999 PiB |  1e309 GiB | -5 MiB | NaN GiB |\n";
    unknown_or_read(&row.repeat(TEN_MB / row.len()));
}

#[test]
fn absurd_numbers_in_oom_messages() {
    for size in [
        "1e309 GiB",
        "NaN GiB",
        "inf GiB",
        "-2.00 GiB",
        "99999999999999999999999999 GiB",
        "18446744073709551616 bytes",
        "0.00 GiB",
    ] {
        let text = format!(
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {size}. GPU 0 has a \
             total capacity of {size} of which {size} is free. Of the allocated memory {size} is \
             allocated by PyTorch, and {size} is reserved by PyTorch but unallocated."
        );
        unknown_or_read(&text);
        unknown_or_read(&format!(
            "RESOURCE_EXHAUSTED: Out of memory while trying to allocate {size}."
        ));
    }
}

/// Found by `fuzz/estimate_input` (2026-11-30): eager attention over 15.6 million tokens for a
/// batch of 47 makes the transient tensors sum past `u64`. The sums saturate: an estimate far
/// beyond any card, never an overflow.
#[test]
fn components_that_sum_past_u64_saturate_and_are_refused() {
    let input = from_json(
        r#"{"model": "Qwen/Qwen1.5-MoE-A2.7B", "mode": "training", "engine": "hf", "batch": 47,
            "seq_len": 15597682, "new_tokens": 0, "quantization": {"format": "fp8"},
            "attention": "eager", "logits": "all", "optimizer": "adamw-8bit", "precision": "fp32",
            "zero": 3, "offload": "cpu", "gpus": 1, "tp": 1, "pp": 1, "gpu_memory": "79.19GiB",
            "gpu_memory_utilization": 1, "max_num_seqs": 1, "ubatch": 1}"#,
    )
    .unwrap();
    // 47 × 15,597,682 tokens of eager attention: past any card. The sums saturate instead of
    // overflowing (`Workload::estimate`), and `estimate` refuses the result, naming the fields.
    let total = input.resolve().unwrap().estimate().total_bytes.get();
    assert!(total > 1 << 60, "{total}");
    let e = estimate(&input).unwrap_err();
    assert_eq!(e.field, "batch × seq_len");
    assert!(e.problem.contains("8 PiB"), "{}", e.problem);
    assert!(e.accepted.contains("seq_len²"), "{}", e.accepted);
}

/// The 8 PiB bound (`MAX_TOTAL`, 2^53 B: JavaScript numbers hold every size below it exactly),
/// by hand. Eager attention in inference holds one layer's scores, per sequence and query–key
/// pair `heads × (2 B bf16 scores + 4 B fp32 softmax)`: 32 × 6 = 192 B for Llama-3.1-8B. Over
/// 2^22 tokens that is 2^44 × 192 = 3 × 2^50 B (3 PiB) for one sequence, an answer (its
/// recommended memory, 1.2 × the peak, stays under 8 PiB); three sequences hold 9 PiB by the
/// scores alone, which is refused.
#[test]
fn sizes_from_8_pib_are_refused() {
    let run = |batch: u32| {
        from_json(&format!(
            r#"{{"model": "meta-llama/Llama-3.1-8B", "mode": "inference", "engine": "hf",
                "attention": "eager", "batch": {batch}, "seq_len": 4194304, "new_tokens": 0}}"#
        ))
        .unwrap()
    };
    let e = estimate(&run(1)).unwrap();
    let scores = e
        .components
        .iter()
        .find(|c| c.key == vramfit::estimate::ComponentKind::Activations)
        .unwrap();
    assert!(scores.bytes.get() >= 3 << 50, "{}", scores.bytes.get());
    assert!(
        e.recommended_bytes.get() < 1 << 53,
        "{}",
        e.recommended_bytes.get()
    );
    let err = estimate(&run(3)).unwrap_err();
    assert_eq!(err.field, "batch × seq_len");
    assert!(err.problem.contains("activations"), "{}", err.problem);
}

/// Found by `fuzz/estimate_input` (2026-11-30): an opaque architecture (known by its parameter
/// count) with 8.3 × 10^18 layers, served by vLLM with CUDA graphs, whose graph pool (0.26 GiB
/// per layer) overflowed the sum outside the utilisation budget; then one with a 1.8 × 10^19
/// FFN width in Hugging Face inference. An opaque model now takes no other architecture field;
/// one with its parameter count alone still estimates.
#[test]
fn an_opaque_model_with_absurd_layers_is_refused() {
    refused_json(
        r#"{"arch": {"family": "opaque", "num_layers": 8313490381054766703,
            "opaque_params": 7225885}, "mode": "serve", "engine": "vllm", "batch": 61,
            "seq_len": 2, "new_tokens": 58, "quantization": {"format": "mxfp4"},
            "kv_dtype": "bf16", "gpu": "a10g", "gpu_memory_utilization": 1, "cuda_graphs": true}"#,
        "model.num_layers",
    );
    refused_json(
        r#"{"arch": {"family": "opaque", "intermediate_size": 18430071924494222532,
            "opaque_params": 7225885}, "mode": "inference", "engine": "hf", "batch": 4}"#,
        "model.intermediate_size",
    );
    let fine = from_json(r#"{"arch": {"family": "opaque", "opaque_params": 7000000000}}"#);
    let e = estimate(&fine.unwrap()).unwrap();
    // The guide's rule for 7e9 parameters in bf16: 7e9 × 2 B.
    assert_eq!(e.weights_bytes.get(), 14_000_000_000);
}

/// A convolutional network's per-image counts come together and within range: counts without the
/// image they are for, or 10¹³ elements per image, are refused with the field; the largest counts
/// at the largest batch saturate and are refused as past 8 PiB, not wrapped.
#[test]
fn image_counts_are_checked() {
    refused_json(
        r#"{"arch": {"family": "opaque", "opaque_params": 25557032,
            "image_activations": 21075968, "image_working": 2960384}, "mode": "training"}"#,
        "model.image_size",
    );
    refused_json(
        r#"{"arch": {"family": "opaque", "opaque_params": 25557032, "image_size": 224,
            "image_activations": 10000000000000, "image_working": 1}, "mode": "training"}"#,
        "model.image_activations",
    );
    let big = from_json(
        r#"{"arch": {"family": "opaque", "opaque_params": 25557032, "image_size": 65536,
            "image_activations": 1000000000000, "image_indices": 1000000000000,
            "image_working": 1000000000000}, "mode": "training", "batch": 1048576,
            "precision": "fp32"}"#,
    );
    // 1,048,576 × (10¹² × 4 B + 10¹² × 8 B) = 1.26 × 10¹⁹ B, past u64: saturated, then refused
    // as past the 8 PiB any estimate may reach.
    let e = estimate(&big.unwrap()).unwrap_err();
    assert!(
        e.problem.contains("8 PiB") && e.problem.contains("activations"),
        "{e:?}"
    );
}
