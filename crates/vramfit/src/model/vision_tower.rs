//! A vision tower's shape where it decides the encoder's activation peak (issue 42): the widths
//! of its pre-norm blocks, what one patch's input holds, how many patches make one embedding of
//! the language model's sequence, and what the tower keeps beside its residual stream (Qwen's
//! fp32 rotary tables and learned positions, Qwen3-VL's DeepStack features).
//!
//! The peak is one block's working set over the residual stream, the same in every block, plus
//! what the tower keeps for the whole forward; the attention matrix is not materialised (the
//! flash/SDPA kernels vLLM's and transformers' CUDA runs take). Per patch, in the model's dtype
//! `d` unless said (transformers 5.24's kernels; `tests/reference/vision-encoder-peaks.csv`):
//! - the stream, `stream` tensors of `h·d`: a Qwen block (`x + attn(norm1(x))`) holds its
//!   input and the norm's output (2); a SigLIP layer (`residual = x; x = norm(x); …`) its
//!   input, the residual after the attention and the norm's output, and the tower keeps the
//!   embeddings' output through the encoder (4); InternViT's layer also keeps its layer-scaled
//!   attention output (5); Pixtral's is counted as InternViT's (5, its `ln_pre` output kept);
//! - the attention: the fused or separate q/k/v `3h·d`, then for a rotary tower (Qwen) q and k
//!   cast to fp32 and rotated there (`apply_rotary_pos_emb_vision`: six fp32 tensors of `h` at
//!   once, `24h` B), for the others the attention's output and its contiguous copy `2h·d`;
//! - the MLP: its intermediate twice (fc1 and the activation, `2I·d`; three times for a gated
//!   MLP: the activation, the up projection and their product);
//! - kept: a rotary tower's learned positions in fp32 (`4h`), its cos and sin tables in fp32
//!   (`8·head_dim`) and its index and weight tensors (64 B); the DeepStack features, `levels ×
//!   out_hidden · d` per embedding.
//!
//! Gemma 4's tower (`Gemma4VisionModel`) is SigLIP's stream with a gated MLP (`stream` 4,
//! three intermediates) and a 2-D rotary whose cos and sin tables are cast to the model dtype and
//! kept through the encoder, with the padding mask (`axial_rope`: `2·head_dim·d + 2` B a patch),
//! against `tests/reference/gemma4-vision-peaks.csv`.
//!
//! Pixtral is charged the rotary tower's fp32 attention, which transformers' Pixtral does in
//! the model dtype: its estimate errs high (not in the reference).

/// The tower's numbers that decide its activation peak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VisionTower {
    /// The blocks (`vision_config.depth` for Qwen's towers, `num_hidden_layers` for SigLIP,
    /// InternViT and Pixtral): what SGLang's cut of `mem_fraction_static` for a vision model
    /// reads (`estimate::sglang::vision`), not the activation peak, which is one block's. A
    /// tower given without it (JSON written before the field) reads 24, SGLang's own default
    /// for a `vision_config` without `num_hidden_layers`.
    #[cfg_attr(feature = "serde", serde(default = "sglang_default_layers"))]
    pub layers: u64,
    /// The blocks' width (`vision_config.hidden_size`).
    pub hidden: u64,
    /// The MLP's width (`vision_config.intermediate_size`).
    pub intermediate: u64,
    /// One attention head's width (`hidden_size / num_heads`).
    pub head_dim: u64,
    /// Input elements of one patch: channels × temporal patch × patch² (Qwen: 3 × 2 × 16²).
    pub pixels: u64,
    /// Tower patches per embedding of the sequence: Qwen's and Pixtral's `spatial_merge_size²`,
    /// InternVL's pixel shuffle `⌊1 / downsample_ratio⌋²`, Gemma 3's pooling (4,096 / 256).
    pub patches_per_token: u64,
    /// Tokens the tower adds per tile beside its patches (InternViT's CLS: 1).
    pub cls_per_tile: u64,
    /// Tensors of the blocks' width alive beside a block's working set (module docs).
    pub stream: u64,
    /// Rotary positions applied in fp32 inside the attention (Qwen-VL's towers).
    pub rope: bool,
    /// A gated MLP (Pixtral's SwiGLU): three intermediates at once, not two.
    pub gated: bool,
    /// Gemma 4's axial 2-D rotary: its cos and sin tables in the model dtype and its padding
    /// masks kept through the encoder (`2·head_dim·d + 2` B a patch). Absent in JSON written
    /// before the field: false.
    #[cfg_attr(feature = "serde", serde(default))]
    pub axial_rope: bool,
    /// DeepStack levels kept for the language model (Qwen3-VL: 3), each `out_hidden` wide.
    pub deepstack: u64,
    /// The merger's output width (`out_hidden_size`, the text width).
    pub out_hidden: u64,
}

