//! How a multimodal model turns one image into tokens of its language model's sequence: each
//! family's own rule, read from its config (and its processor's defaults) into
//! [`ImageTokens`], and the count for an image of a given size, as transformers 5.24's
//! processors compute it (vLLM asks the same processors: `get_number_of_image_patches` and
//! `_get_num_multimodal_tokens` exist "to infer the number of patches and placeholders without
//! an image input", transformers 5.24 `models/qwen2_vl/image_processing_qwen2_vl.py`).

/// One image's tokens by its model's rule; as JSON, tagged by `rule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(tag = "rule", rename_all = "snake_case")
)]
pub enum ImageTokens {
    /// Every image resized to one square: a fixed count (Gemma 3's `mm_tokens_per_image`, 256),
    /// with `<start_of_image>` and `<end_of_image>` around them (`Gemma3Processor`).
    Fixed {
        /// Soft tokens per image.
        tokens: u64,
    },
    /// Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5: the image resized by `smart_resize` to sides
    /// that are multiples of `patch_size × merge_size`, its pixels within `min_pixels` to
    /// `max_pixels`; one token per `merge_size²` patches, with `<|vision_start|>` and
    /// `<|vision_end|>` around them.
    Dynamic {
        /// The tower's patch side in pixels (`vision_config.patch_size`).
        patch_size: u64,
        /// Patches merged into one token along each side (`spatial_merge_size`).
        merge_size: u64,
        /// The processor's `size.shortest_edge` (`min_pixels`).
        min_pixels: u64,
        /// The processor's `size.longest_edge` (`max_pixels`).
        max_pixels: u64,
        /// Qwen3-VL's DeepStack levels (`deepstack_visual_indexes`, 3): vLLM's encoder output
        /// per token is `1 + deepstack` text widths wide; 0 for Qwen3.5.
        #[cfg_attr(feature = "serde", serde(default))]
        deepstack: u64,
    },
    /// InternVL: the image cut into `tile_size` squares on the grid of at most `max_tiles`
    /// whose shape is closest to the image's, plus a thumbnail when there is more than one
    /// tile; `tokens_per_tile` each, with `<img>` and `</img>` around them
    /// (`GotOcr2ImageProcessor` with `crop_to_patches`, `InternVLProcessor`).
    Tiles {
        /// The tile's side in pixels (`vision_config.image_size`, 448).
        tile_size: u64,
        /// The processor's `min_patches` (1).
        min_tiles: u64,
        /// The processor's `max_patches` (12).
        max_tiles: u64,
        /// `(image_size / patch_size)² × downsample_ratio²` (256).
        tokens_per_tile: u64,
    },
    /// Pixtral and Mistral 3/4: the image scaled down to fit `longest_edge`, one token per
    /// `(patch_size × merge_size)²` pixels, an `[IMG_BREAK]` closing each row and `[IMG_END]`
    /// the last (`PixtralProcessor`).
    Rows {
        /// The tower's patch side in pixels (`vision_config.patch_size`).
        patch_size: u64,
        /// Patches merged into one token along each side (`spatial_merge_size`; 1 for Pixtral).
        merge_size: u64,
        /// The processor's `size.longest_edge` (`vision_config.image_size`).
        longest_edge: u64,
    },
    /// Gemma 4: the image resized, keeping its aspect ratio, to the most patches of
    /// `patch_size` within `max_soft_tokens × pooling²`, each side a multiple of `patch_size ×
    /// pooling`; one soft token per `pooling²` patches (the tower's pooler), with `<boi>` and
    /// `<eoi>` around them (transformers 5.25 `Gemma4ImageProcessor`,
    /// `get_aspect_ratio_preserving_size`; `Gemma4Processor`).
    Pooled {
        /// The tower's patch side in pixels (`vision_config.patch_size`, 16).
        patch_size: u64,
        /// Patches pooled into one token along each side (`vision_config.pooling_kernel_size`,
        /// 3).
        pooling: u64,
        /// The processor's `max_soft_tokens` (280; one of 70, 140, 280, 560, 1120).
        max_soft_tokens: u64,
    },
}

