//! `estimate`: the memory of one run.
// In progress: filled in with the estimator (issue 3).

use clap::Args;

use crate::output::{Failure, Outcome};

#[derive(Args)]
pub struct EstimateArgs {}

pub fn run(_: EstimateArgs) -> Outcome {
    Err(Failure::io("this subcommand is not built yet"))
}
