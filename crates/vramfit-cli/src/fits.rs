//! `vramfit fits`: which models fit a card (the reverse of `estimate`), in which formats, with
//! the largest context of each.

use std::fmt::Write as _;

use clap::Args;
use vramfit::estimate::{Bound, thousands};
use vramfit::hardware::grid::{ModelFit, models_on};
use vramfit::hardware::lookup_gpu;
use vramfit::{ErrorKind, InputError};

use crate::estimate::EstimateFlags;
use crate::output::{Outcome, json};

/// Arguments of `vramfit fits`.
#[derive(Args)]
pub struct FitsArgs {
    /// The run (mode, engine, batch, sequence…) tried with every preset; `--gpu` names the card.
    #[command(flatten)]
    pub flags: EstimateFlags,
    /// Also list the runs that do not fit.
    #[arg(long)]
    pub all: bool,
    /// Print a JSON list instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `vramfit fits`.
pub fn run(args: FitsArgs) -> Outcome {
    if args.flags.model.is_some() || args.flags.params.is_some() {
        return Err(InputError::new(
            ErrorKind::Conflict,
            "model",
            "fits tries every preset",
            "no --model or --params with fits (use estimate for one model)",
        )
        .into());
    }
    let Some(id) = args.flags.gpu.as_deref() else {
        return Err(InputError::new(
            ErrorKind::Missing,
            "gpu",
            "no GPU given",
            "a catalog GPU, by id or by words that name it alone (rtx-4090, h200); see vramfit gpus",
        )
        .into());
    };
    let gpu = lookup_gpu("gpu", id)?;
    let template = args.flags.run_input()?;
    // The template itself must be a valid run but for its model.
    {
        let mut input = template.clone();
        input.model.params = Some("1B".into());
        input.hardware.gpu = Some(gpu.id.into());
        input
    }
    .resolve()?;
    let rows: Vec<ModelFit> = models_on(&template, gpu, true)
        .into_iter()
        .filter(|r| args.all || r.fits)
        .collect();
    if args.json {
        return json(&rows);
    }
    let mut t = String::new();
    let run = template.runner().rules().name;
    let _ = writeln!(
        t,
        "On {} ({:.2} GiB), {run}, batch {}: {} of the presets' runs fit.",
        gpu.id,
        gpu.memory.as_gib(),
        template.run.batch,
        rows.iter().filter(|r| r.fits).count(),
    );
    let _ = writeln!(
        t,
        "  {:<44}{:>10}  {:<12}{:>12}{:>14}  largest context",
        "model", "params", "format", "needs", "tokens/s"
    );
    for r in &rows {
        let context = match (r.max_context, r.context_bound) {
            (Some(c), Some(Bound::TrainedContext)) => format!("{} (trained)", thousands(c)),
            (Some(c), _) => thousands(c),
            (None, _) if r.fits => String::from("-"),
            (None, _) => String::from("does not fit"),
        };
        let _ = writeln!(
            t,
            "  {:<44}{:>8.1} B  {:<12}{:>8.2} GiB{:>14}  {context}{}",
            r.model,
            r.params as f64 / 1e9,
            r.weights,
            r.required_bytes.as_gib(),
            r.tokens_per_s
                .map_or_else(|| String::from("-"), |x| format!("{x:.1}")),
            if r.best { "  ← best format" } else { "" },
        );
    }
    Ok(t)
}