/// Markers around one image's tokens: start and end (Gemma 3, Qwen-VL, InternVL).
const MARKERS: u64 = 2;

impl ImageTokens {
    /// The tokens one `width × height` image takes in the sequence, its markers included.
    /// Sides are from 1 to 2^15 pixels (the input's range), so nothing here overflows.
    pub fn count(&self, width: u64, height: u64) -> u64 {
        let (width, height) = (width.max(1), height.max(1));
        match *self {
            ImageTokens::Fixed { tokens } => tokens + MARKERS,
            ImageTokens::Dynamic {
                patch_size,
                merge_size,
                min_pixels,
                max_pixels,
                ..
            } => {
                let factor = (patch_size * merge_size).max(1);
                let (h, w) = smart_resize(height, width, factor, min_pixels, max_pixels);
                (h / patch_size.max(1)) * (w / patch_size.max(1)) / (merge_size * merge_size).max(1)
                    + MARKERS
            }
            ImageTokens::Tiles {
                tile_size,
                min_tiles,
                max_tiles,
                tokens_per_tile,
            } => {
                let (cols, rows) = tiled_canvas(height, width, tile_size, min_tiles, max_tiles);
                let tiles = if max_tiles > 1 && cols * rows > 1 {
                    1 + cols * rows
                } else {
                    1
                };
                tiles * tokens_per_tile + MARKERS
            }
            ImageTokens::Rows {
                patch_size,
                merge_size,
                longest_edge,
            } => {
                let (rows, cols) =
                    pixtral_grid(height, width, patch_size * merge_size, longest_edge);
                rows * (cols + 1)
            }
            ImageTokens::Pooled {
                patch_size,
                pooling,
                max_soft_tokens,
            } => {
                let (h, w) = pooled_size(height, width, patch_size, pooling, max_soft_tokens);
                let p = patch_size.max(1);
                // vLLM's `_compute_num_soft_tokens` clamps to `max_soft_tokens` the extreme
                // aspect ratios transformers' processor refuses.
                ((h / p) * (w / p) / (pooling * pooling).max(1)).min(max_soft_tokens) + MARKERS
            }
        }
    }

    /// The embeddings the encoder gives the largest image (what vLLM's encoder budget and
    /// cache count, `get_num_embeds`): the count without the markers and Pixtral's breaks.
    pub fn max_embeds(&self) -> u64 {
        match *self {
            ImageTokens::Rows {
                patch_size,
                merge_size,
                longest_edge,
            } => {
                // The square of the longest edge: as many rows as columns, no breaks.
                let (rows, cols) = pixtral_grid(
                    longest_edge,
                    longest_edge,
                    patch_size * merge_size,
                    longest_edge,
                );
                rows * cols
            }
            _ => self.max_count().saturating_sub(MARKERS),
        }
    }

    /// The width of one embedding in text widths: `1 + deepstack` for Qwen3-VL, else 1.
    pub fn embed_widths(&self) -> u64 {
        match *self {
            ImageTokens::Dynamic { deepstack, .. } => 1 + deepstack,
            _ => 1,
        }
    }

    /// The largest count one image can take (what vLLM's start-up profile of the largest
    /// multimodal item assumes): the fixed count; `max_pixels` in merged patches; a thumbnail
    /// and `max_tiles` tiles; the square of `longest_edge`.
    pub fn max_count(&self) -> u64 {
        match *self {
            ImageTokens::Fixed { .. } => self.count(1, 1),
            ImageTokens::Dynamic {
                patch_size,
                merge_size,
                max_pixels,
                ..
            } => {
                let unit = (patch_size * merge_size).max(1);
                max_pixels / (unit * unit) + MARKERS
            }
            ImageTokens::Tiles {
                max_tiles,
                tokens_per_tile,
                ..
            } => {
                let tiles = if max_tiles > 1 { 1 + max_tiles } else { 1 };
                tiles * tokens_per_tile + MARKERS
            }
            ImageTokens::Rows { longest_edge, .. } => self.count(longest_edge, longest_edge),
            ImageTokens::Pooled {
                max_soft_tokens, ..
            } => max_soft_tokens + MARKERS,
        }
    }
}

