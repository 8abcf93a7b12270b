//! mlx-lm's run shape against mlx itself and by hand: the weights of MLX's formats and the KV
//! cache's growth against `tests/reference/mlx-reference.csv` (mlx 0.32.4 and mlx-lm at
//! d78bf58, `tests/reference/mlx_reference.py`), the wired limit's rule, the refusals.

use super::mlx::{kv_capacity, quantized_at, rotating_capacity};
use crate::estimate::{
    Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, ServingInput, estimate,
};
use crate::precision::{MlxMode, Quantization};
use crate::units::{GIB, MIB};
use alloc::vec::Vec;

const REFERENCE: &str = include_str!("../../../../tests/reference/mlx-reference.csv");

/// The reference's rows of `kind`, as their fields.
fn rows(kind: &str) -> impl Iterator<Item = Vec<&'static str>> + '_ {
    REFERENCE
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(move |f| f[0] == kind)
}

fn n(s: &str) -> u64 {
    s.parse().unwrap()
}

fn mlx(model: &str, quantization: Quantization) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            quantization,
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Mlx,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("apple-m4-max-128gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Every format's weights, to the byte, as mlx-lm quantizes Llama-3.1-8B, Qwen3-8B and
/// Qwen2.5-0.5B (tied embeddings, q/k/v biases): the sum of the quantized model's `nbytes`.
#[test]
fn weights_match_mlx_to_the_byte() {
    let mut seen = 0;
    for f in rows("weights") {
        let q = Quantization::parse("quantization", f[2]).unwrap();
        let e = estimate(&mlx(f[1], q)).unwrap();
        assert_eq!(e.weights_bytes.get(), n(f[11]), "{} {}", f[1], f[2]);
        seen += 1;
    }
    assert_eq!(seen, 33);
}

/// MLX 4-bit in groups of 64 by hand, Llama-3.1-8B: 8,030,261,248 parameters, 266,240 of them
/// the norms (32 blocks × 2 × 4,096 + 4,096), kept in bf16; every other weight (the embedding
/// and the LM head included) 4 bits and, per 64, a bf16 scale and bias: 4 + 32/64 = 4.5 bits.
/// (8,030,261,248 − 266,240) × 4.5 / 8 + 266,240 × 2 = 4,517,404,672 B; mlx-community's
/// Llama-3.1-8B-Instruct-4bit, the same shape, is listed at 4.52 GB on the hub.
#[test]
fn four_bit_group_64_by_hand() {
    let quantized: u64 = 8_030_261_248 - 266_240;
    let by_hand = quantized * 45 / 80 + 266_240 * 2;
    assert_eq!(by_hand, 4_517_404_672);
    let q = Quantization::Mlx {
        mode: MlxMode::Affine,
        bits: 4,
        group_size: 64,
    };
    let e = estimate(&mlx("meta-llama/Llama-3.1-8B", q)).unwrap();
    assert_eq!(e.weights_bytes.get(), by_hand);
}

/// The KV cache's room after a run, as mlx-lm's own caches held it: `KVCache` in whole steps
/// of 256 (exact with the default prompt step; within 255 above the tokens otherwise), the
/// rotating cache at its largest, the quantized cache's conversion.
#[test]
fn kv_room_matches_mlx_lm() {
    for f in rows("kv") {
        let (prompt, new, step) = (n(f[3]), n(f[4]), n(f[5]));
        let tokens = prompt + new;
        let room = n(f[10]);
        match f[2] {
            "kvcache" | "quantized" if step.is_multiple_of(256) => {
                assert_eq!(kv_capacity(tokens, step), room, "{f:?}");
            }
            "kvcache" => {
                let bound = kv_capacity(tokens, step);
                assert!(room <= bound && bound <= tokens + 255, "{f:?}");
            }
            "rotating" => {
                assert_eq!(
                    rotating_capacity(prompt, tokens, n(f[6]), step),
                    room,
                    "{f:?}"
                );
            }
            other => panic!("{other}"),
        }
    }
}

/// The quantized cache's bytes at the end: per token 2 × 64 values (one head of 64, keys and
/// values) at `bits`, a bf16 scale and bias per group; the conversion's offset where
/// `maybe_quantize_kv_cache` meets `quantized_kv_start`.
#[test]
fn quantized_kv_bytes_and_conversion() {
    for f in rows("kv").filter(|f| f[2] == "quantized") {
        let (prompt, new, step, bits, group, start) =
            (n(f[3]), n(f[4]), n(f[5]), n(f[7]), n(f[8]), n(f[9]));
        let at = quantized_at(start, prompt, prompt + new, step);
        let per_token = 2 * (64 * bits / 8 + 64 / group * 2 * 2);
        match at {
            Some(_) => assert_eq!(per_token * n(f[10]), n(f[11]), "{f:?}"),
            None => assert_eq!(n(f[11]), 0, "{f:?}"),
        }
    }
    // Prompt steps of 2,048 over 5,999 tokens: 2,048, 4,096, 5,999; the first at or past 5,000.
    assert_eq!(quantized_at(5000, 6000, 6100, 2048), Some(5999));
    // Past the prompt, one token at a time: at the start itself.
    assert_eq!(quantized_at(5000, 3000, 6000, 2048), Some(5000));
    assert_eq!(quantized_at(5000, 1000, 1100, 2048), None);
    // At 0, after the first prompt step.
    assert_eq!(quantized_at(0, 3000, 3500, 2048), Some(2048));
}

/// The estimate's KV cache by hand: Llama-3.1-8B, 32 layers × 2 × 8 heads × 128 × 2 B =
/// 131,072 B a token; 4,000 + 1,000 tokens in whole steps of 256: 5,120 tokens; one layer's
/// buffer alive beside it while it grows: × 33 / 32.
#[test]
fn kv_cache_by_hand() {
    let e = estimate(&{
        let mut input = mlx("meta-llama/Llama-3.1-8B", Quantization::None);
        input.run.seq_len = 4000.0;
        input.run.new_tokens = 1000.0;
        input
    })
    .unwrap();
    let cache = 5120 * 131_072u64;
    assert_eq!(e.kv_cache_bytes.get(), cache + cache / 32);
    // --kv-bits 4 (groups of 64) from 0: 4 bits and a bf16 scale and bias per 64 values,
    // 4.5 bits each: 65,536 values a token × 4.5 / 8 = 36,864 B; the 16-bit cache of the first
    // prompt step (2,048 tokens) alive beside its copy when converted.
    let q = estimate(&{
        let mut input = mlx("meta-llama/Llama-3.1-8B", Quantization::None);
        input.run.seq_len = 4000.0;
        input.run.new_tokens = 1000.0;
        input.serving.kv_bits = Some(4.0);
        input.serving.quantized_kv_start = Some(0.0);
        input
    })
    .unwrap();
    let last = 5120 * 36_864u64;
    let conversion = 2048 * (131_072 + 36_864u64);
    assert_eq!(q.kv_cache_bytes.get(), (last + last / 32).max(conversion));
}

/// `iogpu.wired_limit_mb` replaces the working set, up to the RAM less 4 GiB: an M4 Max of
/// 128 GB (137,438,953,472 B of RAM, a working set of 107.52 GiB) takes 126,976 MiB
/// (124 GiB) and refuses 126,977; on a card that is not a Mac the setting is refused.
#[test]
fn the_wired_limit_rule() {
    let base = mlx("meta-llama/Llama-3.1-8B", Quantization::None);
    let at = |mb: f64| {
        estimate(&{
            let mut input = base.clone();
            input.hardware.wired_limit_mb = Some(mb);
            input
        })
    };
    let top = (128 * GIB - 4 * GIB) / MIB;
    assert_eq!(top, 126_976);
    let e = at(top as f64).unwrap();
    assert_eq!(e.fit.unwrap().memory_bytes.get(), 124 * GIB);
    let err = at(top as f64 + 1.0).unwrap_err();
    assert_eq!(
        (err.kind, err.field.as_str()),
        (crate::ErrorKind::OutOfRange, "wired_limit_mb")
    );
    let default = estimate(&base).unwrap().fit.unwrap().memory_bytes;
    assert_eq!(default.get(), 115_448_217_600);
    // llama.cpp on the same Mac reads the same limit.
    let llama = estimate(&{
        let mut input = base.clone();
        input.run.engine = Engine::Llamacpp;
        input.model.quantization = Quantization::None;
        input.hardware.wired_limit_mb = Some(65536.0);
        input
    })
    .unwrap();
    assert_eq!(llama.fit.unwrap().memory_bytes.get(), 64 * GIB);
    let nvidia = estimate(&EstimateInput {
        run: RunInput {
            engine: Engine::Llamacpp,
            ..base.run
        },
        hardware: HardwareInput {
            gpu: Some("rtx-4090".into()),
            wired_limit_mb: Some(8192.0),
            ..base.hardware
        },
        ..base
    })
    .unwrap_err();
    assert_eq!(nvidia.field, "wired_limit_mb");
}

/// mlx-lm refuses a card that is not Apple's, another engine refuses MLX's formats and
/// mlx-lm's settings, and mlx-lm refuses GGUF.
#[test]
fn refusals_name_their_field() {
    let base = mlx("meta-llama/Llama-3.1-8B", Quantization::None);
    let cases = [
        (
            {
                let mut input = base.clone();
                input.hardware.gpu = Some("h100-sxm5-80gb".into());
                input
            },
            "gpu",
        ),
        (
            {
                let mut input = base.clone();
                input.run.engine = Engine::Vllm;
                input.run.mode = Mode::Serve;
                input.hardware.gpu = Some("h100-sxm5-80gb".into());
                input.model.quantization = Quantization::parse("q", "mlx-4bit").unwrap();
                input
            },
            "quantization",
        ),
        (
            {
                let mut input = base.clone();
                input.run.engine = Engine::Vllm;
                input.hardware.gpu = Some("h100-sxm5-80gb".into());
                input.serving.kv_bits = Some(8.0);
                input
            },
            "kv_bits",
        ),
        (
            {
                let mut input = base.clone();
                input.model.quantization = Quantization::parse("q", "gguf-q4_k_m").unwrap();
                input
            },
            "quantization",
        ),
        (
            {
                let mut input = base.clone();
                input.serving.kv_bits = Some(7.0);
                input
            },
            "kv_bits",
        ),
        (
            {
                let mut input = base.clone();
                input.serving.kv_group_size = Some(64.0);
                input
            },
            "kv_group_size",
        ),
        (
            EstimateInput {
                serving: ServingInput {
                    kv_bits: Some(8.0),
                    max_kv_size: Some(4096.0),
                    ..base.serving
                },
                ..base
            },
            "kv_bits",
        ),
    ];
    for (input, field) in cases {
        let err = estimate(&input).unwrap_err();
        assert_eq!(err.field, field, "{err:?}");
    }
}

/// MLX's spellings read back, and the widths and groups mlx refuses are refused.
#[test]
fn mlx_formats_parse_and_name() {
    for s in [
        "mlx-4bit",
        "mlx-8bit",
        "mlx-3bit-g32",
        "mlx-6bit-g128",
        "mlx-mxfp4",
        "mlx-nvfp4",
        "mlx-mxfp8",
    ] {
        assert_eq!(Quantization::parse("q", s).unwrap().name(), s);
    }
    for s in ["mlx-7bit", "mlx-4bit-g48", "mlx-4", "mlx-fp4"] {
        assert!(Quantization::parse("q", s).is_err(), "{s}");
    }
}

/// mlx-lm's published peak (ml-explore/mlx-lm pull 40, 2025-03-20, after the causal-mask
/// change): a 4-bit Mistral 7B with a 33,898-token prompt on an M2 Ultra, "Peak memory:
/// 9.111 GB" (`mx.get_peak_memory() / 1e9`). The preset is Mistral-7B-v0.1 (the pull does not
/// say which release; v0.3's larger vocabulary adds under 4 MB), 100 generated tokens
/// (`mlx_lm.generate`'s default). The estimate is not below it and within 2 % above:
/// 4.07 GB of weights, 34,048 tokens of cache (4.46 GB) and a layer's copy, a prompt step,
/// one layer's keys and values gathered for attention, and MLX's other buffers, fitted to it.
#[test]
fn mistral_peak_of_mlx_lm_pull_40() {
    let e = estimate(&{
        let mut input = mlx(
            "mistralai/Mistral-7B-v0.1",
            Quantization::parse("q", "mlx-4bit").unwrap(),
        );
        input.run.seq_len = 33_898.0;
        input.run.new_tokens = 100.0;
        input.hardware.gpu = Some("apple-m2-ultra-192gb".into());
        input
    })
    .unwrap();
    let measured = 9.111e9;
    let total = e.total_bytes.get() as f64;
    assert!(total >= measured && total <= measured * 1.02, "{total}");
}

/// Decode speed against a published mlx-lm run (ml-explore/mlx-examples issue 1029,
/// 2024-12-15: mlx-lm 0.20.4, mlx 0.21.1, Llama-3.3-70B-Instruct-4bit on an M3 Max of 64 GB,
/// a 260-token prompt and 309 generated: 9.351 tokens/s). The roofline with llama.cpp's Metal
/// factors gives about 8.2: within 15 %, below (mlx-lm reads its weights faster than llama.cpp's
/// factors assume).
#[cfg(feature = "speed")]
#[test]
fn decode_speed_of_a_published_mlx_lm_run() {
    let e = estimate(&{
        let mut input = mlx(
            "meta-llama/Llama-3.3-70B-Instruct",
            Quantization::parse("q", "mlx-4bit").unwrap(),
        );
        input.run.seq_len = 260.0;
        input.run.new_tokens = 309.0;
        input.hardware.gpu = Some("apple-m3-max-64gb".into());
        input
    })
    .unwrap();
    let tps = e
        .throughput
        .and_then(|t| t.decode_tokens_per_s_per_sequence)
        .unwrap();
    let measured = 9.351;
    assert!((tps / measured - 1.0).abs() < 0.15, "{tps}");
}
