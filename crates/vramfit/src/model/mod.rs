//! Model architectures: the numbers from a `config.json` that decide memory, and the list of
//! weight tensors they imply.
//!
//! Everything else (parameter count, quantized size, LoRA size, GGUF per-tensor types, tensor
//! parallel shards) is computed from [`Architecture::tensors`], so there is one place where a
//! model's layout is described (`tensors.rs` walks them; `validate.rs` checks the fields first).

mod assumed;
mod compressed;
mod hybrid;
mod image_tokens;
mod layer_shapes;
mod tensors;
mod validate;
mod vision_tower;

pub use assumed::{ASSUMED_HEAD_DIM, ASSUMED_KV_HEADS, assumed_hidden, assumed_layers};
pub use compressed::{Compressed, CompressedKind};
pub use hybrid::{Hybrid, LayerKind, StateElements, StateMixer};
pub use image_tokens::ImageTokens;
pub use layer_shapes::LayerShapes;
pub use vision_tower::VisionTower;

/// The overall shape of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Family {
    /// Decoder-only transformer language model (llama, mistral, qwen, gemma, phi, gpt2, gpt-neox,
    /// falcon, granite, deepseek, gpt-oss…).
    #[default]
    CausalLm,
    /// BERT-style encoder with learned positions, token types and a pooler.
    Bert,
    /// Vision transformer (ViT) for image classification.
    Vit,
    /// Whisper-style encoder–decoder over audio features.
    Whisper,
    /// A network known only by its parameter count (ResNet, YOLO, or the guide's quick mode).
    Opaque,
}

/// Layer normalisation flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Norm {
    /// RMSNorm: a weight vector only.
    #[default]
    Rms,
    /// LayerNorm: weight and bias.
    Layer,
}

/// Multi-head latent attention (DeepSeek-V2/V3): keys and values are cached as one compressed
/// latent per token and layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Mla {
    /// `q_lora_rank`; 0 when queries are projected directly (DeepSeek-V2-Lite).
    pub q_lora_rank: u64,
    /// `kv_lora_rank`: the cached latent width.
    pub kv_lora_rank: u64,
    /// `qk_rope_head_dim`: the decoupled rotary key, cached beside the latent.
    pub qk_rope_head_dim: u64,
    /// `qk_nope_head_dim`.
    pub qk_nope_head_dim: u64,
    /// `v_head_dim`.
    pub v_head_dim: u64,
}

/// DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, GLM-5): beside each MLA layer
/// it caches one key of `head_dim` per token and scores the context with `heads` query heads to
/// pick the `topk` tokens the attention reads (transformers 5.24 `DeepseekV32Indexer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Indexer {
    /// `index_n_heads`: the indexer's query heads.
    pub heads: u64,
    /// `index_head_dim`: the width of its queries and of the key it caches per token.
    pub head_dim: u64,
    /// `index_topk`: the tokens each query attends to.
    pub topk: u64,
    /// Layers with an indexer of their own (GLM-5's `"shared"` layers reuse the previous
    /// layer's choice and hold none): counted first among the attention layers.
    pub layers: u64,
    /// `index_kpool`: GLM-5-Next's pooled indexer scores groups of this many tokens, each key a
    /// learned softmax-weighted mean of the group's (`index_kpool_compress_ape`, one position
    /// bias per slot, and `index_kpool_compress_gate`, a gate score per channel from the hidden
    /// state); transformers 5.24 caches every token's key and gate score and pools them at each
    /// step. 0 for DeepSeek-V3.2's and GLM-5's indexers, which score every token. Left out of
    /// the JSON when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::model::is_zero")
    )]
    pub pool: u64,
}

/// Whether a count is 0 (serde leaves such fields out of the JSON).
#[cfg(feature = "serde")]
pub(crate) const fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// serde's `skip_serializing_if` for a flag that is off.
#[cfg(feature = "serde")]
pub(crate) const fn is_false(v: &bool) -> bool {
    !*v
}

