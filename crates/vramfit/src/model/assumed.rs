//! The decoder shape assumed for a model known by its parameter count alone (the guide's quick
//! mode, `params: "7B"`): enough of a shape to count its KV cache rather than drop it.
//!
//! The rule, fitted to the catalog's dense decoders (`data/models`) so that it does not
//! under-count the grouped-query (GQA) ones:
//!
//! - 8 KV heads of 128 (Llama 3's, Qwen 2.5/3's, Mistral's GQA shape);
//! - `layers = ⌈28.5 × ⁴√(P / 10⁹)⌉`: 47 at 7B, 48 at 8B, 83 at 70B, 128 at 405B. Covering
//!   every dense GQA preset's cache per token takes at least 28.07 (Llama 3.1 405B's 126 layers
//!   of 2,048 values; Llama 3 70B's 80 next, 27.6; Gemma 2 9B at 32K, 27.1); 28.5 leaves a
//!   margin of 1.5 %. A preset with sliding windows is covered at a context of 32K and beyond,
//!   where its windows cap its sliding layers (Gemma 2/3's 256-wide heads keep more within their
//!   window: the note's full-attention figure bounds them);
//! - at least 28 layers from half a billion parameters: Qwen3 keeps 28 layers down to 0.6B
//!   (Qwen3-Embedding-0.6B, 595,776,512 parameters, would need 31.9 in place of 28.5), where
//!   the fourth root gives 26.
//!
//! A model of the same size with full multi-head attention (a KV head per query head: Llama 2,
//! GPT-NeoX, Phi-2) keeps `2 × layers × hidden` a token, with `hidden = √(P / (12 × layers))`
//! from the usual `P ≈ 12 × layers × hidden²`: the figure the note states beside the assumed one,
//! at least every MHA preset's real cache in the catalog.

use super::{Architecture, Family, MAX_LAYERS};

/// KV heads of the assumed shape.
pub const ASSUMED_KV_HEADS: u64 = 8;
/// Head size of the assumed shape.
pub const ASSUMED_HEAD_DIM: u64 = 128;

/// Fewest layers assumed from half a billion parameters on (Qwen3's 28 at 0.6B).
const SMALL_DEEP_LAYERS: u64 = 28;
/// Where [`SMALL_DEEP_LAYERS`] starts.
const SMALL_DEEP_FROM: u64 = 500_000_000;

/// `⌈28.5 × ⁴√(params / 10⁹)⌉`, in integers: the smallest `L` with `16 × 10⁹ × L⁴ ≥ 57⁴ × P`
/// (28.5 = 57 / 2), at least 1 and at most [`MAX_LAYERS`]; at least 28 from 0.5B.
pub const fn assumed_layers(params: u64) -> u64 {
    let need = 10_556_001u128 * params as u128; // 57⁴ × P
    let mut layers = 1u64;
    while layers < MAX_LAYERS {
        let l = layers as u128;
        if 16_000_000_000 * l * l * l * l >= need {
            break;
        }
        layers += 1;
    }
    if params >= SMALL_DEEP_FROM && layers < SMALL_DEEP_LAYERS {
        SMALL_DEEP_LAYERS
    } else {
        layers
    }
}

/// The hidden size a dense transformer of `params` parameters and `layers` blocks has by
/// `P ≈ 12 × layers × hidden²`: `⌊√(P / (12 × layers))⌋`.
pub const fn assumed_hidden(params: u64, layers: u64) -> u64 {
    (params / (12 * if layers == 0 { 1 } else { layers })).isqrt()
}

impl Architecture {
    /// Whether this is a decoder known by its parameter count alone: opaque, and not a
    /// convolutional network with per-image counts (ResNet, YOLO).
    pub const fn is_bare_decoder(&self) -> bool {
        !self.is_detailed() && !self.has_image_counts()
    }

    /// The decoder shape assumed for a bare count of `params` (the module's rule): a causal LM
    /// of [`assumed_layers`] blocks with [`ASSUMED_KV_HEADS`] KV heads of [`ASSUMED_HEAD_DIM`],
    /// its width and query heads from [`assumed_hidden`]. Read for its KV cache alone: its other
    /// fields are not a model's and its weights are never counted from it.
    pub const fn assumed_decoder(params: u64) -> Architecture {
        let layers = assumed_layers(params);
        let hidden = assumed_hidden(params, layers);
        let heads = hidden / ASSUMED_HEAD_DIM;
        Architecture {
            family: Family::CausalLm,
            hidden_size: hidden,
            num_layers: layers,
            num_heads: if heads > ASSUMED_KV_HEADS {
                heads
            } else {
                ASSUMED_KV_HEADS
            },
            num_kv_heads: ASSUMED_KV_HEADS,
            head_dim: ASSUMED_HEAD_DIM,
            norms_per_layer: 2,
            gated_ffn: true,
            ..Architecture::opaque(params)
        }
    }

