//! FSDP2 and FSDP1 against PyTorch's own runs of them: `tests/reference/fsdp-peaks.csv` and
//! `fsdp1-peaks.csv`, produced by `tests/reference/fsdp_peaks.py` and `fsdp1_peaks.py` (a
//! Llama-shaped transformers model wrapped per decoder layer with `fully_shard`, or with
//! `FullyShardedDataParallel` and `transformer_auto_wrap_policy`, bf16 mixed precision, run on a
//! fake process group under fake tensors, rank 0's storages tracked as the caching allocator
//! counts them; see that folder's README).

use vramfit::config::parse_config;
use vramfit::estimate::{EstimateInput, Mode, Offload, estimate};
use vramfit::estimate::{ModelInput, PlacementInput, RunInput};

/// One reference run.
struct FsdpCase {
    id: String,
    peak: u64,
    input: EstimateInput,
}

/// The runs of `csv`: FSDP2's (`reshard_after_forward`) or FSDP1's (`sharding_strategy`).
fn cases(csv: &str, fsdp1: bool) -> Vec<FsdpCase> {
    crate::calibration::csv(csv, |row| {
        let g = |n: &str| row.get(n);
        let num = |n: &str| g(n).parse::<f64>().unwrap();
        // The run's model as its config.json says it (Llama, untied head, RMSNorm).
        let config = format!(
            r#"{{"model_type": "llama", "architectures": ["LlamaForCausalLM"],
            "hidden_size": {}, "intermediate_size": {}, "num_hidden_layers": {},
            "num_attention_heads": {}, "num_key_value_heads": {}, "vocab_size": {},
            "tie_word_embeddings": false, "max_position_embeddings": 4096,
            "rms_norm_eps": 1e-5, "torch_dtype": "float32"}}"#,
            g("hidden_size"),
            g("intermediate_size"),
            g("num_hidden_layers"),
            g("num_attention_heads"),
            g("num_key_value_heads"),
            g("vocab_size"),
        );
        let arch = parse_config(&config).unwrap().arch;
        // FSDP1's strategy as the estimator spells it (and the config readers write it):
        // FULL_SHARD zero 3, SHARD_GRAD_OP zero 2, NO_SHARD zero 0.
        let (version, zero, reshard) = match (fsdp1, fsdp1.then(|| g("sharding_strategy"))) {
            (false, _) => (Some(2.0), 3.0, Some(g("reshard_after_forward") == "true")),
            (_, Some("FULL_SHARD")) => (Some(1.0), 3.0, None),
            (_, Some("SHARD_GRAD_OP")) => (Some(1.0), 2.0, None),
            _ => (Some(1.0), 0.0, None),
        };
        FsdpCase {
            id: g("case_id").to_string(),
            peak: g("peak_allocated_bytes").parse().unwrap(),
            input: EstimateInput {
                model: ModelInput {
                    arch: Some(arch),
                    ..Default::default()
                },
                run: RunInput {
                    mode: Mode::Training,
                    batch: num("batch"),
                    seq_len: num("seq_len"),
                    ..Default::default()
                },
                placement: PlacementInput {
                    zero,
                    fsdp_version: version,
                    reshard_after_forward: reshard,
                    offload: if g("offload") == "cpu" {
                        Offload::Cpu
                    } else {
                        Offload::None
                    },
                    gpus: Some(num("world_size")),
                    // FSDP2's rows name their reduce_dtype: bf16 is the compute dtype (left
                    // out, as accelerate's mixed_precision gives it), fp32 verl's.
                    reduce_dtype: (!fsdp1 && g("reduce_dtype") == "fp32")
                        .then_some(vramfit::precision::Dtype::Fp32),
                    ..Default::default()
                },
                ..Default::default()
            },
        }
    })
}