/// Mixture of experts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Moe {
    /// Routed experts per MoE layer.
    pub num_experts: u64,
    /// Experts each token is routed to.
    pub experts_per_token: u64,
    /// FFN width of one routed expert.
    pub expert_intermediate_size: u64,
    /// Shared (always active) experts' total FFN width; 0 for none.
    pub shared_intermediate_size: u64,
    /// Whether the shared expert output is scaled by a learned sigmoid gate (`shared_expert_gate`, Qwen-MoE).
    pub shared_expert_gate: bool,
    /// Leading layers that use a dense FFN of `intermediate_size` instead (`first_k_dense_replace`).
    pub first_dense_layers: u64,
    /// Whether the router has a bias (gpt-oss) or a score-correction bias (DeepSeek-V3).
    pub router_bias: bool,
    /// Whether the experts' projections have biases (gpt-oss).
    pub expert_bias: bool,
}

/// The architecture numbers that decide memory.
///
/// Field names follow Hugging Face `config.json` where one exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct Architecture {
    /// The overall shape.
    pub family: Family,
    /// Vocabulary size.
    pub vocab_size: u64,
    /// Model width.
    pub hidden_size: u64,
    /// Transformer blocks (decoder blocks for Whisper).
    pub num_layers: u64,
    /// Attention (query) heads.
    pub num_heads: u64,
    /// Key/value heads: equal to `num_heads` for MHA, fewer for GQA, 1 for MQA.
    pub num_kv_heads: u64,
    /// Width of one head; often `hidden_size / num_heads`, but not always (Gemma, Qwen3).
    pub head_dim: u64,
    /// FFN inner width (dense layers).
    pub intermediate_size: u64,
    /// Gated FFN (SwiGLU/GeGLU: gate, up, down) rather than two matrices.
    pub gated_ffn: bool,
    /// Input embedding and LM head share one matrix.
    pub tied_embeddings: bool,
    /// Biases on q, k, v.
    pub qkv_bias: bool,
    /// Bias on the attention output projection.
    pub o_bias: bool,
    /// Biases on the FFN projections.
    pub mlp_bias: bool,
    /// Bias on the LM head (phi-2).
    pub lm_head_bias: bool,
    /// Norm flavour.
    pub norm: Norm,
    /// Norms per block: 2 (pre-attention, pre-FFN), 1 (parallel block: phi-2), 4 (Gemma 2/3).
    pub norms_per_layer: u64,
    /// Per-head RMSNorm on queries and keys (Qwen3, Gemma 3).
    pub qk_norm: bool,
    /// Learned absolute positions: the table size (GPT-2, BERT, Whisper decoder); 0 for rotary.
    pub learned_positions: u64,
    /// Context length the model was trained for (`max_position_embeddings`).
    pub max_position_embeddings: u64,
    /// Sliding-window width; 0 when every layer attends globally.
    pub sliding_window: u64,
    /// How many of the layers use the sliding window (Gemma 2: half; Gemma 3: 5 of 6).
    pub sliding_layers: u64,
    /// Multi-head latent attention.
    pub mla: Option<Mla>,
    /// DeepSeek Sparse Attention's lightning indexer beside the MLA layers.
    pub indexer: Option<Indexer>,
    /// Mixture of experts.
    pub moe: Option<Moe>,
    /// A hybrid stack: layers with a fixed-size state (linear attention, Mamba2, short
    /// convolution) beside the attention layers.
    pub hybrid: Option<Hybrid>,
    /// Gemma 4's per-layer-type shapes: full-attention layers of their own head width and KV
    /// heads, KV shared across the last layers, per-layer embeddings.
    pub layer_shapes: Option<LayerShapes>,
    /// DeepSeek-V4's compressed attention (a sliding window in every layer, entries pooling 4 or
    /// 128 tokens beside it), hyper-connections and grouped output projection. Left out of the
    /// JSON when `None`, so other models' JSON is as before.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub compressed: Option<Compressed>,
    /// Hyper-connection residual streams outside DeepSeek-V4 (GLM-5-Next's `hc_mult`): each
    /// block mixes that many copies of the hidden state before and after its attention and its
    /// FFN, through two `(2 + n) × n`-wide projections of the `n × hidden_size` streams; the
    /// final collapse is an unweighted mean. 0 for none (DeepSeek-V4's are in `compressed`).
    /// Left out of the JSON when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::model::is_zero")
    )]
    pub hyper_connections: u64,
    /// Multi-token-prediction layers the checkpoint ships beside its decoder
    /// (`num_nextn_predict_layers`: DeepSeek-V3/R1, GLM-4.5): not counted in the weights,
    /// loaded only as the draft of SGLang's `--speculative-algorithm NEXTN`, each a decoder
    /// layer of the target's last kind with its own `eh_proj` (2 × hidden → hidden), three
    /// norms, embedding and LM head. 0 for none. Left out of the JSON when 0.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::model::is_zero")
    )]
    pub mtp_layers: u64,
    /// Gated attention (Qwen3-Next): `q_proj` also projects a sigmoid gate per query element, so it
    /// is twice as wide.
    pub gated_attention: bool,
    /// Attention both ways over the input (EmbeddingGemma's `use_bidirectional_attention`): an
    /// encoder with a decoder's layers. The engines that run it as an encoder (vLLM's
    /// `EncoderOnlyAttention`, llama.cpp's `gemma-embedding`) keep no KV cache; transformers'
    /// model still fills the `DynamicCache` its config's `use_cache` asks for. Left out of the
    /// JSON when false.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "crate::model::is_false")
    )]
    pub bidirectional: bool,
    /// Whisper: encoder blocks (the decoder has `num_layers`).
    pub encoder_layers: u64,
    /// Whisper: encoder positions (1500 frames); ViT: patches + 1.
    pub encoder_positions: u64,
    /// ViT patch size / Whisper mel bins: the input width of the first projection.
    pub input_features: u64,
    /// Classifier classes (ViT) or BERT token types.
    pub num_labels: u64,
    /// Dropout is active in training (`resid_pdrop`, `hidden_dropout_prob` > 0): each dropout keeps a
    /// one-byte mask per element for backward.
    pub training_dropout: bool,
    /// The FFN activation is a tanh-approximated GELU built from elementary operations
    /// (`gelu_new`, `gelu_fast`), each of which saves its own intermediates for backward.
    pub composite_gelu: bool,
    /// Parameters outside the modelled blocks that the text model's own weights hold (attention
    /// sinks, full-width q/k norms, a weights header's unrecognized tensors), counted in the
    /// model dtype and never quantized.
    pub extra_params: u64,
    /// The vision (or audio) encoder and its projector (from a `vision_config`, or a preset's):
    /// loaded beside the text model by transformers, vLLM and SGLang in the model dtype, never
    /// quantized; in GGUF form a separate `mmproj` file that llama.cpp loads only with
    /// `--mmproj` (Ollama's Gemma 3 files carry it beside the text, in F16).
    pub vision_params: u64,
    /// How one image becomes tokens of the sequence, by the model's own rule (Gemma 3's fixed
    /// count, Qwen-VL's dynamic resolution, InternVL's tiles, Pixtral's rows); `None` where the
    /// model takes no images or its rule is not modelled, which refuses an `images` input.
    /// Left out of the JSON when `None`, so a text model's JSON is as before.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub image_tokens: Option<ImageTokens>,
    /// The vision tower's widths where they decide its activation peak (vLLM's start-up
    /// profile, transformers with images); `None` where the tower is not modelled. Left out of
    /// the JSON when `None`.
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub vision_tower: Option<VisionTower>,
    /// Published total for an [`Family::Opaque`] model (quick mode, ResNet, YOLO).
    pub opaque_params: u64,
    /// A convolutional network known by its parameter count: the side of the square image its
    /// per-image counts below are for (ResNet-50: 224; YOLOv5s: 640); 0 when none is known.
    pub image_size: u64,
    /// Elements that a training forward pass saves for backward per image (counted layer by
    /// layer, in the activation dtype).
    pub image_activations: u64,
    /// Max-pooling indices saved for backward per image (int64, 8 bytes each).
    pub image_indices: u64,
    /// Elements alive at once at the widest point of an inference forward pass, per image.
    pub image_working: u64,
}

