//! vLLM's `--limit-mm-per-prompt` JSON (`{"image": N}`; from vLLM 0.11 also `{"image":
//! {"count": N, "width": W, "height": H}}`, the size its start-up profile's dummy images take,
//! `vllm/config/multimodal.py` `ImageDummyOptions`): written from the run's images per request
//! and read back into the estimate's `images`, `image_width` and `image_height`. Every modality
//! at 0 is `language_model_only` (vLLM 0.10.1's implicit language-model-only mode, PR #22299):
//! written as [`TEXT_ONLY_JSON`] rather than `--language-model-only`, which later releases add.
//!
//! vLLM drops a tower when every modality *it* serves is at 0, a modality not named taking the
//! default 999 (`SupportsMultiModal._mark_tower_model`, `MultiModalConfig.get_limit_per_prompt`,
//! vLLM 0.33.0). So `{"image": 0}` alone is text-only for a model whose towers serve images
//! alone (Gemma 3's SigLIP, `gemma3_mm.py`; Pixtral's, `mistral3.py`: both marked `"image"`),
//! and leaves the towers of the others (Qwen-VL's, InternVL's and Gemma 4's vision towers are
//! marked `{"image", "video"}`; Gemma 3n and Gemma 4 E2B/E4B have an audio tower too): decided
//! once the command's model is known ([`ImageZero::apply`]), by its preset.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::Result;
use crate::estimate::{EstimateInput, Images};
use crate::model::{Architecture, ImageTokens};

/// `--limit-mm-per-prompt` with image at 0 and other modalities left at vLLM's default: the
/// modalities not named and the note for a model whose towers stay.
pub(super) struct ImageZero {
    note: String,
}

impl ImageZero {
    /// Text-only where the command's model is a preset whose every tower serves images alone
    /// ([`image_only_towers`]); otherwise the towers stay counted and the note says why.
    pub(super) fn apply(self, i: &mut EstimateInput, not_read: &mut Vec<String>) {
        let preset = i.model.model.as_deref().and_then(crate::presets::find);
        if preset.is_some_and(|p| image_only_towers(&p.arch)) {
            i.run.language_model_only = true;
        } else {
            not_read.push(self.note);
        }
    }
}

/// Whether every tower of `arch` serves images alone, so that vLLM builds none at `{"image":
/// 0}`: Gemma 3's (a fixed image-token count with a SigLIP [`crate::model::VisionTower`]) and
/// Pixtral's (the `Rows` rule). Gemma 3n's fixed count comes with a MobileNet tower (no
/// `VisionTower`) and an audio tower; Qwen-VL's, InternVL's and Gemma 4's towers serve video;
/// a model without an image rule (Llama 4, Kimi K2.5) is not known here: their towers stay.
fn image_only_towers(arch: &Architecture) -> bool {
    match arch.image_tokens {
        Some(ImageTokens::Fixed { .. }) => arch.vision_tower.is_some(),
        Some(ImageTokens::Rows { .. }) => true,
        _ => false,
    }
}

/// The JSON value of `--limit-mm-per-prompt` for the run's images: the most a prompt holds.
pub(super) fn limit_json(images: &Images) -> String {
    alloc::format!("{{\"image\": {}}}", images.per_request)
}

/// `--limit-mm-per-prompt` for `language_model_only`: every modality vLLM's models take at 0
/// (a model's processor reads only the modalities it supports, `get_allowed_mm_limits`).
pub(super) const TEXT_ONLY_JSON: &str = "{\"image\": 0, \"video\": 0, \"audio\": 0}";

