//! Every preset reproduces its published parameter count exactly, from its architecture alone.
//!
//! The published counts (and their sources) are in `data/models/*.toml`, `params` and
//! `params_source`; a few are restated here with a hand calculation, so the table and the
//! arithmetic are checked independently of each other.

use vramfit::model::Family;
use vramfit::presets::{find, presets, search};

#[test]
fn every_preset_matches_its_published_count() {
    let mut wrong = Vec::new();
    for p in presets() {
        p.arch
            .validate("preset")
            .unwrap_or_else(|e| panic!("{}: {e}", p.id));
        if p.arch.params() != p.params {
            wrong.push(format!(
                "{}: architecture gives {}, published {}",
                p.id,
                p.arch.params(),
                p.params
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(presets().len() >= 50);
}

#[test]
fn table_is_sorted_and_ids_resolve() {
    let ids: Vec<String> = presets()
        .iter()
        .map(|p| p.id.to_ascii_lowercase())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    for p in presets() {
        for id in p.ids() {
            assert_eq!(find(id).map(|f| f.id), Some(p.id), "{id}");
            assert_eq!(find(&id.to_ascii_uppercase()).map(|f| f.id), Some(p.id));
        }
        assert!(p.source_url().starts_with("https://"), "{}", p.id);
    }
}

/// The brief's list: every one of these ids must be a preset or an alias.
#[test]
fn required_models_are_present() {
    for id in [
        "microsoft/resnet-50",
        "google-bert/bert-base-uncased",
        "bert-base-uncased",
        "google-bert/bert-large-uncased",
        "google/vit-large-patch16-224",
        "openai/whisper-tiny",
        "ultralytics/yolov5s",
        "meta-llama/Llama-2-7b-hf",
        "meta-llama/Llama-2-13b-hf",
        "EleutherAI/gpt-neox-20b",
        "tiiuae/falcon-40b",
        "meta-llama/Llama-3.1-8B",
        "meta-llama/Llama-3.1-8B-Instruct",
        "meta-llama/Llama-3.1-70B",
        "meta-llama/Llama-3.1-405B",
        "meta-llama/Llama-3.2-1B",
        "meta-llama/Llama-3.2-3B",
        "meta-llama/Llama-3.3-70B-Instruct",
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "mistralai/Mistral-7B-v0.1",
        "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        "mistralai/Mixtral-8x7B-Instruct-v0.1",
        "Qwen/Qwen2.5-0.5B-Instruct",
        "Qwen/Qwen2.5-7B-Instruct",
        "Qwen/Qwen2.5-7B",
        "Qwen/Qwen2.5-14B-Instruct",
        "Qwen/Qwen2.5-32B-Instruct",
        "Qwen/Qwen2.5-72B-Instruct",
        "Qwen/Qwen3-8B",
        "Qwen/Qwen3-14B",
        "Qwen/Qwen3-30B-A3B",
        "Qwen/Qwen1.5-MoE-A2.7B",
        "google/gemma-7b",
        "google/gemma-2-2b-it",
        "google/gemma-2-9b-it",
        "google/gemma-2-27b-it",
        "google/gemma-3-4b-it",
        "google/gemma-3-12b-it",
        "google/gemma-3-27b-it",
        "microsoft/phi-2",
        "microsoft/Phi-3-mini-4k-instruct",
        "microsoft/phi-4",
        "deepseek-ai/DeepSeek-V2-Lite-Chat",
        "deepseek-ai/DeepSeek-V3",
        "ibm-granite/granite-3.1-2b-instruct",
        "ibm-granite/granite-3.1-8b-instruct",
        "codellama/CodeLlama-7b-hf",
        "codellama/CodeLlama-34b-hf",
        "moonshotai/Kimi-Dev-72B",
        "openai/gpt-oss-20b",
        "openai/gpt-oss-120b",
        "openai-community/gpt2",
        "openai-community/gpt2-medium",
    ] {
        assert!(find(id).is_some(), "{id} is missing");
    }
}

#[test]
fn find_accepts_short_names_and_urls() {
    assert_eq!(find("llama-3.1-8b").unwrap().id, "meta-llama/Llama-3.1-8B");
    assert_eq!(
        find("Llama-3.1-8B-Instruct").unwrap().id,
        "meta-llama/Llama-3.1-8B"
    );
    assert_eq!(find("gpt2").unwrap().id, "openai-community/gpt2");
    assert_eq!(
        find("https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/")
            .unwrap()
            .id,
        "Qwen/Qwen2.5-7B-Instruct"
    );
    assert_eq!(
        find(" MISTRALAI/MISTRAL-7B-V0.1 ").unwrap().id,
        "mistralai/Mistral-7B-v0.1"
    );
    assert!(find("").is_none());
    assert!(find("/").is_none());
    assert!(find("meta-llama/Llama-9-1T").is_none());
}

#[test]
fn search_for_the_picker() {
    let ids = |q: &str| search(q).map(|p| p.id).collect::<Vec<_>>();
    assert_eq!(ids("llama 3.1 8b"), ["meta-llama/Llama-3.1-8B"]);
    assert_eq!(ids("Llama-3.1-8B"), ["meta-llama/Llama-3.1-8B"]);
    assert_eq!(ids("llama3.1 8b"), ["meta-llama/Llama-3.1-8B"]);
    assert!(ids("qwen").len() >= 9);
    assert!(ids("gemma 3").contains(&"google/gemma-3-27b-it"));
    assert_eq!(ids("").len(), presets().len());
    assert!(ids("no-such-model-xyz").is_empty());
    // The name is searched as well as the ids.
    assert_eq!(ids("Code Llama 34B"), ["codellama/CodeLlama-34b-hf"]);
}

fn params(id: &str) -> u64 {
    find(id).unwrap().arch.params()
}

/// Hand calculations, written out so the arithmetic can be checked by eye.
#[test]
fn hand_calculations() {
    // GPT-2: wte 50257 x 768 = 38,597,376; wpe 1024 x 768 = 786,432; per block
    // c_attn 768 x 2304 + 2304, c_proj 768² + 768, c_fc 768 x 3072 + 3072, mlp c_proj 3072 x 768 + 768,
    // ln_1, ln_2 4 x 768 → 7,087,872 x 12 = 85,054,464; ln_f 1,536; tied head.
    assert_eq!(params("gpt2"), 38_597_376 + 786_432 + 85_054_464 + 1_536);
    assert_eq!(params("gpt2"), 124_439_808);
    // Mistral 7B: embed + head 2 x 32000 x 4096 = 262,144,000; per layer q, o 2 x 4096² + k, v
    // 2 x 4096 x 1024 + FFN 3 x 4096 x 14336 + 2 x 4096 norms = 218,112,000 x 32; final norm 4,096.
    assert_eq!(
        params("mistralai/Mistral-7B-v0.1"),
        262_144_000 + 218_112_000 * 32 + 4_096
    );
    // Gemma 7B: head_dim 256 x 16 heads = 4096 ≠ 3072. Per layer q, k, v, o 4 x 3072 x 4096
    // = 50,331,648; GeGLU 3 x 3072 x 24576 = 226,492,416; norms 6,144 → 276,830,208 x 28;
    // tied embedding 256000 x 3072 = 786,432,000; final norm 3,072.
    assert_eq!(
        params("google/gemma-7b"),
        786_432_000 + 276_830_208 * 28 + 3_072
    );
    // Mixtral: 8 experts of 3 x 4096 x 14336 = 176,160,768 each, router 4096 x 8 per layer.
    let mixtral = find("mistralai/Mixtral-8x7B-v0.1").unwrap().arch;
    assert_eq!(
        mixtral.params(),
        262_144_000 + (41_943_040 + 32_768 + 8 * 176_160_768 + 8_192) * 32 + 4_096
    );
    // Active: 2 of 8 experts, Mistral's published 12.9B.
    assert_eq!(mixtral.active_params(), 12_879_925_248);
    // Llama 3 8B: embedding and head 2 x 128256 x 4096 = 1,050,673,152; per layer q, o
    // 2 x 4096² + k, v 2 x 4096 x 1024 (8 KV heads of 128) + FFN 3 x 4096 x 14336 + norms
    // 2 x 4096 = 218,112,000 x 32; final norm 4,096. Llama 3.1 8B has the same tensors.
    assert_eq!(
        params("meta-llama/Meta-Llama-3-8B"),
        1_050_673_152 + 218_112_000 * 32 + 4_096
    );
    assert_eq!(
        params("meta-llama/Meta-Llama-3-8B"),
        params("meta-llama/Llama-3.1-8B")
    );
    assert_eq!(
        params("meta-llama/Meta-Llama-3-70B"),
        params("meta-llama/Llama-3.1-70B")
    );
    // BERT base (BertModel): 109,482,240 including the pooler 768² + 768.
    assert_eq!(params("bert-base-uncased"), 109_482_240);
    // Whisper tiny, 37,760,640 with the decoder's output projection tied to its token embedding.
    assert_eq!(params("openai/whisper-tiny"), 37_760_640);
}

#[test]
fn quirks_are_modelled() {
    let a = |id: &str| find(id).unwrap().arch;
    // Gemma 2: every other layer slides over 4096 tokens; Gemma 3: five of six over 1024.
    assert_eq!(a("google/gemma-2-9b-it").sliding_layers, 21);
    assert_eq!(a("google/gemma-2-9b-it").global_layers(), 21);
    assert_eq!(a("google/gemma-3-27b-it").global_layers(), 10);
    assert_eq!(a("google/gemma-3-4b-it").global_layers(), 5);
    assert_eq!(a("google/gemma-3-4b-it").sliding_window, 1024);
    // Mistral 7B v0.1: a 4096 window on every layer.
    assert_eq!(a("mistralai/Mistral-7B-v0.1").global_layers(), 0);
    // MLA caches 512 + 64 values per token and layer.
    assert_eq!(
        a("deepseek-ai/DeepSeek-V3").kv_elements_per_token_layer(),
        576
    );
    assert_eq!(
        a("deepseek-ai/DeepSeek-V2-Lite").kv_elements_per_token_layer(),
        576
    );
    // Qwen3 8B: 36 layers x 2 x 8 KV heads x 128 = 73,728 values per token.
    assert_eq!(
        a("Qwen/Qwen3-8B").kv_elements_per_token_layer() * 36,
        73_728
    );
    // Llama 3 was trained on 8,192 tokens, Llama 3.1 (its rope scaling) on 131,072; both keep
    // 2 x 32 layers x 8 KV heads x 128 = 65,536 cached values per token, a quarter of what the
    // guide's 2 x hidden x layers (2 x 4096 x 32 = 262,144) gives.
    assert_eq!(
        a("meta-llama/Meta-Llama-3-8B").max_position_embeddings,
        8_192
    );
    assert_eq!(
        a("meta-llama/Llama-3.1-8B").max_position_embeddings,
        131_072
    );
    assert_eq!(
        a("meta-llama/Meta-Llama-3-8B").kv_elements_per_token_layer() * 32,
        65_536
    );
    // Opaque models carry their count.
    assert_eq!(a("ultralytics/yolov5s").family, Family::Opaque);
    assert_eq!(a("ultralytics/yolov5s").params(), 7_225_885);
    assert_eq!(a("microsoft/resnet-50").params(), 25_557_032);
}

#[test]
fn a_model_that_names_no_preset_gets_the_presets_with_its_words() {
    let err = |model: &str| {
        vramfit::estimate::estimate(&vramfit::estimate::EstimateInput {
            model: vramfit::estimate::ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap_err()
    };
    let e = err("mixtral");
    assert_eq!(
        (e.field.as_str(), e.problem.as_str()),
        ("model", "no preset named `mixtral`")
    );
    assert_eq!(
        e.accepted,
        "a preset id; these have its words: mistralai/Mixtral-8x7B-Instruct-v0.1"
    );
    // Words in any order of case and punctuation: Llama 3.1 8B alone.
    assert_eq!(
        err("llama 3.1 8b").accepted,
        "a preset id; these have its words: meta-llama/Llama-3.1-8B"
    );
    // More than five: the first five in table order, and how many more. `llama` is a word of
    // fourteen presets: Code Llama 7B and 34B, Llama 2 7B, 13B and 70B, Llama 3 8B and 70B,
    // Llama 3.1 8B, 70B and 405B, Llama 3.2 1B and 3B, Llama 3.3 70B and Llama 4 Scout.
    let e = err("llama");
    assert!(
        e.accepted.starts_with(
            "a preset id; these have its words: codellama/CodeLlama-34b-hf, codellama/CodeLlama-7b-hf, "
        ) && e.accepted.ends_with(", and 9 more"),
        "{}",
        e.accepted
    );
    assert_eq!(e.accepted.matches(", ").count(), 5, "{}", e.accepted);
    // Nothing near: what a model may be.
    assert!(
        err("zzz")
            .accepted
            .starts_with("a preset id such as meta-llama/Llama-3.1-8B")
    );
}