/// What a weight tensor does: decides quantization, LoRA targets, and tensor-parallel sharding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
#[allow(missing_docs)]
pub enum Role {
    Embedding,
    Positions,
    LmHead,
    Q,
    K,
    V,
    O,
    /// MLA down-projections and latent up-projections.
    QA,
    QB,
    KvA,
    KvB,
    Gate,
    Up,
    Down,
    Router,
    ExpertGate,
    ExpertUp,
    ExpertDown,
    /// A state mixer's input projection (Gated DeltaNet's `in_proj_qkvz` and `in_proj_ba`,
    /// Mamba2's and LFM2's `in_proj`).
    MixerIn,
    /// A state mixer's output projection (`out_proj`).
    MixerOut,
    /// Norm weights and biases, biases of projections: 1-D, never quantized.
    Vector,
    /// Input projections of vision/audio stems, pooler, classifier, extra parameters.
    Other,
    /// The vision (or audio) encoder and projector of a language model
    /// ([`Architecture::vision_params`]).
    Vision,
    /// DeepSeek Sparse Attention's indexer projections (`wq_b`, `wk`, `weights_proj`):
    /// replicated across tensor-parallel ranks (vLLM's `ReplicatedLinear`), counted unquantized.
    Indexer,
}

impl Role {
    /// A 2-D projection inside a transformer block (what quantizers and LoRA touch).
    pub const fn is_block_linear(self) -> bool {
        (self.is_attention() && !matches!(self, Role::Indexer))
            || matches!(
                self,
                Role::Gate
                    | Role::Up
                    | Role::Down
                    | Role::ExpertGate
                    | Role::ExpertUp
                    | Role::ExpertDown
                    | Role::MixerIn
                    | Role::MixerOut
            )
    }

