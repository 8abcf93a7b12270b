//! Real `config.json` files (tests/corpus/configs, copied from the Hugging Face repos named in
//! tests/corpus/configs/README.md) give exactly the architecture of the matching preset.

use vramfit::config::{ParsedConfig, parse_config};
use vramfit::precision::{Dtype, Quantization};
use vramfit::presets::find;

fn load(file: &str) -> ParsedConfig {
    let path = format!("{}/tests/corpus/configs/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_config(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// `file` parses to the architecture of preset `id`, with this dtype and quantization.
fn check(file: &str, id: &str, dtype: Option<Dtype>, quant: Option<Quantization>) {
    let cfg = load(file);
    let preset = find(id).unwrap_or_else(|| panic!("no preset {id}"));
    assert_eq!(cfg.arch, preset.arch, "{file} vs preset {id}");
    assert_eq!(cfg.arch.params(), preset.params, "{file}");
    assert_eq!(cfg.dtype, dtype, "{file}: dtype");
    assert_eq!(cfg.quantization, quant, "{file}: quantization");
}

/// GPT-2's, BERT's and ViT's config.json name no `torch_dtype`: they are read as fp32, the dtype
/// of their F32 checkpoints (their presets say fp32 from the repos' safetensors); gpt-oss's,
/// quantized, keeps the 16-bit default.
#[test]
fn every_model_type_matches_its_preset() {
    use Dtype::*;
    let cases: &[(&str, &str, Option<Dtype>)] = &[
        ("llama-2-7b-hf.json", "meta-llama/Llama-2-7b-hf", Some(Fp16)),
        ("llama-3.1-8b.json", "meta-llama/Llama-3.1-8B", Some(Bf16)),
        ("llama-3.2-1b.json", "meta-llama/Llama-3.2-1B", Some(Bf16)),
        (
            "mistral-7b-v0.1.json",
            "mistralai/Mistral-7B-v0.1",
            Some(Bf16),
        ),
        (
            "mixtral-8x7b-instruct-v0.1.json",
            "mistralai/Mixtral-8x7B-Instruct-v0.1",
            Some(Bf16),
        ),
        (
            "qwen2.5-0.5b-instruct.json",
            "Qwen/Qwen2.5-0.5B-Instruct",
            Some(Bf16),
        ),
        (
            "qwen2.5-7b-instruct.json",
            "Qwen/Qwen2.5-7B-Instruct",
            Some(Bf16),
        ),
        (
            "qwen1.5-moe-a2.7b.json",
            "Qwen/Qwen1.5-MoE-A2.7B",
            Some(Bf16),
        ),
        ("qwen3-8b.json", "Qwen/Qwen3-8B", Some(Bf16)),
        ("qwen3-30b-a3b.json", "Qwen/Qwen3-30B-A3B", Some(Bf16)),
        ("gemma-7b.json", "google/gemma-7b", Some(Bf16)),
        ("gemma-2-2b-it.json", "google/gemma-2-2b-it", Some(Fp32)),
        ("gemma-2-9b-it.json", "google/gemma-2-9b-it", Some(Fp32)),
        ("gemma-3-4b-it.json", "google/gemma-3-4b-it", Some(Bf16)),
        ("gemma-3-12b-it.json", "google/gemma-3-12b-it", Some(Bf16)),
        ("phi-2.json", "microsoft/phi-2", Some(Fp16)),
        (
            "phi-3-mini-4k-instruct.json",
            "microsoft/Phi-3-mini-4k-instruct",
            Some(Bf16),
        ),
        ("phi-4.json", "microsoft/phi-4", Some(Bf16)),
        ("gpt2.json", "openai-community/gpt2", Some(Fp32)),
        (
            "gpt2-medium.json",
            "openai-community/gpt2-medium",
            Some(Fp32),
        ),
        ("gpt-neox-20b.json", "EleutherAI/gpt-neox-20b", Some(Fp16)),
        ("falcon-40b.json", "tiiuae/falcon-40b", Some(Bf16)),
        (
            "granite-3.1-8b-instruct.json",
            "ibm-granite/granite-3.1-8b-instruct",
            Some(Bf16),
        ),
        (
            "deepseek-v2-lite-chat.json",
            "deepseek-ai/DeepSeek-V2-Lite-Chat",
            Some(Bf16),
        ),
        (
            "bert-base-uncased.json",
            "google-bert/bert-base-uncased",
            Some(Fp32),
        ),
        (
            "bert-large-uncased.json",
            "google-bert/bert-large-uncased",
            Some(Fp32),
        ),
        ("bge-m3.json", "BAAI/bge-m3", Some(Fp32)),
        (
            "bge-reranker-v2-m3.json",
            "BAAI/bge-reranker-v2-m3",
            Some(Fp32),
        ),
        (
            "vit-large-patch16-224.json",
            "google/vit-large-patch16-224",
            Some(Fp32),
        ),
        ("whisper-tiny.json", "openai/whisper-tiny", Some(Fp32)),
        ("resnet-50.json", "microsoft/resnet-50", Some(Fp32)),
        (
            "llama-4-scout-17b-16e-instruct.json",
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            Some(Bf16),
        ),
        (
            "mistral-small-3.1-24b-instruct-2503.json",
            "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
            Some(Bf16),
        ),
    ];
    for &(file, id, dtype) in cases {
        check(file, id, dtype, None);
    }
}

#[test]
fn quantized_checkpoints() {
    check(
        "deepseek-v3.json",
        "deepseek-ai/DeepSeek-V3",
        Some(Dtype::Bf16),
        Some(Quantization::Fp8),
    );
    check(
        "gpt-oss-20b.json",
        "openai/gpt-oss-20b",
        None,
        Some(Quantization::Mxfp4),
    );
    check(
        "gpt-oss-120b.json",
        "openai/gpt-oss-120b",
        None,
        Some(Quantization::Mxfp4),
    );
    // TheBloke/Llama-2-7B-GPTQ (main branch: 4 bits, group 128, act-order).
    check(
        "llama-2-7b-gptq.json",
        "meta-llama/Llama-2-7b-hf",
        Some(Dtype::Fp16),
        Some(Quantization::Gptq {
            bits: 4,
            group_size: 128,
        }),
    );
    // Qwen/Qwen2.5-7B-Instruct-AWQ.
    check(
        "qwen2.5-7b-instruct-awq.json",
        "Qwen/Qwen2.5-7B-Instruct",
        Some(Dtype::Fp16),
        Some(Quantization::Awq { group_size: 128 }),
    );
    // A bitsandbytes NF4 export with double quantization (unsloth's -bnb-4bit layout).
    check(
        "llama-3.1-8b-bnb-4bit.json",
        "meta-llama/Llama-3.1-8B",
        Some(Dtype::Bf16),
        Some(Quantization::BnbNf4 { double_quant: true }),
    );
    // llm-compressor exports (RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic, -quantized.w4a16).
    check(
        "llama-3.1-8b-instruct-fp8-dynamic.json",
        "meta-llama/Llama-3.1-8B",
        Some(Dtype::Bf16),
        Some(Quantization::Fp8),
    );
    check(
        "llama-3.1-8b-instruct-w4a16.json",
        "meta-llama/Llama-3.1-8B",
        Some(Dtype::Bf16),
        Some(Quantization::W4a16 { group_size: 128 }),
    );
}

#[test]
fn gemma3_text_only() {
    // google/gemma-3-1b-it: the Hugging Face safetensors total is 999,885,952.
    // Hand: tied embedding 262144 × 1152 = 301,989,888; per layer q, o 2 × 1152 × 1024,
    // k, v 2 × 1152 × 256, GeGLU 3 × 1152 × 6912, 4 norms 4 × 1152, q/k norms 2 × 256
    // = 26,842,112 × 26 = 697,894,912; final norm 1,152.
    let cfg = load("gemma-3-1b-it.json");
    assert_eq!(cfg.model_type, "gemma3_text");
    assert_eq!(cfg.arch.params(), 301_989_888 + 697_894_912 + 1_152);
    assert_eq!(cfg.arch.params(), 999_885_952);
    assert_eq!(cfg.arch.sliding_window, 512);
    assert_eq!(cfg.arch.global_layers(), 4);
}

#[test]
fn notes_explain_assumptions() {
    let v3 = load("deepseek-v3.json");
    assert!(
        v3.notes
            .iter()
            .any(|n| n.contains("num_nextn_predict_layers"))
    );
    let scout = load("llama-4-scout-17b-16e-instruct.json");
    assert!(scout.notes.iter().any(|n| n.contains("vision")));
    assert!(
        scout
            .notes
            .iter()
            .any(|n| n.contains("attention_chunk_size"))
    );
    // 36 chunked (RoPE) layers of 8192 tokens, 12 global NoPE layers.
    assert_eq!(scout.arch.sliding_window, 8192);
    assert_eq!(scout.arch.global_layers(), 12);
}

#[test]
fn every_fixture_parses() {
    let dir = format!("{}/tests/corpus/configs", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let cfg = load(&name);
            assert!(cfg.arch.params() > 0, "{name}");
            n += 1;
        }
    }
    assert!(n >= 40);
}

#[test]
fn quantization_errors_name_the_key() {
    let base = r#""model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008"#;
    let e = parse_config(&format!(
        r#"{{{base}, "quantization_config": {{"quant_method": "hqq"}}}}"#
    ))
    .unwrap_err();
    assert_eq!(e.field, "config.json: quantization_config.quant_method");
    assert!(e.accepted.contains("gptq"));
    let e = parse_config(&format!(
        r#"{{{base}, "quantization_config": {{"quant_method": "gptq", "bits": 5}}}}"#
    ))
    .unwrap_err();
    assert_eq!(e.field, "config.json: quantization_config.bits");
    let e = parse_config(&format!(
        r#"{{{base}, "quantization_config": {{"quant_method": "bitsandbytes"}}}}"#
    ))
    .unwrap_err();
    assert_eq!(e.field, "config.json: quantization_config.load_in_4bit");
    // GPTQ with one group per row (group_size -1) is sized with the largest group we model.
    let q = parse_config(&format!(
        r#"{{{base}, "quantization_config": {{"quant_method": "gptq", "bits": 8, "group_size": -1}}}}"#
    ))
    .unwrap()
    .quantization;
    assert_eq!(
        q,
        Some(Quantization::Gptq {
            bits: 8,
            group_size: 4096
        })
    );
    // bitsandbytes 8-bit.
    let q = parse_config(&format!(
        r#"{{{base}, "quantization_config": {{"quant_method": "bitsandbytes", "load_in_8bit": true}}}}"#
    ))
    .unwrap()
    .quantization;
    assert_eq!(q, Some(Quantization::BnbInt8));
}

#[test]
fn vit_labels_come_from_id2label() {
    let cfg = parse_config(
        r#"{"model_type": "vit", "hidden_size": 1024, "num_hidden_layers": 24,
            "num_attention_heads": 16, "intermediate_size": 4096, "patch_size": 16,
            "image_size": 224, "id2label": {"0": "tench", "1": "goldfish", "2": "shark"}}"#,
    )
    .unwrap();
    assert_eq!(cfg.arch.num_labels, 3);
    assert_eq!(cfg.arch.encoder_positions, 197);
}

