//! Architecture validation: every field against its accepted range, so that the arithmetic
//! afterwards cannot overflow or divide by zero.

use super::{Architecture, MAX_DIM, MAX_IMAGE_ELEMENTS, MAX_LAYERS};
use crate::error::{ErrorKind, InputError, Result};

impl Architecture {
    /// Checks every field against its accepted range, so that arithmetic afterwards cannot
    /// overflow or divide by zero.
    pub fn validate(&self, field: &str) -> Result<()> {
        if !self.is_detailed() {
            return self.validate_opaque(field);
        }
        let f = |name: &str| alloc::format!("{field}.{name}");
        let check = |name: &str, v: u64, lo: u64, hi: u64| in_range(field, name, v, lo, hi);
        check("hidden_size", self.hidden_size, 1, MAX_DIM)?;
        check("num_layers", self.num_layers, 1, MAX_LAYERS)?;
        check("num_heads", self.num_heads, 1, 1 << 14)?;
        check("num_kv_heads", self.num_kv_heads, 1, self.num_heads)?;
        check("head_dim", self.head_dim, 1, 1 << 14)?;
        check("intermediate_size", self.intermediate_size, 0, MAX_DIM)?;
        check("vocab_size", self.vocab_size, 0, MAX_DIM)?;
        check("learned_positions", self.learned_positions, 0, MAX_DIM)?;
        check(
            "max_position_embeddings",
            self.max_position_embeddings,
            0,
            1 << 26,
        )?;
        check("sliding_window", self.sliding_window, 0, 1 << 26)?;
        check("sliding_layers", self.sliding_layers, 0, self.num_layers)?;
        check("norms_per_layer", self.norms_per_layer, 0, 8)?;
        check("encoder_layers", self.encoder_layers, 0, MAX_LAYERS)?;
        check("encoder_positions", self.encoder_positions, 0, MAX_DIM)?;
        check("input_features", self.input_features, 0, MAX_DIM)?;
        check("num_labels", self.num_labels, 0, MAX_DIM)?;
        check(
            "extra_params",
            self.extra_params,
            0,
            crate::units::MAX_PARAMS,
        )?;
        check(
            "vision_params",
            self.vision_params,
            0,
            crate::units::MAX_PARAMS,
        )?;
        if let Some(t) = self.image_tokens {
            self.validate_image_tokens(t, field)?;
        }
        if !self.num_heads.is_multiple_of(self.num_kv_heads) {
            return Err(InputError::new(
                ErrorKind::Conflict,
                f("num_kv_heads"),
                alloc::format!(
                    "{} does not divide num_heads = {}",
                    self.num_kv_heads,
                    self.num_heads
                ),
                "a divisor of num_heads",
            ));
        }
        if let Some(ix) = self.indexer {
            if self.mla.is_none() {
                return Err(InputError::new(
                    ErrorKind::Conflict,
                    f("indexer"),
                    "a sparse-attention indexer without multi-head latent attention",
                    "an indexer beside an mla block (DeepSeek-V3.2, GLM-5)",
                ));
            }
            check("indexer.heads", ix.heads, 1, 1 << 14)?;
            check("indexer.head_dim", ix.head_dim, 1, 1 << 14)?;
            check("indexer.topk", ix.topk, 1, 1 << 26)?;
            check("indexer.layers", ix.layers, 0, self.attention_layers())?;
            check("indexer.pool", ix.pool, 0, 1 << 16)?;
        }
        check("hyper_connections", self.hyper_connections, 0, 64)?;
        check("mtp_layers", self.mtp_layers, 0, MAX_LAYERS)?;
        if let Some(m) = self.mla {
            check("mla.q_lora_rank", m.q_lora_rank, 0, MAX_DIM)?;
            check("mla.kv_lora_rank", m.kv_lora_rank, 1, MAX_DIM)?;
            check("mla.qk_rope_head_dim", m.qk_rope_head_dim, 0, 1 << 14)?;
            check("mla.qk_nope_head_dim", m.qk_nope_head_dim, 0, 1 << 14)?;
            check("mla.v_head_dim", m.v_head_dim, 1, 1 << 14)?;
        }
        if let Some(h) = self.hybrid {
            self.validate_hybrid(field, &h)?;
        }
        if let Some(c) = self.compressed {
            self.validate_compressed(field, &c)?;
        }
        if let Some(m) = self.moe {
            check("moe.num_experts", m.num_experts, 1, 1 << 16)?;
            check(
                "moe.experts_per_token",
                m.experts_per_token,
                1,
                m.num_experts,
            )?;
            check(
                "moe.expert_intermediate_size",
                m.expert_intermediate_size,
                1,
                MAX_DIM,
            )?;
            check(
                "moe.shared_intermediate_size",
                m.shared_intermediate_size,
                0,
                MAX_DIM,
            )?;
            check(
                "moe.first_dense_layers",
                m.first_dense_layers,
                0,
                self.num_layers,
            )?;
        }
        Ok(())
    }