    /// A projection of the attention block: queries, keys, values, output, MLA's down- and
    /// up-projections and DSA's indexer.
    pub const fn is_attention(self) -> bool {
        matches!(
            self,
            Role::Q
                | Role::K
                | Role::V
                | Role::O
                | Role::QA
                | Role::QB
                | Role::KvA
                | Role::KvB
                | Role::Indexer
        )
    }

    /// Routed-expert weights.
    pub const fn is_expert(self) -> bool {
        matches!(self, Role::ExpertGate | Role::ExpertUp | Role::ExpertDown)
    }

    /// The Hugging Face module name LoRA configs use for it (`q_proj`, `down_proj`…).
    pub const fn module_name(self) -> &'static str {
        match self {
            Role::Q => "q_proj",
            Role::K => "k_proj",
            Role::V => "v_proj",
            Role::O => "o_proj",
            Role::QA => "q_a_proj",
            Role::QB => "q_b_proj",
            Role::KvA => "kv_a_proj_with_mqa",
            Role::KvB => "kv_b_proj",
            Role::Gate | Role::ExpertGate => "gate_proj",
            Role::Up | Role::ExpertUp => "up_proj",
            Role::Down | Role::ExpertDown => "down_proj",
            Role::Router => "gate",
            Role::MixerIn => "in_proj",
            Role::MixerOut => "out_proj",
            Role::Embedding => "embed_tokens",
            Role::LmHead => "lm_head",
            Role::Positions => "embed_positions",
            Role::Vector => "norm",
            Role::Other => "other",
            Role::Vision => "vision_tower",
            Role::Indexer => "indexer",
        }
    }
}

/// One weight tensor (or `count` identical ones, e.g. the routed experts of a layer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tensor {
    /// What it does.
    pub role: Role,
    /// Block index, or `None` outside the blocks.
    pub layer: Option<u64>,
    /// Input width (columns of `y = W x`); 1 for vectors.
    pub rows_in: u64,
    /// Output width.
    pub rows_out: u64,
    /// Identical copies (experts).
    pub count: u64,
}

impl Tensor {
    /// Elements in all copies.
    pub const fn numel(&self) -> u64 {
        self.rows_in
            .saturating_mul(self.rows_out)
            .saturating_mul(self.count)
    }
}

/// Largest value accepted for any width or count in an architecture.
pub const MAX_DIM: u64 = 1 << 24;
/// Largest layer count accepted.
pub const MAX_LAYERS: u64 = 1024;
/// The most elements one image may hold in a network's per-image counts (10¹², 4 TB in fp32).
pub const MAX_IMAGE_ELEMENTS: u64 = 1_000_000_000_000;

