//! FSDP2 against PyTorch's own run of it: `tests/reference/fsdp-peaks.csv`, produced by
//! `tests/reference/fsdp_peaks.py` (a Llama-shaped transformers model wrapped per decoder layer
//! with `fully_shard`, bf16 mixed precision, run on a fake process group under fake tensors,
//! rank 0's storages tracked as the caching allocator counts them; see that folder's README).

use vramfit::config::parse_config;
use vramfit::estimate::{EstimateInput, Mode, Offload, estimate};

/// One reference run.
struct FsdpCase {
    id: String,
    peak: u64,
    input: EstimateInput,
}

fn cases() -> Vec<FsdpCase> {
    crate::calibration::csv(include_str!("../reference/fsdp-peaks.csv"), |row| {
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
        FsdpCase {
            id: g("case_id").to_string(),
            peak: g("peak_allocated_bytes").parse().unwrap(),
            input: EstimateInput {
                arch: Some(arch),
                mode: Mode::Training,
                batch: num("batch"),
                seq_len: num("seq_len"),
                zero: 3.0,
                fsdp_version: Some(2.0),
                reshard_after_forward: Some(g("reshard_after_forward") == "true"),
                offload: if g("offload") == "cpu" {
                    Offload::Cpu
                } else {
                    Offload::None
                },
                gpus: Some(num("world_size")),
                ..EstimateInput::default()
            },
        }
    })
}

/// Every run within 5 % of PyTorch's peak, never under it by more than 5 % (issue 40's goal),
/// and its parameter count the model's.
#[test]
fn fsdp2_peaks_match_the_fake_process_group_runs() {
    let cases = cases();
    assert_eq!(cases.len(), 18);
    let mut errors = Vec::new();
    for c in &cases {
        let e = estimate(&c.input).unwrap();
        assert_eq!(e.params, 35_265_024, "{}", c.id);
        let err = e.peak_allocated_bytes.get() as f64 / c.peak as f64 - 1.0;
        eprintln!(
            "{:36} measured {:>12} estimated {:>12} {:+.1} %",
            c.id,
            c.peak,
            e.peak_allocated_bytes.get(),
            err * 100.0
        );
        errors.push((err, c.id.clone()));
    }
    for (err, id) in &errors {
        assert!(err.abs() <= 0.05, "{id}: {:+.1} %", err * 100.0);
    }
    // The book's validation table: median |error| 0.9 %, worst −3.4 % (w8, CPU offload, the
    // end of backward: the estimate leaves out the 4 B shard gradient FSDP2 builds on the GPU
    // before copying it to the CPU).
    let mut abs: Vec<f64> = errors.iter().map(|(e, _)| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let median = (abs[abs.len() / 2 - 1] + abs[abs.len() / 2]) / 2.0;
    let worst = errors
        .iter()
        .map(|(e, _)| *e)
        .fold(0.0, |w: f64, e| if e.abs() > w.abs() { e } else { w });
    eprintln!(
        "median |error| {:.1} %, worst {:+.1} %",
        median * 100.0,
        worst * 100.0
    );
    assert!(median <= 0.01 && worst > -0.035, "{median} {worst}");
}
