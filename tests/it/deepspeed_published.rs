//! vramfit against a published DeepSpeed ZeRO-3 fine-tuning run (`tests/data/deepspeed-published.csv`; its notes cite
//! the source and read its settings): PEFT's guide, Llama-2-70B with LoRA over 8 H100s, whose figure is the device
//! memory a screenshot of nvidia-smi shows, against vramfit's `total` ("as nvidia-smi shows it").
//!
//! The estimate is under it, which the book's validation table says: the row is a known miss, held here so that the
//! table's verdict follows the figures (what the run does and vramfit does not count is the row's `not_modelled`).

use vramfit::estimate::{Checkpointing, EstimateInput, Mode, Precision, Stack};

/// One measured run.
pub struct Row {
    pub id: String,
    pub model: String,
    pub gpus: f64,
    pub measured: f64,
    pub reading: String,
    pub not_modelled: String,
    pub input: EstimateInput,
}

/// The rows of the CSV (its last cell may hold commas: it is the rest of the line).
pub fn rows() -> Vec<Row> {
    let text = include_str!("../data/deepspeed-published.csv");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.splitn(head.len(), ',').collect();
            let g = |k: &str| cells[head.iter().position(|h| *h == k).unwrap()].to_string();
            let n = |k: &str| g(k).parse::<f64>().unwrap_or_else(|e| panic!("{k}: {e}"));
            let input = EstimateInput {
                model: Some(g("model")),
                mode: Mode::Training,
                gpu: Some(g("gpu")),
                gpus: Some(n("gpus")),
                zero: n("zero"),
                lora_rank: n("lora_rank"),
                lora_dropout: Some(n("lora_dropout")),
                lora_targets: vec!["all-linear".into()],
                batch: n("batch"),
                seq_len: n("seq_len"),
                grad_accum: Some(n("grad_accum")),
                packing: true,
                grad_checkpointing: Checkpointing::Full,
                precision: Precision::AmpBf16,
                stack: Some(Stack::Trl),
                ..EstimateInput::default()
            };
            Row {
                id: g("id"),
                model: g("model"),
                gpus: n("gpus"),
                measured: n("measured_gib"),
                reading: g("reading"),
                not_modelled: g("not_modelled"),
                input,
            }
        })
        .collect()
}

/// vramfit's `total` for `r`, in GiB, and its error against the measurement.
pub fn estimated(r: &Row) -> (f64, f64) {
    let e = vramfit::estimate::estimate(&r.input).unwrap_or_else(|e| panic!("{}: {e}", r.id));
    let gib = e.total_bytes.get() as f64 / (1u64 << 30) as f64;
    (gib, gib / r.measured - 1.0)
}

/// The verdict the book's table gives a row.
fn verdict(err: f64) -> &'static str {
    if err < -0.05 {
        "not met, under"
    } else if err > 0.15 {
        "not met, over"
    } else {
        "met"
    }
}

/// The published run, estimated: 47.6 GiB against 63.7 GiB when this row was added (−25 %), 49.6 GiB (−22 %) once its
/// `lora_dropout` 0.1 is counted, under by more than the 5 % the other training rows hold; within 30 %, where a change
/// to the estimate must also change the table.
#[test]
fn the_published_zero3_run_is_estimated_and_its_miss_said() {
    let rows = rows();
    assert_eq!(rows.len(), 1);
    for r in &rows {
        let (gib, err) = estimated(r);
        println!(
            "{}: measured {:.1} GiB, vramfit {gib:.2} GiB, {:+.1} %",
            r.id,
            r.measured,
            err * 100.0
        );
        assert!(
            (-0.30..=0.15).contains(&err),
            "{}: {gib:.2} GiB against {} GiB",
            r.id,
            r.measured
        );
        assert_eq!(
            verdict(err),
            "not met, under",
            "{}: update the book's row",
            r.id
        );
        assert!(!r.not_modelled.is_empty());
    }
}

/// LoRA dropout 0.1 on the published run, by hand: under full checkpointing only the block
/// recomputed in backward holds its saved tensors, for batch 8 × 2048 = 16,384 tokens. ZeRO-3 in
/// amp-bf16 holds the model and the adapters in bf16 (2 B) under autocast. Per token, each adapted
/// module's `native_dropout` keeps a 1 B mask per input element and `lora_A` keeps the dropout's
/// 2 B output, 3 B × the input width, where without dropout the modules reading one input share
/// it (2 B × width, once):
/// - q, k, v on the 8192-wide norm output: 3 × 3 × 8192 − 2 × 8192 (the shared input) = 57,344;
/// - o on the 8192-wide attention output (a view of the kernel's output, kept by the kernel):
///   3 × 8192 = 24,576;
/// - gate, up on the 8192-wide norm output: 2 × 3 × 8192 − 2 × 8192 = 32,768;
/// - down on the 28,672-wide product, which only down_proj kept: 3 × 28,672 − 2 × 28,672 = 28,672.
///
/// 143,360 B per token × 16,384 tokens = 2,348,810,240 B (2.19 GiB) more activations (the
/// brief's first count, 77,824 widths × 3 B × 16,384 = 3.56 GiB, left out the shared inputs no
/// longer kept).
#[test]
fn the_published_runs_lora_dropout_adds_the_recomputed_blocks_masks_and_copies() {
    let r = &rows()[0];
    let acts = |p: f64| {
        let e = vramfit::estimate::estimate(&EstimateInput {
            lora_dropout: Some(p),
            ..r.input.clone()
        })
        .unwrap();
        e.components
            .iter()
            .filter(|c| c.key.kind == vramfit::estimate::ComponentKind::Activations)
            .map(|c| c.bytes.get())
            .sum::<u64>()
    };
    let per_token = 3 * 3 * 8192 - 2 * 8192 + 3 * 8192 + (2 * 3 * 8192 - 2 * 8192) + 28_672;
    assert_eq!(per_token, 143_360);
    assert_eq!(acts(0.1) - acts(0.0), per_token * 8 * 2048);
    // Any p above 0 keeps the same tensors: TRL's default 0.05 too.
    assert_eq!(acts(0.05), acts(0.1));
}

/// The book's table of these rows (`book/generated/validation.md`).
pub fn book_table(s: &mut String) {
    use std::fmt::Write as _;
    let _ = writeln!(s, "### A published DeepSpeed ZeRO-3 fine-tuning run\n");
    let _ = writeln!(
        s,
        "PEFT's DeepSpeed guide: LoRA (rank 8, every linear layer) on the model, ZeRO-3 without offload, AMP bf16, batch 8 packed to 2048 tokens, full checkpointing, FlashAttention 2, through TRL's `SFTTrainer` (settings and reading in `tests/data/deepspeed-published.notes.md`). The figure is nvidia-smi's, so vramfit's `total` is compared.\n"
    );
    let _ = writeln!(
        s,
        "| model | GPUs | measured | reading | vramfit total | error | verdict | not modelled |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for r in rows() {
        let (gib, err) = estimated(&r);
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} GiB | {} | {gib:.2} GiB | {:+.1} % | {} | {} |",
            r.model,
            r.gpus,
            r.measured,
            r.reading,
            err * 100.0,
            verdict(err),
            r.not_modelled
        );
    }
    let _ = writeln!(s);
}
