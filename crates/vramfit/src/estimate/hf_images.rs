//! transformers inference with images (issue 42): the vision tower's forward on the batch's
//! images before the language model's prefill. `generate`'s first forward calls the model's
//! `get_image_features` on every image of the batch (transformers 5.24
//! `Qwen3VLModel.forward`, `Gemma3Model.forward`, `InternVLModel.forward`), then scatters the
//! embeddings into the prompt's and runs the decoder; the image embeddings (and Qwen3-VL's
//! DeepStack features, passed to the decoder's first layers) and the processor's fp32
//! `pixel_values` stay referenced through that prefill. So the prefill peaks at the larger of
//! the encoder's forward (its input cast to the model dtype, `model::VisionTower`'s peak) and
//! the decoder's prefill with the embeddings on top, the fp32 pixels under both.
//!
//! With `attn_implementation="eager"` the tower materialises each attention's `heads × L × L`
//! scores in the model dtype, their fp32 softmax and its cast back (`eager_attention_forward`):
//! Qwen's towers one image at a time (`cu_seqlens` chunks), SigLIP, InternViT and Gemma 4's
//! the batch's tiles or images at once, Pixtral every patch of the batch in one block-diagonal sequence.

use super::{Formula, Kernel, Run, b, thousands};
use crate::model::ImageTokens;

/// The images' part of a transformers prefill.
#[derive(Clone, Copy)]
pub(super) struct HfImages {
    /// Images in the batch (batch × images a prompt).
    pub(super) images: u64,
    /// The tower's patches over them.
    pub(super) patches: u64,
    /// The processor's fp32 pixels, alive through the prefill.
    pub(super) input: u64,
    /// The encoder's forward beyond its weights and fp32 input: the input's model-dtype copy,
    /// the activations (`VisionTower::peak_bytes`) and eager attention's scores.
    pub(super) encoder: u64,
    /// Eager attention's scores, inside `encoder` (0 with flash/SDPA).
    pub(super) eager: u64,
    /// The image embeddings (and DeepStack features) the decoder's prefill holds.
    pub(super) outputs: u64,
    /// The decoder's prefill without images.
    pub(super) text: u64,
}

impl HfImages {
    /// What the images add to the prefill: the fp32 input and the larger of the encoder's
    /// forward and the embeddings over the decoder's prefill.
    pub(super) fn extra(&self) -> u64 {
        self.input.saturating_add(
            self.encoder
                .max(self.text.saturating_add(self.outputs))
                .saturating_sub(self.text),
        )
    }
}

