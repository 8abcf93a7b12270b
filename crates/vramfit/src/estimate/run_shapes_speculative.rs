//! The run shapes of SGLang's speculative decoding, appended after vLLM's (the shapes after
//! them moved three places in the snapshots, their figures unchanged).

use super::{Engine, EstimateInput, Mode, SpecMethod};
use super::{HardwareInput, ModelInput, RunInput};
use alloc::string::ToString;
use alloc::vec::Vec;

/// SGLang 0.5.23 serving with speculative decoding: an EAGLE-3 head with and without a card, a
/// STANDALONE draft at tp 2.
pub(super) fn sglang_speculative_shapes() -> Vec<EstimateInput> {
    let serve = |gpu: Option<&str>| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".to_string()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: gpu.map(str::to_string),
            ..Default::default()
        },
        ..Default::default()
    };
    alloc::vec![
        {
            let mut input = serve(Some("h100-sxm5-80gb"));
            input.serving.speculative_method = Some(SpecMethod::Eagle3);
            input.serving.draft_model = Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B".into());
            input.serving.num_speculative_tokens = Some(3.0);
            input
        },
        {
            let mut input = serve(None);
            input.serving.speculative_method = Some(SpecMethod::Eagle3);
            input.serving.draft_model = Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B".into());
            input.serving.num_speculative_tokens = Some(3.0);
            input
        },
        {
            let mut input = serve(Some("h100-sxm5-80gb"));
            input.serving.speculative_method = Some(SpecMethod::DraftModel);
            input.serving.draft_model = Some("meta-llama/Llama-3.2-1B-Instruct".into());
            input.serving.num_speculative_tokens = Some(4.0);
            input.placement.tp = 2.0;
            input.placement.gpus = Some(2.0);
            input
        },
    ]
}
