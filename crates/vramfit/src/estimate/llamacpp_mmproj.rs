//! llama.cpp's vision projector (`--mmproj`, issue 42): with images in the requests,
//! `llama-server` loads the model's mmproj GGUF (the vision tower and projector that the
//! converter leaves out of the text model's file) into its own buffer on the first GPU ("clip_ctx:
//! CLIP using CUDA0 backend"; `--no-mmproj-offload` keeps it in CPU memory), and CLIP's graph
//! allocator reserves a compute buffer for the largest image it has encoded, at least its warmup
//! image (tools/mtmd `clip.cpp` `warmup`; `ggml_backend_sched_alloc_graph` grows the buffer for
//! a larger image later, llama.cpp PR #17695).
//!
//! The weights: the tower's parameters in the file's type, F16 assumed (the usual
//! `mmproj-…-f16.gguf`; an F32 file doubles it, its 1-D tensors are F32 in every file).
//! The compute buffer, one image (or tile) at a time, in f32 as CLIP computes: per patch the
//! larger of a block's attention (residual, norm, fused qkv, the roped q and k, the output: `8h`)
//! and its MLP (residual, norm and the intermediate twice, three times gated: `2h + 2I`), the
//! extra stream tensors of SigLIP/InternViT/Pixtral layers, and Qwen3-VL's DeepStack features
//! kept to the end (`levels × out_hidden / merge²` per patch); flash attention assumed (CLIP's
//! `auto` takes it on CUDA), so no `heads × L²` scores.
//! Against a published log (llama.cpp issue #18181, December 2025, Qwen3-VL-235B-A22B's mmproj
//! on CUDA): "model size: 2198.75 MiB" is the tower's 576,388,336 parameters × 4 B of its F32
//! file exactly, and "warmup with image size = 1472 x 1472" asked for a 390,156,544-byte CUDA0
//! compute buffer where this rule gives 8,464 × 55,936 = 473,442,304 (21 % above).

use super::{Formula, Parts, Run, b, thousands};
use crate::model::ImageTokens;

/// CLIP's warmup for Qwen-VL towers: 2,116 tokens, a 1,472 × 1,472 image (llama.cpp PR #17638
/// and the log of issue #18181, "warmup with image size = 1472 x 1472").
const QWEN_WARMUP_TOKENS: u64 = 2_116;

/// Bytes per parameter of the mmproj file assumed: F16.
const MMPROJ_BYTES: u64 = 2;

/// The projector's buffers on the GPU.
#[derive(Clone, Copy)]
pub(super) struct MmprojFigures {
    /// The mmproj file's tensors: vision parameters × 2 B.
    pub(super) weights: u64,
    /// Patches of the largest image CLIP encodes: the warmup's or the request's.
    pub(super) patches: u64,
    /// One patch's f32 working set.
    pub(super) per_patch: u64,
    /// CLIP's compute buffer: patches × per patch.
    pub(super) compute: u64,
}

impl MmprojFigures {
    /// Both buffers.
    pub(super) fn bytes(&self) -> u64 {
        self.weights.saturating_add(self.compute)
    }
}

