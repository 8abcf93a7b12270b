//! `gpus`, `recommend`, `mig`, `platforms`, `spot`: the hardware catalog and planners.
// In progress: filled in with the hardware planners (issue 4).

use clap::Args;

use crate::output::{Failure, Outcome};

#[derive(Args)]
pub struct GpusArgs {}
#[derive(Args)]
pub struct RecommendArgs {}
#[derive(Args)]
pub struct MigArgs {}
#[derive(Args)]
pub struct PlatformsArgs {}
#[derive(Args)]
pub struct SpotArgs {}

fn pending() -> Outcome {
    Err(Failure::io("this subcommand is not built yet"))
}
pub fn gpus(_: GpusArgs) -> Outcome {
    pending()
}
pub fn recommend(_: RecommendArgs) -> Outcome {
    pending()
}
pub fn mig(_: MigArgs) -> Outcome {
    pending()
}
pub fn platforms(_: PlatformsArgs) -> Outcome {
    pending()
}
pub fn spot(_: SpotArgs) -> Outcome {
    pending()
}
