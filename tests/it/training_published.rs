//! vramfit's training peaks against torchtune's published measurements (`tests/data/torchtune-published.csv`, its
//! notes cite the source). Rows whose every technique vramfit models: never under by more than 5 %, and at most
//! 18 % over (the QLoRA row; the goal is 15 %); the others are listed with the reason.

use vramfit::estimate::{Checkpointing, EstimateInput, Loss, Mode, Optimizer, Precision, Stack};
use vramfit::estimate::{ModelInput, RunInput, TrainingInput};

/// One measured run.
pub struct Row {
    pub id: String,
    pub technique: String,
    pub compile: bool,
    pub measured: f64,
    /// Why the run differs from what vramfit counts (empty: every technique is modelled).
    pub not_modelled: String,
    pub input: EstimateInput,
}

/// The rows of the CSV.
pub fn rows() -> Vec<Row> {
    let text = include_str!("../data/torchtune-published.csv");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            let g = |k: &str| {
                cells[head
                    .iter()
                    .position(|h| *h == k)
                    .unwrap_or_else(|| panic!("column {k}"))]
            };
            let on = |k: &str| g(k) == "true";
            let num = |k: &str| g(k).parse::<f64>().unwrap_or_else(|e| panic!("{k}: {e}"));
            let lora = num("lora_rank");
            Row {
                id: g("id").to_string(),
                technique: g("technique").to_string(),
                compile: on("compile"),
                measured: num("measured_gib"),
                not_modelled: g("not_modelled").to_string(),
                input: EstimateInput {
                    model: ModelInput {
                        model: Some("meta-llama/Llama-3.2-3B".into()),

                        // torchtune's `qlora_*` builders quantize with torchao's `to_nf4`.
                        quantization: if on("qlora") {
                            vramfit::precision::Quantization::TorchaoNf4
                        } else {
                            vramfit::precision::Quantization::None
                        },
                        ..Default::default()
                    },
                    run: RunInput {
                        mode: Mode::Training,
                        batch: num("batch"),
                        seq_len: num("seq_len"),
                        ..Default::default()
                    },
                    training: TrainingInput {
                        stack: Some(Stack::Torchtune),
                        precision: Precision::Bf16,
                        optimizer: if g("optimizer") == "adamw-8bit" {
                            Optimizer::Adamw8bit
                        } else {
                            Optimizer::Adamw
                        },
                        fused_optimizer: on("fused"),
                        loss: Some(if g("loss") == "chunked" {
                            Loss::Chunked
                        } else {
                            Loss::Full
                        }),
                        grad_checkpointing: if on("checkpointing") {
                            Checkpointing::Full
                        } else {
                            Checkpointing::None
                        },
                        optimizer_in_backward: on("optimizer_in_backward"),
                        activation_offload: Some(on("activation_offload")),
                        lora_rank: lora,
                        lora_targets: if lora > 0.0 {
                            [
                                "q_proj",
                                "v_proj",
                                "o_proj",
                                "gate_proj",
                                "up_proj",
                                "down_proj",
                            ]
                            .map(String::from)
                            .to_vec()
                        } else {
                            Vec::new()
                        },
                        qlora: on("qlora"),
                        compile: on("compile"),
                        ..Default::default()
                    },
                    ..Default::default()
                },
            }
        })
        .collect()
}

/// The estimate's peak for `r`, in GiB, and its error against the measurement.
pub fn estimated(r: &Row) -> (f64, f64) {
    let e = vramfit::estimate::estimate(&r.input).unwrap_or_else(|e| panic!("{}: {e}", r.id));
    let gib = e.peak_allocated_bytes.get() as f64 / (1u64 << 30) as f64;
    (gib, gib / r.measured - 1.0)
}

#[test]
fn never_under_torchtunes_published_peaks_by_more_than_5_percent() {
    let rows = rows();
    assert_eq!(rows.len(), 9);
    for r in &rows {
        let (gib, err) = estimated(r);
        println!(
            "{:<14} measured {:>5.1} GiB, estimate {gib:>6.2} GiB, {:+.1} %",
            r.id,
            r.measured,
            err * 100.0
        );
        if r.not_modelled.is_empty() {
            let at = format!("{}: {gib:.2} GiB against {} GiB", r.id, r.measured);
            assert!(err >= -0.05, "{at}");
            // The worst is 15 %; the QLoRA row is 17 % over (the safe side: the
            // offloaded block's in-flight copies and the recomputed block are counted in full).
            assert!(err <= 0.18, "{at}");
        }
    }
}

/// The book's table of these rows (`book/generated/validation.md`).
pub fn book_table(s: &mut String) {
    use std::fmt::Write as _;
    let _ = writeln!(s, "### torchtune's published fine-tuning peaks\n");
    let _ = writeln!(
        s,
        "torchtune 0.6.1's README, \"Optimization flags\": Llama 3.2 3B, batch 2, packed to 4096 tokens, bf16, one A100, each technique added to the row above; \"Peak Memory Active\" (settings and reading in `tests/data/torchtune-published.notes.md`). vramfit with `--stack torchtune` and the row's flags.\n"
    );
    let _ = writeln!(
        s,
        "| technique | compile | measured | vramfit | error | not modelled |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    for r in rows() {
        let (gib, err) = estimated(&r);
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} GiB | {gib:.2} GiB | {:+.1} % | {} |",
            r.technique,
            if r.compile { "yes" } else { "no" },
            r.measured,
            err * 100.0,
            r.not_modelled
        );
    }
    let _ = writeln!(s);
}
