//! The run shapes of disaggregated prefill and decode, appended after every other shape so that
//! those keep their places in the snapshots: SGLang's two sides with and without a card, with
//! the extra decode rows and under DP attention, and vLLM's two sides over each connector.

use super::{DisaggregationMode, Engine, EstimateInput, Mode, TransferBackend};
use super::{HardwareInput, ModelInput, RunInput, ServingInput};
use alloc::string::ToString;
use alloc::vec::Vec;

pub(super) fn pd_shapes() -> Vec<EstimateInput> {
    let serve = |model: &str, engine, gpu: Option<&str>, mode| EstimateInput {
        model: ModelInput {
            model: Some(model.to_string()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            ..Default::default()
        },
        serving: ServingInput {
            disaggregation_mode: Some(mode),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: gpu.map(str::to_string),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut out = Vec::new();
    for mode in [DisaggregationMode::Prefill, DisaggregationMode::Decode] {
        for gpu in [None, Some("h100-sxm5-80gb"), Some("rtx-4090")] {
            out.push(serve("meta-llama/Llama-3.1-8B", Engine::Sglang, gpu, mode));
        }
        out.push({
            let mut input = serve(
                "meta-llama/Llama-3.1-8B",
                Engine::Sglang,
                Some("h100-sxm5-80gb"),
                mode,
            );
            input.serving.max_num_seqs = Some(16.0);
            input.serving.max_model_len = Some(8192.0);
            input.serving.num_reserved_decode_tokens = Some(256.0);
            input.serving.disaggregation_transfer_backend = Some(TransferBackend::Nixl);
            input
        });
        out.push({
            let mut input = serve(
                "deepseek-ai/DeepSeek-V3",
                Engine::Sglang,
                Some("h200-sxm-141gb"),
                mode,
            );
            input.placement.tp = 8.0;
            input.placement.enable_dp_attention = true;
            input.placement.dp_size = Some(8.0);
            input.serving.max_model_len = Some(32768.0);
            input
        });
        for backend in [TransferBackend::Nixl, TransferBackend::Mooncake] {
            out.push({
                let mut input = serve(
                    "meta-llama/Llama-3.1-8B",
                    Engine::Vllm,
                    Some("h100-sxm5-80gb"),
                    mode,
                );
                input.serving.disaggregation_transfer_backend = Some(backend);
                input
            });
        }
    }
    out
}
