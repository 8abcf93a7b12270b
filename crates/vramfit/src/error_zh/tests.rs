//! Every error in Chinese: produced by the readers, planners and the form, checked for English prose.

use super::{FILES, translate};
use crate::estimate::{EstimateInput, estimate};
use crate::units::Bytes;
use crate::{ErrorKind, InputError};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use alloc::{format, vec};

/// An estimate input from JSON over a base of Llama-3.1-8B (`{}`: no model at all).
fn input(json: &str) -> EstimateInput {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

/// Every kind of error the estimator's input can produce (what the calculator shows).
fn form_errors() -> Vec<InputError> {
    let m = r#""model":"meta-llama/Llama-3.1-8B""#;
    let jsons = [
        "{}".to_string(),
        format!(r#"{{{m},"params":"7B"}}"#),
        r#"{"model":"no-such-model"}"#.to_string(),
        r#"{"model":"llama"}"#.to_string(),
        r#"{"model":"qwen"}"#.to_string(),
        r#"{"params":"abc"}"#.to_string(),
        r#"{"params":"-5"}"#.to_string(),
        r#"{"params":"1e20"}"#.to_string(),
        format!(r#"{{{m},"batch":0}}"#),
        format!(r#"{{{m},"batch":1.5}}"#),
        format!(r#"{{{m},"dtype":"int8"}}"#),
        format!(r#"{{{m},"kv_dtype":"fp8"}}"#),
        format!(r#"{{{m},"kv_dtype":"q8_0","mode":"serve","engine":"vllm"}}"#),
        format!(r#"{{{m},"kv_dtype":"fp8","engine":"llamacpp"}}"#),
        format!(r#"{{{m},"quantization":{{"format":"gptq","bits":4,"group_size":128}},"engine":"llamacpp"}}"#),
        format!(r#"{{{m},"quantization":{{"format":"hqq","bits":7,"group_size":64}}}}"#),
        format!(r#"{{{m},"quantization":{{"format":"hqq","bits":4,"group_size":60}}}}"#),
        format!(r#"{{{m},"tp":3,"gpus":3}}"#),
        format!(r#"{{{m},"tp":2,"gpus":1}}"#),
        r#"{"model":"mistralai/Mistral-7B-v0.1","tp":3,"gpus":3}"#.to_string(),
        r#"{"model":"openai-community/gpt2","tp":5,"gpus":5}"#.to_string(),
        format!(r#"{{{m},"mode":"training","lora_targets":["qq"]}}"#),
        format!(r#"{{{m},"mode":"training","qlora":true}}"#),
        format!(r#"{{{m},"mode":"training","offload":"cpu"}}"#),
        format!(r#"{{{m},"gpus":3,"tp":2}}"#),
        format!(r#"{{{m},"pp":40,"gpus":40}}"#),
        format!(r#"{{{m},"gpu":"h100-sxm5-80gb","gpu_memory":"80GB"}}"#),
        format!(r#"{{{m},"gpu":"no-such-gpu"}}"#),
        format!(r#"{{{m},"gpu":"a100"}}"#),
        format!(r#"{{{m},"gpu_memory":"80"}}"#),
        format!(r#"{{{m},"gpu_memory":"abcGB"}}"#),
        format!(r#"{{{m},"gpu_memory":"-5GB"}}"#),
        format!(r#"{{{m},"gpu_memory":"2000TB"}}"#),
        format!(r#"{{{m},"gpu_memory":"80XB"}}"#),
        format!(r#"{{{m},"gpu_memory":"100MiB"}}"#),
        format!(r#"{{{m},"gpu_memory_utilization":1.5}}"#),
        format!(r#"{{{m},"gpu_memory_utilization":0.001}}"#),
        format!(r#"{{{m},"engine":"llamacpp","tp":2,"gpus":2}}"#),
        format!(r#"{{{m},"mode":"training","qlora":true,"lora_rank":8,"quantization":{{"format":"gptq","bits":4,"group_size":128}}}}"#),
        format!(r#"{{{m},"mode":"training","zero":2,"offload":"nvme"}}"#),
        r#"{"model":"meta-llama/Llama-3.1-405B","batch":1048576,"seq_len":16777216,"mode":"training","attention":"eager"}"#.to_string(),
    ];
    let mut out: Vec<InputError> = Vec::new();
    for j in &jsons {
        let e = estimate(&input(j)).err();
        assert!(e.is_some(), "{j} is estimated");
        out.extend(e);
    }
    let mut nan = input(&format!("{{{m}}}"));
    nan.run.seq_len = f64::NAN;
    out.extend(estimate(&nan).err());
    use crate::precision::{Dtype, KvDtype, Quantization};
    out.extend(Dtype::parse("dtype", "fp64").err());
    out.extend(KvDtype::parse("kv_dtype", "fp4").err());
    for q in ["foo", "gguf-q9_k"] {
        out.extend(Quantization::parse("quantization", q).err());
    }
    out.extend(crate::units::parse_params("params", "1.5").err());
    out.extend(crate::units::parse_size("gpu_memory", "GB").err());
    out.extend(crate::hardware::lookup_gpu("gpu", "no-such-card").err());
    out.extend(
        {
            let mut input = input(r#"{"model":"meta-llama/Llama-3.1-8B"}"#);
            input.hardware.gpu = Some("mine".into());
            input
        }
        .resolve_with(&crate::catalog::find_model, &|_| None)
        .err(),
    );
    out.extend(crate::estimate::lora_mask("lora_targets", &["qq".into()]).err());
    out
}

/// Every kind of error the file readers, catalogs and planners produce.
fn file_errors() -> Vec<InputError> {
    let mut out = Vec::new();
    // A custom architecture: KV heads that do not divide the heads; an opaque family with more.
    let mut arch = crate::presets::find("meta-llama/Llama-3.1-8B")
        .unwrap()
        .arch;
    arch.num_kv_heads = 5;
    out.extend(arch.validate("arch").err());
    let mut opaque = crate::model::Architecture::opaque(7_000_000_000);
    opaque.hidden_size = 4096;
    out.extend(opaque.validate("arch").err());
    use crate::precision::Quantization;
    for q in [
        Quantization::Gptq {
            bits: 5,
            group_size: 128,
        },
        Quantization::Gptq {
            bits: 4,
            group_size: 7,
        },
    ] {
        out.extend(q.validate("quantization").err());
    }
    out.extend(crate::hardware::Currency::parse("currency", "EUR").err());
    out.push(InputError::new(
        ErrorKind::Missing,
        "config.json",
        "no config.json loaded",
        "a Hugging Face config.json, dropped or chosen",
    ));
    let configs: Vec<String> = vec![
        " ".repeat(5 << 20),
        "not json".into(),
        "[]".into(),
        "{}".into(),
        r#"{"model_type":"foo"}"#.into(),
        r#"{"model_type":"llava"}"#.into(),
        format!("{}1{}", "[".repeat(200), "]".repeat(200)),
        format!(r#"{{"model_type":"llama","a":{}1{}}}"#, r#"{"b":"#.repeat(40), "}".repeat(40)),
        r#"{"model_type":"llama"}"#.into(),
        r#"{"model_type":"llama","hidden_size":"x"}"#.into(),
        r#"{"model_type":"llama","hidden_size":-4}"#.into(),
        r#"{"model_type":"llama","hidden_size":4001,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"tie_word_embeddings":"yes"}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"bitsandbytes"}}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"foo"}}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"awq","bits":8}}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"gptq","bits":4,"group_size":3}}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors"}}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{}}}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{}}}}"#.into(),
        r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":2,"type":"int"}}}}}"#.into(),
        r#"{"model_type":"mixtral","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10}"#.into(),
        r#"{"model_type":"deepseek_v3","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10}"#.into(),
        r#"{"model_type":"gpt2"}"#.into(),
        r#"{"model_type":"whisper"}"#.into(),
        r#"{"model_type":"resnet","hidden_sizes":[64,128],"depths":[1],"layer_type":"x"}"#.into(),
        r#"{"model_type":"resnet","hidden_sizes":[64,128],"depths":[1,1],"layer_type":"x"}"#.into(),
        r#"{"model_type":"resnet","hidden_sizes":"x"}"#.into(),
        r#"{"model_type":"resnet","hidden_sizes":[-1]}"#.into(),
        format!(r#"{{"model_type":"resnet","hidden_sizes":[{}1]}}"#, "1,".repeat(2000)),
    ];
    for c in &configs {
        let e = crate::config::parse_config(c).err();
        assert!(e.is_some(), "{} is read", &c[..c.len().min(200)]);
        out.extend(e);
    }
    use crate::headers::{
        parse_gguf_header, parse_safetensors_header, parse_safetensors_shards,
        safetensors_header_len,
    };
    out.extend(safetensors_header_len(b"abc").err());
    out.extend(safetensors_header_len(&[0; 8]).err());
    out.extend(safetensors_header_len(&u64::MAX.to_le_bytes()).err());
    out.extend(parse_safetensors_shards(&[]).err());
    let mut st = 100u64.to_le_bytes().to_vec();
    st.extend(b"{}");
    out.extend(parse_safetensors_header(&st).err());
    let mut st = 4u64.to_le_bytes().to_vec();
    st.extend(b"[1] ");
    out.extend(parse_safetensors_header(&st).err());
    let mut st = 2u64.to_le_bytes().to_vec();
    st.extend([0xff, 0xfe]);
    out.extend(parse_safetensors_header(&st).err());
    out.extend(parse_gguf_header(b"NOPE").err());
    let gguf = |version: u32, tensors: u64, kvs: u64, rest: &[u8]| {
        let mut b = b"GGUF".to_vec();
        b.extend(version.to_le_bytes());
        b.extend(tensors.to_le_bytes());
        b.extend(kvs.to_le_bytes());
        b.extend(rest);
        parse_gguf_header(&b).err()
    };
    out.extend(gguf(1, 0, 0, &[]));
    out.extend(gguf(3, 1 << 60, 0, &[]));
    out.extend(gguf(3, 0, 1 << 60, &[]));
    out.extend(gguf(3, 0, 1, &[]));
    // One key of a huge length, one of an unknown type, a nested array, a huge array.
    let key = |name: &str, ty: u32, value: &[u8]| {
        let mut b = (name.len() as u64).to_le_bytes().to_vec();
        b.extend(name.as_bytes());
        b.extend(ty.to_le_bytes());
        b.extend(value);
        b
    };
    out.extend(gguf(3, 0, 1, &(u64::MAX / 2).to_le_bytes()));
    out.extend(gguf(3, 0, 1, &key("a", 99, &[])));
    let mut nested = 9u32.to_le_bytes().to_vec();
    nested.extend(1u64.to_le_bytes());
    nested.extend(9u32.to_le_bytes());
    nested.extend(1u64.to_le_bytes());
    nested.extend(9u32.to_le_bytes());
    nested.extend(1u64.to_le_bytes());
    out.extend(gguf(3, 0, 1, &key("a", 9, &nested)));
    let mut huge = 0u32.to_le_bytes().to_vec();
    huge.extend((1u64 << 60).to_le_bytes());
    out.extend(gguf(3, 0, 1, &key("a", 9, &huge)));
    let mut tensor = (1u64).to_le_bytes().to_vec();
    tensor.extend(b"t");
    tensor.extend(9u32.to_le_bytes());
    out.extend(gguf(3, 1, 0, &tensor));
    let mut tensor = (1u64).to_le_bytes().to_vec();
    tensor.extend(b"t");
    tensor.extend(2u32.to_le_bytes());
    tensor.extend(u64::MAX.to_le_bytes());
    tensor.extend(u64::MAX.to_le_bytes());
    tensor.extend(0u32.to_le_bytes());
    tensor.extend(0u64.to_le_bytes());
    out.extend(gguf(3, 1, 0, &tensor));

    use crate::hardware::import::{offers_from_json, parse_price};
    let gpus = crate::hardware::gpus();
    let offer = r#"{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD"}"#;
    for text in [
        "x".repeat(3 << 20),
        "nope".into(),
        "{}".into(),
        "5".into(),
        "[]".into(),
        format!("[{offer},{offer}]"),
        "[5]".into(),
        r#"[{"id":"a"}]"#.into(),
        r#"[{"id":5}]"#.into(),
        r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"EUR"}]"#.into(),
        r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":-2,"currency":"USD"}]"#.into(),
        r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","notes":[5]}]"#.into(),
        r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","notes":5}]"#.into(),
        r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","market":5}]"#.into(),
        r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","market":"x"}]"#.into(),
        format!(r#"[{{"id":"{}"}}]"#, "a".repeat(200)),
    ] {
        out.extend(offers_from_json(&text, gpus).err());
    }
    out.extend(parse_price("price", "").err());
    out.extend(parse_price("price", "x").err());
    out.extend(parse_price("price", "-1").err());

    use crate::hardware::mig::{MigOptions, parse_job, plan_mig};
    let a100 = crate::hardware::find_gpu("a100-sxm4-80gb").unwrap();
    let h = crate::hardware::find_gpu("rtx-4090").unwrap();
    let gib = |n: u64| Bytes::new(n << 30);
    let o = MigOptions::default();
    out.extend(parse_job("job", 0, "0GiB").err());
    out.extend(parse_job("job", 0, "x=0GiB").err());
    out.extend(plan_mig(h, &[gib(1)], &[], &o).err());
    out.extend(plan_mig(a100, &[], &[], &o).err());
    out.extend(plan_mig(a100, &[Bytes::new(0)], &[], &o).err());
    out.extend(plan_mig(a100, &[gib(100)], &[], &o).err());
    out.extend(plan_mig(a100, &[gib(70); 9], &[], &o).err());
    let p = MigOptions {
        provider: Some("nope".into()),
        ..MigOptions::default()
    };
    out.extend(plan_mig(a100, &[gib(1)], &[], &p).err());
    let p = MigOptions {
        max_cards: 0,
        ..MigOptions::default()
    };
    out.extend(plan_mig(a100, &[gib(1)], &[], &p).err());
    let p = MigOptions {
        cny_per_usd: f64::NAN,
        ..MigOptions::default()
    };
    out.extend(plan_mig(a100, &[gib(1)], &[], &p).err());

    use crate::hardware::PlanOptions;
    out.extend(PlanOptions::from_request("CNY", None, false, 0.0, &[], 0.0).err());
    out.extend(PlanOptions::from_request("CNY", None, false, 8.0, &[], -1.0).err());
    out.extend(PlanOptions::from_request("CNY", None, false, 8.0, &["x".into()], 0.0).err());
    out.extend(PlanOptions::from_request("CNY", Some(-1.0), false, 8.0, &[], 0.0).err());

    use crate::hardware::spot::{SpotInput, compare};
    let ok = SpotInput {
        hours: 10.0,
        on_demand_price: 2.0,
        spot_price: 1.0,
        mtbi_hours: 10.0,
        checkpoint_every_hours: 1.0,
        restart_hours: 0.1,
    };
    for bad in [
        SpotInput { hours: 0.0, ..ok },
        SpotInput {
            on_demand_price: 0.0,
            ..ok
        },
        SpotInput {
            spot_price: -1.0,
            ..ok
        },
        SpotInput {
            mtbi_hours: 0.0,
            ..ok
        },
        SpotInput {
            checkpoint_every_hours: 0.0,
            ..ok
        },
        SpotInput {
            restart_hours: -1.0,
            ..ok
        },
        SpotInput {
            checkpoint_every_hours: 1000.0,
            mtbi_hours: 1.0,
            ..ok
        },
        SpotInput {
            hours: 100000.0,
            checkpoint_every_hours: 60.0,
            mtbi_hours: 6.0,
            ..ok
        },
    ] {
        out.extend(compare(&bad).err());
    }
    use crate::hardware::matrix::Weights;
    for w in ["memory", "memory=x", "speed=3", "memory=0"] {
        out.extend(Weights::parse("weights", w).err());
    }
    // The site's own (web/src).
    for (p, a) in [
        (
            "not readable (expected value)",
            "an object of offer id → price per hour",
        ),
        ("every weight is 0", "at least one weight above 0"),
        ("empty", "a number"),
        (
            "the model in the link cannot be read: missing",
            "a link written by vramfit after reading a .safetensors or .gguf file",
        ),
        (
            "the header needs 9 bytes but the file has 4",
            "a complete .gguf file",
        ),
        (
            "the header is longer than 67108864 bytes (67108865)",
            "a GGUF header of at most 67108864 bytes",
        ),
        (
            "the header claims 9 bytes but the file has 4",
            "a complete .safetensors file (8 bytes of length, then that much JSON)",
        ),
        (
            "the browser could not read the file",
            "a file the page may read",
        ),
        (
            "the browser could not slice the file",
            "a file the page may read",
        ),
        (
            "the file has 5000000 bytes",
            "a config.json of at most 4194304 bytes, or a .safetensors or .gguf file",
        ),
        (
            "the file is empty",
            "a Hugging Face config.json (a JSON object with model_type, hidden_size, …)",
        ),
    ] {
        out.push(InputError::new(ErrorKind::Header, "file", p, a));
    }
    out
}

/// Whitespace-separated words of Latin letters only (prose), outside backticks; names,
/// identifiers and numbers (with a digit, `_`, `-`, `.`, `/`, `=` or `<`) are not prose.
fn english(zh: &str) -> Vec<String> {
    const KEEP: &[&str] = &[
        "Llama",
        "GPU",
        "GPUs",
        "KV",
        "GGUF",
        "JSON",
        "MIG",
        "LoRA",
        "QLoRA",
        "ZeRO",
        "DeepSpeed",
        "vLLM",
        "Hugging",
        "Face",
        "transformers",
        "CNY",
        "USD",
        "PiB",
        "TiB",
        "GiB",
        "MiB",
        "KiB",
        "B",
        "KB",
        "MB",
        "GB",
        "TB",
        "GPTQ",
        "AWQ",
        "FP8",
        "W8A8",
        "W4A16",
        "F16",
        "BF16",
        "UTF",
        "ResNet",
        "Transformer",
        "FFN",
        "tp",
        "pp",
        "eager",
        "sdpa",
        "flash",
        "attention",
        "none",
        "true",
        "false",
        "null",
        "job",
        "config",
        "json",
        "family",
        "opaque",
        "type",
        "criterion",
        "weight",
        "bottleneck",
        "basic",
        "model",
        "params",
        "arch",
        "gpus",
        "NVMe",
        "cpu",
        "nvme",
        "RMB",
        "bitsandbytes",
        "safetensors",
        "vramfit",
        "spot",
        "provider",
        "count",
        "currency",
        "market",
        "vgpu",
        "regions",
        "source",
        "date",
        "auto",
        "gptq",
        "awq",
        "hqq",
        "HQQ",
        "logits",
        "activations",
        "weights",
        "gpu",
        "qlora",
        "zero",
        "id",
        "name",
        "dtype",
        "shape",
        "h",
        "x",
        "e",
        // serde_json's own messages (after "不是有效的 JSON：" and in parentheses).
        "expected",
        "value",
        "at",
        "line",
        "column",
        "EOF",
        "while",
        "parsing",
        "a",
        "an",
        "ident",
        "trailing",
        "characters",
        "invalid",
        "number",
        "string",
        "object",
        "key",
        "must",
        "be",
        "missing",
        "field",
    ];
    // What serde_json and the standard library say comes after these, in English.
    let zh = [
        "JSON：",
        "文本：",
        "无法读取 (",
        "不是 JSON (",
        "无法读取：",
    ]
    .iter()
    .filter_map(|p| zh.find(p).map(|i| &zh[..i + p.len()]))
    .next()
    .unwrap_or(zh);
    let names: Vec<&str> = crate::hardware::platforms()
        .iter()
        .map(|p| p.id)
        .chain(crate::config::SUPPORTED_MODEL_TYPES.split([',', ' ', '(', ')']))
        .chain(crate::hardware::matrix::CRITERIA)
        .collect();
    let mut out = Vec::new();
    for (i, part) in zh.split('`').enumerate() {
        if i % 2 == 1 {
            continue;
        }
        for w in part.split(|c: char| c.is_whitespace() || !c.is_ascii()) {
            let w = w.trim_matches(|c: char| ",;:()[]{}\"'".contains(c));
            if w.is_empty()
                || !w.chars().all(|c| c.is_ascii_alphabetic())
                || KEEP.contains(&w)
                || names.contains(&w)
            {
                continue;
            }
            out.push(w.to_string());
        }
    }
    out
}

/// The runs of digits, in order.
fn numbers(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

fn check(errors: &[InputError], zh: impl Fn(&InputError) -> InputError) {
    let mut left = Vec::new();
    for e in errors {
        let z = zh(e);
        assert_eq!(z.field, e.field);
        for (en, zh) in [(&e.problem, &z.problem), (&e.accepted, &z.accepted)] {
            // Every number, in the same order (a phrase may add one: "2023 年 8 月"), and the
            // same quoted text.
            let mut zh_numbers = numbers(zh).into_iter();
            for n in numbers(en) {
                assert!(zh_numbers.any(|z| z == n), "{n} lost:\n{en}\n{zh}");
            }
            let quoted = |s: &str| {
                s.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(String::from)
                    .collect::<Vec<_>>()
            };
            assert_eq!(quoted(en), quoted(zh), "{en}\n{zh}");
            let words = english(zh);
            if !words.is_empty() {
                left.push(format!("{words:?} left in\n  {en}\n  {zh}"));
            }
        }
    }
    left.sort();
    left.dedup();
    assert!(left.is_empty(), "{}", left.join("\n"));
}

#[test]
fn every_error_of_the_form_is_written_in_chinese() {
    let errors = form_errors();
    assert!(errors.len() > 40, "{} errors", errors.len());
    for e in &errors {
        let zh =
            e.zh.as_ref()
                .unwrap_or_else(|| panic!("not written in Chinese: {e}"));
        // A build of Chinese alone holds this text in `problem` and `accepted`, and its
        // `zh()` runs them through the table: which must leave them as they are.
        assert_eq!(translate(&zh.0, FILES), zh.0);
        assert_eq!(translate(&zh.1, FILES), zh.1);
    }
    check(&errors, InputError::zh);
}

#[test]
fn every_error_of_the_readers_and_planners_reads_in_chinese() {
    let errors = file_errors();
    assert!(errors.len() > 70, "{} errors", errors.len());
    check(&errors, InputError::zh);
    check(&form_errors(), InputError::zh);
}

#[test]
fn chinese_errors_by_hand() {
    let e = estimate(&input(r#"{"model":"meta-llama/Llama-3.1-8B","batch":0}"#)).unwrap_err();
    assert_eq!(e.zh().problem, "0 超出范围");
    assert_eq!(e.zh().accepted, "整数，从 1 到 1048576");
    assert_eq!(e.problem, "0 is out of range");
    let e = crate::units::parse_size("gpu_memory", "80").unwrap_err();
    assert_eq!(e.zh().problem, "`80` 没有单位");
    // What a person typed stays as typed, even where it spells a phrase of the table.
    let e = InputError::new(ErrorKind::Malformed, "offers", "`a has b` has 2 cards", "x");
    assert_eq!(e.zh().problem, "`a has b` 有 2 张卡");
    let tp = estimate(&input(
        r#"{"model":"meta-llama/Llama-3.1-8B","tp":3,"gpus":3}"#,
    ))
    .unwrap_err();
    assert_eq!(
        tp.zh().problem,
        "tp = 3 不能均分模型的 32 个注意力头与 8 个 KV 头"
    );
    assert_eq!(tp.zh().accepted, "以下之一：1, 2, 4, 8, 16, 32");
    let kv = estimate(&input(
        r#"{"model":"meta-llama/Llama-3.1-8B","kv_dtype":"fp8"}"#,
    ))
    .unwrap_err();
    assert_eq!(
        kv.zh().problem,
        "fp8 不是这个引擎的 KV 缓存类型：Hugging Face transformers"
    );
    assert_eq!(
        kv.zh().accepted,
        "以下之一：auto, fp16, bf16（Hugging Face transformers）"
    );
    let gguf = crate::headers::parse_gguf_header(b"GGUF\x01\0\0\0").unwrap_err();
    assert_eq!(gguf.zh().problem, "GGUF 版本 1");
}

#[test]
fn phrases_are_longest_first_and_distinct() {
    for w in FILES.windows(2) {
        assert!(
            w[0].0.len() >= w[1].0.len(),
            "{:?} before {:?}",
            w[0].0,
            w[1].0
        );
    }
    for (i, (en, _)) in FILES.iter().enumerate() {
        assert!(FILES[..i].iter().all(|(e, _)| e != en), "{en} twice");
    }
    assert_eq!(translate("a`b`c", FILES), "a`b`c");
}
