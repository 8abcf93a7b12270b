//! The run shapes of disaggregated prefill and decode, appended after every other shape so that
//! those keep their places in the snapshots: SGLang's two sides with and without a card, with
//! the extra decode rows and under DP attention, and vLLM's two sides over each connector.

use super::{DisaggregationMode, Engine, EstimateInput, Mode, TransferBackend};
use alloc::string::ToString;
use alloc::vec::Vec;

pub(super) fn pd_shapes() -> Vec<EstimateInput> {
    let serve = |model: &str, engine, gpu: Option<&str>, mode| EstimateInput {
        model: Some(model.to_string()),
        mode: Mode::Serve,
        engine,
        gpu: gpu.map(str::to_string),
        disaggregation_mode: Some(mode),
        ..EstimateInput::default()
    };
    let mut out = Vec::new();
    for mode in [DisaggregationMode::Prefill, DisaggregationMode::Decode] {
        for gpu in [None, Some("h100-sxm5-80gb"), Some("rtx-4090")] {
            out.push(serve("meta-llama/Llama-3.1-8B", Engine::Sglang, gpu, mode));
        }
        out.push(EstimateInput {
            max_num_seqs: Some(16.0),
            max_model_len: Some(8192.0),
            num_reserved_decode_tokens: Some(256.0),
            disaggregation_transfer_backend: Some(TransferBackend::Nixl),
            ..serve(
                "meta-llama/Llama-3.1-8B",
                Engine::Sglang,
                Some("h100-sxm5-80gb"),
                mode,
            )
        });
        out.push(EstimateInput {
            tp: 8.0,
            enable_dp_attention: true,
            dp_size: Some(8.0),
            max_model_len: Some(32768.0),
            ..serve(
                "deepseek-ai/DeepSeek-V3",
                Engine::Sglang,
                Some("h200-sxm-141gb"),
                mode,
            )
        });
        for backend in [TransferBackend::Nixl, TransferBackend::Mooncake] {
            out.push(EstimateInput {
                disaggregation_transfer_backend: Some(backend),
                ..serve(
                    "meta-llama/Llama-3.1-8B",
                    Engine::Vllm,
                    Some("h100-sxm5-80gb"),
                    mode,
                )
            });
        }
    }
    out
}