/// SGLang's `getattr(vision_config, "num_hidden_layers", 24)` default.
#[cfg(feature = "serde")]
fn sglang_default_layers() -> u64 {
    24
}

/// Small tensors beside the per-patch ones (cumulative sequence lengths, grid indices) and the
/// caching allocator's 512-byte rounding of each: 2 MiB, above every reference row's residue.
pub const TOWER_SLACK: u64 = 2 << 20;

impl VisionTower {
    /// The tower's patches for `items` items of `embeds` embeddings each, with `tiles` tiles an
    /// item (InternVL; 1 elsewhere).
    pub fn patches(&self, items: u64, embeds: u64, tiles: u64) -> u64 {
        items.saturating_mul(
            embeds
                .saturating_mul(self.patches_per_token)
                .saturating_add(tiles.saturating_mul(self.cls_per_tile)),
        )
    }

    /// The pixel input of `patches` patches at `dtype_bytes` an element (the processor's fp32,
    /// or its copy in the tower's dtype that the forward takes).
    pub fn input_bytes(&self, patches: u64, dtype_bytes: u64) -> u64 {
        patches
            .saturating_mul(self.pixels)
            .saturating_mul(dtype_bytes)
    }

    /// One patch's share of the peak: the stream, the larger of the attention's and the MLP's
    /// working sets, and what a rotary tower keeps.
    pub fn per_patch_bytes(&self, dtype_bytes: u64) -> u64 {
        let (h, d) = (self.hidden, dtype_bytes);
        let stream = self.stream * h * d;
        let attention = if self.rope {
            3 * h * d + 24 * h
        } else {
            5 * h * d
        };
        let mlp = self.intermediate * d * if self.gated { 3 } else { 2 };
        let kept = if self.rope {
            4 * h + 8 * self.head_dim + 64
        } else if self.axial_rope {
            2 * self.head_dim * d + 2
        } else {
            0
        };
        stream + attention.max(mlp) + kept
    }

    /// The DeepStack features kept for `embeds` embeddings: levels × embeds × out_hidden × d.
    pub fn deepstack_bytes(&self, embeds: u64, dtype_bytes: u64) -> u64 {
        embeds
            .saturating_mul(self.deepstack)
            .saturating_mul(self.out_hidden)
            .saturating_mul(dtype_bytes)
    }

    /// The forward's peak beyond its weights and input, for `patches` patches giving `embeds`
    /// embeddings in all: patches × per patch, the DeepStack features and the slack.
    pub fn peak_bytes(&self, patches: u64, embeds: u64, dtype_bytes: u64) -> u64 {
        patches
            .saturating_mul(self.per_patch_bytes(dtype_bytes))
            .saturating_add(self.deepstack_bytes(embeds, dtype_bytes))
            .saturating_add(TOWER_SLACK)
    }
}

#[cfg(test)]
mod tests {
    use super::{TOWER_SLACK, VisionTower};

    const CSV: &str = include_str!("../../../../tests/reference/vision-encoder-peaks.csv");