impl Run<'_> {
    /// The note on a model with a vision tower: llama.cpp's GGUF of the text model leaves it out
    /// (the converter writes it to an `mmproj` file, which `llama-server` loads only with
    /// `--mmproj`), so the estimate counts none of it.
    pub(super) fn llamacpp_vision_note(&self, p: &mut Parts) {
        let n = self.arch.vision_params;
        // With images the mmproj is loaded and counted (`llamacpp_mmproj.rs`).
        if n == 0 || self.llamacpp_mmproj().is_some() {
            return;
        }
        let f16 = b(n.saturating_mul(2));
        p.note(
            "llamacpp_vision_tower",
            en!(
                "The vision tower ({n} parameters, {f16} in F16) is not in the text model's GGUF: llama.cpp keeps it in a separate mmproj file, loaded only with --mmproj, and it is not counted here."
            ),
            zh!(
                "视觉编码器（{n} 个参数，F16 为 {f16}）不在文本模型的 GGUF 中：llama.cpp 把它放在单独的 mmproj 文件里，仅在 --mmproj 时加载，此处不计入。"
            ),
        );
    }

    /// The mmproj's buffers, where llama.cpp runs requests with images of a modelled tower.
    pub(super) fn llamacpp_mmproj(&self) -> Option<MmprojFigures> {
        if self.engine != super::Engine::Llamacpp {
            return None;
        }
        let im = self.images()?;
        let rule = self.arch.image_tokens?;
        let t = self.arch.vision_tower?;
        let ppt = t.patches_per_token.max(1);
        // One image (or tile) at a time: its embeddings, a tile's for InternVL.
        let (each, warmup) = match rule {
            ImageTokens::Tiles {
                tokens_per_tile, ..
            } => (tokens_per_tile, tokens_per_tile),
            ImageTokens::Dynamic { .. } => (im.tokens_each.saturating_sub(2), QWEN_WARMUP_TOKENS),
            _ => (im.tokens_each.saturating_sub(2), rule.max_embeds()),
        };
        let patches = each
            .max(warmup)
            .saturating_mul(ppt)
            .saturating_add(t.cls_per_tile);
        let (h, i) = (t.hidden, t.intermediate);
        let mlp = 2 * h + i * if t.gated { 3 } else { 2 };
        let floats =
            (8 * h).max(mlp) + t.stream.saturating_sub(2) * h + t.deepstack * t.out_hidden / ppt;
        let per_patch = 4 * floats;
        Some(MmprojFigures {
            weights: self.arch.vision_params.saturating_mul(MMPROJ_BYTES),
            patches,
            per_patch,
            compute: patches.saturating_mul(per_patch),
        })
    }

    /// The mmproj weights' formula.
    pub(super) fn llamacpp_mmproj_weights_text(&self, m: &MmprojFigures) -> Formula {
        formula!(self.text;
            let (n, w) = (thousands(self.arch.vision_params), b(m.weights));
            ["mmproj {n} params × 2 B (F16 file) = {w}"],
            ["mmproj {n} 个参数 × 2 B（F16 文件）= {w}"]
        )
    }

    /// CLIP's compute buffer's formula.
    pub(super) fn llamacpp_clip_text(&self, m: &MmprojFigures) -> Formula {
        formula!(self.text;
            let (patches, per, c) = (thousands(m.patches), thousands(m.per_patch), b(m.compute));
            ["CLIP compute buffer: {patches} patches of the largest image (or the warmup's) × {per} B (f32) = {c}"],
            ["CLIP 计算缓冲区：{patches} 个图块（最大图像或预热图像）× {per} B（f32）= {c}"]
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, estimate,
    };

    fn run(engine: Engine, images: f64) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some("Qwen/Qwen3-VL-8B-Instruct".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Inference,
                engine,
                seq_len: 8192.0,
                images,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("rtx-4090".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Qwen3-VL-8B with one 1,024 × 1,024 image a prompt (1,024 embeddings, under the warmup's
    /// 2,116): by hand, the mmproj 576,388,336 × 2 B = 1,152,776,672 and CLIP's buffer 2,116 × 4
    /// = 8,464 patches × 4 × (max(8 × 1152, 2 × 1152 + 2 × 4304) + 3 × 4096 / 4) = 8,464 ×
    /// 55,936 = 473,442,304 (the log of issue #18181 asked 390,156,544 at this size: 21 %
    /// above it); on the GPU beside the text model, and none without images or under Ollama.
    #[test]
    fn mmproj_by_hand() {
        let with = estimate(&run(Engine::Llamacpp, 1.0)).unwrap();
        assert_eq!(
            with.component_bytes(ComponentKind::VisionWeights),
            1_152_776_672
        );
        assert_eq!(
            with.component_bytes(ComponentKind::EncoderActivations),
            473_442_304
        );
        let without = estimate(&run(Engine::Llamacpp, 0.0)).unwrap();
        assert_eq!(without.component_bytes(ComponentKind::VisionWeights), 0);
        assert_eq!(
            without.component_bytes(ComponentKind::EncoderActivations),
            0
        );
        // The text's KV cache and compute buffer grow with the image's tokens too.
        assert!(with.total_bytes.get() >= without.total_bytes.get() + 1_626_218_976);
        let ollama = estimate(&run(Engine::Ollama, 1.0));
        if let Ok(o) = ollama {
            assert_eq!(o.component_bytes(ComponentKind::VisionWeights), 0);
        }
    }

    /// A 4,096 × 4,096 image is above the warmup: 16,384 embeddings × 4 = 65,536 patches.
    #[test]
    fn a_larger_image_grows_the_buffer() {
        let mut i = run(Engine::Llamacpp, 1.0);
        i.run.image_width = Some(4096.0);
        i.run.image_height = Some(4096.0);
        let e = estimate(&i).unwrap();
        assert_eq!(
            e.component_bytes(ComponentKind::EncoderActivations),
            65_536 * 55_936
        );
    }
}
