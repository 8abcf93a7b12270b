//! Checkpoint header tests: real headers and hand-built hostile ones.

use super::safetensors::safetensors_bits;
use super::*;

use crate::precision::GgufFileType;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

// ---- a small safetensors writer ----

fn safetensors(tensors: &[(&str, &str, &[u64])], metadata: &str) -> Vec<u8> {
    let mut json = String::from("{");
    if !metadata.is_empty() {
        json.push_str(&format!("\"__metadata__\":{metadata},"));
    }
    let mut offset = 0u64;
    for (i, (name, dtype, shape)) in tensors.iter().enumerate() {
        let numel: u64 = shape.iter().product();
        let size = (numel * safetensors_bits(dtype).unwrap()).div_ceil(8);
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        json.push_str(&format!(
            "{}\"{name}\":{{\"dtype\":\"{dtype}\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
            if i == 0 { "" } else { "," },
            dims.join(","),
            offset + size
        ));
        offset += size;
    }
    json.push('}');
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    out
}

/// A two-layer Llama-style model: vocab 100, hidden 64, 4 heads of 16, 2 KV heads, FFN 128.
fn tiny_llama(tied: bool) -> Vec<(String, &'static str, Vec<u64>)> {
    let mut t = vec![(
        String::from("model.embed_tokens.weight"),
        "BF16",
        vec![100, 64],
    )];
    for l in 0..2 {
        let p = format!("model.layers.{l}.");
        for (n, s) in [
            ("self_attn.q_proj.weight", vec![64, 64]),
            ("self_attn.k_proj.weight", vec![32, 64]),
            ("self_attn.v_proj.weight", vec![32, 64]),
            ("self_attn.o_proj.weight", vec![64, 64]),
            ("self_attn.q_norm.weight", vec![16]),
            ("self_attn.k_norm.weight", vec![16]),
            ("mlp.gate_proj.weight", vec![128, 64]),
            ("mlp.up_proj.weight", vec![128, 64]),
            ("mlp.down_proj.weight", vec![64, 128]),
            ("input_layernorm.weight", vec![64]),
            ("post_attention_layernorm.weight", vec![64]),
        ] {
            t.push((format!("{p}{n}"), "BF16", s));
        }
    }
    t.push((String::from("model.norm.weight"), "BF16", vec![64]));
    if !tied {
        t.push((String::from("lm_head.weight"), "BF16", vec![100, 64]));
    }
    t
}