impl Architecture {
    /// An opaque model of `params` parameters (the guide's quick mode).
    pub const fn opaque(params: u64) -> Architecture {
        Architecture {
            family: Family::Opaque,
            vocab_size: 0,
            hidden_size: 0,
            num_layers: 0,
            num_heads: 0,
            num_kv_heads: 0,
            head_dim: 0,
            intermediate_size: 0,
            gated_ffn: false,
            tied_embeddings: false,
            qkv_bias: false,
            o_bias: false,
            mlp_bias: false,
            lm_head_bias: false,
            norm: Norm::Rms,
            norms_per_layer: 0,
            qk_norm: false,
            learned_positions: 0,
            max_position_embeddings: 0,
            sliding_window: 0,
            sliding_layers: 0,
            mla: None,
            indexer: None,
            moe: None,
            hybrid: None,
            layer_shapes: None,
            compressed: None,
            hyper_connections: 0,
            mtp_layers: 0,
            gated_attention: false,
            bidirectional: false,
            encoder_layers: 0,
            encoder_positions: 0,
            input_features: 0,
            num_labels: 0,
            training_dropout: false,
            composite_gelu: false,
            extra_params: 0,
            vision_params: 0,
            image_tokens: None,
            vision_tower: None,
            opaque_params: params,
            image_size: 0,
            image_activations: 0,
            image_indices: 0,
            image_working: 0,
        }
    }

    /// Whether per-image activation counts are known (a convolutional network's preset).
    pub const fn has_image_counts(&self) -> bool {
        self.image_size > 0
    }

    /// Whether the architecture is known beyond its parameter count.
    pub const fn is_detailed(&self) -> bool {
        !matches!(self.family, Family::Opaque)
    }

    /// Whether it generates tokens with a KV cache: a decoder, not one whose attention is
    /// bidirectional (an encoder with a decoder's layers, [`Architecture::bidirectional`]).
    pub const fn is_generative(&self) -> bool {
        matches!(self.family, Family::CausalLm | Family::Whisper) && !self.bidirectional
    }

    /// Layers that attend over the whole context (the other attention layers use the sliding
    /// window; a hybrid's state layers attend over nothing).
    pub const fn global_layers(&self) -> u64 {
        if self.sliding_window == 0 {
            self.attention_layers()
        } else {
            self.attention_layers().saturating_sub(self.sliding_layers)
        }
    }

    /// The attention layers of a stage of `layers` blocks (a pipeline stage, or the blocks
    /// llama.cpp puts on one GPU): `(full, sliding)`, the one answer to "how many KV-cache layers
    /// of each kind sit on this stage". The stage holds the model's share of its full layers
    /// rounded up: a full layer keeps the whole context, so the busiest stage is counted with the
    /// larger count (Gemma 3 27B over four stages of 16 blocks: its 10 full layers of 62 fall 2,
    /// 3, 2 and 3 to a stage, and 10 × 16 / 62 = 2.6 is counted as 3). A hybrid's stage holds its
    /// share of the attention layers, rounded up the same way. Gemma 4's KV-shared layers,
    /// which hold no cache, are left out.
    pub const fn stage_layers(&self, layers: u64) -> (u64, u64) {
        let n = if self.num_layers == 0 {
            1
        } else {
            self.num_layers
        };
        // Gemma 4's KV-shared layers hold no cache. They are the last ones, so a stage's share
        // is taken of every layer (the first stages cache all theirs) and capped by the layers
        // that cache at all.
        let (shared_full, shared_sliding) = self.kv_shared_layers();
        let full = self.global_layers().saturating_mul(layers).div_ceil(n);
        let full_caching = if shared_full + shared_sliding == 0 {
            full
        } else {
            self.global_layers().saturating_sub(shared_full)
        };
        let full = if full < full_caching {
            full
        } else {
            full_caching
        };
        let full = if full < layers { full } else { layers };
        if self.sliding_window == 0 {
            return (full, 0);
        }
        let attention = self.attention_layers().saturating_mul(layers).div_ceil(n);
        let caching = if shared_full + shared_sliding == 0 {
            attention
        } else {
            self.attention_layers()
                .saturating_sub(shared_full + shared_sliding)
        };
        let attention = if attention < caching {
            attention
        } else {
            caching
        };
        let attention = if attention < layers {
            attention
        } else {
            layers
        };
        (full, attention.saturating_sub(full))
    }