    /// The reference's towers at their hub widths (the presets' `vision_tower` rows).
    fn tower(name: &str) -> VisionTower {
        let base = VisionTower {
            layers: 27,
            hidden: 1152,
            intermediate: 4304,
            head_dim: 72,
            pixels: 588,
            patches_per_token: 16,
            stream: 4,
            cls_per_tile: 0,
            rope: false,
            gated: false,
            axial_rope: false,
            deepstack: 0,
            out_hidden: 0,
        };
        match name {
            "qwen3_vl_8b" => VisionTower {
                pixels: 1536,
                patches_per_token: 4,
                stream: 2,
                rope: true,
                deepstack: 3,
                out_hidden: 4096,
                ..base
            },
            "siglip_gemma3" => base,
            "internvit_300m" => VisionTower {
                layers: 24,
                hidden: 1024,
                intermediate: 4096,
                head_dim: 64,
                patches_per_token: 4,
                stream: 5,
                cls_per_tile: 1,
                ..base
            },
            "gemma4_e2b" => VisionTower {
                layers: 16,
                hidden: 768,
                intermediate: 3072,
                head_dim: 64,
                pixels: 768,
                patches_per_token: 9,
                gated: true,
                axial_rope: true,
                ..base
            },
            other => panic!("no tower {other}"),
        }
    }

    /// A tower's JSON from before `layers` reads SGLang's default 24 blocks.
    #[cfg(feature = "serde")]
    #[test]
    fn a_tower_without_layers_reads_sglangs_default() {
        let mut v = serde_json::to_value(tower("qwen3_vl_8b")).unwrap();
        v.as_object_mut().unwrap().remove("layers");
        let t: VisionTower = serde_json::from_value(v).unwrap();
        assert_eq!(t.layers, 24);
    }

    /// Every row of `tests/reference/vision-encoder-peaks.csv` (transformers 5.24, bf16, sdpa:
    /// the live storages of the tower's forward beyond its weights and pixels): the estimate is
    /// never below it and at most the 2 MiB slack above. By hand, Qwen3-VL-8B's tower at 1,024
    /// patches: per patch 2·1152·2 + 3·1152·2 + 24·1152 + 4·1152 + 8·72 + 64 = 44,416 B, so
    /// 45,481,984 B, plus its 3 DeepStack features of 256 embeddings × 4,096 × 2 B = 6,291,456:
    /// 51,773,440 B beside the reference's 51,774,464 (1,024 B of small index tensors), and
    /// 53,870,592 B with the slack.
    #[test]
    fn peaks_cover_the_reference() {
        let mut rows = 0;
        for line in CSV.lines().skip(1) {
            let f: alloc::vec::Vec<&str> = line.split(',').collect();
            let t = tower(f[0]);
            let items: u64 = f[1].parse().unwrap();
            let patches: u64 = f[3].parse().unwrap();
            let reference: u64 = f[7].parse().unwrap();
            let embeds = (patches - items * t.cls_per_tile) / t.patches_per_token;
            let est = t.peak_bytes(patches, embeds, 2);
            assert!(
                est >= reference && est - reference <= TOWER_SLACK,
                "{line}: {est}"
            );
            rows += 1;
        }
        assert_eq!(rows, 8);
    }

    /// Every row of `tests/reference/gemma4-vision-peaks.csv` (transformers 5.25's
    /// `Gemma4VisionModel` at google/gemma-4-E2B-it's widths, bf16, sdpa), as above. By hand,
    /// per patch: the stream 4 × 768 × 2 = 6,144 B, the gated MLP 3 × 3,072 × 2 = 18,432 B
    /// (above the attention's 5 × 768 × 2 = 7,680), the cos and sin tables 2 × 64 × 2 = 256 B
    /// and 2 B of masks: 24,834 B, so the largest image's 2,520 patches (280 soft tokens × 3²)
    /// 62,581,680 B beside the reference's 62,581,760 (80 B of small tensors), and
    /// 64,678,832 B with the slack.
    #[test]
    fn gemma4_peaks_cover_the_reference() {
        let csv = include_str!("../../../../tests/reference/gemma4-vision-peaks.csv");
        let t = tower("gemma4_e2b");
        assert_eq!(t.per_patch_bytes(2), 24_834);
        assert_eq!(t.peak_bytes(2520, 280, 2), 64_678_832);
        let mut rows = 0;
        for line in csv.lines().skip(1) {
            let f: alloc::vec::Vec<&str> = line.split(',').collect();
            let patches: u64 = f[3].parse().unwrap();
            let reference: u64 = f[7].parse().unwrap();
            let est = t.peak_bytes(patches, patches / 9, 2);
            assert!(
                est >= reference && est - reference <= TOWER_SLACK,
                "{line}: {est}"
            );
            rows += 1;
        }
        assert_eq!(rows, 5);
    }
}