    /// A hybrid stack's layer counts (each within the layers, attention and state layers apart
    /// unless they run side by side, the sliding layers among the attention layers) and its
    /// mixer's shapes.
    fn validate_hybrid(&self, field: &str, h: &super::Hybrid) -> Result<()> {
        let check = |name: &str, v: u64, lo: u64, hi: u64| in_range(field, name, v, lo, hi);
        let layers = self.num_layers;
        check("hybrid.state_layers", h.state_layers, 0, layers)?;
        let room = if h.parallel {
            layers
        } else {
            layers - h.state_layers
        };
        check("hybrid.attention_layers", h.attention_layers, 0, room)?;
        check("hybrid.ffn_layers", h.ffn_layers, 0, layers)?;
        check("sliding_layers", self.sliding_layers, 0, h.attention_layers)?;
        check("hybrid.conv_kernel", h.conv_kernel, 1, 64)?;
        if h.mixer == super::StateMixer::ShortConv {
            return Ok(());
        }
        check("hybrid.heads", h.heads, 1, 1 << 14)?;
        check("hybrid.groups", h.groups, 1, h.heads)?;
        check("hybrid.state_size", h.state_size, 1, 1 << 14)?;
        check("hybrid.head_dim", h.head_dim, 1, 1 << 14)?;
        if !h.heads.is_multiple_of(h.groups) {
            return Err(InputError::new(
                ErrorKind::Conflict,
                alloc::format!("{field}.hybrid.groups"),
                alloc::format!("{} does not divide hybrid.heads = {}", h.groups, h.heads),
                "a divisor of hybrid.heads",
            ));
        }
        Ok(())
    }

    /// [`Architecture::validate`] for a model known by its parameter count alone: that count,
    /// and a convolutional network's per-image counts, with no other field set.
    fn validate_opaque(&self, field: &str) -> Result<()> {
        let f = |name: &str| alloc::format!("{field}.{name}");
        let check = |name: &str, v: u64, lo: u64, hi: u64| in_range(field, name, v, lo, hi);
        // Known by its parameter count alone: any other field would reach arithmetic that
        // only a detailed architecture's ranges keep from overflowing (the fuzzer found
        // 8.3e18 layers in vLLM's CUDA-graph pool and 1.8e19-wide FFNs in HF inference).
        let counts = Architecture {
            image_size: self.image_size,
            image_activations: self.image_activations,
            image_indices: self.image_indices,
            image_working: self.image_working,
            ..Architecture::opaque(self.opaque_params)
        };
        if *self != counts {
            let named = [
                ("num_layers", self.num_layers),
                ("hidden_size", self.hidden_size),
                ("num_heads", self.num_heads),
                ("num_kv_heads", self.num_kv_heads),
                ("head_dim", self.head_dim),
                ("intermediate_size", self.intermediate_size),
                ("vocab_size", self.vocab_size),
            ]
            .into_iter()
            .find(|(_, v)| *v != 0);
            return Err(InputError::new(
                ErrorKind::Conflict,
                named.map_or_else(|| alloc::string::String::from(field), |(n, _)| f(n)),
                "a model known by its parameter count alone (family \"opaque\") takes no \
                 other architecture field",
                "family \"opaque\" with opaque_params (and a convolutional network's image_* \
                 counts), or a detailed family with its fields",
            ));
        }
        if self.image_size > 0
            || self.image_activations > 0
            || self.image_indices > 0
            || self.image_working > 0
        {
            // Per-image counts come together: the image they are for, and what training and
            // inference hold per image.
            check("image_size", self.image_size, 1, 1 << 16)?;
            check(
                "image_activations",
                self.image_activations,
                1,
                MAX_IMAGE_ELEMENTS,
            )?;
            check("image_indices", self.image_indices, 0, MAX_IMAGE_ELEMENTS)?;
            check("image_working", self.image_working, 1, MAX_IMAGE_ELEMENTS)?;
        }
        check("params", self.opaque_params, 1, crate::units::MAX_PARAMS)
    }
}

