//! A decoder known by its parameter count alone (`params: "7B"`): its KV cache is counted from
//! the shape assumed for that count ([`crate::model::Architecture::assumed_decoder`]) in every
//! engine, and the estimate says so; never a silent zero cache.

use super::*;
use crate::precision::{GgufFileType, Quantization};
use ComponentKind as K;

fn bare(params: &str, engine: Engine) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            params: Some(params.into()),
            ..Default::default()
        },
        run: RunInput {
            engine,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn on_h100(engine: Engine, model: Option<&str>, params: Option<&str>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: model.map(Into::into),
            params: params.map(Into::into),
            ..Default::default()
        },
        run: RunInput {
            engine,
            batch: 8.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(32_768.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// transformers, by hand: 80B assumes ⌈28.5 × ⁴√80⌉ = ⌈85.2⌉ = 86 layers, so 2 × 8 × 128 × 86 ×
/// 2 B = 352,256 B a token, over 8,192 prompt + 256 new tokens = 2,975,858,688 B.
#[test]
fn a_bare_parameter_count_counts_the_cache_of_an_assumed_shape() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            params: Some("80B".into()),
            ..Default::default()
        },
        run: RunInput {
            seq_len: 8192.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.kv_bytes_per_token, 352_256);
    assert_eq!(e.kv_cache_bytes.get(), 352_256 * 8448);
    let note = e
        .notes
        .iter()
        .find(|n| n.key == "kv_assumed_shape")
        .unwrap();
    assert!(
        note.en.contains("86 layers × 8 KV heads × 128 head size"),
        "{}",
        note.en
    );
    // 80B at full attention: hidden ⌊√(8e10 / 1,032)⌋ = 8,804, 2 × 86 × 8,804 = 1,514,288
    // elements, 2.89 MiB a token in bf16: 8.6× the assumed 176,128 elements (344 KiB).
    assert!(note.en.contains("344.00 KiB a token"), "{}", note.en);
    assert!(
        note.en.contains("about 8.6× as much, 2.89 MiB"),
        "{}",
        note.en
    );
    assert!(note.zh.contains("86 层"), "{}", note.zh);
    assert!(e.notes.iter().all(|n| n.key != "kv_not_counted"));
    let kv = e.components.iter().find(|c| c.key == K::KvCache).unwrap();
    assert!(kv.formula.contains("(assumed)"), "{}", kv.formula);
    assert!(kv.formula_zh.contains("假定"), "{}", kv.formula_zh);
    // A model known by its config counts its own and has no such note.
    let llama = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert!(llama.notes.iter().all(|n| n.key != "kv_assumed_shape"));
}

/// Every engine counts the assumed cache, at least Llama 3.1 8B's when given its count
/// (8.03B: 48 layers assumed against its 32), and never a pool that holds more tokens.
#[test]
fn every_engine_counts_at_least_the_presets_cache() {
    let mut engines = alloc::vec![Engine::Hf, Engine::Vllm, Engine::Sglang];
    #[cfg(feature = "trtllm")]
    engines.push(Engine::Trtllm);
    for engine in engines {
        let b = estimate(&on_h100(engine, None, Some("8.03B"))).unwrap();
        let p = estimate(&on_h100(engine, Some("meta-llama/Llama-3.1-8B"), None)).unwrap();
        // 2 × 8 × 128 × 48 × 2 B against 2 × 8 × 128 × 32 × 2 B.
        assert_eq!(b.kv_bytes_per_token, 196_608, "{engine:?}");
        assert_eq!(p.kv_bytes_per_token, 131_072, "{engine:?}");
        assert!(b.kv_cache_bytes.get() > 0, "{engine:?}");
        if let (Some(bt), Some(pt)) = (b.kv_cache_tokens, p.kv_cache_tokens) {
            assert!(bt > 0 && bt <= pt, "{engine:?}: {bt} > {pt}");
        } else {
            assert_eq!(engine, Engine::Hf, "a serving engine sizes a pool");
        }
        if engine != Engine::Hf {
            assert!(b.max_concurrency.is_some(), "{engine:?}");
        }
        assert!(
            b.notes.iter().any(|n| n.key == "kv_assumed_shape"),
            "{engine:?}"
        );
    }
}

/// llama.cpp and Ollama (f16 cache): 7B assumes 47 layers, 2 × 8 × 128 × 47 = 96,256 values a
/// token, 192,512 B; 32,768 tokens of context are 6,308,233,216 B.
#[test]
fn llamacpp_and_ollama_count_the_assumed_cache() {
    for engine in [Engine::Llamacpp, Engine::Ollama] {
        let e = estimate(&{
            let mut input = bare("7B", engine);
            input.model.quantization = Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            };
            input.serving.max_model_len = Some(32_768.0);
            input
        })
        .unwrap();
        let kv = e.components.iter().find(|c| c.key == K::KvCache).unwrap();
        // On the GPU, with the weights (no card given: nothing left in CPU memory).
        assert_eq!(kv.bytes.get(), 6_308_233_216, "{engine:?}");
        assert_eq!(e.cpu_bytes.get(), 0, "{engine:?}");
        assert!(e.notes.iter().any(|n| n.key == "kv_assumed_shape"));
        assert!(
            kv.formula
                .contains("2048 values per token per layer × 47 layers"),
            "{}",
            kv.formula
        );
        if engine == Engine::Ollama {
            // Ollama's plan places the 47 assumed blocks, each with its layer of KV.
            let o = e.ollama.as_ref().unwrap();
            assert_eq!(o.kv_bytes.get(), 6_308_233_216);
            assert_eq!((o.gpu_layers, o.model_layers, o.cpu_percent), (47, 47, 0));
        }
    }
}

/// Training keeps no KV cache: a bare count there, and a convolutional network known by its
/// count (ResNet-50), keep the note that only the weights are known.
#[test]
fn training_and_image_networks_keep_no_cache() {
    let t = estimate(&{
        let mut input = bare("7B", Engine::Hf);
        input.run.mode = Mode::Training;
        input
    })
    .unwrap();
    assert_eq!(t.kv_cache_bytes.get(), 0);
    assert!(t.notes.iter().any(|n| n.key == "kv_not_counted"));
    let r = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("microsoft/resnet-50".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(r.kv_cache_bytes.get(), 0);
    assert!(r.notes.iter().all(|n| n.key != "kv_assumed_shape"));
}