    /// KV-cache elements per token per layer: `2 × kv_heads × head_dim`, or for MLA the latent
    /// plus the rotary key, `kv_lora_rank + qk_rope_head_dim`.
    pub const fn kv_elements_per_token_layer(&self) -> u64 {
        match self.mla {
            Some(m) => m.kv_lora_rank + m.qk_rope_head_dim,
            None => 2 * self.num_kv_heads * self.head_dim,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every preset's architecture (MLA, MoE, encoders, opaque models among them) reads back what
    /// `Serialize` writes; the errors are serde's, which the CLI, the npm package and the site
    /// show.
    #[cfg(feature = "serde")]
    #[test]
    fn architectures_read_back_what_serialize_writes() {
        use alloc::string::ToString;
        let presets = crate::presets::presets();
        assert!(presets.len() > 40);
        for p in presets {
            let json = serde_json::to_string(&p.arch).unwrap();
            let back: Architecture = serde_json::from_str(&json).unwrap();
            assert_eq!(back, p.arch, "{}", p.id);
        }
        // Fields left out take their defaults; an unknown one is named.
        let a: Architecture = serde_json::from_str(r#"{"hidden_size": 64}"#).unwrap();
        assert_eq!(
            a,
            Architecture {
                hidden_size: 64,
                ..Architecture::default()
            }
        );
        let e = serde_json::from_str::<Architecture>(r#"{"hidden": 64}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown field `hidden`, expected one of `family`"),
            "{e}"
        );
        // An expert or latent-attention block needs every field; the first one absent is named.
        let e = serde_json::from_str::<Moe>(
            r#"{"num_experts": 8, "experts_per_token": 2, "expert_intermediate_size": 14336}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("missing field `shared_intermediate_size`"),
            "{e}"
        );
        let e = serde_json::from_str::<Mla>(r#"{"q_lora_rank": 0, "v_rank": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown field `v_rank`, expected one of `q_lora_rank`"),
            "{e}"
        );
        // A unit enum by its wire name, as the site's form reads a choice (serde's string
        // deserializer); an unknown name lists the known ones.
        let d = serde::de::value::StrDeserializer::<serde::de::value::Error>::new("adamw-8bit");
        assert_eq!(
            <crate::estimate::Optimizer as serde::Deserialize>::deserialize(d).unwrap(),
            crate::estimate::Optimizer::Adamw8bit
        );
        let e = serde_json::from_str::<crate::estimate::Engine>("\"x\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown variant `x`, expected one of `hf`, `vllm`, `llamacpp`"),
            "{e}"
        );
    }

    /// A Llama-2-7B-shaped model (32,000 vocab, 4096 hidden, 32 layers, 32 heads and KV heads,
    /// 11,008 FFN, 4,096 positions): the solvers' and layouts' test model.
    pub(crate) fn llama2_7b() -> Architecture {
        Architecture {
            family: Family::CausalLm,
            vocab_size: 32_000,
            hidden_size: 4096,
            num_layers: 32,
            num_heads: 32,
            num_kv_heads: 32,
            head_dim: 128,
            intermediate_size: 11_008,
            gated_ffn: true,
            norms_per_layer: 2,
            max_position_embeddings: 4096,
            ..Architecture::default()
        }
    }

    /// Llama-3.1-8B's config.json: 128256 vocab, 4096 hidden, 32 layers, 32 heads, 8 KV heads,
    /// 14336 FFN, untied.
    pub(crate) fn llama31_8b() -> Architecture {
        Architecture {
            family: Family::CausalLm,
            vocab_size: 128_256,
            hidden_size: 4096,
            num_layers: 32,
            num_heads: 32,
            num_kv_heads: 8,
            head_dim: 128,
            intermediate_size: 14_336,
            gated_ffn: true,
            norms_per_layer: 2,
            max_position_embeddings: 131_072,
            ..Architecture::default()
        }
    }

    #[test]
    fn kv_per_token_gqa() {
        // 2 × 8 KV heads × 128 = 2048 elements per layer; bf16 × 32 layers = 131,072 B = 128 KiB.
        assert_eq!(
            llama31_8b().kv_elements_per_token_layer() * 2 * 32,
            128 * 1024
        );
    }
}
