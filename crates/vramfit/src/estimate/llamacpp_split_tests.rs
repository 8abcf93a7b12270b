//! llama.cpp over cards that are not alike, checked by hand against its rule as
//! `llama_model::load_tensors` has it (llama.cpp `00342301d01add50835550e8a916f12097d94517`,
//! `src/llama-model.cpp`): the split points, each block's GPU, the KV cache with its block, each
//! card's compute buffer, the card that limits; and the engines that refuse unlike cards.

use crate::estimate::{
    CardUse, Engine, EstimateInput, HardwareInput, Mode, ModelInput, PlacementInput, RunInput,
    ServingInput, SplitMode, estimate,
};
use crate::precision::{GgufFileType, Quantization};

const MIB: u64 = 1 << 20;

/// Llama-3.1-8B in Q4_K_M under llama.cpp with flash attention, a context of 8192, on `cards`.
fn llama8b(cards: &[&str], ts: &[f64]) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            attention: crate::estimate::AttentionImpl::Flash,

            // A build before one output per sequence (llama.cpp PR #23861): the logits of every
            // token of the ubatch, as the builds of the published two-card load reserved them.
            engine_version: Some("b9508".into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            cards: cards.iter().map(|c| (*c).into()).collect(),
            ..Default::default()
        },
        placement: PlacementInput {
            tensor_split: ts.to_vec(),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn layers(cards: &[CardUse]) -> alloc::vec::Vec<(u64, bool)> {
    cards.iter().map(|c| (c.layers, c.output_layer)).collect()
}

/// No `-ts`: llama.cpp splits by each card's free memory. The catalog's RTX 3090 reports
/// 25,425,870,848 B and the RTX 3060 12,616,466,432 B; less the 300 MiB (314,572,800 B) CUDA
/// context each: 25,111,298,048 and 12,301,893,632 B, split point 25,111,298,048 /
/// 37,413,191,680 = 0.6712. Of 33 positions (32 blocks and the output layer) block `il` goes to
/// CUDA0 while il / 33 < 0.6712, i.e. il ≤ 22: 23 blocks on the 3090, 9 and the output layer on
/// the 3060.
#[test]
fn default_split_is_by_free_memory() {
    let e = estimate(&llama8b(&["rtx-3090", "rtx-3060-12gb"], &[])).unwrap();
    assert_eq!(layers(&e.cards), [(23, false), (9, true)]);
    // The catalog's memories as written above, less the context; 22 / 33 = 0.667 < 0.6712 ≤
    // 23 / 33 = 0.697.
    let free = |id: &str| crate::gpu::find_gpu(id).unwrap().memory.get() - 314_572_800;
    let (a, b) = (free("rtx-3090"), free("rtx-3060-12gb"));
    assert_eq!((a, b), (25_111_298_048, 12_301_893_632));
    let point = a as f64 / (a + b) as f64;
    assert!(22.0 / 33.0 < point && point <= 23.0 / 33.0);
}

/// `-ts 3,1`: split point 0.75, il / 33 < 0.75 for il ≤ 24: 25 blocks on CUDA0, 7 and the output
/// on CUDA1. `-ts 1,1`: 0.5, il ≤ 16: 17 and 15 + output. `-ts 1,0`: everything on CUDA0.
#[test]
fn given_split_places_blocks_by_its_points() {
    let cards = ["rtx-3090", "rtx-3060-12gb"];
    let e = estimate(&llama8b(&cards, &[3.0, 1.0])).unwrap();
    assert_eq!(layers(&e.cards), [(25, false), (7, true)]);
    let e = estimate(&llama8b(&cards, &[1.0, 1.0])).unwrap();
    assert_eq!(layers(&e.cards), [(17, false), (15, true)]);
    let e = estimate(&llama8b(&cards, &[1.0, 0.0])).unwrap();
    assert_eq!(layers(&e.cards), [(32, true), (0, false)]);
}

/// Each block's KV cache sits with it: 8 KV heads × 128 × (K + V) × f16 = 4,096 B per token per
/// layer, × 8,192 = 32 MiB a block: 23 × 32 = 736 MiB on the 3090, 9 × 32 = 288 MiB on the 3060.
/// Compute buffers with flash attention, ubatch 512, pipelined over the two GPUs (all 33
/// positions offloaded, no overrides): CUDA0's block stage, 512 × (4 × 4,096 + 2 × 14,336) × 4 B =
/// 88 MiB; CUDA1's logits, 512 × (128,256 + 4,096) × 4 B = 258.5 MiB; each with the copies of
/// its inputs, 4 × (512 × 4,096 × 4 + 512 × 4) + 3 × 512 × 8,192 × 4 = 83,894,272 B.
#[test]
fn each_card_holds_its_blocks_kv_and_compute_buffer() {
    let e = estimate(&llama8b(&["rtx-3090", "rtx-3060-12gb"], &[])).unwrap();
    let kv: alloc::vec::Vec<u64> = e.cards.iter().map(|c| c.kv_cache_bytes.get()).collect();
    assert_eq!(kv, [736 * MIB, 288 * MIB]);
    let copies = 4 * (512 * 4096 * 4 + 512 * 4) + 3 * 512 * 8192 * 4;
    assert_eq!(copies, 83_894_272);
    let compute: alloc::vec::Vec<u64> = e.cards.iter().map(|c| c.compute_bytes.get()).collect();
    assert_eq!(
        compute,
        [
            512 * (4 * 4096 + 2 * 14336) * 4 + copies,
            512 * (128_256 + 4096) * 4 + copies
        ]
    );
    // Each card's use: its buffers and its 300 MiB CUDA context.
    for c in &e.cards {
        let sum = c.weights_bytes.get() + c.kv_cache_bytes.get() + c.compute_bytes.get();
        assert_eq!(c.used_bytes.get(), sum + 300 * MIB);
    }
    // The weights by hand (see `tests.rs`, `llamacpp_splits_layers_across_gpus`): Q4_K_M's
    // blocks with more bits (138,936,320 B) among 0–22 are 0–3, 6, 9, 12, 15, 18, 21; among
    // 23–31, 24, 27–31; the others 122,716,160 B; the output 430,956,544 B.
    let (more, plain, out) = (138_936_320u64, 122_716_160u64, 430_956_544u64);
    let weights: alloc::vec::Vec<u64> = e.cards.iter().map(|c| c.weights_bytes.get()).collect();
    assert_eq!(
        weights,
        [10 * more + 13 * plain, 6 * more + 3 * plain + out]
    );
    assert_eq!(weights, [2_984_673_280, 1_632_722_944]);
    // The weights on the cards are those of one card holding every block and the output.
    let one = estimate(&{
        let mut input = llama8b(&[], &[]);
        input.hardware.cards = alloc::vec::Vec::new();
        input.hardware.gpu = Some("rtx-3090".into());
        input
    })
    .unwrap();
    let spread: u64 = e.cards.iter().map(|c| c.weights_bytes.get()).sum();
    assert_eq!(spread, one.weights_bytes.get());
}

/// The fit is per card and the card with the least memory left limits: Llama-3.1-8B at a
/// context of 131,072 holds 16 GiB of KV cache (4,096 B × 131,072 × 32); by free memory the
/// 3060 gets 9 blocks (4.5 GiB of it) and the output, and still fits; `-ts 1,3` (split point
/// 0.25: il / 33 < 0.25 for il ≤ 8) gives it 23 blocks, 11.5 GiB of KV with their weights past
/// its 11.75 GiB, while the 3090 has room: no fit, the 3060 named.
#[test]
fn the_card_with_least_room_limits() {
    let long = |ts: &[f64]| {
        let mut input = llama8b(&["rtx-3090", "rtx-3060-12gb"], ts);
        input.serving.max_model_len = Some(131_072.0);
        input
    };
    let e = estimate(&long(&[1.0, 3.0])).unwrap();
    assert_eq!(layers(&e.cards), [(9, false), (23, true)]);
    let fit = e.fit.unwrap();
    assert!(!fit.fits);
    assert_eq!(fit.gpu, "rtx-3060-12gb");
    assert!(e.cards[0].fits && !e.cards[1].fits && e.cards[1].limits);
    assert_eq!(e.cards[1].kv_cache_bytes.get(), 23 * 4096 * 131_072);
    // The estimate's per-GPU figures are the limiting card's.
    assert_eq!(e.total_bytes, e.cards[1].used_bytes);
    let e = estimate(&long(&[])).unwrap();
    assert!(e.fit.unwrap().fits);
}

/// A 4090 and a 5090 (32 GB): Llama-3.1-70B in Q4_K_M, 80 blocks and the output (≈ 40 GiB)
/// spread over both by their free memory; the 70B does not fit the 4090 alone.
#[test]
fn a_4090_with_a_5090() {
    let input = {
        let mut input = llama8b(&["rtx-4090", "rtx-5090"], &[]);
        input.model.model = Some("meta-llama/Llama-3.1-70B".into());
        input.serving.max_model_len = Some(8192.0);
        input
    };
    let e = estimate(&input).unwrap();
    let (a, b) = (&e.cards[0], &e.cards[1]);
    assert_eq!(a.layers + b.layers, 80);
    assert!(b.output_layer && !a.output_layer);
    // More blocks on the larger card.
    assert!(b.layers > a.layers);
    let alone = estimate(&{
        let mut input = input.clone();
        input.hardware.cards = alloc::vec::Vec::new();
        input.hardware.gpu = Some("rtx-4090".into());
        input
    })
    .unwrap();
    assert!(!alone.fit.unwrap().fits);
}

/// Alike cards in a list are `gpu` × `gpus`, exactly.
#[test]
fn alike_cards_are_gpu_times_gpus() {
    let listed = estimate(&llama8b(&["2x4090"], &[])).unwrap();
    let counted = estimate(&{
        let mut input = llama8b(&[], &[]);
        input.hardware.cards = alloc::vec::Vec::new();
        input.hardware.gpu = Some("rtx-4090".into());
        input.placement.gpus = Some(2.0);
        input
    })
    .unwrap();
    assert_eq!(listed, counted);
}

/// `-sm none`: the main GPU holds everything, the others nothing.
#[test]
fn split_mode_none_uses_the_main_gpu() {
    let input = {
        let mut input = llama8b(&["rtx-3090", "rtx-3060-12gb"], &[]);
        input.placement.split_mode = SplitMode::None;
        input.placement.main_gpu = 1.0;
        input
    };
    let e = estimate(&input).unwrap();
    assert!(e.cards.is_empty());
    assert_eq!(e.fit.unwrap().gpu, "rtx-3060-12gb");
    let alone = estimate(&{
        let mut input = llama8b(&[], &[]);
        input.hardware.cards = alloc::vec::Vec::new();
        input.hardware.gpu = Some("rtx-3060-12gb".into());
        input
    })
    .unwrap();
    assert_eq!(e.total_bytes, alone.total_bytes);
}

/// vLLM, SGLang, TensorRT-LLM and transformers refuse unlike cards, naming the smallest; Ollama
/// takes no tensor split of the user's; a row split is refused; the settings are llama.cpp's.
#[test]
fn engines_that_shard_equally_refuse_unlike_cards() {
    for (engine, mode) in [
        (Engine::Vllm, Mode::Serve),
        (Engine::Sglang, Mode::Serve),
        (Engine::Trtllm, Mode::Serve),
        (Engine::Hf, Mode::Inference),
    ] {
        let input = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                ..Default::default()
            },
            run: RunInput {
                engine,
                mode,
                ..Default::default()
            },
            hardware: HardwareInput {
                cards: ["rtx-3090".into(), "rtx-3060-12gb".into()].into(),
                ..Default::default()
            },
            ..Default::default()
        };
        let err = estimate(&input).unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::Unsupported);
        assert_eq!(err.field, "cards");
        assert!(err.problem.contains("rtx-3060-12gb"), "{}", err.problem);
    }
    // Ollama takes unlike cards by its own plan (ollama/schedule_tests.rs), not llama.cpp's -ts.
    let ollama_ts = {
        let mut input = llama8b(&["rtx-3090", "rtx-3060-12gb"], &[1.0, 1.0]);
        input.run.engine = Engine::Ollama;
        input.run.engine_version = None;
        input
    };
    assert_eq!(estimate(&ollama_ts).unwrap_err().field, "tensor_split");
    let row = {
        let mut input = llama8b(&["rtx-3090", "rtx-3060-12gb"], &[]);
        input.placement.split_mode = SplitMode::Row;
        input
    };
    assert_eq!(estimate(&row).unwrap_err().field, "split_mode");
    let vllm_ts = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Vllm,
            mode: Mode::Serve,
            ..Default::default()
        },
        placement: PlacementInput {
            tensor_split: [3.0, 1.0].into(),
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(estimate(&vllm_ts).unwrap_err().field, "tensor_split");
}

/// Bad lists are named errors: an unknown card, a count of 0, more shares than GPUs, a negative
/// share, a main GPU past the last, cards with `gpu`.
#[test]
fn bad_card_lists_are_named_errors() {
    let cases: [(EstimateInput, &str); 6] = [
        (llama8b(&["rtx-3090", "no-such-card"], &[]), "cards"),
        (llama8b(&["0x4090"], &[]), "cards"),
        (
            llama8b(&["rtx-3090", "rtx-3060-12gb"], &[1.0, 1.0, 1.0]),
            "tensor_split",
        ),
        (
            llama8b(&["rtx-3090", "rtx-3060-12gb"], &[-1.0]),
            "tensor_split",
        ),
        (
            {
                let mut input = llama8b(&["rtx-3090", "rtx-3060-12gb"], &[]);
                input.placement.main_gpu = 2.0;
                input
            },
            "main_gpu",
        ),
        (
            {
                let mut input = llama8b(&["rtx-3090", "rtx-3060-12gb"], &[]);
                input.hardware.gpu = Some("h100".into());
                input
            },
            "cards",
        ),
    ];
    for (input, field) in cases {
        assert_eq!(estimate(&input).unwrap_err().field, field);
    }
}
