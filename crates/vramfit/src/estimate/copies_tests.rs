//! Copies of a server share the requests asked for (vLLM's `--data-parallel-size`, SGLang's
//! `--dp-size`): `batch` is the concurrency over every copy, and each copy holds its share,
//! ceil(batch / copies), by hand.

use crate::estimate::{
    Engine, EstimateInput, HardwareInput, Mode, ModelInput, PlacementInput, RunInput, ServingInput,
    estimate,
};

/// Llama-3.1-8B served by vLLM on H100s at max_model_len 8,192: `requests` over `gpus` copies.
fn vllm(gpus: f64, requests: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            batch: requests,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        placement: PlacementInput {
            gpus: Some(gpus),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// 64 requests over two copies are 32 each: every GPU is one copy holding 32, the figures of
/// one GPU serving 32, and the pool of one copy (436,880 tokens, 53.33 sequences of 8,192)
/// holds its 32. Before, each copy was counted with all 64 and the verdict said the pool held
/// 53.33 of 64 on two GPUs whose pools hold 106.
#[test]
fn copies_share_the_requests() {
    let (fleet, one) = (
        estimate(&vllm(2.0, 64.0)).unwrap(),
        estimate(&vllm(1.0, 32.0)).unwrap(),
    );
    let w = vllm(2.0, 64.0).resolve().unwrap();
    assert_eq!((w.batch, w.requests, w.copies), (32, 64, 2));
    assert_eq!(fleet.total_bytes, one.total_bytes);
    assert_eq!(fleet.max_concurrency_exact, Some(53.33));
    assert!(fleet.fit.as_ref().unwrap().fits, "{:?}", fleet.fit);
    // The speed: one copy's step, every copy's tokens per second.
    let (f, o) = (fleet.throughput.unwrap(), one.throughput.unwrap());
    assert_eq!(f.time_to_first_token_s, o.time_to_first_token_s);
    assert_eq!(
        f.decode_tokens_per_s_per_sequence,
        o.decode_tokens_per_s_per_sequence
    );
    let ratio = f.decode_tokens_per_s.unwrap() / o.decode_tokens_per_s.unwrap();
    assert!((ratio - 2.0).abs() < 1e-3, "{ratio}");
    let ratio = f.prefill_tokens_per_s.unwrap() / o.prefill_tokens_per_s.unwrap();
    assert!((ratio - 2.0).abs() < 1e-3, "{ratio}");
    #[cfg(feature = "en")]
    {
        let note = fleet
            .notes
            .iter()
            .find(|n| n.key == "copies_share_requests");
        let note = note.expect("a note on the copies");
        assert!(
            note.en.contains("64 requests at once over 2 copies"),
            "{}",
            note.en
        );
        assert!(note.en.contains("ceil(64 / 2) = 32"), "{}", note.en);
        let decode = f
            .formulas
            .iter()
            .find(|d| d.key == "decode_tokens_per_s")
            .unwrap();
        assert!(decode.en.contains("× 2 copies = "), "{}", decode.en);
    }
    assert!(!one.notes.iter().any(|n| n.key == "copies_share_requests"));
}

/// 128 over two copies are 64 each, more than a copy's pool holds (53.33): the verdict says
/// so per copy and names the 128 asked for; 127 are 64 each too (ceil), 106 are 53 each, held.
#[test]
fn a_copy_short_of_its_share_says_so() {
    let e = estimate(&vllm(2.0, 128.0)).unwrap();
    let fit = e.fit.as_ref().unwrap();
    assert!(!fit.fits);
    let odd = estimate(&vllm(2.0, 127.0)).unwrap();
    assert_eq!(
        (odd.total_bytes, odd.fit.unwrap().fits),
        (e.total_bytes, false)
    );
    assert!(estimate(&vllm(2.0, 106.0)).unwrap().fit.unwrap().fits);
    #[cfg(feature = "en")]
    {
        let why = &fit.reason.as_ref().unwrap().en;
        assert!(
            why.contains("each of its 2 copies' KV pool holds 53.33 of its 64 sequences")
                && why.contains("128 asked for at once over the copies"),
            "{why}"
        );
    }
}

/// Where copies do not share requests (transformers generating, a training run's replicas),
/// `batch` stays each copy's.
#[test]
fn other_runs_keep_batch_per_copy() {
    let hf = {
        let mut input = vllm(2.0, 64.0);
        input.run.mode = Mode::Inference;
        input.run.engine = Engine::Hf;
        input
    };
    let w = hf.resolve().unwrap();
    assert_eq!((w.batch, w.requests, w.copies), (64, 64, 1));
    let train = EstimateInput {
        run: RunInput {
            mode: Mode::Training,
            batch: 4.0,
            ..hf.run
        },
        ..hf
    };
    let w = train.resolve().unwrap();
    assert_eq!((w.batch, w.requests, w.copies), (4, 4, 1));
}