#[test]
fn falcon_before_transformers_adopted_it() {
    // tiiuae/falcon-40b's original config.json (model_type RefinedWeb, RWForCausalLM, 2023-05).
    let cfg = parse_config(
        r#"{"alibi": false, "apply_residual_connection_post_layernorm": false,
            "architectures": ["RWForCausalLM"], "attention_dropout": 0.0, "bias": false,
            "bos_token_id": 11, "eos_token_id": 11, "hidden_dropout": 0.0, "hidden_size": 8192,
            "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "RefinedWeb",
            "n_head": 128, "n_head_kv": 8, "n_layer": 60, "parallel_attn": true,
            "torch_dtype": "bfloat16", "transformers_version": "4.27.4", "use_cache": true,
            "vocab_size": 65024}"#,
    )
    .unwrap();
    assert_eq!(cfg.arch, find("tiiuae/falcon-40b").unwrap().arch);
}

/// The numbers in a sentence, sorted (a translation may put them in another order).
fn numbers(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|x| x.trim_matches('.').to_string())
        .filter(|x| !x.is_empty())
        .collect();
    v.sort();
    v
}

#[test]
fn every_note_has_a_chinese_twin_with_the_same_numbers() {
    let dir = format!("{}/tests/corpus/configs", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    for file in names {
        let cfg = load(&file);
        assert_eq!(cfg.notes.len(), cfg.notes_zh.len(), "{file}");
        for (en, zh) in cfg.notes.iter().zip(&cfg.notes_zh) {
            assert!(
                zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{file}: {zh}"
            );
            assert_eq!(numbers(en), numbers(zh), "{file}:\n{en}\n{zh}");
            seen += 1;
        }
    }
    // DeepSeek-V3: its one MTP layer; Llama 4 Scout: vision tower, chunked attention on 36 of
    // 48 layers (8192 tokens), MoE layers interleaved.
    assert!(seen >= 3, "{seen} notes");
    let scout = load("llama-4-scout-17b-16e-instruct.json");
    assert!(
        scout
            .notes_zh
            .iter()
            .any(|n| n == "36 层的分块注意力（attention_chunk_size 8192）按 8192 个 token 的滑动窗口计算；其余层为全局注意力。"),
        "{:?}",
        scout.notes_zh
    );
    // Notes the fixtures do not reach: an unknown torch_dtype, bitsandbytes FP4.
    let odd = parse_config(
        r#"{"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "num_hidden_layers": 32,
            "num_attention_heads": 32, "intermediate_size": 11008, "torch_dtype": "bool",
            "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true,
                                    "bnb_4bit_quant_type": "fp4"}}"#,
    )
    .unwrap();
    assert_eq!(odd.notes.len(), 2, "{:?}", odd.notes);
    assert_eq!(
        odd.notes_zh,
        [
            "torch_dtype `bool` 不是权重数据类型；请自行选择精度。",
            "bitsandbytes FP4 的存储方式与 NF4 相同（4 位 + 分块 absmax），按 NF4 计算大小。"
        ]
    );
    for (en, zh) in odd.notes.iter().zip(&odd.notes_zh) {
        assert_eq!(numbers(en), numbers(zh));
    }
}
