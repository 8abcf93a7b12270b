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
    /// Launch on the cheapest rental that holds the run as asked, the first row of `vramfit recommend` with the same flags: its card and layout (tensor, pipeline, data-parallel replicas, expert parallel, nodes) replace the GPUs the flags name.
    #[arg(long)]
    pub cheapest: bool,
}

/// The run of `input` on the cheapest rental that holds it as asked (the planner's first
/// option, with the run's serving layouts, `PlanOptions::for_run`), and that option in words.
fn on_cheapest(
    input: &vramfit::estimate::EstimateInput,
) -> vramfit::Result<(vramfit::estimate::EstimateInput, String)> {
    use vramfit::hardware::{PlanOptions, find_gpu, gpus, layout_input, layout_required_bytes};
    let none = || {
        vramfit::InputError::new(
            vramfit::ErrorKind::Unsupported,
            "cheapest",
            "no offer of the catalog holds the run as asked on up to 8 GPUs a node and 4 nodes",
            "a run that `vramfit recommend` with the same flags lists",
        )
    };
    let options = vramfit::hardware::plan(
        |l, g| layout_required_bytes(input, l, g),
        vramfit::hardware::offers(),
        gpus(),
        &PlanOptions::default().for_run(input),
    );
    let o = options
        .iter()
        .find(|o| o.mig_profile.is_none())
        .ok_or_else(none)?;
    let gpu = find_gpu(&o.gpu).ok_or_else(none)?;
    let run = layout_input(input, o.parallelism, gpu).ok_or_else(none)?;
    let words = format!(
        "# On {} ({} × {}, {}): the cheapest rental that holds it as asked.",
        o.offer,
        o.count,
        o.gpu,
        o.parallelism.describe()
    );
    Ok((run, words))
}

/// Runs `vramfit launch`: the script, after comments that say whether the run fits the card
/// and what the user supplies.
pub fn run(args: LaunchArgs) -> Outcome {
    let (input, _) = args.flags.resolve()?;
    let (input, on) = if args.cheapest {
        let (run, words) = on_cheapest(&input)?;
        (run, Some(words))
    } else {
        (input, None)
    };
    let workload = input.resolve()?;
    let launch = vramfit::launch::launch(&workload)?;
    if args.json {
        return json(&launch);
    }
    let e = workload.estimate();
    let mut t = on.map(|w| w + "\n").unwrap_or_default();
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
