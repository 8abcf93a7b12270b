//! `diagnose`: classify an OOM message, a memory_summary() report or an nvidia-smi log.
// In progress: filled in with the diagnosis module (issue 5).

use clap::Args;

use crate::output::{Failure, Outcome};

#[derive(Args)]
pub struct DiagnoseArgs {}

pub fn run(_: DiagnoseArgs) -> Outcome {
    Err(Failure::io("this subcommand is not built yet"))
}