/// transformers 5.25 `get_aspect_ratio_preserving_size` (`models/gemma4/image_processing_gemma4.py`):
/// the image scaled by √(budget / pixels), each side floored to a multiple of `patch ×
/// pooling`; a side that floors to 0 becomes one unit and the other `⌊long / short⌋` units, at
/// most `max_soft_tokens` of them. Returns (height, width).
fn pooled_size(height: u64, width: u64, patch: u64, pooling: u64, max_soft: u64) -> (u64, u64) {
    let unit = (patch * pooling).max(1);
    let target_px = (max_soft * pooling * pooling * patch * patch) as f64;
    let factor = libm::sqrt(target_px / (height * width) as f64);
    let (hf, wf, uf) = (height as f64, width as f64, unit as f64);
    let mut h = libm::floor(factor * hf / uf) as u64 * unit;
    let mut w = libm::floor(factor * wf / uf) as u64 * unit;
    let max_side = max_soft * unit;
    if h == 0 && w == 0 {
        // transformers refuses a 0 × 0 resize; vLLM keeps one unit a side.
        (h, w) = (unit, unit);
    } else if h == 0 {
        h = unit;
        w = ((width / height) * unit).min(max_side);
    } else if w == 0 {
        w = unit;
        h = ((height / width) * unit).min(max_side);
    }
    (h, w)
}

/// transformers 5.24 `smart_resize` (`models/qwen2_vl/image_processing_qwen2_vl.py`): the
/// sides rounded to multiples of `factor` (Python's `round`, half to even), then scaled down
/// into `max_pixels` or up into `min_pixels` keeping the aspect ratio. Returns (height, width).
fn smart_resize(
    height: u64,
    width: u64,
    factor: u64,
    min_pixels: u64,
    max_pixels: u64,
) -> (u64, u64) {
    let (hf, wf, ff) = (height as f64, width as f64, factor as f64);
    let mut h_bar = libm::rint(hf / ff) as u64 * factor;
    let mut w_bar = libm::rint(wf / ff) as u64 * factor;
    if h_bar * w_bar > max_pixels {
        let beta = libm::sqrt(hf * wf / max_pixels as f64);
        h_bar = factor.max(libm::floor(hf / beta / ff) as u64 * factor);
        w_bar = factor.max(libm::floor(wf / beta / ff) as u64 * factor);
    } else if h_bar * w_bar < min_pixels {
        let beta = libm::sqrt(min_pixels as f64 / (hf * wf));
        h_bar = libm::ceil(hf * beta / ff) as u64 * factor;
        w_bar = libm::ceil(wf * beta / ff) as u64 * factor;
    }
    (h_bar, w_bar)
}

/// transformers 5.24 `get_optimal_tiled_canvas` (`models/got_ocr2/image_processing_got_ocr2.py`):
/// of the grids of `min..=max` tiles (ordered by tile count, then columns), the one whose
/// columns/rows is closest to the image's width/height; on a tie the later grid while the
/// image's area exceeds half the grid's. Returns (columns, rows).
fn tiled_canvas(height: u64, width: u64, tile: u64, min: u64, max: u64) -> (u64, u64) {
    let aspect = width as f64 / height as f64;
    let area = (width * height) as f64;
    let mut grids = alloc::vec::Vec::new();
    for w in 1..=max {
        for h in 1..=max {
            if w * h <= max && w * h >= min {
                grids.push((w, h));
            }
        }
    }
    // Python's `sorted` is stable: ties keep the loops' order.
    grids.sort_by_key(|&(w, h)| w * h);
    let mut best = (1, 1);
    let mut best_diff = f64::INFINITY;
    for (w, h) in grids {
        let diff = libm::fabs(aspect - w as f64 / h as f64);
        if diff < best_diff {
            best_diff = diff;
            best = (w, h);
        } else if diff == best_diff && area > 0.5 * (tile * tile * w * h) as f64 {
            best = (w, h);
        }
    }
    best
}

