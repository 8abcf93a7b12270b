//! Spot against on-demand, with interruptions (guide §6 Q2).
//!
//! The guide: spot prices are usually 20–30 % of on-demand, and spot instances are reclaimed
//! every 6–48 hours on average, depending on the platform.
//!
//! # The model
//!
//! A job needs `H` hours of work. It writes a checkpoint after every `C` hours of progress
//! (writing time neglected). Interruptions arrive as a Poisson process of rate `λ = 1/M`
//! (`M`, the mean time between interruptions) while the job runs; after one, the work since
//! the last checkpoint is lost and `R` hours pass (a new instance, reloading the checkpoint)
//! before it runs again; we assume no interruption during those `R` hours.
//!
//! Take one segment of `c` hours between checkpoints and let `X ~ Exp(λ)` be the time to the
//! next interruption, `q = P(X < c) = 1 − e^(−λc)`. Either the segment completes (`X ≥ c`, time
//! `c`) or it is interrupted (time `X + R`) and starts afresh, so its expected time `T` solves
//!
//! ```text
//! T = c·e^(−λc) + E[X; X < c] + q·(R + T),   E[X; X < c] = 1/λ − e^(−λc)·(c + 1/λ)
//! ⇒ T(c) = (e^(λc) − 1)·(1/λ + R)
//! ```
//!
//! and its expected number of interruptions (failures before a success, geometric) is
//! `e^(λc) − 1`. Each interruption loses `E[X | X < c] = 1/λ − c·e^(−λc)/q` hours of work on
//! average (about `c/2` when `λc` is small). With `H = n·C + r` (`n` whole segments and a
//! remainder `r`):
//!
//! ```text
//! wall time  W = n·T(C) + T(r)
//! interruptions N = n·(e^(λC) − 1) + (e^(λr) − 1)
//! spot cost = S·W (restarts are billed),  on-demand cost = P·H
//! break-even spot price S* = P·H / W;  break-even M*: the M where S·W(M) = P·H
//! ```
//!
//! (As `λ → 0`, `T(c) → c`: no interruptions, no overhead.)

use alloc::format;

use crate::error::{ErrorKind, InputError, Result};

/// The inputs of [`compare`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SpotInput {
    /// Hours of work the job needs, `H`.
    pub hours: f64,
    /// On-demand price per hour, `P`.
    pub on_demand_price: f64,
    /// Spot price per hour, `S`.
    pub spot_price: f64,
    /// Mean time between interruptions in hours, `M`.
    pub mtbi_hours: f64,
    /// Hours of progress between checkpoints, `C`.
    pub checkpoint_every_hours: f64,
    /// Hours lost to each restart (new instance, reload), `R`.
    pub restart_hours: f64,
}

/// The guide's typical spot price as a fraction of on-demand: the middle of 20–30 %.
pub const GUIDE_SPOT_FRACTION: f64 = 0.25;

/// What [`compare`] finds.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SpotComparison {
    /// The inputs.
    pub input: SpotInput,
    /// Expected number of interruptions, `N`.
    pub expected_interruptions: f64,
    /// Expected hours of work lost per interruption, `E[X | X < C]`.
    pub expected_lost_hours_per_interruption: f64,
    /// Expected wall-clock hours on spot, `W`.
    pub expected_wall_hours: f64,
    /// Expected cost on spot, `S·W`.
    pub spot_cost: f64,
    /// Cost on demand, `P·H`.
    pub on_demand_cost: f64,
    /// `on_demand_cost − spot_cost` (negative when spot costs more).
    pub savings: f64,
    /// The spot price at which both cost the same, `P·H / W`.
    pub break_even_spot_price: f64,
    /// The MTBI below which spot costs more (`None` when spot is never cheaper, `S ≥ P`).
    pub break_even_mtbi_hours: Option<f64>,
    /// Spot is expected to be cheaper.
    pub spot_is_cheaper: bool,
    /// The job runs longer than 24 h: the guide advises on-demand or reserved instances for
    /// stable runs of that length whatever the expected cost.
    pub guide_prefers_on_demand: bool,
}

fn segment_time(c: f64, lambda: f64, restart: f64) -> f64 {
    if c <= 0.0 {
        return 0.0;
    }
    libm::expm1(lambda * c) * (1.0 / lambda + restart)
}