impl Run<'_> {
    /// The images' part of the prefill whose decoder part is `text`, where the run has images
    /// and the model a modelled tower.
    pub(super) fn hf_images(&self, text: u64) -> Option<HfImages> {
        let im = self.images()?;
        let rule = self.arch.image_tokens?;
        let tower = self.arch.vision_tower?;
        let d = self.act_bytes();
        let images = self.batch.saturating_mul(im.per_request);
        // One image's embeddings: its tokens without the two markers (Pixtral's row breaks
        // stay in, a few above).
        let embeds = im.tokens_each.saturating_sub(2).max(1);
        // Gemma 4's processor pads every image's patches to `max_soft_tokens × pooling²`
        // (`Gemma4ImageProcessor`, "Pad patches and positions to `max_patches`"): the tower runs
        // them all, padding included.
        let tower_embeds = match rule {
            ImageTokens::Pooled {
                max_soft_tokens, ..
            } => max_soft_tokens.max(embeds),
            _ => embeds,
        };
        let tiles = match rule {
            ImageTokens::Tiles {
                tokens_per_tile, ..
            } => embeds / tokens_per_tile.max(1),
            _ => 1,
        };
        let patches = tower.patches(images, tower_embeds, tiles);
        let all_embeds = images.saturating_mul(embeds);
        let eager = if self.kernel == Kernel::Eager {
            // One attention's scores at a time, over the sequences it runs at once.
            let heads = tower.hidden / tower.head_dim.max(1);
            let each = patches / images.max(1);
            let square = if tower.rope && !tower.gated {
                each.saturating_mul(each)
            } else if tower.gated && !tower.axial_rope {
                patches.saturating_mul(patches)
            } else {
                images.saturating_mul(each).saturating_mul(each)
            };
            heads.saturating_mul(square).saturating_mul(2 * d + 4)
        } else {
            0
        };
        let outputs = all_embeds
            .saturating_mul(self.arch.hidden_size)
            .saturating_mul(1 + tower.deepstack)
            .saturating_mul(d);
        Some(HfImages {
            images,
            patches,
            input: tower.input_bytes(patches, 4),
            encoder: tower
                .peak_bytes(patches, all_embeds, d)
                .saturating_add(tower.input_bytes(patches, d))
                .saturating_add(eager),
            eager,
            outputs,
            text,
        })
    }

    /// The images' formula.
    pub(super) fn hf_images_text(&self, i: &HfImages) -> Formula {
        let pixels = self.arch.vision_tower.map_or(0, |t| t.pixels);
        formula!(self.text;
            let (n, patches, input, encoder, eager) = (i.images, thousands(i.patches), b(i.input), b(i.encoder), b(i.eager));
            let (outputs, text, extra) = (b(i.outputs), b(i.text), b(i.extra()));
            ["{n} image(s), {patches} patches: pixels {patches} × {pixels} × 4 B (fp32) = {input} + max(encoder forward {encoder} (eager scores {eager}), embeddings {outputs} over the decoder's prefill {text}) − that prefill = {extra}"],
            ["{n} 张图像，{patches} 个图块：像素 {patches} × {pixels} × 4 B（fp32）= {input} + max(编码器前向 {encoder}（eager 分数 {eager}），嵌入 {outputs} 叠加解码器预填充 {text}）− 该预填充 = {extra}"]
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, estimate,
    };

    fn infer(images: f64) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some("google/gemma-3-4b-it".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Inference,
                engine: Engine::Hf,
                seq_len: 1024.0,
                batch: 2.0,
                images,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Gemma 3 4B, 2 prompts of one image: 2 × 4,096 SigLIP patches. By hand (bf16): fp32
    /// pixels 8,192 × 588 × 4 B = 19,267,584; the encoder's forward 8,192 × (4·1152·2 +
    /// 2·4304·2) B = 216,530,944 (the reference's own 2-image row) + 2 MiB + the bf16 pixels
    /// 8,192 × 588 × 2 B = 9,633,792: 228,261,888; the embeddings 2 × 256 × 2,560 × 2 B =
    /// 2,621,440. A 1,024-token prefill of a 4B decoder holds far less than the encoder, so the
    /// images add the pixels and the encoder's forward less that prefill: between the pixels
    /// and pixels + encoder.
    #[test]
    fn gemma3_images_by_hand() {
        let e = estimate(&infer(1.0)).unwrap();
        let extra = e.component_bytes(ComponentKind::EncoderActivations);
        assert!(extra > 19_267_584, "{extra}");
        assert!(extra < 19_267_584 + 228_261_888, "{extra}");
        let none = estimate(&infer(0.0)).unwrap();
        assert_eq!(none.component_bytes(ComponentKind::EncoderActivations), 0);
    }

    /// Gemma 4 E2B (the mock hub's google/gemma-4-E2B-it config), one prompt of one image: the
    /// processor pads every image to 280 × 3² = 2,520 patches, a 1,024² image (256 soft tokens)
    /// and a 256² one (16) alike. By hand (bf16): fp32 pixels 2,520 × 768 × 4 B = 7,741,440 (the
    /// reference's `inputs_bytes` less the 40,320 B of positions); the encoder's forward 2,520 ×
    /// 24,834 B (`vision_tower.rs`, against `gemma4-vision-peaks.csv`) + 2 MiB + the bf16 pixels
    /// 2,520 × 768 × 2 B = 62,581,680 + 2,097,152 + 3,870,720 = 68,549,552. The images add the
    /// pixels and at most the encoder's forward, whatever the image's size.
    #[test]
    fn gemma4_images_padded_by_hand() {
        const E2B: &str =
            include_str!("../../../../tests/hub/fixtures/google/gemma-4-e2b-it/config.json");
        let arch = crate::config::parse_config(E2B).unwrap().arch;
        for side in [1024.0, 256.0] {
            let mut i = infer(1.0);
            i.model.model = None;
            i.model.arch = Some(arch);
            i.run.batch = 1.0;
            i.run.image_width = Some(side);
            i.run.image_height = Some(side);
            let e = estimate(&i).unwrap();
            let extra = e.component_bytes(ComponentKind::EncoderActivations);
            assert!(extra > 7_741_440, "{side}: {extra}");
            assert!(extra <= 7_741_440 + 68_549_552, "{side}: {extra}");
            assert!(!e.notes.iter().any(|n| n.key == "images_tower"));
        }
    }

    /// The composition by hand: the pixels, then the larger of the encoder (300) and the
    /// embeddings over the prefill (100 + 50), less the prefill: 10 + 300 − 100 = 210; with a
    /// prefill of 400 the embeddings rise above the encoder: 10 + 450 − 400 = 60.
    #[test]
    fn extra_is_the_larger_phase() {
        let mut i = super::HfImages {
            images: 1,
            patches: 1,
            input: 10,
            encoder: 300,
            eager: 0,
            outputs: 50,
            text: 100,
        };
        assert_eq!(i.extra(), 210);
        i.text = 400;
        assert_eq!(i.extra(), 60);
    }
}
