//! SGLang's DP attention (`--attn-dp-size N`), by hand: the attention and the
//! embedding per GPU, the default `mem_fraction_static`, the prefill chunk per group and the
//! requests the groups' pools hold together.

use super::super::{ComponentKind, Engine, EstimateInput, Mode, estimate};
use super::super::{HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput};
use crate::error::ErrorKind;

/// DeepSeek-V3 (its fp8 checkpoint) served by SGLang over 8 H200s at tp 8.
fn deepseek_tp8(dp: Option<f64>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("deepseek-ai/DeepSeek-V3".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(32_768.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h200-sxm-141gb".into()),
            ..Default::default()
        },
        placement: PlacementInput {
            tp: 8.0,
            enable_dp_attention: dp.is_some(),
            dp_size: dp,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// With attention over tp / dp = 1 GPU each holds every layer's attention projections that
/// tensor parallelism had split 8 ways, and the embedding whole. DeepSeek-V3's per layer in fp8
/// with vramfit's 4 B scale per output row (`Quantization::Fp8`; the checkpoint's 128 × 128 block
/// scales are smaller, so this errs high by 0.2 MB a layer): q_b_proj 1536 × 24,576 =
/// 37,748,736 B + 24,576 × 4 = 37,847,040; kv_b_proj 512 × 32,768 = 16,777,216 + 32,768 × 4 =
/// 16,908,288; o_proj 16,384 × 7168 = 117,440,512 + 7168 × 4 = 117,469,184; 172,224,512 B, of
/// which a GPU held 1/8 and now holds all: 7/8 × 172,224,512 × 61 layers = 9,192,483,328 B. The
/// embedding, 129,280 × 7168 × 2 B (bf16) = 1,853,358,080, 7/8 of it more: 1,621,688,320. In all
/// 10,814,171,648 B more per GPU; q_a_proj and kv_a_proj_with_mqa were whole on every GPU
/// already, the experts and the LM head stay split.
#[test]
fn each_gpu_holds_the_attention_of_its_group_and_the_whole_embedding() {
    let weights = |dp| {
        estimate(&deepseek_tp8(dp))
            .unwrap()
            .component_bytes(ComponentKind::Weights)
    };
    assert_eq!(weights(Some(8.0)) - weights(None), 10_814_171_648);
    // Two groups: attention over 4 GPUs, 1/4 − 1/8 = 1/8 of the attention more, and 7/8 of the
    // embedding: 172,224,512 / 8 × 61 + 1,621,688,320.
    assert_eq!(
        weights(Some(2.0)) - weights(None),
        172_224_512 / 8 * 61 + 1_621_688_320
    );
}

/// `handle_gpu_memory_settings` on an H200 (143,156 MiB) at tp 8: chunked_prefill_size 8192 and
/// cuda_graph_max_bs 512; the reserve 512 + 8192 × 1.5 + 512 × 2 + 8 / 8 × 1024 = 14,848 MiB and
/// the MLA model's flat 1,536 MiB for its prefill graphs, 16,384 MiB: (143,156 − 16,384) /
/// 143,156 = 0.8855 → 0.886; with DP attention over 8 groups 512 × 8 × 3 + 512 × 8 × 1.5 =
/// 18,432 MiB more: (143,156 − 34,816) / 143,156 = 0.7568 → 0.757. Then `_handle_data_parallelism` gives each group
/// 8192 / 8 = 1024 prefill tokens; a given max_running_requests of 64 is 8 per group.
#[test]
fn the_defaults_sglang_picks_under_dp_attention() {
    let plain = deepseek_tp8(None).resolve().unwrap();
    assert_eq!(
        (plain.mem_fraction_static, plain.max_num_batched_tokens),
        (0.886, 8192)
    );
    let dpa = deepseek_tp8(Some(8.0)).resolve().unwrap();
    assert_eq!(
        (dpa.mem_fraction_static, dpa.max_num_batched_tokens),
        (0.757, 1024)
    );
    let e = estimate(&{
        let mut input = deepseek_tp8(Some(8.0));
        input.serving.max_num_seqs = Some(64.0);
        input
    })
    .unwrap();
    let table = e.component_bytes(ComponentKind::ReqToTokenPool);
    // 8 requests × (32,768 + 4) × 4 B.
    assert_eq!(table, 8 * (32_768 + 4) * 4);
}

/// Each group's pool on a GPU holds its own requests: the pool's tokens are one group's, and the
/// requests held at once are 8 × the tokens over max_model_len (SGLang's default
/// max_running_requests, 2048 or more, does not bound them here). The tokens by hand from the
/// figures: (143,156 MiB − the CUDA context and distributed init) × 0.757 − weights − loading,
/// over 70,272 B per token ((512 + 64) × 61 layers × 2 B: the latent is whole on every GPU).
#[test]
fn the_groups_pools_hold_their_requests_together() {
    let e = estimate(&deepseek_tp8(Some(8.0))).unwrap();
    assert_eq!(e.kv_bytes_per_token, 70_272);
    let tokens = e.kv_cache_tokens.unwrap();
    let before = e.component_bytes(ComponentKind::CudaContext);
    let loaded =
        e.component_bytes(ComponentKind::Weights) + e.component_bytes(ComponentKind::NonTorch);
    let rest = ((150_109_945_856 - before) as f64 * 0.757) as u64 - loaded;
    assert!((rest / 70_272).abs_diff(tokens) <= 1, "{tokens}");
    let held = e.max_concurrency_exact.unwrap();
    // Shown to two places, rounded down: 8 groups × the tokens over the 32,768-token context.
    assert_eq!(
        held,
        libm::floor(8.0 * tokens as f64 / 32_768.0 * 100.0) / 100.0
    );
    // One pool of the latent replicated on every GPU holds fewer at once, though it is larger.
    let plain = estimate(&deepseek_tp8(None)).unwrap();
    assert!(plain.kv_cache_tokens.unwrap() > tokens);
    assert!(plain.max_concurrency_exact.unwrap() < held / 2.0);
}

/// Refused with the field named: an engine without it, a model without latent attention, a
/// dp_size that does not divide tp, dp_size alone and DP attention without dp_size.
#[test]
fn dp_attention_is_checked_as_sglang_checks_it() {
    let err = |input: EstimateInput| input.resolve().err().unwrap();
    let vllm = err({
        let mut input = deepseek_tp8(Some(8.0));
        input.run.engine = Engine::Vllm;
        input
    });
    assert_eq!(
        (vllm.field.as_str(), vllm.kind),
        ("enable_dp_attention", ErrorKind::Unsupported)
    );
    let llama = err({
        let mut input = deepseek_tp8(Some(8.0));
        input.model.model = Some("meta-llama/Llama-3.1-70B".into());
        input
    });
    assert_eq!(llama.field, "enable_dp_attention");
    let three = err(deepseek_tp8(Some(3.0)));
    assert_eq!(
        (three.field.as_str(), three.kind),
        ("dp_size", ErrorKind::Conflict)
    );
    let sixteen = err(deepseek_tp8(Some(16.0)));
    assert_eq!(sixteen.kind, ErrorKind::OutOfRange);
    let alone = err({
        let mut input = deepseek_tp8(Some(8.0));
        input.placement.enable_dp_attention = false;
        input
    });
    assert_eq!(alone.field, "dp_size");
    let missing = err({
        let mut input = deepseek_tp8(Some(8.0));
        input.placement.dp_size = None;
        input
    });
    assert_eq!(missing.field, "dp_size");
}