fn wall_hours(i: &SpotInput, mtbi: f64) -> f64 {
    let lambda = 1.0 / mtbi;
    let c = i.checkpoint_every_hours.min(i.hours);
    let n = libm::floor(i.hours / c);
    let r = (i.hours - n * c).max(0.0);
    n * segment_time(c, lambda, i.restart_hours) + segment_time(r, lambda, i.restart_hours)
}

fn check(field: &str, v: f64, min: f64, max: f64, accepted: &str, allow_min: bool) -> Result<()> {
    let ok = v.is_finite() && (if allow_min { v >= min } else { v > min }) && v <= max;
    if ok {
        Ok(())
    } else {
        Err(InputError::new(
            ErrorKind::OutOfRange,
            field,
            format!("{} is out of range", crate::units::number_text(v)),
            accepted,
        ))
    }
}

/// Expected cost and time of a job on spot against on-demand; see the module documentation.
pub fn compare(input: &SpotInput) -> Result<SpotComparison> {
    check(
        "hours",
        input.hours,
        0.0,
        1e5,
        "hours of work, more than 0 and at most 100000",
        false,
    )?;
    check(
        "on_demand_price",
        input.on_demand_price,
        0.0,
        1e7,
        "a price per hour, more than 0 and at most 10000000",
        false,
    )?;
    check(
        "spot_price",
        input.spot_price,
        0.0,
        1e7,
        "a price per hour, 0 to 10000000",
        true,
    )?;
    check(
        "mtbi",
        input.mtbi_hours,
        0.0,
        1e7,
        "mean hours between interruptions, more than 0 and at most 10000000 (the guide: 6 to 48)",
        false,
    )?;
    check(
        "checkpoint_every",
        input.checkpoint_every_hours,
        0.0,
        1e5,
        "hours between checkpoints, more than 0 and at most 100000",
        false,
    )?;
    check(
        "restart",
        input.restart_hours,
        0.0,
        1e3,
        "hours per restart, 0 to 1000",
        true,
    )?;
    let c = input.checkpoint_every_hours.min(input.hours);
    if c / input.mtbi_hours > 40.0 {
        return Err(InputError::new(
            ErrorKind::Conflict,
            "checkpoint_every",
            format!(
                "{} h between checkpoints against {} h between interruptions: the job would almost never finish",
                c, input.mtbi_hours
            ),
            "a checkpoint interval well below the mean time between interruptions",
        ));
    }
    let lambda = 1.0 / input.mtbi_hours;
    let wall = wall_hours(input, input.mtbi_hours);
    let n = libm::floor(input.hours / c);
    let r = (input.hours - n * c).max(0.0);
    let interruptions = n * libm::expm1(lambda * c) + libm::expm1(lambda * r);
    let q = -libm::expm1(-lambda * c);
    let lost = if q > 0.0 {
        (1.0 / lambda - c * libm::exp(-lambda * c) / q).max(0.0)
    } else {
        0.0
    };
    let spot_cost = input.spot_price * wall;
    let on_demand_cost = input.on_demand_price * input.hours;
    let break_even_mtbi = if input.spot_price >= input.on_demand_price {
        None
    } else if input.spot_price <= 0.0 {
        Some(0.0)
    } else {
        // S·W(M) is decreasing in M; find M with S·W(M) = P·H by bisection on a log scale.
        let target = on_demand_cost / input.spot_price;
        let (mut lo, mut hi) = (c / 40.0, 1e9f64);
        for _ in 0..200 {
            let mid = libm::sqrt(lo * hi);
            if wall_hours(input, mid) > target {
                lo = mid
            } else {
                hi = mid
            }
        }
        Some(hi)
    };
    let out = SpotComparison {
        input: *input,
        expected_interruptions: interruptions,
        expected_lost_hours_per_interruption: lost,
        expected_wall_hours: wall,
        spot_cost,
        on_demand_cost,
        savings: on_demand_cost - spot_cost,
        break_even_spot_price: on_demand_cost / wall,
        break_even_mtbi_hours: break_even_mtbi,
        spot_is_cheaper: spot_cost < on_demand_cost,
        guide_prefers_on_demand: input.hours > 24.0,
    };
    if [
        out.expected_wall_hours,
        out.spot_cost,
        out.break_even_spot_price,
        out.expected_interruptions,
    ]
    .iter()
    .all(|x| x.is_finite())
    {
        Ok(out)
    } else {
        Err(InputError::new(
            ErrorKind::Conflict,
            "checkpoint_every",
            "the expected wall time overflows",
            "a checkpoint interval well below the mean time between interruptions",
        ))
    }
}