/// Every run within 5 % of PyTorch's peak, never under it by more than 5 % (issue 40's goal),
/// and its parameter count the model's.
#[test]
fn fsdp2_peaks_match_the_fake_process_group_runs() {
    let cases = cases(include_str!("../reference/fsdp-peaks.csv"), false);
    // 18 with reduce_dtype bf16, 6 with fp32 (fully_shard's MixedPrecisionPolicy).
    assert_eq!(cases.len(), 24);
    let errors = errors(&cases);
    for (err, id) in &errors {
        assert!(err.abs() <= 0.05, "{id}: {:+.1} %", err * 100.0);
    }
    // The book's validation table: median |error| 1.0 %, worst −3.4 % (w8, CPU offload, the
    // end of backward: the estimate leaves out the 4 B shard gradient FSDP2 builds on the GPU
    // before copying it to the CPU).
    let (median, worst) = summary(&errors);
    eprintln!(
        "median |error| {:.1} %, worst {:+.1} %",
        median * 100.0,
        worst * 100.0
    );
    assert!(median <= 0.01 && worst > -0.035, "{median} {worst}");
}

/// `(error, case id)` of each run: the estimate's peak against PyTorch's.
fn errors(cases: &[FsdpCase]) -> Vec<(f64, String)> {
    cases
        .iter()
        .map(|c| {
            let e = estimate(&c.input).unwrap();
            assert_eq!(e.params, 35_265_024, "{}", c.id);
            let err = e.peak_allocated_bytes.get() as f64 / c.peak as f64 - 1.0;
            eprintln!(
                "{:40} measured {:>12} estimated {:>12} {:+.1} %",
                c.id,
                c.peak,
                e.peak_allocated_bytes.get(),
                err * 100.0
            );
            (err, c.id.clone())
        })
        .collect()
}

/// The median |error| and the worst error (signed) of `errors`.
fn summary(errors: &[(f64, String)]) -> (f64, f64) {
    let mut abs: Vec<f64> = errors.iter().map(|(e, _)| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let n = abs.len();
    let median = if n.is_multiple_of(2) {
        (abs[n / 2 - 1] + abs[n / 2]) / 2.0
    } else {
        abs[n / 2]
    };
    let worst = errors
        .iter()
        .map(|(e, _)| *e)
        .fold(0.0, |w: f64, e| if e.abs() > w.abs() { e } else { w });
    (median, worst)
}

/// FSDP1 (`FullyShardedDataParallel`): `FULL_SHARD` with `use_orig_params` True and False,
/// `SHARD_GRAD_OP`, `NO_SHARD` and CPU offload, each within issue 40's goal per regime.
#[test]
fn fsdp1_peaks_match_the_fake_process_group_runs() {
    let cases = cases(include_str!("../reference/fsdp1-peaks.csv"), true);
    assert_eq!(cases.len(), 30);
    let errors = errors(&cases);
    for regime in [
        "full_shard-b",
        "full_shard-flat",
        "shard_grad_op",
        "no_shard",
        "offload",
    ] {
        let rows: Vec<(f64, String)> = errors
            .iter()
            .filter(|(_, id)| id.contains(regime))
            .cloned()
            .collect();
        assert_eq!(rows.len(), 6, "{regime}");
        let (median, worst) = summary(&rows);
        eprintln!(
            "{regime}: median |error| {:.1} %, worst {:+.1} %",
            median * 100.0,
            worst * 100.0
        );
        assert!(median <= 0.05, "{regime}: {median}");
    }
    let (median, worst) = summary(&errors);
    eprintln!(
        "all: median |error| {:.1} %, worst {:+.1} %",
        median * 100.0,
        worst * 100.0
    );
    for (err, id) in &errors {
        assert!(*err >= -0.05 && *err <= 0.15, "{id}: {:+.1} %", err * 100.0);
    }
    // The book's validation table: median |error| 0.7 %, worst +5.8 % (NO_SHARD at 2 × 1,024
    // tokens, on the safe side); the lowest −1.1 % (the logits' chain at the start of backward,
    // as under FSDP2).
    let lowest = errors.iter().map(|(e, _)| *e).fold(0.0, f64::min);
    assert!(
        median <= 0.01 && worst < 0.06 && lowest > -0.012,
        "{median} {worst} {lowest}"
    );
}
