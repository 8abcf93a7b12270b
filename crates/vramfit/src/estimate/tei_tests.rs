//! Text Embeddings Inference (issue 42) by hand: bge-m3 and Qwen3-Embedding-0.6B on one H100,
//! the weights as the presets count them, the warmup's activations from TEI v1.9.3's candle
//! models (`estimate/tei.rs` says what is alive where), and the refusals.

use super::{ComponentKind, Engine, EstimateInput, Mode, RunnerType, estimate};
use super::{HardwareInput, ModelInput, RunInput};
use crate::error::ErrorKind;
use crate::precision::{Dtype, KvDtype, Quantization};

fn tei(model: &str) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Tei,
            seq_len: 512.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// bge-m3 (XLM-RoBERTa large) under TEI's defaults (float16, `--max-batch-tokens` 16,384), by
/// hand:
/// - weights: the preset's 567,754,752 parameters × 2 B = 1,135,509,504 B (the pooler's
///   1,049,600, which TEI does not load, counted: 2 MB on the safe side);
/// - FlashBert's widest layer per token, h = 1024, q = kv = 16 × 64 = 1024, W = 3072:
///   attention 4h + 2W + q = 4,096 + 6,144 + 1,024 = 11,264 values, MLP 2h + 2I = 2,048 +
///   8,192 = 10,240; 11,264 × 2 B = 22,528 B × 16,384 tokens = 369,098,752 B;
/// - token ids, types and positions: 16,384 × 3 × 4 B = 196,608 B; activations 369,295,360 B;
/// - CUDA context 667,000,000 B, cuBLAS workspace on Hopper 33,554,432 B;
/// - no KV cache, no logits; total 1,135,509,504 + 369,295,360 + 667,000,000 + 33,554,432 =
///   2,205,359,296 B.
#[test]
fn bge_m3_on_tei_by_hand() {
    let e = estimate(&tei("bge-m3")).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Weights), 1_135_509_504);
    assert_eq!(e.component_bytes(ComponentKind::Activations), 369_295_360);
    assert_eq!(e.component_bytes(ComponentKind::CudaContext), 667_000_000);
    assert_eq!(e.component_bytes(ComponentKind::Workspace), 33_554_432);
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.component_bytes(ComponentKind::Logits), 0);
    assert_eq!(e.total_bytes.get(), 2_205_359_296);
}

/// Qwen3-Embedding-0.6B under TEI's defaults, by hand: its bf16 checkpoint runs in float16
/// (TEI's default dtype), the same 2 B:
/// - weights 595,776,512 × 2 B = 1,191,553,024 B (the head tied: none built);
/// - FlashQwen3's widest layer per token, h = 1024, q = 16 × 128 = 2048, kv = 8 × 128 = 1024,
///   W = 4096, I = 3072: attention 4h + W + 2q + kv = 4,096 + 4,096 + 4,096 + 1,024 = 13,312,
///   MLP 7h + 4I = 7,168 + 12,288 = 19,456; 19,456 × 2 B = 38,912 B × 16,384 =
///   637,534,208 B;
/// - ids and positions 16,384 × 2 × 4 B = 131,072 B, rotary cos and sin 32,768 positions ×
///   128 × 2 B = 8,388,608 B; activations 646,053,888 B;
/// - total 1,191,553,024 + 646,053,888 + 667,000,000 + 33,554,432 = 2,538,161,344 B.
#[test]
fn qwen3_embedding_on_tei_by_hand() {
    let e = estimate(&tei("Qwen/Qwen3-Embedding-0.6B")).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Weights), 1_191_553_024);
    assert_eq!(e.component_bytes(ComponentKind::Activations), 646_053_888);
    assert_eq!(e.component_bytes(ComponentKind::KvCache), 0);
    assert_eq!(e.total_bytes.get(), 2_538_161_344);
}

/// `--max-batch-tokens` 4,096 (`max_num_batched_tokens`): Qwen3-Embedding-0.6B's layer term a
/// quarter, 38,912 × 4,096 = 159,383,552 B, + ids 4,096 × 8 = 32,768 B + the rotary tables
/// 8,388,608 B = 167,804,928 B.
#[test]
fn max_batch_tokens_sizes_the_warmup() {
    let e = estimate(&{
        let mut input = tei("Qwen/Qwen3-Embedding-0.6B");
        input.serving.max_num_batched_tokens = Some(4096.0);
        input
    })
    .unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Activations), 167_804_928);
}

/// bge-m3 with `--dtype float32`: candle's padded BertModel, no flash attention. The warmup's
/// 16,384 tokens in requests of min(8,192, 16,384) = 8,192: 2 requests, 16,384 tokens
/// (none padded). By hand:
/// - weights 567,754,752 × 4 B = 2,271,019,008 B;
/// - layer 16,384 × 11,264 × 4 B = 738,197,504 B;
/// - scores, masked scores and softmax: 3 × 2 × 16 heads × 8,192² × 4 B = 25,769,803,776 B;
/// - ids 196,608 B; activations 26,508,197,888 B: float32 holds 72 times float16's.
#[test]
fn bge_m3_in_float32_holds_the_padded_scores() {
    let e = estimate(&{
        let mut input = tei("bge-m3");
        input.run.dtype = Some(Dtype::Fp32);
        input
    })
    .unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Weights), 2_271_019_008);
    assert_eq!(
        e.component_bytes(ComponentKind::Activations),
        26_508_197_888
    );
}

/// TEI pools whatever `runner` is left out, and refuses `generate`, bfloat16, quantized
/// weights, several GPUs and a KV-cache type, each by its field.
#[test]
fn tei_refuses_what_it_does_not_run() {
    let cases: [(EstimateInput, &str); 6] = [
        (
            {
                let mut input = tei("Qwen/Qwen3-Embedding-0.6B");
                input.run.runner = Some(RunnerType::Generate);
                input
            },
            "runner",
        ),
        (
            {
                let mut input = tei("bge-m3");
                input.run.dtype = Some(Dtype::Bf16);
                input
            },
            "dtype",
        ),
        (
            {
                let mut input = tei("bge-m3");
                input.model.quantization = Quantization::Fp8;
                input
            },
            "quantization",
        ),
        (
            {
                let mut input = tei("bge-m3");
                input.placement.tp = 2.0;
                input.placement.gpus = Some(2.0);
                input
            },
            "gpus",
        ),
        (
            {
                let mut input = tei("bge-m3");
                input.run.kv_dtype = KvDtype::Fp8;
                input
            },
            "kv_dtype",
        ),
        (
            {
                let mut input = tei("bge-m3");
                input.model.params = Some("7B".into());
                input.model.model = None;
                input
            },
            "model",
        ),
    ];
    for (input, field) in cases {
        let err = input.resolve().unwrap_err();
        assert_eq!(err.field, field, "{err:?}");
        assert!(
            matches!(
                err.kind,
                ErrorKind::Unsupported | ErrorKind::Conflict | ErrorKind::OutOfRange
            ),
            "{err:?}"
        );
    }
    // A decoder with no runner given pools under TEI (it runs nothing else).
    let w = tei("Qwen/Qwen3-Embedding-0.6B").resolve().unwrap();
    assert!(w.pooling);
    assert_eq!(w.dtype, Dtype::Fp16);
}
