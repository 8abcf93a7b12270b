//! vLLM's encoder cache in its start-up profile (`--limit-mm-per-prompt`): before the KV pool is
//! sized, `profile_run` runs the vision encoder on a batch of dummy items of the largest size
//! and keeps their outputs in `encoder_cache` while it profiles the text forward, so the pool's
//! budget loses them (vLLM `vllm/multimodal/encoder_budget.py` `MultiModalBudget._get_max_items`
//! and `vllm/v1/core/encoder_cache_manager.py` `compute_mm_encoder_budget`, main at
//! 042a4d3ee43ed07875505b04e93a5a14ddf86964 and 003ad86e237cfccb7846111921a0230a45005196, read
//! 2026-12-06; `gpu_model_runner.py` `profile_run`).
//!
//! The encoder's own activations: `profile_run` (vLLM main at
//! 000fc94b754f66aeb60ef5acf1ea2e94cdc65164, `vllm/v1/worker/gpu_model_runner.py`, read
//! 2026-12-07; the same in v0.22.1, lines 6104–6161) builds `batched_dummy_mm_inputs` of
//! `max_mm_items_per_batch` items at the maximum feature size, runs them through the encoder in
//! one `embed_multimodal` call, keeps the outputs in `encoder_cache` and only then runs the text
//! forward (`_dummy_run`) and the sampler; the dummy inputs stay referenced until the function
//! returns. The profile's torch peak is therefore the pixel input plus the larger of the
//! encoder's own peak and the outputs with the text forward on top: what the encoder adds
//! beyond its outputs is the input and the part of its peak above outputs + text forward
//! (`model::VisionTower` for the peak, against `tests/reference/vision-encoder-peaks.csv`).
//! Qwen3-VL's model also allocates, at load, one `max_num_batched_tokens × text hidden` buffer
//! per DeepStack level (`deepstack_input_embeds`, `qwen3_vl.py` `__init__`), outside the
//! weights. The tower is counted whole on every GPU: vLLM's default
//! `mm_encoder_tp_mode="weights"` shards its projections over tensor parallelism, so with
//! `tp > 1` this errs high.
//!
//! Without images asked (`images` 0) the towers still load, and the profile still runs: the
//! encoder budget is built from every modality whose limit is above 0
//! (`vllm/multimodal/encoder_budget.py` `MultiModalBudget.__init__`, `tower_modalities`), and a
//! modality the launch does not name takes `MultiModalConfig.get_limit_per_prompt`'s default,
//! 999 (`vllm/config/multimodal.py` at 0.33.0; before vllm-project/vllm#25631, 0.11, `999 if
//! envs.VLLM_USE_V1 else 1`), so `profile_run` encodes the same batch of dummy items of the
//! largest size whatever the user will send. Only `language_model_only` (every modality at 0,
//! `text_only.rs`) takes the towers and this profile away. The dummy modality is the one of
//! most tokens an item; the image's is taken (a Qwen-VL video at a limit of 999 gets
//! `seq_len // 999` frames' worth, fewer than one largest image: `get_num_frames_with_most_features`).

use super::super::{ComponentKind, Formula, Parts, Run, b, thousands};
use crate::model::ImageTokens;

/// The profiled batch of encoder outputs.
#[derive(Clone, Copy)]
pub(super) struct EncoderFigures {
    /// Embeddings of the largest item (`max_tokens_per_mm_item`).
    pub(super) embeds: u64,
    /// The encoder budget: max(`max_num_batched_tokens`, `embeds`).
    pub(super) budget: u64,
    /// Items per prompt: max(1, min(limit, max_model_len / `embeds`)), the limit the run's
    /// `images`, or vLLM's default where it asks none.
    pub(super) per_prompt: u64,
    /// No image asked: the profile's items come from vLLM's default limit, this one.
    pub(super) default_limit: Option<u64>,
    /// Items profiled: max(1, min(budget / embeds, max_num_seqs × per_prompt)).
    pub(super) items: u64,
    /// One embedding's width: the text width × (1 + DeepStack levels).
    pub(super) width: u64,
    /// Bytes per element.
    pub(super) dtype_bytes: u64,
    /// The encoder's own forward on the profiled items, where its tower is modelled.
    pub(super) tower: Option<TowerFigures>,
    /// Qwen3-VL's DeepStack buffers: levels × max_num_batched_tokens × text hidden × dtype.
    pub(super) deepstack_buffer: u64,
}