/// `--limit-mm-per-prompt`'s `value` onto `i`: the image count (and the size, where the object
/// form gives one); the other modalities go to `not_read`. Image at 0 with another modality
/// left out is returned, for the model's towers to decide.
pub(super) fn read(
    flag: &str,
    value: &str,
    i: &mut EstimateInput,
    not_read: &mut Vec<String>,
) -> Result<Option<ImageZero>> {
    let bad = || {
        crate::input_error!(
            Malformed,
            "command",
            ["{flag} is not a JSON object of counts"],
            ["{flag} 不是给出数量的 JSON 对象"],
            [
                "a JSON object such as {{\"image\": 2}} or {{\"image\": {{\"count\": 2, \"width\": 1024, \"height\": 1024}}}}"
            ],
            [
                "JSON 对象，如 {{\"image\": 2}} 或 {{\"image\": {{\"count\": 2, \"width\": 1024, \"height\": 1024}}}}"
            ],
        )
    };
    let map = super::json_object(value, bad)?;
    let number = |v: &serde_json::Value| v.as_f64().ok_or_else(bad);
    // Every modality given at 0 (a count, or an object's `count`), the image among them: vLLM
    // builds no tower whose modalities are all 0. A tower serves image and video (Qwen-VL's,
    // Gemma 4's) or audio (Gemma 4 E2B's and E4B's), so image, video and audio all at 0 are
    // no tower; with one of them absent, the model decides (module docs).
    let count = |v: &serde_json::Value| match v {
        serde_json::Value::Object(o) => o.get("count").and_then(serde_json::Value::as_f64),
        v => v.as_f64(),
    };
    if map.contains_key("image") && map.values().all(|v| count(v) == Some(0.0)) {
        let absent: Vec<&str> = ["video", "audio"]
            .into_iter()
            .filter(|m| !map.contains_key(*m))
            .collect();
        if absent.is_empty() {
            i.run.language_model_only = true;
            return Ok(None);
        }
        i.run.images = 0.0;
        return Ok(Some(ImageZero {
            note: alloc::format!(
                "{flag} image 0 without {} 0 (the towers stay counted: vLLM keeps a tower unless every modality it serves is 0, and this model's serve more than images or are not known; give image, video and audio 0, or --language-model-only)",
                absent.join(" and ")
            ),
        }));
    }
    for (key, v) in &map {
        match (key.as_str(), v) {
            ("image", serde_json::Value::Object(o)) => {
                for (k, x) in o {
                    match k.as_str() {
                        "count" => i.run.images = number(x)?,
                        "width" => i.run.image_width = Some(number(x)?),
                        "height" => i.run.image_height = Some(number(x)?),
                        _ => not_read.push(alloc::format!("{flag} image.{k}")),
                    }
                }
            }
            ("image", v) => i.run.images = number(v)?,
            (other, _) => not_read.push(alloc::format!("{flag} {other}")),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::{limit_json, read};
    use crate::estimate::{EstimateInput, Images};

    /// Written as vLLM's docs write it, and read back in both of vLLM's forms; a video count is
    /// not read and is said so.
    #[test]
    fn limit_written_and_read() {
        let images = Images {
            per_request: 3,
            width: 1024,
            height: 768,
            tokens_each: 770,
            max_tokens_each: 16_386,
        };
        assert_eq!(limit_json(&images), "{\"image\": 3}");
        let mut i = EstimateInput::default();
        let mut not_read = alloc::vec::Vec::new();
        read(
            "--limit-mm-per-prompt",
            "{\"image\": 3, \"video\": 0}",
            &mut i,
            &mut not_read,
        )
        .unwrap();
        assert_eq!(i.run.images, 3.0);
        assert_eq!(not_read, ["--limit-mm-per-prompt video"]);
        read(
            "--limit-mm-per-prompt",
            "{\"image\": {\"count\": 2, \"width\": 640, \"height\": 480}}",
            &mut i,
            &mut not_read,
        )
        .unwrap();
        assert_eq!(
            (i.run.images, i.run.image_width, i.run.image_height),
            (2.0, Some(640.0), Some(480.0))
        );
        assert!(read("--limit-mm-per-prompt", "[2]", &mut i, &mut not_read).is_err());
        assert!(
            read(
                "--limit-mm-per-prompt",
                "{\"image\": \"a\"}",
                &mut i,
                &mut not_read
            )
            .is_err()
        );
    }
}

#[cfg(test)]
mod launch_tests {
    use crate::estimate::{
        Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, ServingInput,
    };
    use crate::launch::{launch_input, read_command};

    /// A Qwen3-VL server with two images a prompt: the command carries vLLM's limit, and the
    /// command read back gives the same count.
    #[test]
    fn vllm_serve_carries_the_image_limit_and_reads_it_back() {
        let input = EstimateInput {
            model: ModelInput {
                model: Some("Qwen/Qwen3-VL-8B-Instruct".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine: Engine::Vllm,
                images: 2.0,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(16384.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let l = launch_input(&input).unwrap();
        assert!(
            l.script.contains("--limit-mm-per-prompt '{\"image\": 2}'"),
            "{}",
            l.script
        );
        let r = read_command(&l.script).unwrap();
        assert!(r.not_read.is_empty(), "{:?}", r.not_read);
        assert_eq!(r.input.run.images, 2.0);
    }
}

#[cfg(test)]
mod text_only_tests {
    use super::read;
    use crate::estimate::{Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput};
    use crate::launch::{launch_input, read_command};

    /// Image, video and audio at 0 (either form), or `--language-model-only`, is a text-only
    /// vLLM; without one of them the towers stay counted and the command says so; a count above
    /// 0 is not text-only.
    #[test]
    fn zero_limits_read_as_language_model_only() {
        let mut not_read = alloc::vec::Vec::new();
        let mut i = EstimateInput::default();
        let flag = "--limit-mm-per-prompt";
        read(
            flag,
            "{\"image\": 0, \"video\": 0, \"audio\": 0}",
            &mut i,
            &mut not_read,
        )
        .unwrap();
        assert!(
            i.run.language_model_only && not_read.is_empty(),
            "{not_read:?}"
        );
        let mut i = EstimateInput::default();
        let objects = "{\"image\": {\"count\": 0}, \"video\": 0, \"audio\": {\"count\": 0}}";
        read(flag, objects, &mut i, &mut not_read).unwrap();
        assert!(
            i.run.language_model_only && not_read.is_empty(),
            "{not_read:?}"
        );
        // Without audio (or video) 0 the model decides: with none known, a tower may stay:
        // counted, and said.
        let mut i = EstimateInput::default();
        let zero = read(flag, "{\"image\": 0, \"video\": 0}", &mut i, &mut not_read).unwrap();
        zero.unwrap().apply(&mut i, &mut not_read);
        assert!(!i.run.language_model_only);
        assert_eq!(not_read.len(), 1);
        assert!(not_read[0].contains("without audio 0"), "{not_read:?}");
        let zero = read(flag, "{\"image\": 0}", &mut i, &mut not_read).unwrap();
        zero.unwrap().apply(&mut i, &mut not_read);
        assert!(!i.run.language_model_only);
        assert!(
            not_read[1].contains("without video and audio 0"),
            "{not_read:?}"
        );
        let mut i = EstimateInput::default();
        read(flag, "{\"image\": 1, \"video\": 0}", &mut i, &mut not_read).unwrap();
        assert!(!i.run.language_model_only);
        let r = read_command("vllm serve google/gemma-3-4b-it --language-model-only").unwrap();
        assert!(r.input.run.language_model_only);
    }

    /// `{"image": 0}` alone, as vLLM 0.33 builds each model's towers: Gemma 3 (SigLIP, marked
    /// "image") and Mistral Small 3.1 (Pixtral, "image") build none, so text-only with nothing
    /// unread; Qwen3-VL (its tower marked image and video, video left at 999) and Gemma 3n (an
    /// audio tower beside its vision one) keep theirs, counted and said.
    #[test]
    fn image_zero_alone_by_the_models_towers() {
        for (model, text_only) in [
            ("google/gemma-3-4b-it", true),
            ("mistralai/Mistral-Small-3.1-24B-Instruct-2503", true),
            ("Qwen/Qwen3-VL-8B-Instruct", false),
            ("google/gemma-3n-E4B-it", false),
        ] {
            let line =
                alloc::format!("vllm serve {model} --limit-mm-per-prompt '{{\"image\": 0}}'");
            let r = read_command(&line).unwrap();
            assert_eq!(r.input.run.language_model_only, text_only, "{model}");
            assert_eq!(
                r.not_read.is_empty(),
                text_only,
                "{model}: {:?}",
                r.not_read
            );
            // The model may come after the flag.
            let line = alloc::format!(
                "vllm serve --limit-mm-per-prompt '{{\"image\": 0}}' --model {model}"
            );
            let r = read_command(&line).unwrap();
            assert_eq!(r.input.run.language_model_only, text_only, "{model}");
        }
        // Gemma 3 text-only: its tower's weights leave the estimate.
        let r =
            read_command("vllm serve google/gemma-3-4b-it --limit-mm-per-prompt '{\"image\": 0}'")
                .unwrap();
        let text = crate::estimate::estimate(&r.input).unwrap();
        let all = crate::estimate::estimate(&{
            let mut i = r.input.clone();
            i.run.language_model_only = false;
            i
        })
        .unwrap();
        let tower = crate::catalog::find_model("google/gemma-3-4b-it")
            .map(|(_, a, _)| a.vision_params)
            .unwrap();
        let w = crate::estimate::ComponentKind::Weights;
        assert_eq!(all.component_bytes(w) - text.component_bytes(w), tower * 2);
    }

    /// A text-only Gemma 3 server: the command carries every modality at 0, and reads back
    /// text-only with nothing left unread.
    #[test]
    fn text_only_written_and_read_back() {
        let input = EstimateInput {
            model: ModelInput {
                model: Some("google/gemma-3-4b-it".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine: Engine::Vllm,
                language_model_only: true,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let l = launch_input(&input).unwrap();
        assert!(
            l.script
                .contains("--limit-mm-per-prompt '{\"image\": 0, \"video\": 0, \"audio\": 0}'"),
            "{}",
            l.script
        );
        let r = read_command(&l.script).unwrap();
        assert!(r.not_read.is_empty(), "{:?}", r.not_read);
        assert!(r.input.run.language_model_only);
    }
}
