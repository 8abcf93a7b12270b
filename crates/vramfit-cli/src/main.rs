//! `vramfit`: the command-line face of the estimator, planners and diagnosis.
//!
//! Exit codes: 0 success, 1 an I/O failure (file not found), 2 bad input of any
//! [`vramfit::ErrorKind`] (a message names the flag and the accepted range).

use std::process::ExitCode;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

mod diagnose;
mod estimate;
mod estimate_flags;
#[cfg(test)]
mod faces;
mod fits;
mod hardware;
mod hub;
mod hub_text;
mod launch;
mod output;
mod report;
mod training_config;

/// The fields of `EstimateInput` (test code shared by every face's check; see `faces`).
#[cfg(test)]
#[path = "../../../tests/input_fields.rs"]
mod input_fields;

/// GPU memory for deep learning: will it fit, on which card, at what cost, and why it ran out.
#[derive(Parser)]
#[command(name = "vramfit", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Estimate the memory of a training, inference or serving run.
    Estimate(Box<estimate::EstimateArgs>),
    /// The command that starts the estimated run (vllm serve, sglang, trtllm-serve,
    /// llama-server, Ollama), with the numbers that make it fit.
    Launch(Box<launch::LaunchArgs>),
    /// Which models fit a card: every preset in every format its engine loads, ranked.
    Fits(Box<fits::FitsArgs>),
    /// List the model presets (optionally matching a search).
    Models(estimate::ModelsArgs),
    /// List the GPU catalog.
    Gpus(hardware::GpusArgs),
    /// Rank the ways to run an estimate on the rental offers, cheapest first.
    Recommend(hardware::RecommendArgs),
    /// Pack several jobs onto valid MIG layouts.
    Mig(hardware::MigArgs),
    /// Score the rental platforms by the guide's decision matrix.
    Platforms(hardware::PlatformsArgs),
    /// Compare spot and on-demand cost for a job.
    Spot(hardware::SpotArgs),
    /// Classify an OOM message, a memory_summary() report or an nvidia-smi log.
    Diagnose(diagnose::DiagnoseArgs),
}

fn main() -> ExitCode {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let cli = match parsed {
        Ok((mut cli, matches)) => {
            if let (Command::Estimate(a), Some(("estimate", sub))) =
                (&mut cli.command, matches.subcommand())
            {
                a.explicit = given_on_command_line(sub);
            }
            cli
        }
        Err(e) => {
            // clap's own usage errors are bad input too: exit code 2, like ours.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Estimate(a) => estimate::run(*a),
        Command::Launch(a) => launch::run(*a),
        Command::Fits(a) => fits::run(*a),
        Command::Models(a) => estimate::models(a),
        Command::Gpus(a) => hardware::gpus(a),
        Command::Recommend(a) => hardware::recommend(a),
        Command::Mig(a) => hardware::mig(a),
        Command::Platforms(a) => hardware::platforms(a),
        Command::Spot(a) => hardware::spot(a),
        Command::Diagnose(a) => diagnose::run(a),
    };
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

/// The ids of the arguments the command line gave (not their defaults): what a config file
/// read with `--config` must not change.
fn given_on_command_line(m: &ArgMatches) -> Vec<String> {
    m.ids()
        .filter(|id| m.value_source(id.as_str()) == Some(ValueSource::CommandLine))
        .map(|id| id.as_str().to_string())
        .collect()
}