/// The vision tower's forward in the profile.
#[derive(Clone, Copy)]
pub(super) struct TowerFigures {
    /// The tower's patches over all profiled items.
    pub(super) patches: u64,
    /// One patch's share of the peak (`VisionTower::per_patch_bytes`).
    pub(super) per_patch: u64,
    /// The dummy pixel input in fp32, alive through the whole profile.
    pub(super) input: u64,
    /// The encoder's peak beyond its weights and fp32 input: the activations and the input's
    /// copy in the model dtype.
    pub(super) peak: u64,
    /// The text forward's profile peak that the outputs sit under.
    pub(super) text: u64,
}

impl TowerFigures {
    /// The peak's part above the outputs with the text forward on top.
    pub(super) fn above(&self, outputs: u64) -> u64 {
        self.peak.saturating_sub(outputs.saturating_add(self.text))
    }
}

impl EncoderFigures {
    /// The outputs' bytes: items × embeds × width × dtype.
    pub(super) fn bytes(&self) -> u64 {
        self.items
            .saturating_mul(self.embeds)
            .saturating_mul(self.width)
            .saturating_mul(self.dtype_bytes)
    }

    /// What the encoder adds beside its outputs: the input, its peak's part above the outputs
    /// and the text forward, the DeepStack buffers.
    pub(super) fn activations(&self) -> u64 {
        self.tower
            .map_or(0, |t| t.input.saturating_add(t.above(self.bytes())))
            .saturating_add(self.deepstack_buffer)
    }

    /// Both: what the pool's budget loses to the images.
    pub(super) fn total(&self) -> u64 {
        self.bytes().saturating_add(self.activations())
    }
}

impl Run<'_> {
    /// The profile's encoder outputs and activations, wherever the model's towers are loaded
    /// and it has a rule (with images asked or not: module docs); `text` is the text forward's
    /// profile peak.
    pub(super) fn vllm_encoder(&self, text: u64) -> Option<EncoderFigures> {
        let rule = self.arch.image_tokens?;
        let (limit, default_limit) = match self.images() {
            Some(images) => (images.per_request, None),
            None => {
                let d = self.vllm_version.default_mm_limit();
                (d, Some(d))
            }
        };
        let embeds = rule.max_embeds().max(1);
        let budget = self.max_num_batched_tokens.max(embeds);
        let per_prompt = limit.min(self.max_model_len / embeds).max(1);
        let items = (budget / embeds)
            .min(self.max_num_seqs.saturating_mul(per_prompt))
            .max(1);
        let db = self.act_bytes();
        // InternVL's largest image is its tiles (and thumbnail), each with the tower's CLS.
        let tiles = match rule {
            ImageTokens::Tiles {
                tokens_per_tile, ..
            } => embeds / tokens_per_tile.max(1),
            _ => 1,
        };
        let tower = self.arch.vision_tower.map(|t| {
            let patches = t.patches(items, embeds, tiles);
            TowerFigures {
                patches,
                per_patch: t.per_patch_bytes(db),
                // The processor's `pixel_values` are fp32 and stay so in the dummy batch; the
                // model casts them to its dtype for the forward (`_process_image_input`), a copy
                // alive during the encoder's peak.
                input: t.input_bytes(patches, 4),
                peak: t
                    .peak_bytes(patches, items.saturating_mul(embeds), db)
                    .saturating_add(t.input_bytes(patches, db)),
                text,
            }
        });
        let deepstack_buffer = self.arch.vision_tower.map_or(0, |t| {
            t.deepstack
                .saturating_mul(self.max_num_batched_tokens)
                .saturating_mul(self.arch.hidden_size)
                .saturating_mul(db)
        });
        Some(EncoderFigures {
            embeds,
            budget,
            per_prompt,
            default_limit,
            items,
            width: self.arch.hidden_size.saturating_mul(rule.embed_widths()),
            dtype_bytes: db,
            tower,
            deepstack_buffer,
        })
    }

    /// The encoder outputs' formula.
    pub(super) fn vllm_encoder_text(&self, e: &EncoderFigures) -> Formula {
        formula!(self.text;
            let (items, embeds, width, db, size) = (e.items, thousands(e.embeds), thousands(e.width), e.dtype_bytes, b(e.bytes()));
            let (budget, per) = (thousands(e.budget), e.per_prompt);
            ["{items} item(s) of the largest image (encoder budget {budget} tokens; {per} per prompt) × {embeds} embeddings × {width} wide × {db} B = {size}"],
            ["{items} 个最大图像（编码器预算 {budget} 个 token；每个提示词 {per} 个） × {embeds} 个嵌入 × 宽 {width} × {db} B = {size}"]
        )
    }
}

