//! Megatron's training peak against published Megatron-LM runs with their measured
//! `max allocated` (`tests/data/megatron-published.csv`; its notes cite each log and setting).
//! Goal (issue 40): median |error| ≤ 5 %, worst ≤ 15 %, never under by more than 5 %.

use std::fmt::Write as _;
use vramfit::config::parse_config;
use vramfit::estimate::{Checkpointing, EstimateInput, Mode, estimate};
use vramfit::estimate::{ModelInput, PlacementInput, RunInput, TrainingInput};

/// One measured run and vramfit's estimate of it.
pub struct Checked {
    pub id: String,
    pub measured_mib: f64,
    pub estimate_mib: f64,
}

impl Checked {
    pub fn error(&self) -> f64 {
        self.estimate_mib / self.measured_mib - 1.0
    }
}

/// Each row's estimate: Megatron's settings as the log gives them, the model as a Llama-shaped
/// `config.json` of its `--hidden-size`, `--ffn-hidden-size`, `--num-layers`, heads, query
/// groups and padded vocabulary (RoPE, RMSNorm, SwiGLU, no biases, as both runs set).
pub fn checked() -> Vec<Checked> {
    crate::calibration::csv(include_str!("../data/megatron-published.csv"), |row| {
        let g = |n: &str| row.get(n);
        let num = |n: &str| g(n).parse::<f64>().unwrap();
        let config = format!(
            r#"{{"model_type": "llama", "hidden_size": {}, "intermediate_size": {},
                "num_hidden_layers": {}, "num_attention_heads": {}, "num_key_value_heads": {},
                "vocab_size": {}, "tie_word_embeddings": {}, "max_position_embeddings": {},
                "torch_dtype": "bfloat16"}}"#,
            g("hidden"),
            g("ffn"),
            g("layers"),
            g("heads"),
            g("kv_heads"),
            g("vocab"),
            g("tied"),
            g("seq_len"),
        );
        let arch = parse_config(&config).unwrap().arch;
        let (tp, pp, cp, dp) = (num("tp"), num("pp"), num("cp"), num("dp"));
        let input = EstimateInput {
            model: ModelInput {
                arch: Some(arch),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                batch: num("micro_batch"),
                seq_len: num("seq_len"),
                ..Default::default()
            },
            training: TrainingInput {
                grad_checkpointing: match g("recompute") {
                    "selective" => Checkpointing::Selective,
                    "full" => Checkpointing::Full,
                    _ => Checkpointing::None,
                },
                ..Default::default()
            },
            placement: PlacementInput {
                tp,
                pp,
                cp: Some(cp),
                gpus: Some(tp * pp * cp * dp),
                gpus_per_node: Some(num("gpus_per_node")),
                sequence_parallel: g("sequence_parallel") == "true",
                distributed_optimizer: g("distributed_optimizer") == "true",
                ..Default::default()
            },
            ..Default::default()
        };
        let e = estimate(&input).unwrap_or_else(|err| panic!("{}: {err}", g("id")));
        Checked {
            id: g("id").to_string(),
            measured_mib: num("measured_max_allocated_mib"),
            estimate_mib: e.peak_allocated_bytes.get() as f64 / (1u64 << 20) as f64,
        }
    })
}

/// The errors' median of absolute values and the worst (largest in size, with its sign).
pub fn summary(rows: &[Checked]) -> (f64, f64) {
    let mut abs: Vec<f64> = rows.iter().map(|r| r.error().abs()).collect();
    abs.sort_by(f64::total_cmp);
    let n = abs.len();
    let median = if n % 2 == 1 {
        abs[n / 2]
    } else {
        (abs[n / 2 - 1] + abs[n / 2]) / 2.0
    };
    let worst = rows
        .iter()
        .map(Checked::error)
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap_or(0.0);
    (median, worst)
}

#[test]
fn megatron_meets_published_peaks() {
    let rows = checked();
    assert_eq!(rows.len(), 2);
    let mut s = String::new();
    for r in &rows {
        let _ = writeln!(
            s,
            "{}: estimate {:.0} MiB vs measured {:.0} MiB ({:+.1} %)",
            r.id,
            r.estimate_mib,
            r.measured_mib,
            r.error() * 100.0
        );
    }
    let (median, worst) = summary(&rows);
    let _ = writeln!(
        s,
        "median |error| {:.1} %, worst {:+.1} %",
        median * 100.0,
        worst * 100.0
    );
    eprint!("{s}");
    for r in &rows {
        assert!(r.error() > -0.05, "{}: under by more than 5 %", r.id);
        assert!(r.error() < 0.15, "{}: over by more than 15 %", r.id);
    }
    assert!(median <= 0.05, "median {median}");
    assert!(worst.abs() <= 0.15, "worst {worst}");
}
