//! Embedding and reranking encoders (issue 42): BERT, RoBERTa and XLM-RoBERTa configs read by
//! the BERT reader, their weights against transformers 5.24's meta-device count
//! (`XLMRobertaModel(config)` and `XLMRobertaForSequenceClassification(config)` built under
//! `torch.device("meta")`, `sum(p.numel() for p in m.parameters())`), and by hand.

use super::parse_config;

/// BAAI/bge-m3's config.json at revision 5617a9f61b028005a4858fdac845db406aefb181 (the hub's
/// main in December 2026, the snapshot sentence-transformers caches):
/// https://huggingface.co/BAAI/bge-m3/blob/5617a9f61b028005a4858fdac845db406aefb181/config.json.
/// XLM-RoBERTa-large stretched to 8,194 positions.
pub(crate) const BGE_M3: &str = r#"{"architectures": ["XLMRobertaModel"],
    "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "classifier_dropout": null,
    "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 1024,
    "initializer_range": 0.02, "intermediate_size": 4096, "layer_norm_eps": 1e-05,
    "max_position_embeddings": 8194, "model_type": "xlm-roberta", "num_attention_heads": 16,
    "num_hidden_layers": 24, "output_past": true, "pad_token_id": 1,
    "position_embedding_type": "absolute", "torch_dtype": "float32",
    "transformers_version": "4.33.0", "type_vocab_size": 1, "use_cache": true,
    "vocab_size": 250002}"#;

/// BAAI/bge-reranker-v2-m3's config.json at revision 953dc6f6f85a1b2dbfca4c34a2796e7dde08d41e
/// (https://huggingface.co/BAAI/bge-reranker-v2-m3/blob/953dc6f6f85a1b2dbfca4c34a2796e7dde08d41e/config.json):
/// bge-m3's encoder under a one-label sequence classifier.
pub(crate) const BGE_RERANKER_V2_M3: &str = r#"{"architectures":
    ["XLMRobertaForSequenceClassification"], "attention_probs_dropout_prob": 0.1,
    "bos_token_id": 0, "classifier_dropout": null, "eos_token_id": 2, "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1, "hidden_size": 1024, "id2label": {"0": "LABEL_0"},
    "initializer_range": 0.02, "intermediate_size": 4096, "label2id": {"LABEL_0": 0},
    "layer_norm_eps": 1e-05, "max_position_embeddings": 8194, "model_type": "xlm-roberta",
    "num_attention_heads": 16, "num_hidden_layers": 24, "output_past": true,
    "pad_token_id": 1, "position_embedding_type": "absolute", "torch_dtype": "float32",
    "transformers_version": "4.38.1", "type_vocab_size": 1, "use_cache": true,
    "vocab_size": 250002}"#;

/// bge-m3's weights, by hand (h = 1024, 24 layers, FFN 4096):
/// - embeddings: words 250,002 × 1024 = 256,002,048; positions 8,194 × 1024 = 8,390,656;
///   one token type 1024; LayerNorm 2 × 1024 = 2048: 264,395,776;
/// - a layer: q, k, v, o 4 × (1024² + 1024) = 4,198,400; FFN 1024 × 4096 + 4096 + 4096 × 1024
///   + 1024 = 8,393,728; two LayerNorms 4 × 1024 = 4096: 12,596,224, × 24 = 302,309,376;
/// - pooler 1024² + 1024 = 1,049,600.
///
/// 264,395,776 + 302,309,376 + 1,049,600 = 567,754,752, which is transformers 5.24's
/// meta-device count of `XLMRobertaModel` with this config.
#[test]
fn bge_m3_weights_exact() {
    let c = parse_config(BGE_M3).unwrap();
    assert_eq!(c.arch.params(), 567_754_752);
    // RoBERTa's positions start at pad_token_id + 1 = 2: 8,194 rows hold 8,192 tokens.
    assert_eq!(c.arch.max_position_embeddings, 8192);
    assert_eq!(c.arch.learned_positions, 8194);
    assert!(!c.arch.is_generative());
}

/// The reranker: no pooler (transformers' `XLMRobertaForSequenceClassification` builds its
/// encoder with `add_pooling_layer=False`) but a classifier whose dense layer is the pooler's
/// shape (1,049,600) and whose out_proj is 1024 × 1 + 1 = 1,025: 567,754,752 + 1,025 =
/// 567,755,777, the meta-device count.
#[test]
fn bge_reranker_v2_m3_weights_exact() {
    let c = parse_config(BGE_RERANKER_V2_M3).unwrap();
    assert_eq!(c.arch.params(), 567_755_777);
    // Without id2label a classifier has transformers' default 2 labels: 2 × 1024 + 2 more
    // than the pooler alone.
    let two = BGE_RERANKER_V2_M3.replace(r#""id2label": {"0": "LABEL_0"},"#, "");
    assert_eq!(
        parse_config(&two).unwrap().arch.params(),
        567_754_752 + 2 * 1024 + 2
    );
}

/// `roberta` reads alike; `bert` keeps its whole table of positions for tokens (BertModel of
/// the default BertConfig: 109,482,240 on the meta device).
#[test]
fn roberta_and_bert_read_alike() {
    let roberta = BGE_M3.replace("xlm-roberta", "roberta");
    assert_eq!(parse_config(&roberta).unwrap().arch.params(), 567_754_752);
    let bert = parse_config(r#"{"model_type": "bert"}"#).unwrap();
    assert_eq!(bert.arch.params(), 109_482_240);
    assert_eq!(bert.arch.max_position_embeddings, 512);
}