impl Run<'_> {
    /// The encoder's activations as a component beside its cache, with their formula and the
    /// note on what they assume.
    pub(super) fn vllm_encoder_activations(&self, e: &EncoderFigures, p: &mut Parts) {
        let formula = match e.tower {
            Some(t) => self.vllm_tower_text(e, &t),
            None => formula!(self.text;
                let (levels, size) = (self.arch.vision_tower.map_or(0, |t| t.deepstack), b(e.deepstack_buffer));
                ["DeepStack buffers {levels} level(s) = {size}; the tower's own activations are not modelled"],
                ["DeepStack 缓冲区 {levels} 层 = {size}；编码器自身的激活未建模"]
            ),
        };
        p.add(
            ComponentKind::EncoderActivations,
            e.activations(),
            true,
            formula,
            en_str!("vLLM's start-up profile runs the vision encoder on the largest items at once before the text forward: the pool's budget loses the dummy pixel input and the encoder's peak where it rises above its outputs with the text forward on top (flash/SDPA attention, no attention matrix; counted whole on each GPU, so with tensor parallelism this errs high)."),
            zh_str!("vLLM 启动剖析在文本前向之前一次性对最大的多模态项运行视觉编码器：KV 池预算扣除虚拟像素输入，以及编码器峰值高出“编码器输出 + 文本前向”的部分（flash/SDPA 注意力，不生成注意力矩阵；每张 GPU 按整个编码器计，张量并行时偏高）。"),
        );
    }

    /// The tower's part of the formula: input, peak, the part above, DeepStack buffers.
    fn vllm_tower_text(&self, e: &EncoderFigures, t: &TowerFigures) -> Formula {
        let pixels = self.arch.vision_tower.map_or(0, |v| v.pixels);
        let levels = self.arch.vision_tower.map_or(0, |v| v.deepstack);
        if levels == 0 {
            return formula!(self.text;
                let (patches, per, db, input, peak) = (thousands(t.patches), thousands(t.per_patch), e.dtype_bytes, b(t.input), b(t.peak));
                let (outputs, text, above, total) = (b(e.bytes()), b(t.text), b(t.above(e.bytes())), b(e.activations()));
                ["pixel input {patches} patches × {pixels} × 4 B (fp32) = {input}; encoder peak {patches} patches × ({per} B + {pixels} × {db} B input cast) + 2 MiB = {peak}, above outputs {outputs} + text forward {text}: {above}; total {total}"],
                ["像素输入 {patches} 个图块 × {pixels} × 4 B（fp32）= {input}；编码器峰值 {patches} 个图块 × （{per} B + {pixels} × {db} B 输入转换）+ 2 MiB = {peak}，高出 输出 {outputs} + 文本前向 {text} 的部分：{above}；合计 {total}"]
            );
        }
        formula!(self.text;
            let (patches, per, db, input, peak) = (thousands(t.patches), thousands(t.per_patch), e.dtype_bytes, b(t.input), b(t.peak));
            let (outputs, text, above) = (b(e.bytes()), b(t.text), b(t.above(e.bytes())));
            let (mnbt, hidden, ds, total) = (thousands(self.max_num_batched_tokens), thousands(self.arch.hidden_size), b(e.deepstack_buffer), b(e.activations()));
            ["pixel input {patches} patches × {pixels} × 4 B (fp32) = {input}; encoder peak {patches} patches × ({per} B + {pixels} × {db} B input cast) + DeepStack features + 2 MiB = {peak}, above outputs {outputs} + text forward {text}: {above}; DeepStack buffers {levels} × {mnbt} tokens × {hidden} × {db} B = {ds}; total {total}"],
            ["像素输入 {patches} 个图块 × {pixels} × 4 B（fp32）= {input}；编码器峰值 {patches} 个图块 × （{per} B + {pixels} × {db} B 输入转换）+ DeepStack 特征 + 2 MiB = {peak}，高出 输出 {outputs} + 文本前向 {text} 的部分：{above}；DeepStack 缓冲区 {levels} × {mnbt} 个 token × {hidden} × {db} B = {ds}；合计 {total}"]
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput,
        ServingInput, estimate,
    };

    fn serve(images: f64) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some("Qwen/Qwen3-VL-8B-Instruct".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine: Engine::Vllm,
                images,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(32768.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// A tower whose image tokens are not modelled (Llama 4 Scout's) is loaded and profiled by
    /// vLLM, which the estimate cannot size: no encoder component, and the note says the pool may
    /// be smaller, naming the tower's parameters. Without the tower (`language_model_only`), or
    /// for a tower with a rule (Qwen3-VL, whose profile is counted), or a text model, no note.
    #[test]
    fn an_unmodelled_tower_is_named_not_counted() {
        let run = |model: &str, text_only: bool| {
            let mut i = serve(0.0);
            i.model.model = Some(model.into());
            i.run.language_model_only = text_only;
            i.placement.tp = 4.0;
            estimate(&i).unwrap()
        };
        let noted = |e: &crate::estimate::Estimate| {
            e.notes.iter().any(|n| n.key == "vllm_encoder_unmodelled")
        };
        let scout = run("meta-llama/Llama-4-Scout-17B-16E-Instruct", false);
        assert!(noted(&scout));
        assert_eq!(scout.component_bytes(ComponentKind::EncoderCache), 0);
        let text = scout
            .notes
            .iter()
            .find(|n| n.key == "vllm_encoder_unmodelled")
            .map(|n| (n.en.clone(), n.zh.clone()))
            .unwrap_or_default();
        if cfg!(feature = "en") {
            assert!(text.0.contains("may be smaller"), "{}", text.0);
        }
        if cfg!(feature = "zh") {
            assert!(text.1.contains("可能比这里显示的小"), "{}", text.1);
        }
        assert!(!noted(&run(
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            true
        )));
        assert!(!noted(&run("Qwen/Qwen3-VL-8B-Instruct", false)));
        assert!(!noted(&run("meta-llama/Llama-3.1-8B", false)));
    }

    /// Qwen3-VL-8B on an H100 (max_num_batched_tokens 8192 there), two images a prompt, by
    /// hand from vLLM's `compute_mm_encoder_budget` and `_get_max_items`: the largest image is
    /// 16,777,216 / 32² = 16,384 embeddings; the budget max(8192, 16384) = 16,384; per prompt
    /// max(1, min(2, 32768 / 16384)) = 2; items max(1, min(16384 / 16384, 1024 × 2)) = 1; each
    /// embedding 4,096 × (1 + 3 DeepStack levels) = 16,384 wide in bf16: 1 × 16,384 × 16,384 ×
    /// 2 B = 536,870,912 B. With no image asked the limit is vLLM's default 999, per prompt
    /// min(999, 2) = 2, and the profile the same one item: the same cache and the same pool.
    /// Against the text-only server (`language_model_only`) the pool loses the tower's weights
    /// and the whole profile (to within one block of every layer).
    #[test]
    fn encoder_outputs_by_hand_and_out_of_the_pool() {
        let with = estimate(&serve(2.0)).unwrap();
        assert_eq!(
            with.component_bytes(ComponentKind::EncoderCache),
            536_870_912
        );
        let without = estimate(&serve(0.0)).unwrap();
        assert_eq!(
            without.component_bytes(ComponentKind::EncoderCache),
            536_870_912
        );
        assert_eq!(
            without.component_bytes(ComponentKind::EncoderActivations),
            with.component_bytes(ComponentKind::EncoderActivations)
        );
        assert_eq!(
            without.component_bytes(ComponentKind::KvCache),
            with.component_bytes(ComponentKind::KvCache)
        );
        assert!(
            without
                .notes
                .iter()
                .any(|n| n.key == "vllm_encoder_profile")
        );
        assert!(!with.notes.iter().any(|n| n.key == "vllm_encoder_profile"));
        let text_only = estimate(&{
            let mut i = serve(0.0);
            i.run.language_model_only = true;
            i
        })
        .unwrap();
        assert_eq!(text_only.component_bytes(ComponentKind::EncoderCache), 0);
        assert_eq!(
            text_only.component_bytes(ComponentKind::EncoderActivations),
            0
        );
        let tower = crate::catalog::find_model("Qwen/Qwen3-VL-8B-Instruct")
            .map(|(_, arch, _)| arch.vision_params)
            .unwrap();
        let lost = text_only.component_bytes(ComponentKind::KvCache)
            - without.component_bytes(ComponentKind::KvCache);
        let images =
            536_870_912 + without.component_bytes(ComponentKind::EncoderActivations) + tower * 2;
        // One block of 16 tokens in each of 36 layers: 16 × 147,456 / 36 × 36 B.
        let block = 16 * 147_456;
        assert!(lost.abs_diff(images) < block, "{lost} {images}");
    }

    /// The default limit where it decides the items: Gemma 3 4B on an A100 (2,048 batched
    /// tokens), `max_num_seqs` 2, `max_model_len` 32,768; each item 256 embeddings of 2,560 in
    /// bf16 (1,310,720 B). One image asked: per prompt 1, items min(2,048 / 256 = 8, 2 × 1) = 2,
    /// 2,621,440 B. None asked: per prompt min(999, 32,768 / 256 = 128) = 128, items min(8, 2 ×
    /// 128) = 8, 10,485,760 B. On vLLM 0.7 (V0, whose default limit is 1) none asked is one a
    /// prompt again: 2,621,440 B.
    #[test]
    fn default_limit_by_version_by_hand() {
        let run = |images: f64, version: Option<&str>| {
            let mut i = serve(images);
            i.model.model = Some("google/gemma-3-4b-it".into());
            i.hardware.gpu = Some("a100-sxm4-80gb".into());
            i.serving.max_num_seqs = Some(2.0);
            i.run.engine_version = version.map(Into::into);
            estimate(&i)
                .unwrap()
                .component_bytes(ComponentKind::EncoderCache)
        };
        assert_eq!(run(1.0, None), 2_621_440);
        assert_eq!(run(0.0, None), 10_485_760);
        assert_eq!(run(0.0, Some("0.7")), 2_621_440);
    }

    /// The same run's encoder activations by hand (`model::VisionTower`, vLLM's `profile_run`):
    /// the one item of 16,384 embeddings is 65,536 patches of the tower (merge 2 × 2). Its pixel
    /// input in fp32 65,536 × 1,536 × 4 B = 402,653,184; its peak 65,536 × 44,416 B (the
    /// per-patch figure of `vision_tower.rs`'s test), plus 3 DeepStack levels × 16,384 × 4,096 ×
    /// 2 B, plus 2 MiB, plus the input's bf16 copy 65,536 × 1,536 × 2 B: 2,910,846,976 +
    /// 402,653,184 + 2,097,152 + 201,326,592 = 3,516,923,904, of which the part above the
    /// outputs (536,870,912) and the text forward's profile (the Activations component) counts;
    /// the DeepStack buffers 3 × 8,192 × 4,096 × 2 B = 201,326,592 (192 MiB).
    #[test]
    fn encoder_activations_by_hand() {
        let e = estimate(&serve(2.0)).unwrap();
        let text = e.component_bytes(ComponentKind::Activations);
        let above = 3_516_923_904u64.saturating_sub(536_870_912 + text);
        assert!(
            above > 0,
            "the encoder's peak is above the text forward's: {text}"
        );
        assert_eq!(
            e.component_bytes(ComponentKind::EncoderActivations),
            402_653_184 + above + 201_326_592
        );
    }

    /// Gemma 3 4B with vLLM's A100 default of 2048 batched tokens: 256 embeddings an image,
    /// budget 2048, 8 items (2048 / 256, under 256 sequences × 1 per prompt), each 2,560 wide:
    /// 8 × 256 × 2,560 × 2 B = 10,485,760 B.
    #[test]
    fn gemma3_batches_items_into_the_budget() {
        let mut i = serve(1.0);
        i.model.model = Some("google/gemma-3-4b-it".into());
        i.hardware.gpu = Some("a100-sxm4-80gb".into());
        let e = estimate(&i).unwrap();
        assert_eq!(e.component_bytes(ComponentKind::EncoderCache), 10_485_760);
    }
}
