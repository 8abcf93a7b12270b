//! The importers take untrusted bytes: on any input they return a value or an `InputError`,
//! never panic, and finish quickly. Random bytes, and random damage to valid inputs.

use proptest::prelude::*;
use vramfit::config::parse_config;
use vramfit::headers::{parse_gguf_header, parse_safetensors_header, safetensors_header_len};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/corpus/configs/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A valid GGUF header: 3 metadata pairs, 1 tensor.
fn gguf() -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&3u64.to_le_bytes());
    let s = |b: &mut Vec<u8>, s: &str| {
        b.extend_from_slice(&(s.len() as u64).to_le_bytes());
        b.extend_from_slice(s.as_bytes());
    };
    s(&mut b, "general.architecture");
    b.extend_from_slice(&8u32.to_le_bytes());
    s(&mut b, "llama");
    s(&mut b, "llama.block_count");
    b.extend_from_slice(&4u32.to_le_bytes());
    b.extend_from_slice(&32u32.to_le_bytes());
    s(&mut b, "tokenizer.ggml.tokens");
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&8u32.to_le_bytes());
    b.extend_from_slice(&2u64.to_le_bytes());
    s(&mut b, "a");
    s(&mut b, "b");
    s(&mut b, "token_embd.weight");
    b.extend_from_slice(&2u32.to_le_bytes());
    b.extend_from_slice(&4096u64.to_le_bytes());
    b.extend_from_slice(&2u64.to_le_bytes());
    b.extend_from_slice(&12u32.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes());
    b
}

fn safetensors() -> Vec<u8> {
    let json = br#"{"__metadata__":{"format":"pt"},"model.embed_tokens.weight":{"dtype":"BF16","shape":[8,4],"data_offsets":[0,64]}}"#;
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json);
    b
}

fn damage(mut v: Vec<u8>, edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    if !v.is_empty() {
        for &(at, byte) in edits {
            let i = at % v.len();
            v[i] = byte;
        }
    }
    v.truncate(cut.min(v.len()));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_gguf_header(&bytes);
        let _ = parse_safetensors_header(&bytes);
        let _ = safetensors_header_len(&bytes);
        let _ = parse_config(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn damaged_gguf(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8), cut in 0usize..400) {
        let _ = parse_gguf_header(&damage(gguf(), &edits, cut));
    }

    #[test]
    fn damaged_safetensors(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..8), cut in 0usize..200) {
        let _ = parse_safetensors_header(&damage(safetensors(), &edits, cut));
    }

    #[test]
    fn damaged_configs(
        file in prop::sample::select(vec![
            "llama-3.1-8b.json", "gemma-3-4b-it.json", "deepseek-v3.json", "gpt-oss-20b.json",
            "llama-4-scout-17b-16e-instruct.json", "resnet-50.json", "whisper-tiny.json",
            "qwen3-30b-a3b.json", "falcon-40b.json", "llama-3.1-8b-instruct-w4a16.json",
        ]),
        edits in proptest::collection::vec((any::<usize>(), 0x20u8..0x7f), 0..6),
        cut in 0usize..4000,
    ) {
        let damaged = damage(fixture(file).into_bytes(), &edits, cut);
        let _ = parse_config(&String::from_utf8_lossy(&damaged));
    }

    /// Any number in any integer field is accepted or refused with a named field.
    #[test]
    fn config_numbers(key in prop::sample::select(vec![
            "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
            "intermediate_size", "vocab_size", "head_dim", "max_position_embeddings",
        ]), value in any::<u64>()) {
        let text = fixture("llama-3.1-8b.json");
        let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
        json[key] = serde_json::Value::from(value);
        if let Err(e) = parse_config(&json.to_string()) {
            prop_assert!(e.field.starts_with("config.json"), "{}", e);
        }
    }
}

/// A header the size of a real one (Llama 3: 128,256 tokens, scores, 280,147 merges) parses
/// in one pass, and every shorter prefix asks for more rather than failing.
#[test]
fn realistic_vocabulary_sizes() {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&0u64.to_le_bytes());
    b.extend_from_slice(&4u64.to_le_bytes());
    let s = |b: &mut Vec<u8>, s: &str| {
        b.extend_from_slice(&(s.len() as u64).to_le_bytes());
        b.extend_from_slice(s.as_bytes());
    };
    s(&mut b, "general.architecture");
    b.extend_from_slice(&8u32.to_le_bytes());
    s(&mut b, "llama");
    s(&mut b, "tokenizer.ggml.tokens");
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&8u32.to_le_bytes());
    b.extend_from_slice(&128_256u64.to_le_bytes());
    for i in 0..128_256 {
        s(&mut b, &format!("tok{i}"));
    }
    s(&mut b, "tokenizer.ggml.token_type");
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&5u32.to_le_bytes());
    b.extend_from_slice(&128_256u64.to_le_bytes());
    b.extend(std::iter::repeat_n(1u8, 4 * 128_256));
    s(&mut b, "tokenizer.ggml.merges");
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&8u32.to_le_bytes());
    b.extend_from_slice(&280_147u64.to_le_bytes());
    for i in 0..280_147 {
        s(&mut b, &format!("a{i} b"));
    }
    let h = parse_gguf_header(&b).unwrap();
    assert_eq!(h.vocab_size, Some(128_256));
    assert_eq!(h.header_bytes, b.len() as u64);
    let e = parse_gguf_header(&b[..b.len() / 2]).unwrap_err();
    let need = vramfit::headers::gguf_prefix_needed(&e).unwrap();
    assert!(need > (b.len() / 2) as u64 && need <= b.len() as u64);
}
