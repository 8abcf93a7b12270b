//! A config.json's dtype is the checkpoint's own (`checkpoint_dtype`), not the run's `dtype`:
//! the engine's `auto` resolves from it exactly as from a preset's (issue 42). The rules, read
//! in each engine's source:
//! - vLLM: `dtype="auto"` takes the config's `dtype`/`torch_dtype` (`_find_dtype`), then
//!   `_resolve_auto_dtype` downcasts float32 to float16 for a pooling model and to the
//!   platform's first dtype (bf16 on a card that has it) for the others
//!   (vllm/config/model.py at commit 18ec6629253632af0a384f2ffbb8c6b28af322e7);
//! - transformers 5.25.0: `from_pretrained` without `dtype` takes `"auto"`
//!   (modeling_utils.py lines 4236-4237), which `_get_dtype` resolves to `config.dtype`
//!   (lines 828-832): an fp32 checkpoint loads in fp32. 4.x loaded float32 unless told, so an
//!   fp32 checkpoint is fp32 there too.

use super::{ComponentKind, Engine, EstimateInput, Mode, RunnerType, estimate};
use super::{HardwareInput, ModelInput, RunInput};
use crate::config::encoder_tests::BGE_M3;
use crate::config::parse_config;
use crate::precision::Dtype;

/// bge-m3's published parameter count (XLMRobertaModel, transformers 5.24's meta count; the
/// preset's `params`).
const BGE_M3_PARAMS: u64 = 567_754_752;

/// GPT-2's config.json as the hub serves it, with `torch_dtype` float32 added (the hub's file
/// names none; its safetensors are F32): a decoder whose checkpoint is fp32.
const GPT2_FP32: &str = r#"{"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
    "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12,
    "n_positions": 1024, "layer_norm_epsilon": 1e-05, "torch_dtype": "float32",
    "vocab_size": 50257}"#;

