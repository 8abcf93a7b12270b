//! Ollama over several GPUs, as its scheduler picks them (`server/sched.go` `pickBestFitGPUs` at
//! ollama/ollama 000ce02098f6bfea486601b5cae35ba38f8824fc): the GPUs sorted by free memory, most
//! first; the freest alone when the whole model fits it; else every GPU, its layers spread by
//! `estimateGPULayers` and handed to llama.cpp as `--tensor-split`.

use crate::estimate::{
    Engine, Estimate, EstimateInput, HardwareInput, ModelInput, PlacementInput, RunInput,
    ServingInput, estimate,
};

fn on(model: &str, cards: &[&str], in_use: Option<&str>) -> Estimate {
    estimate(&EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Ollama,

            // Ollama up to 0.24: its Go runner and its own layer plan.
            engine_version: Some("0.24.0".into()),
            ..Default::default()
        },
        hardware: HardwareInput {
            cards: cards.iter().map(|c| (*c).into()).collect(),
            memory_in_use: in_use.map(Into::into),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap()
}

fn layout(e: &Estimate) -> alloc::vec::Vec<(&str, u64, bool)> {
    e.cards
        .iter()
        .map(|c| (c.gpu.as_str(), c.layers, c.output_layer))
        .collect()
}

/// llama3.1:8b (Q4_K_M, 4.30 GiB of weights; num_ctx 32,768, Ollama's default for the two cards'
/// 35.4 GiB together) fits the RTX 3090 alone: Ollama loads it there, whichever order the cards
/// are named in, and the RTX 3060 holds nothing.
#[test]
fn the_freest_card_alone_when_it_holds_the_model() {
    for cards in [["rtx-3060-12gb", "rtx-3090"], ["rtx-3090", "rtx-3060-12gb"]] {
        let e = on("llama3.1:8b", &cards, None);
        assert_eq!(layout(&e), [("rtx-3090", 32, true)], "{cards:?}");
        assert_eq!(e.ollama.as_ref().unwrap().context, 32_768);
        let fit = e.fit.unwrap();
        assert_eq!(fit.gpu, "rtx-3090");
        assert!(fit.fits);
        assert!(e.notes.iter().any(|n| n.key == "ollama_gpus"));
    }
}

/// llama3.1:70b (Q4_K_M, about 40 GiB) fits neither card alone: Ollama spreads it over both,
/// the RTX 3090 (most free) first, and llama.cpp then holds on each card the layers Ollama gave
/// it, within its free memory; the rest runs on the CPU. Named in either order, the same.
#[test]
fn every_card_by_free_memory_when_none_holds_it() {
    let a = on("llama3.1:70b", &["rtx-3060-12gb", "rtx-3090"], None);
    let b = on("llama3.1:70b", &["rtx-3090", "rtx-3060-12gb"], None);
    assert_eq!(layout(&a), layout(&b));
    let l = layout(&a);
    assert_eq!((l[0].0, l[1].0), ("rtx-3090", "rtx-3060-12gb"));
    let o = a.ollama.as_ref().unwrap();
    assert_eq!(l[0].1 + l[1].1, o.gpu_layers);
    assert!(l[0].1 > l[1].1 && l[1].1 > 0, "{l:?}");
    assert!(a.cards.iter().all(|c| c.fits), "{:?}", a.cards);
    assert!(o.gpu_layers < o.model_layers);
}

/// Memory in use moves Ollama's order: with 14 GiB in use on the RTX 3090 (9.68 GiB free) the
/// RTX 3060 (11.75 GiB free) is the freest, and llama3.1:8b (about 5.7 GiB by Ollama's estimate)
/// goes there alone.
#[test]
fn memory_in_use_decides_the_freest() {
    let e = on(
        "llama3.1:8b",
        &["rtx-3090", "rtx-3060-12gb"],
        Some("14GiB,0GiB"),
    );
    assert_eq!(layout(&e), [("rtx-3060-12gb", 32, true)]);
}

/// Alike cards follow the same rule: two RTX 4090s, llama3.1:8b on one of them (the estimate's
/// figures those of one card), llama3.1:70b over both.
#[test]
fn alike_cards_pack_into_one_when_it_holds_the_model() {
    // num_ctx given: Ollama's default follows every GPU's memory together.
    let two = |model: &str| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Ollama,

                // Ollama up to 0.24: its Go runner and its own layer plan.
                engine_version: Some("0.24.0".into()),
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("rtx-4090".into()),
                ..Default::default()
            },
            placement: PlacementInput {
                gpus: Some(2.0),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    let one = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("llama3.1:8b".into()),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Ollama,

            // Ollama up to 0.24: its Go runner and its own layer plan.
            engine_version: Some("0.24.0".into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("rtx-4090".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let small = two("llama3.1:8b");
    assert_eq!(small.components, one.components);
    let big = two("llama3.1:70b");
    assert!(
        big.notes
            .iter()
            .any(|n| n.key == "ollama_gpus" && n.en.contains("rtx-4090 "))
    );
}

/// Ollama from 0.30 (`server/sched.go` `selectLlamaServerPlacement` → `bestSingleGPUFit`):
/// the GPU with the most free memory among those whose free memory's 80 % holds its prediction,
/// alone. llama3.1:8b at num_ctx 8,192: an f16 KV of 4 × 32 layers × 8 KV heads × 128 × 8,192 =
/// 1 GiB on the file's 4.58 GiB, 5.58 GiB; the RTX 3060's 11.75 GiB free allows 9.40 GiB and
/// the RTX 3090's 23.68 GiB 18.94 GiB: both hold it, and the 3090, with more free, gets it,
/// in either order. gemma3:27b adds 4 × 62 × 16 × 168 × 8,192 B = 5.09 GiB of KV to its file,
/// more than 18.94 GiB: no GPU holds it alone, and llama-server gets both.
#[test]
fn from_0_30_the_freest_gpu_that_holds_the_prediction_alone() {
    let on = |model: &str, cards: &[&str]| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Ollama,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                cards: cards.iter().map(|c| (*c).into()).collect(),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    assert_eq!(4 * 32 * 8 * 128 * 8192, 1u64 << 30);
    for cards in [["rtx-3060-12gb", "rtx-3090"], ["rtx-3090", "rtx-3060-12gb"]] {
        let e = on("llama3.1:8b", &cards);
        assert_eq!(layout(&e), [("rtx-3090", 32, true)], "{cards:?}");
        // One card holds it: no note of a split over the cards beside Ollama's own.
        assert!(e.notes.iter().all(|n| n.key != "llamacpp_unlike_cards"));
        let note = e.notes.iter().find(|n| n.key == "ollama_gpus").unwrap();
        #[cfg(feature = "en")]
        assert!(
            note.en.contains("5.58 GiB") && note.en.contains("23.68 GiB free"),
            "{}",
            note.en
        );
        #[cfg(not(feature = "en"))]
        let _ = note;
    }
    assert_eq!(4 * 62 * 16 * 168 * 8192, 5_460_983_808u64);
    let e = on("gemma3:27b", &["rtx-3060-12gb", "rtx-3090"]);
    assert_eq!(layout(&e).len(), 2);
    assert!(e.notes.iter().all(|n| n.key != "ollama_gpus"));
    assert!(e.notes.iter().any(|n| n.key == "llamacpp_unlike_cards"));
}
