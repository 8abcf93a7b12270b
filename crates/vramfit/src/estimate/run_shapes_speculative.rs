//! The run shapes of SGLang's speculative decoding, appended after vLLM's (the shapes after
//! them moved three places in the snapshots, their figures unchanged).

use super::{Engine, EstimateInput, Mode, SpecMethod};
use alloc::string::ToString;
use alloc::vec::Vec;

/// SGLang 0.5.23 serving with speculative decoding: an EAGLE-3 head with and without a card, a
/// STANDALONE draft at tp 2.
pub(super) fn sglang_speculative_shapes() -> Vec<EstimateInput> {
    let serve = |gpu: Option<&str>| EstimateInput {
        mode: Mode::Serve,
        engine: Engine::Sglang,
        model: Some("meta-llama/Llama-3.1-8B".to_string()),
        gpu: gpu.map(str::to_string),
        ..EstimateInput::default()
    };
    alloc::vec![
        EstimateInput {
            speculative_method: Some(SpecMethod::Eagle3),
            draft_model: Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B".into()),
            num_speculative_tokens: Some(3.0),
            ..serve(Some("h100-sxm5-80gb"))
        },
        EstimateInput {
            speculative_method: Some(SpecMethod::Eagle3),
            draft_model: Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B".into()),
            num_speculative_tokens: Some(3.0),
            ..serve(None)
        },
        EstimateInput {
            speculative_method: Some(SpecMethod::DraftModel),
            draft_model: Some("meta-llama/Llama-3.2-1B-Instruct".into()),
            num_speculative_tokens: Some(4.0),
            tp: 2.0,
            gpus: Some(2.0),
            ..serve(Some("h100-sxm5-80gb"))
        },
    ]
}