    /// KV elements a token keeps over all layers in a model of this size with full multi-head
    /// attention (a KV head per query head): `2 × layers × hidden` of the assumed shape.
    pub const fn assumed_mha_elements_per_token(params: u64) -> u64 {
        let layers = assumed_layers(params);
        2 * layers * assumed_hidden(params, layers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule by hand: ⁴√7 = 1.6266, × 28.5 = 46.36 → 47 layers; ⁴√70 = 2.8925, × 28.5 =
    /// 82.44 → 83; ⁴√8 = 1.6818 → 47.93 → 48; ⁴√405 = 4.4861 → 127.9 → 128.
    #[test]
    fn layers_by_hand() {
        assert_eq!(assumed_layers(7_000_000_000), 47);
        assert_eq!(assumed_layers(70_000_000_000), 83);
        assert_eq!(assumed_layers(8_000_000_000), 48);
        assert_eq!(assumed_layers(405_000_000_000), 128);
        assert_eq!(assumed_layers(1), 1);
        // ⁴√0.5958 = 0.8786, × 28.5 = 25.04 → 26, raised to 28 from 0.5B; 0.49B stays at
        // ⌈28.5 × 0.8367⌉ = 24.
        assert_eq!(assumed_layers(595_776_512), 28);
        assert_eq!(assumed_layers(490_000_000), 24);
        assert_eq!(assumed_layers(crate::units::MAX_PARAMS), 507);
    }

    /// 7B: 2 × 8 × 128 × 47 = 96,256 elements a token, 192,512 B (188 KiB) in bf16, against
    /// Llama 3.1 8B's 131,072 B. Full attention at 7B: hidden = ⌊√(7e9 / 564)⌋ = 3,522, so
    /// 2 × 47 × 3,522 = 331,068 elements (647 KiB in bf16), 3.4× the assumed; Llama 2 7B keeps
    /// 262,144. 70B: 2 × 8 × 128 × 83 = 169,984 elements (332 KiB), against Llama 3 70B's
    /// 163,840 (320 KiB); full attention: hidden = ⌊√(7e10 / 996)⌋ = 8,383, 2 × 83 × 8,383 =
    /// 1,391,578 elements, 8.2× the assumed.
    #[test]
    fn shape_by_hand_at_7b_and_70b() {
        let a = Architecture::assumed_decoder(7_000_000_000);
        assert_eq!((a.num_layers, a.num_kv_heads, a.head_dim), (47, 8, 128));
        assert_eq!(a.kv_elements_per_token_layer() * a.num_layers, 96_256);
        assert_eq!(a.hidden_size, 3_522);
        assert_eq!(
            Architecture::assumed_mha_elements_per_token(7_000_000_000),
            331_068
        );
        let a = Architecture::assumed_decoder(70_000_000_000);
        assert_eq!(a.kv_elements_per_token_layer() * a.num_layers, 169_984);
        assert_eq!(a.hidden_size, 8_383);
        assert_eq!(
            Architecture::assumed_mha_elements_per_token(70_000_000_000),
            1_391_578
        );
        assert!(a.is_generative() && a.is_detailed());
        assert!(Architecture::opaque(7).is_bare_decoder());
    }

    /// Against the catalog: every dense decoder preset (no experts, no latent, no state layers).
    /// A GQA preset's cache per token is at most the assumed one of its parameter count —
    /// exactly for full attention, and at a 32K context for one with sliding windows (the
    /// windowed layers' cells spread over the context). An MHA preset's is at most the
    /// full-attention figure the note states. Gemma 2 and 3 (256-wide heads) under-count within
    /// their window only: Gemma 2 9B at 8K keeps 129,024 elements a token against 102,400
    /// assumed (50 layers), which the full-attention figure (392,400) covers.
    #[test]
    fn the_assumed_cache_covers_every_dense_preset() {
        let ctx = 32_768u64;
        let mut checked = 0;
        for p in crate::presets::presets() {
            let a = &p.arch;
            if !a.is_generative() || a.moe.is_some() || a.mla.is_some() || a.hybrid.is_some() {
                continue;
            }
            let params = p.params;
            let (global, local) = a.stage_layers(a.num_layers);
            let cells = global * ctx + local * ctx.min(a.sliding_window);
            let real = a.kv_elements_per_token_layer() * cells; // over ctx tokens
            let assumed = Architecture::assumed_decoder(params);
            let assumed = assumed.kv_elements_per_token_layer() * assumed.num_layers * ctx;
            let mha = Architecture::assumed_mha_elements_per_token(params) * ctx;
            let full_real = a.kv_elements_per_token_layer() * a.num_layers * ctx;
            if a.num_kv_heads < a.num_heads {
                assert!(real <= assumed, "{}: {real} > {assumed}", p.id);
            } else {
                assert!(full_real <= mha, "{}: {full_real} > {mha}", p.id);
            }
            // Every dense preset's cache, any context, is within the full-attention figure.
            assert!(full_real <= mha, "{}: {full_real} > {mha} (MHA)", p.id);
            checked += 1;
        }
        assert!(checked >= 40, "{checked}");
    }
}