/// `field.name` holds `v`, which must be from `lo` to `hi`. Inlined, with the error built out
/// of line: every estimate checks its architecture's fields.
#[inline]
pub(super) fn in_range(field: &str, name: &str, v: u64, lo: u64, hi: u64) -> Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(out_of_range(field, name, v, lo, hi))
    }
}

#[cold]
fn out_of_range(field: &str, name: &str, v: u64, lo: u64, hi: u64) -> InputError {
    input_error!(
        OutOfRange,
        alloc::format!("{field}.{name}"),
        ["{v} is out of range"],
        ["{v} 超出范围"],
        ["an integer from {lo} to {hi}"],
        ["整数，从 {lo} 到 {hi}"],
    )
}

impl Architecture {
    /// The image-token rule's numbers in the ranges that keep its count below 2^40 (sides of
    /// at most 2^15 pixels in, at least one pixel per patch).
    fn validate_image_tokens(&self, t: super::ImageTokens, field: &str) -> Result<()> {
        use super::ImageTokens as T;
        let check = |name: &str, v: u64, lo: u64, hi: u64| {
            in_range(field, &alloc::format!("image_tokens.{name}"), v, lo, hi)
        };
        match t {
            T::Fixed { tokens } => check("tokens", tokens, 1, 1 << 20),
            T::Dynamic {
                patch_size,
                merge_size,
                min_pixels,
                max_pixels,
                deepstack,
            } => {
                check("deepstack", deepstack, 0, 64)?;
                check("patch_size", patch_size, 1, 1024)?;
                check("merge_size", merge_size, 1, 64)?;
                check("max_pixels", max_pixels, 1, 1 << 30)?;
                check("min_pixels", min_pixels, 0, max_pixels)
            }
            T::Tiles {
                tile_size,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            } => {
                check("tile_size", tile_size, 1, 1 << 14)?;
                check("max_tiles", max_tiles, 1, 64)?;
                check("min_tiles", min_tiles, 1, max_tiles)?;
                check("tokens_per_tile", tokens_per_tile, 1, 1 << 16)
            }
            T::Rows {
                patch_size,
                merge_size,
                longest_edge,
            } => {
                check("patch_size", patch_size, 1, 1024)?;
                check("merge_size", merge_size, 1, 16)?;
                check("longest_edge", longest_edge, 1, 1 << 15)
            }
            T::Pooled {
                patch_size,
                pooling,
                max_soft_tokens,
            } => {
                check("patch_size", patch_size, 1, 1024)?;
                check("pooling", pooling, 1, 64)?;
                check("max_soft_tokens", max_soft_tokens, 1, 1 << 16)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Architecture;
    use super::super::tests::llama31_8b;

    #[test]
    fn validation_names_the_field() {
        let mut a = llama31_8b();
        a.num_kv_heads = 7;
        assert_eq!(a.validate("model").unwrap_err().field, "model.num_kv_heads");
        a.num_kv_heads = 0;
        assert_eq!(a.validate("model").unwrap_err().field, "model.num_kv_heads");
        let mut b = llama31_8b();
        b.num_layers = 0;
        assert!(
            b.validate("model")
                .unwrap_err()
                .accepted
                .contains("1 to 1024")
        );
        assert!(Architecture::opaque(0).validate("model").is_err());
    }
}
