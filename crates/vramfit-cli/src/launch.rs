//! `vramfit launch`: the command that starts the estimated run, with the numbers that make it
//! fit, as a shell script (or `--json`, the launch's files, environment and commands).

use std::fmt::Write as _;

use clap::Args;

use crate::estimate::EstimateFlags;
use crate::output::{Outcome, json};

/// Arguments of `vramfit launch`.
#[derive(Args)]
pub struct LaunchArgs {
    #[command(flatten)]
    pub flags: EstimateFlags,
    /// Print the launch as one JSON object (files, env, commands, script, notes).
    #[arg(long)]
    pub json: bool,
}

/// Runs `vramfit launch`: the script, after comments that say whether the run fits the card
/// and what the user supplies.
pub fn run(args: LaunchArgs) -> Outcome {
    let (input, _) = args.flags.resolve()?;
    let workload = input.resolve()?;
    let launch = vramfit::launch::launch(&workload)?;
    if args.json {
        return json(&launch);
    }
    let e = workload.estimate();
    let mut t = String::new();
    let card =
        |id: &str| vramfit::hardware::find_gpu(id).map_or(id.to_string(), |g| g.name.to_string());
    match &e.fit {
        Some(f) if f.fits => {
            let _ = writeln!(
                t,
                "# Fits one {}: {} to spare of the {} it must hold.",
                card(&f.gpu),
                f.headroom_bytes.display_gib(),
                e.required_bytes.display_gib()
            );
        }
        Some(f) if f.reason.is_some() => {
            let why = f.reason.as_ref().map_or("", |r| r.en.as_str());
            let _ = writeln!(t, "# Not as asked on one {}: {why}", card(&f.gpu));
        }
        Some(f) => {
            let _ = writeln!(
                t,
                "# Does not fit one {} as estimated: {} short. The command below runs what was estimated.",
                card(&f.gpu),
                f.shortfall_bytes.display_gib()
            );
        }
        None => {
            let _ = writeln!(
                t,
                "# No card named: each GPU must hold {}.",
                e.required_bytes.display_gib()
            );
        }
    }
    for n in &launch.notes {
        let _ = writeln!(t, "# {}", n.en);
    }
    t.push_str(&launch.script);
    Ok(t)
}