/// transformers 5.24 Pixtral `get_resize_output_image_size` and `PixtralProcessor`'s count:
/// scaled down (floored) to fit `longest_edge`, then a token per started `unit`-pixel square.
/// Returns (rows, columns).
fn pixtral_grid(height: u64, width: u64, unit: u64, longest_edge: u64) -> (u64, u64) {
    let (mut h, mut w) = (height, width);
    let edge = longest_edge.max(1) as f64;
    let ratio = f64::max(h as f64 / edge, w as f64 / edge);
    if ratio > 1.0 {
        h = libm::floor(h as f64 / ratio) as u64;
        w = libm::floor(w as f64 / ratio) as u64;
    }
    let unit = unit.max(1);
    // `(h - 1) // unit + 1` of a side of at least 1 pixel.
    (h.max(1).div_ceil(unit), w.max(1).div_ceil(unit))
}

#[cfg(test)]
mod tests {
    use super::ImageTokens;

    /// Qwen3-VL's and Qwen3.5's preprocessor_config.json.
    const QWEN3_VL: ImageTokens = ImageTokens::Dynamic {
        patch_size: 16,
        merge_size: 2,
        min_pixels: 65_536,
        max_pixels: 16_777_216,
        deepstack: 3,
    };
    /// OpenGVLab/InternVL3-8B-hf.
    const INTERNVL3: ImageTokens = ImageTokens::Tiles {
        tile_size: 448,
        min_tiles: 1,
        max_tiles: 12,
        tokens_per_tile: 256,
    };
    /// Mistral Small 3.1 (patch 14, merge 2, longest edge 1540).
    const MISTRAL_SMALL_3_1: ImageTokens = ImageTokens::Rows {
        patch_size: 14,
        merge_size: 2,
        longest_edge: 1540,
    };
    /// Pixtral 12B (patch 16, no merge, longest edge 1024).
    const PIXTRAL_12B: ImageTokens = ImageTokens::Rows {
        patch_size: 16,
        merge_size: 1,
        longest_edge: 1024,
    };

    /// Each rule against transformers 5.24.0's own processors, per (height, width): the
    /// columns are `Qwen2VLImageProcessor(size={"shortest_edge": 65536, "longest_edge":
    /// 16777216}, patch_size=16, merge_size=2).get_number_of_image_patches(h, w) // 4`,
    /// `GotOcr2ImageProcessor(size={"height": 448, "width": 448}, crop_to_patches=True,
    /// min_patches=1, max_patches=12).get_number_of_image_patches(h, w)` (tiles), and
    /// `PixtralProcessor._get_num_multimodal_tokens`'s arithmetic over
    /// `get_resize_output_image_size` (patch 28 and edge 1540; patch 16 and edge 1024), run by
    /// `/work/venv-ref/bin/python tests/reference/image_tokens_reference.py`. vramfit adds the
    /// two markers the prompt holds around Qwen's and Gemma's placeholders
    /// (`<|vision_start|>`/`<|vision_end|>`, `<start_of_image>`/`<end_of_image>`) and
    /// InternVL's (`<img>`/`</img>`, which its `_get_num_multimodal_tokens` counts as 2 + 256 ×
    /// tiles); Pixtral's `[IMG_BREAK]`s and `[IMG_END]` are in its count.
    #[test]
    fn counts_match_transformers_processors() {
        // (h, w, qwen3-vl, internvl tiles, mistral small 3.1, pixtral 12b)
        let rows: [(u64, u64, u64, u64, u64, u64); 13] = [
            (32, 32, 64, 1, 6, 6),
            (480, 640, 300, 13, 432, 1230),
            (768, 1024, 768, 13, 1064, 3120),
            (1024, 1024, 1024, 10, 1406, 4160),
            (333, 1001, 310, 4, 444, 1344),
            (1080, 1920, 2040, 9, 1736, 2340),
            (3000, 4000, 11750, 13, 2352, 3120),
            (10, 2000, 114, 13, 56, 65),
            (4096, 4096, 16384, 10, 3080, 4160),
            (8192, 8192, 16384, 10, 3080, 4160),
            (720, 1280, 880, 9, 1222, 2340),
            (448, 448, 196, 1, 272, 812),
            (100, 4000, 375, 13, 112, 130),
        ];
        for (h, w, qwen, tiles, mistral, pixtral) in rows {
            assert_eq!(QWEN3_VL.count(w, h), qwen + 2, "qwen3-vl {w}x{h}");
            assert_eq!(INTERNVL3.count(w, h), 256 * tiles + 2, "internvl {w}x{h}");
            assert_eq!(MISTRAL_SMALL_3_1.count(w, h), mistral, "mistral {w}x{h}");
            assert_eq!(PIXTRAL_12B.count(w, h), pixtral, "pixtral {w}x{h}");
        }
        // Gemma 3: `Gemma3Processor`'s `image_seq_length` (mm_tokens_per_image 256) at any
        // size, the image resized to 896 × 896.
        let gemma = ImageTokens::Fixed { tokens: 256 };
        assert_eq!(gemma.count(4000, 3000), 258);
        assert_eq!(gemma.count(1, 1), 258);
    }