fn write(t: &[(String, &'static str, Vec<u64>)]) -> Vec<u8> {
    let refs: Vec<(&str, &str, &[u64])> = t
        .iter()
        .map(|(n, d, s)| (n.as_str(), *d, s.as_slice()))
        .collect();
    safetensors(&refs, "{\"format\":\"pt\"}")
}

#[test]
fn safetensors_counts_and_guess() {
    let bytes = write(&tiny_llama(false));
    let h = parse_safetensors_header(&bytes).unwrap();
    // Hand: embed + head 2 × 6,400; per layer q, o 2 × 4,096, k, v 2 × 2,048,
    // FFN 3 × 8,192, norms 128, q/k norms 32 → 37,024 × 2; final norm 64.
    let total = 12_800 + 2 * 37_024 + 64;
    assert_eq!(total, 86_912);
    assert_eq!(h.total_params, total);
    assert_eq!(h.total_bytes, 2 * total);
    assert_eq!(h.tensor_count, 1 + 22 + 1 + 1);
    assert_eq!(h.by_dtype.len(), 1);
    assert_eq!(h.by_dtype[0].dtype, "BF16");
    assert_eq!(
        h.metadata,
        vec![(String::from("format"), String::from("pt"))]
    );
    let a = h.arch.unwrap();
    assert_eq!(
        (
            a.vocab_size,
            a.hidden_size,
            a.num_layers,
            a.num_heads,
            a.num_kv_heads
        ),
        (100, 64, 2, 4, 2)
    );
    assert_eq!(a.head_dim, 16);
    assert!(a.qk_norm && a.gated_ffn && !a.tied_embeddings);
    assert_eq!(a.params(), total);
    assert_eq!(a.extra_params, 0);
    // Tied: no lm_head.
    let h = parse_safetensors_header(&write(&tiny_llama(true))).unwrap();
    assert!(h.arch.unwrap().tied_embeddings);
}

#[test]
fn safetensors_shards_are_merged() {
    let all = tiny_llama(false);
    let (a, b) = all.split_at(10);
    let (a, b) = (write(a), write(b));
    let whole = parse_safetensors_header(&write(&all)).unwrap();
    let merged = parse_safetensors_shards(&[&a, &b]).unwrap();
    assert_eq!(merged.total_params, whole.total_params);
    assert_eq!(merged.total_bytes, whole.total_bytes);
    assert_eq!(merged.tensor_count, whole.tensor_count);
    assert_eq!(merged.arch, whole.arch);
    assert!(merged.arch.is_some());
    // One shard alone is a part: its guess, if any, cannot claim the whole model.
    let part = parse_safetensors_header(&b).unwrap();
    assert!(part.total_params < whole.total_params);
    assert!(parse_safetensors_shards(&[]).is_err());
}

/// Qwen-MoE style: 2 layers, 4 experts of width 32, a shared expert of 96 with its gate.
#[test]
fn safetensors_moe_guess() {
    let mut t = vec![(
        String::from("model.embed_tokens.weight"),
        "BF16",
        vec![100, 64],
    )];
    for l in 0..2 {
        let p = format!("model.layers.{l}.");
        for (n, s) in [
            ("self_attn.q_proj.weight", vec![64, 64]),
            ("self_attn.k_proj.weight", vec![32, 64]),
            ("self_attn.v_proj.weight", vec![32, 64]),
            ("self_attn.o_proj.weight", vec![64, 64]),
            ("mlp.gate.weight", vec![4, 64]),
            ("mlp.shared_expert.gate_proj.weight", vec![96, 64]),
            ("mlp.shared_expert.up_proj.weight", vec![96, 64]),
            ("mlp.shared_expert.down_proj.weight", vec![64, 96]),
            ("mlp.shared_expert_gate.weight", vec![1, 64]),
            ("input_layernorm.weight", vec![64]),
            ("post_attention_layernorm.weight", vec![64]),
        ] {
            t.push((format!("{p}{n}"), "BF16", s));
        }
        for e in 0..4 {
            for (n, s) in [
                ("gate_proj.weight", vec![32, 64]),
                ("up_proj.weight", vec![32, 64]),
                ("down_proj.weight", vec![64, 32]),
            ] {
                t.push((format!("{p}mlp.experts.{e}.{n}"), "BF16", s));
            }
        }
    }
    t.push((String::from("model.norm.weight"), "BF16", vec![64]));
    t.push((String::from("lm_head.weight"), "BF16", vec![100, 64]));
    let h = parse_safetensors_header(&write(&t)).unwrap();
    // Hand: 2 × 6,400; per layer attention 12,288, router 256, shared 3 × 6,144 + gate 64,
    // experts 4 × 3 × 2,048 = 24,576, norms 128 → 55,744 × 2; final norm 64.
    assert_eq!(h.total_params, 12_800 + 2 * 55_744 + 64);
    let a = h.arch.unwrap_or_else(|| panic!("{:?}", h.notes));
    let m = a.moe.unwrap();
    assert_eq!(
        (
            m.num_experts,
            m.expert_intermediate_size,
            m.shared_intermediate_size
        ),
        (4, 32, 96)
    );
    assert!(m.shared_expert_gate);
    assert_eq!(m.first_dense_layers, 0);
    assert_eq!(a.params(), h.total_params);
    assert_eq!(a.extra_params, 0);
}

#[test]
fn safetensors_mixed_dtypes_and_extra_tensors() {
    let mut t = tiny_llama(false);
    t.push((String::from("vision.patch.weight"), "F32", vec![10, 10]));
    t.push((String::from("scales"), "F8_E4M3", vec![7]));
    let h = parse_safetensors_header(&write(&t)).unwrap();
    assert_eq!(h.by_dtype[0].dtype, "BF16");
    let f32s = h.by_dtype.iter().find(|t| t.dtype == "F32").unwrap();
    assert_eq!((f32s.params, f32s.bytes), (100, Some(400)));
    let fp8 = h.by_dtype.iter().find(|t| t.dtype == "F8_E4M3").unwrap();
    assert_eq!(fp8.bytes, Some(7));
    assert_eq!(h.arch.unwrap().extra_params, 107);
}

#[test]
fn safetensors_hostile_and_short() {
    assert!(safetensors_header_len(&[1, 2, 3]).is_err());
    let huge = (200u64 << 20).to_le_bytes();
    let e = safetensors_header_len(&huge).unwrap_err();
    assert!(e.accepted.contains("100 MiB"));
    let e = parse_safetensors_header(&u64::MAX.to_le_bytes()).unwrap_err();
    assert_eq!(e.field, "safetensors");
    // Header length 1000 but only 10 bytes after it: asks for the first 1008 bytes.
    let mut short = 1000u64.to_le_bytes().to_vec();
    short.extend_from_slice(b"{\"a\":1}   ");
    let e = parse_safetensors_header(&short).unwrap_err();
    assert!(e.accepted.contains("1008"));
    // Offsets that do not match the shape are refused.
    let json = br#"{"w":{"dtype":"F16","shape":[4],"data_offsets":[0,7]}}"#;
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json);
    assert!(
        parse_safetensors_header(&b)
            .unwrap_err()
            .problem
            .contains("do not fill")
    );
    // A shape whose size overflows u64.
    let json = br#"{"w":{"dtype":"F16","shape":[4294967296,4294967296],"data_offsets":[0,2]}}"#;
    let mut b = (json.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(json);
    assert!(
        parse_safetensors_header(&b)
            .unwrap_err()
            .problem
            .contains("overflows")
    );
    // Not JSON.
    let mut b = 4u64.to_le_bytes().to_vec();
    b.extend_from_slice(b"\xff\xfe{[");
    assert!(parse_safetensors_header(&b).is_err());
}

// ---- a small GGUF writer ----

struct Gguf {
    out: Vec<u8>,
}

impl Gguf {
    fn new(version: u32, tensors: u64, kvs: u64) -> Gguf {
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&tensors.to_le_bytes());
        out.extend_from_slice(&kvs.to_le_bytes());
        Gguf { out }
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        self.out.extend_from_slice(s.as_bytes());
        self
    }
    fn kv_str(&mut self, k: &str, v: &str) -> &mut Self {
        self.str(k);
        self.out.extend_from_slice(&8u32.to_le_bytes());
        self.str(v)
    }
    fn kv_u32(&mut self, k: &str, v: u32) -> &mut Self {
        self.str(k);
        self.out.extend_from_slice(&4u32.to_le_bytes());
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn kv_f32(&mut self, k: &str, v: f32) -> &mut Self {
        self.str(k);
        self.out.extend_from_slice(&6u32.to_le_bytes());
        self.out.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn kv_strings(&mut self, k: &str, items: &[&str]) -> &mut Self {
        self.str(k);
        self.out.extend_from_slice(&9u32.to_le_bytes());
        self.out.extend_from_slice(&8u32.to_le_bytes());
        self.out
            .extend_from_slice(&(items.len() as u64).to_le_bytes());
        for s in items {
            self.str(s);
        }
        self
    }
    fn kv_f32s(&mut self, k: &str, items: &[f32]) -> &mut Self {
        self.str(k);
        self.out.extend_from_slice(&9u32.to_le_bytes());
        self.out.extend_from_slice(&6u32.to_le_bytes());
        self.out
            .extend_from_slice(&(items.len() as u64).to_le_bytes());
        for v in items {
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        self
    }
    fn kv_i32s(&mut self, k: &str, items: &[i32]) -> &mut Self {
        self.str(k);
        self.out.extend_from_slice(&9u32.to_le_bytes());
        self.out.extend_from_slice(&5u32.to_le_bytes());
        self.out
            .extend_from_slice(&(items.len() as u64).to_le_bytes());
        for v in items {
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        self
    }
    fn tensor(&mut self, name: &str, dims: &[u64], ty: u32, offset: u64) -> &mut Self {
        self.str(name);
        self.out
            .extend_from_slice(&(dims.len() as u32).to_le_bytes());
        for d in dims {
            self.out.extend_from_slice(&d.to_le_bytes());
        }
        self.out.extend_from_slice(&ty.to_le_bytes());
        self.out.extend_from_slice(&offset.to_le_bytes());
        self
    }
}

/// A Llama-shaped Q4_K_M file: 2 blocks, 4 tensors listed.
fn tiny_gguf() -> Vec<u8> {
    let mut g = Gguf::new(3, 4, 12);
    g.kv_str("general.architecture", "llama")
        .kv_str("general.name", "Tiny Llama")
        .kv_u32("general.file_type", 15)
        .kv_u32("llama.block_count", 2)
        .kv_u32("llama.embedding_length", 256)
        .kv_u32("llama.attention.head_count", 4)
        .kv_u32("llama.attention.head_count_kv", 2)
        .kv_u32("llama.context_length", 4096)
        .kv_u32("llama.feed_forward_length", 512)
        .kv_f32("llama.rope.freq_base", 500000.0)
        .kv_strings("tokenizer.ggml.tokens", &["<s>", "</s>", "a", "b"])
        .kv_f32s("tokenizer.ggml.scores", &[0.0, 0.0, -1.0, -2.0]);
    g.tensor("token_embd.weight", &[256, 4], 14, 0) // Q6_K
        .tensor("blk.0.attn_q.weight", &[256, 256], 12, 1024) // Q4_K
        .tensor("blk.0.attn_norm.weight", &[256], 0, 4096) // F32
        .tensor("blk.0.ffn_down.weight", &[512, 256], 23, 8192); // IQ4_XS
    g.out.clone()
}

#[test]
fn gguf_reads_the_architecture_keys() {
    let bytes = tiny_gguf();
    let h = parse_gguf_header(&bytes).unwrap();
    assert_eq!(h.version, 3);
    assert_eq!(h.architecture.as_deref(), Some("llama"));
    assert_eq!(h.name.as_deref(), Some("Tiny Llama"));
    assert_eq!(h.block_count, Some(2));
    assert_eq!(h.embedding_length, Some(256));
    assert_eq!(h.head_count, Some(4));
    assert_eq!(h.head_count_kv, Some(2));
    assert_eq!(h.context_length, Some(4096));
    assert_eq!(h.feed_forward_length, Some(512));
    assert_eq!(h.vocab_size, Some(4));
    assert_eq!(h.file_type_id, Some(15));
    assert_eq!(h.file_type, Some(GgufFileType::Q4_K_M));
    assert_eq!(h.header_bytes, bytes.len() as u64);
    // Elements: 1,024 + 65,536 + 256 + 131,072.
    assert_eq!(h.total_params, 1_024 + 65_536 + 256 + 131_072);
    // Bytes by hand: Q6_K 4 blocks × 210; Q4_K 256 × 144; F32 1,024; IQ4_XS 512 × 136.
    assert_eq!(h.total_bytes, 4 * 210 + 256 * 144 + 1_024 + 512 * 136);
    let q4k = h.by_type.iter().find(|t| t.dtype == "Q4_K").unwrap();
    assert_eq!(
        (q4k.tensors, q4k.params, q4k.bytes),
        (1, 65_536, Some(36_864))
    );
    assert_eq!(h.by_type[0].dtype, "IQ4_XS");
}

/// A complete Qwen2-style GGUF header: vocab 1000, width 128, 3 blocks, 4 heads of 32,
/// 2 KV heads, FFN 256, q/k/v biases, untied output; tensors in Q4_K / Q6_K / F32.
fn full_gguf(tied: bool) -> Vec<u8> {
    let (v, h, f, kv) = (1000u64, 128u64, 256u64, 64u64);
    let mut names: Vec<(String, Vec<u64>, u32)> =
        vec![(String::from("token_embd.weight"), vec![h, v], 14)];
    for b in 0..3 {
        for (n, d, t) in [
            ("attn_norm.weight", vec![h], 0),
            ("attn_q.weight", vec![h, h], 12),
            ("attn_q.bias", vec![h], 0),
            ("attn_k.weight", vec![h, kv], 12),
            ("attn_k.bias", vec![kv], 0),
            ("attn_v.weight", vec![h, kv], 14),
            ("attn_v.bias", vec![kv], 0),
            ("attn_output.weight", vec![h, h], 12),
            ("ffn_norm.weight", vec![h], 0),
            ("ffn_gate.weight", vec![h, f], 12),
            ("ffn_up.weight", vec![h, f], 12),
            ("ffn_down.weight", vec![f, h], 14),
        ] {
            names.push((format!("blk.{b}.{n}"), d, t));
        }
    }
    names.push((String::from("output_norm.weight"), vec![h], 0));
    if !tied {
        names.push((String::from("output.weight"), vec![h, v], 14));
    }
    let mut g = Gguf::new(3, names.len() as u64, 8);
    g.kv_str("general.architecture", "qwen2")
        .kv_u32("general.file_type", 15)
        .kv_u32("qwen2.block_count", 3)
        .kv_u32("qwen2.embedding_length", 128)
        .kv_u32("qwen2.attention.head_count", 4)
        .kv_u32("qwen2.attention.head_count_kv", 2)
        .kv_u32("qwen2.feed_forward_length", 256)
        .kv_u32("qwen2.context_length", 32768);
    for (n, d, t) in &names {
        g.tensor(n, d, *t, 0);
    }
    g.out.clone()
}

#[test]
fn gguf_architecture_guess() {
    let h = parse_gguf_header(&full_gguf(false)).unwrap();
    let a = h.arch.expect("a dense Qwen2 layout");
    // Hand: embed + output 2 × 128,000; per block q, o 2 × 16,384, k, v 2 × 8,192,
    // biases 128 + 64 + 64, FFN 3 × 32,768, norms 256 → 147,968 × 3; output norm 128.
    let total = 256_000 + 3 * 147_968 + 128;
    assert_eq!(total, 700_032);
    assert_eq!(h.total_params, total);
    assert_eq!(a.params(), total);
    assert_eq!(a.extra_params, 0);
    assert_eq!(
        (
            a.vocab_size,
            a.num_layers,
            a.num_heads,
            a.num_kv_heads,
            a.head_dim
        ),
        (1000, 3, 4, 2, 32)
    );
    assert!(a.qkv_bias && !a.o_bias && a.gated_ffn && !a.tied_embeddings);
    assert_eq!(a.norms_per_layer, 2);
    assert_eq!(a.max_position_embeddings, 32_768);
    // Q4_K: per block q, k, o, gate, up = 16,384 + 8,192 + 16,384 + 2 × 32,768 elements.
    let q4k = h.by_type.iter().find(|t| t.dtype == "Q4_K").unwrap();
    assert_eq!(q4k.params, 3 * 106_496);
    assert_eq!(q4k.bytes, Some(3 * 106_496 / 256 * 144));
    let tied = parse_gguf_header(&full_gguf(true)).unwrap().arch.unwrap();
    assert!(tied.tied_embeddings);
    assert_eq!(tied.params(), total - 128_000);
}

/// Mixtral-style: 2 blocks of 4 experts (top-2) of width 128, hidden 64, 4 heads, 2 KV.
#[test]
fn gguf_moe_architecture_guess() {
    let (v, h, f, kv) = (100u64, 64u64, 128u64, 32u64);
    let mut names: Vec<(String, Vec<u64>)> = vec![(String::from("token_embd.weight"), vec![h, v])];
    for b in 0..2 {
        for (n, d) in [
            ("attn_norm.weight", vec![h]),
            ("attn_q.weight", vec![h, h]),
            ("attn_k.weight", vec![h, kv]),
            ("attn_v.weight", vec![h, kv]),
            ("attn_output.weight", vec![h, h]),
            ("ffn_norm.weight", vec![h]),
            ("ffn_gate_inp.weight", vec![h, 4]),
            ("ffn_gate_exps.weight", vec![h, f, 4]),
            ("ffn_up_exps.weight", vec![h, f, 4]),
            ("ffn_down_exps.weight", vec![f, h, 4]),
        ] {
            names.push((format!("blk.{b}.{n}"), d));
        }
    }
    names.push((String::from("output_norm.weight"), vec![h]));
    names.push((String::from("output.weight"), vec![h, v]));
    let mut g = Gguf::new(3, names.len() as u64, 7);
    g.kv_str("general.architecture", "llama")
        .kv_u32("llama.block_count", 2)
        .kv_u32("llama.embedding_length", 64)
        .kv_u32("llama.attention.head_count", 4)
        .kv_u32("llama.attention.head_count_kv", 2)
        .kv_u32("llama.expert_count", 4)
        .kv_u32("llama.expert_used_count", 2);
    for (n, d) in &names {
        g.tensor(n, d, 1, 0);
    }
    let hdr = parse_gguf_header(&g.out).unwrap();
    // Hand: embed + output 2 × 6,400; per block attention 4,096 + 2 × 2,048 + 4,096,
    // norms 128, router 256, experts 3 × 8,192 × 4 = 98,304 → 110,976 × 2; output norm 64.
    assert_eq!(hdr.total_params, 12_800 + 2 * 110_976 + 64);
    let a = hdr.arch.expect("a Mixtral-style layout");
    let m = a.moe.unwrap();
    assert_eq!(
        (
            m.num_experts,
            m.experts_per_token,
            m.expert_intermediate_size
        ),
        (4, 2, 128)
    );
    assert_eq!(a.params(), hdr.total_params);
    assert_eq!(a.extra_params, 0);
    // Active: 2 of 4 experts → 2 × 2 × 24,576 fewer.
    assert_eq!(a.active_params(), hdr.total_params - 2 * 2 * 24_576);
}

#[test]
fn gguf_v2_and_per_layer_arrays() {
    let mut g = Gguf::new(2, 0, 2);
    g.kv_str("general.architecture", "openelm")
        .kv_i32s("openelm.attention.head_count_kv", &[3, 4, 5, 2]);
    let h = parse_gguf_header(&g.out).unwrap();
    assert_eq!(h.head_count_kv, Some(5));
    assert!(h.notes.iter().any(|n| n.contains("per layer")));
}

#[test]
fn gguf_truncated_prefix_says_how_much_to_read() {
    let bytes = tiny_gguf();
    for cut in [0, 3, 10, 24, 40, 100, bytes.len() - 1] {
        let e = parse_gguf_header(&bytes[..cut]).unwrap_err();
        assert_eq!(e.field, "gguf", "cut at {cut}");
        let need = gguf_prefix_needed(&e).unwrap_or_else(|| panic!("{e}"));
        assert!(
            need > cut as u64 && need <= bytes.len() as u64,
            "cut {cut}: need {need}"
        );
    }
    // Reading what is asked for, repeatedly, reaches the whole header.
    let mut have = 16;
    let mut rounds = 0;
    let h = loop {
        match parse_gguf_header(&bytes[..have.min(bytes.len())]) {
            Ok(h) => break h,
            Err(e) => have = gguf_prefix_needed(&e).unwrap() as usize,
        }
        rounds += 1;
        assert!(rounds < 100);
    };
    assert_eq!(h.tensor_count, 4);
}

#[test]
fn gguf_hostile_headers_fail_fast() {
    // 2^60 tensors.
    let g = Gguf::new(3, 1 << 60, 0);
    let e = parse_gguf_header(&g.out).unwrap_err();
    assert!(e.problem.contains("1152921504606846976 tensors"));
    // 2^60 metadata pairs.
    let g = Gguf::new(3, 0, 1 << 60);
    assert!(
        parse_gguf_header(&g.out)
            .unwrap_err()
            .problem
            .contains("metadata")
    );
    // A 2^40-byte key string.
    let mut g = Gguf::new(3, 0, 1);
    g.out.extend_from_slice(&(1u64 << 40).to_le_bytes());
    let e = parse_gguf_header(&g.out).unwrap_err();
    assert!(e.problem.contains("1099511627776 bytes"));
    // An array of 2^62 u8.
    let mut g = Gguf::new(3, 0, 1);
    g.str("k");
    g.out.extend_from_slice(&9u32.to_le_bytes());
    g.out.extend_from_slice(&0u32.to_le_bytes());
    g.out.extend_from_slice(&(1u64 << 62).to_le_bytes());
    assert!(
        parse_gguf_header(&g.out)
            .unwrap_err()
            .problem
            .contains("entries")
    );
    // A legal-size array larger than the prefix: asks for more, allocates nothing.
    let mut g = Gguf::new(3, 0, 1);
    g.str("k");
    g.out.extend_from_slice(&9u32.to_le_bytes());
    g.out.extend_from_slice(&12u32.to_le_bytes());
    g.out.extend_from_slice(&(1u64 << 24).to_le_bytes());
    let len = g.out.len() as u64;
    let e = parse_gguf_header(&g.out).unwrap_err();
    assert_eq!(gguf_prefix_needed(&e), Some(len + 8 * (1 << 24)));
    // Nested arrays.
    let mut g = Gguf::new(3, 0, 1);
    g.str("k");
    g.out.extend_from_slice(&9u32.to_le_bytes());
    for _ in 0..3 {
        g.out.extend_from_slice(&9u32.to_le_bytes());
        g.out.extend_from_slice(&1u64.to_le_bytes());
    }
    assert!(
        parse_gguf_header(&g.out)
            .unwrap_err()
            .problem
            .contains("nested")
    );
    // Unknown value type, too many dimensions, overflowing shape, bad magic, version 1.
    let mut g = Gguf::new(3, 0, 1);
    g.str("k");
    g.out.extend_from_slice(&13u32.to_le_bytes());
    assert!(
        parse_gguf_header(&g.out)
            .unwrap_err()
            .problem
            .contains("type 13")
    );
    let mut g = Gguf::new(3, 1, 0);
    g.tensor("t", &[1, 1, 1, 1, 1], 0, 0);
    assert!(
        parse_gguf_header(&g.out)
            .unwrap_err()
            .problem
            .contains("5 dimensions")
    );
    let mut g = Gguf::new(3, 1, 0);
    g.tensor("t", &[1 << 40, 1 << 40], 0, 0);
    assert!(
        parse_gguf_header(&g.out)
            .unwrap_err()
            .problem
            .contains("overflows")
    );
    assert!(
        parse_gguf_header(b"GGML\x03\0\0\0")
            .unwrap_err()
            .problem
            .contains("magic")
    );
    let g = Gguf::new(1, 0, 0);
    assert!(
        parse_gguf_header(&g.out)
            .unwrap_err()
            .problem
            .contains("version 1")
    );
}

#[test]
fn gguf_unknown_tensor_type_is_reported_not_fatal() {
    let mut g = Gguf::new(3, 1, 0);
    g.tensor("t", &[64], 99, 0);
    let h = parse_gguf_header(&g.out).unwrap();
    assert_eq!(h.total_params, 64);
    assert_eq!(h.total_bytes, 0);
    assert_eq!(h.by_type[0].bytes, None);
    assert!(h.notes.iter().any(|n| n.contains("type 99")));
}

/// The fuzz targets start from these (`fuzz/seeds/`, given to libFuzzer by `cargo xtask
/// fuzz`): valid headers reach the tensor-info and key-value loops at once instead of
/// waiting for libFuzzer to guess a magic number and a length prefix. Written when missing
/// or stale, and then the test fails, so that the committed seeds are these.
#[test]
#[cfg(feature = "std")]
fn fuzz_seeds_are_current() {
    extern crate std;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds");
    let seeds: [(&str, Vec<u8>); 5] = [
        ("safetensors/tiny-llama-untied", write(&tiny_llama(false))),
        ("safetensors/tiny-llama-tied", write(&tiny_llama(true))),
        ("gguf/tiny-llama-q4_k_m", tiny_gguf()),
        ("gguf/qwen2-untied", full_gguf(false)),
        ("gguf/qwen2-tied", full_gguf(true)),
    ];
    let mut stale = Vec::new();
    for (name, bytes) in &seeds {
        // Each seed is a valid header (the fuzzers' assertions start from a success).
        if name.starts_with("gguf") {
            assert!(parse_gguf_header(bytes).is_ok(), "{name}");
        } else {
            assert!(parse_safetensors_header(bytes).is_ok(), "{name}");
        }
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_ref() != Some(bytes) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
            stale.push(*name);
        }
    }
    assert!(
        stale.is_empty(),
        "fuzz seeds rewritten, commit them: {stale:?}"
    );
}