/// The run of `json` read as the CLI's `--model config.json` and the hub's `fill` read it.
fn from_config(json: &str, engine: Engine, mode: Mode) -> EstimateInput {
    let parsed = parse_config(json).unwrap();
    EstimateInput {
        model: ModelInput {
            arch: Some(parsed.arch),
            checkpoint_dtype: parsed.dtype,
            ..Default::default()
        },
        run: RunInput {
            engine,
            mode,
            batch: 8.0,
            seq_len: 512.0,
            new_tokens: 0.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The same run from the preset `id`.
fn from_preset(id: &str, engine: Engine, mode: Mode) -> EstimateInput {
    {
        let mut input = from_config(BGE_M3, engine, mode);
        input.model.model = Some(id.into());
        input.model.arch = None;
        input.model.checkpoint_dtype = None;
        input
    }
}

/// Every figure but the model's name, which says where it came from.
fn same_figures(a: &super::Estimate, b: &super::Estimate) {
    assert_eq!(a.params, b.params);
    assert_eq!(a.weights_bytes, b.weights_bytes);
    assert_eq!(a.kv_cache_bytes, b.kv_cache_bytes);
    assert_eq!(a.activations_bytes, b.activations_bytes);
    assert_eq!(a.total_bytes, b.total_bytes);
    assert_eq!(a.required_bytes, b.required_bytes);
    assert_eq!(a.components, b.components);
}

/// bge-m3's config.json (torch_dtype float32) under vLLM, a pooling encoder: `auto` serves it
/// in fp16, 567,754,752 × 2 B = 1,135,509,504 B, as the preset with dtype left auto does. Before
/// the fix the config's float32 was taken as `--dtype float32`: twice that.
#[test]
fn a_float32_config_is_served_in_fp16_by_vllm_as_its_preset_is() {
    let config = estimate(&from_config(BGE_M3, Engine::Vllm, Mode::Serve)).unwrap();
    let preset = estimate(&from_preset("BAAI/bge-m3", Engine::Vllm, Mode::Serve)).unwrap();
    assert_eq!(
        config.component_bytes(ComponentKind::Weights),
        1_135_509_504
    );
    assert_eq!(BGE_M3_PARAMS * 2, 1_135_509_504);
    same_figures(&config, &preset);
    // `--dtype float32` typed by the person is the run's choice, and kept: 4 B a weight.
    let kept = estimate(&{
        let mut input = from_config(BGE_M3, Engine::Vllm, Mode::Serve);
        input.run.dtype = Some(Dtype::Fp32);
        input
    })
    .unwrap();
    assert_eq!(
        kept.component_bytes(ComponentKind::Weights),
        BGE_M3_PARAMS * 4
    );
}

/// The same config in transformers (inference): `from_pretrained`'s `auto` keeps the config's
/// float32, 567,754,752 × 4 B = 2,271,019,008 B, as the preset does.
#[test]
fn a_float32_config_loads_in_fp32_in_transformers_as_its_preset_does() {
    let config = estimate(&from_config(BGE_M3, Engine::Hf, Mode::Inference)).unwrap();
    let preset = estimate(&from_preset("BAAI/bge-m3", Engine::Hf, Mode::Inference)).unwrap();
    assert_eq!(
        config.component_bytes(ComponentKind::Weights),
        2_271_019_008
    );
    same_figures(&config, &preset);
}

/// A generating decoder: GPT-2 with torch_dtype float32 under vLLM on an H100 (bf16 is its
/// first dtype): 124,439,808 parameters (tied head) × 2 B = 248,879,616 B, as the gpt2 preset
/// (fp32) with dtype left auto; a pooling run of it goes to fp16, the same size.
#[test]
fn a_float32_decoder_config_is_served_in_bf16_by_vllm() {
    let config = estimate(&from_config(GPT2_FP32, Engine::Vllm, Mode::Serve)).unwrap();
    let preset = estimate(&from_preset("gpt2", Engine::Vllm, Mode::Serve)).unwrap();
    assert_eq!(config.params, 124_439_808);
    assert_eq!(config.component_bytes(ComponentKind::Weights), 248_879_616);
    same_figures(&config, &preset);
    let pooled = {
        let mut input = from_config(GPT2_FP32, Engine::Vllm, Mode::Serve);
        input.run.runner = Some(RunnerType::Pooling);
        input
    };
    assert_eq!(
        estimate(&pooled)
            .unwrap()
            .component_bytes(ComponentKind::Weights),
        248_879_616
    );
}

/// A checkpoint dtype that is a storage format is refused by its field's name.
#[test]
fn an_int8_checkpoint_dtype_is_refused_by_name() {
    let e = estimate(&{
        let mut input = from_config(BGE_M3, Engine::Vllm, Mode::Serve);
        input.model.checkpoint_dtype = Some(Dtype::Int8);
        input
    })
    .unwrap_err();
    assert_eq!(e.field, "checkpoint_dtype");
}

/// GPT-2's config.json as the hub serves it names no `torch_dtype` (its safetensors are F32):
/// read as fp32 with a note, so transformers (which loads the weights' own dtype) holds
/// 124,439,808 × 4 B = 497,759,232 B, where a bf16 guess would have held half; vLLM runs it in
/// bf16 on an H100, 248,879,616 B, the gpt2 preset's figures.
#[test]
fn a_config_without_torch_dtype_is_taken_as_fp32() {
    let hub_gpt2 = GPT2_FP32.replace(r#""torch_dtype": "float32","#, "");
    let parsed = parse_config(&hub_gpt2).unwrap();
    assert_eq!(parsed.dtype, Some(Dtype::Fp32));
    assert!(
        parsed
            .notes
            .iter()
            .any(|n| n.contains("names no torch_dtype"))
    );
    let hf = estimate(&from_config(&hub_gpt2, Engine::Hf, Mode::Inference)).unwrap();
    assert_eq!(hf.component_bytes(ComponentKind::Weights), 497_759_232);
    let vllm = estimate(&from_config(&hub_gpt2, Engine::Vllm, Mode::Serve)).unwrap();
    let preset = estimate(&from_preset("gpt2", Engine::Vllm, Mode::Serve)).unwrap();
    assert_eq!(vllm.component_bytes(ComponentKind::Weights), 248_879_616);
    same_figures(&vllm, &preset);
}