    /// The largest image of each rule, by hand: Qwen3-VL 16777216 / 32² = 16384 tokens (+2);
    /// InternVL 12 tiles and the thumbnail, 13 × 256 (+2); Mistral Small 3.1 a 1540-pixel
    /// square, 55 rows of 55 tokens and a break each, 55 × 56 = 3080; Gemma 3 256 (+2).
    #[test]
    fn largest_image_by_hand() {
        assert_eq!(QWEN3_VL.max_count(), 16_386);
        assert_eq!(INTERNVL3.max_count(), 13 * 256 + 2);
        assert_eq!(MISTRAL_SMALL_3_1.max_count(), 3080);
        assert_eq!(ImageTokens::Fixed { tokens: 256 }.max_count(), 258);
        // The embeddings alone: 16384; 13 × 256; 55 × 55 = 3025 (no breaks); 256.
        assert_eq!(QWEN3_VL.max_embeds(), 16_384);
        assert_eq!(INTERNVL3.max_embeds(), 13 * 256);
        assert_eq!(MISTRAL_SMALL_3_1.max_embeds(), 3025);
        assert_eq!(PIXTRAL_12B.max_embeds(), 64 * 64);
        assert_eq!(ImageTokens::Fixed { tokens: 256 }.max_embeds(), 256);
        assert_eq!((QWEN3_VL.embed_widths(), INTERNVL3.embed_widths()), (4, 1));
        // The largest is never below a real image's count.
        for (w, h) in [(4096, 4096), (1920, 1080), (32768, 200), (448, 5376)] {
            for rule in [QWEN3_VL, INTERNVL3, MISTRAL_SMALL_3_1, PIXTRAL_12B] {
                assert!(rule.count(w, h) <= rule.max_count(), "{rule:?} {w}x{h}");
            }
        }
    }

    /// Gemma 4 (patch 16, pooling 3, 280 soft tokens) against transformers 5.25.0's own
    /// `Gemma4ImageProcessorPil` on random images (`tests/reference/gemma4-image-tokens.csv`),
    /// each with its `<boi>` and `<eoi>`. By hand for 1,024 × 1,024: the budget 280 × 3² × 16²
    /// = 645,120 pixels, √(645,120 / 1,048,576) × 1,024 = 803.2, floored to 16 × 48 = 768 a
    /// side: 48² patches / 3² = 256 tokens, 258 in the prompt.
    #[test]
    fn gemma4_matches_its_processor() {
        const GEMMA4: ImageTokens = ImageTokens::Pooled {
            patch_size: 16,
            pooling: 3,
            max_soft_tokens: 280,
        };
        let csv = include_str!("../../../../tests/reference/gemma4-image-tokens.csv");
        let mut rows = 0;
        for line in csv.lines().skip(1) {
            let f: alloc::vec::Vec<&str> = line.split(',').collect();
            let (w, h) = (f[0].parse::<u64>().unwrap(), f[1].parse::<u64>().unwrap());
            let soft: u64 = f[2].parse().unwrap();
            assert_eq!(GEMMA4.count(w, h), soft + 2, "{w} × {h}");
            rows += 1;
        }
        assert_eq!(rows, 10);
        assert_eq!(GEMMA4.count(1024, 1024), 258);
        assert_eq!((GEMMA4.max_count(), GEMMA4.max_embeds()), (282, 280));
    }
}
