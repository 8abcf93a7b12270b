//! The trend of one GPU's series: the least-squares line through its samples, the turning
//! points of a sawtooth and the lines through its peaks and troughs, and from them the series'
//! pattern (see the module above for the rules).

use alloc::vec::Vec;

use super::{Direction, LinearFit, Pattern, Raw, SmiPoint, SmiSeries, XUnit};
use crate::units::{Bytes, MIB};

/// Least squares through (x, y MiB); `None` when x does not vary.
pub(super) fn fit(xs: &[f64], ys: &[f64]) -> Option<LinearFit> {
    line(xs, ys).map(|l| l.fit)
}

/// A least-squares line with its coefficients (y = intercept + slope · x, in MiB).
#[derive(Clone, Copy)]
struct Line {
    fit: LinearFit,
    slope: f64,
    intercept: f64,
}

fn line(xs: &[f64], ys: &[f64]) -> Option<Line> {
    let n = xs.len().min(ys.len());
    if n < 2 {
        return None;
    }
    let nf = n as f64;
    let mx = xs[..n].iter().sum::<f64>() / nf;
    let my = ys[..n].iter().sum::<f64>() / nf;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let dx = xs[i] - mx;
        let dy = ys[i] - my;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if sxx.is_nan() || sxx <= 0.0 || !sxx.is_finite() || !sxy.is_finite() || !syy.is_finite() {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let ss_res = (syy - slope * sxy).max(0.0);
    let r2 = if syy > 0.0 {
        (1.0 - ss_res / syy).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let (x0, x1) = (xs[0], xs[n - 1]);
    let at = |x: f64| Bytes::from_f64((intercept + slope * x) * MIB as f64);
    let rise = slope * (x1 - x0);
    let direction = if rise.abs() < 1.0 {
        Direction::Flat
    } else if rise > 0.0 {
        Direction::Rising
    } else {
        Direction::Falling
    };
    let rate = slope.abs();
    if !rate.is_finite() || !r2.is_finite() || !intercept.is_finite() {
        return None;
    }
    Some(Line {
        fit: LinearFit {
            start: SmiPoint {
                x: x0,
                used: at(x0),
            },
            end: SmiPoint {
                x: x1,
                used: at(x1),
            },
            rate_mib_per_x: rate,
            direction,
            r2,
        },
        slope,
        intercept,
    })
}

/// The turning points of a sawtooth: `(index, is_peak)`, in order, peaks and troughs
/// alternating. A peak is confirmed once the series has fallen `h` MiB below it, a trough once
/// it has risen `h` above it (a zigzag with hysteresis `h`), so a wiggle smaller than `h` is no
/// turn; the last, unconfirmed extreme is not one either. One pass.
fn turns(ys: &[f64], h: f64) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    let (mut hi, mut lo) = (0usize, 0usize);
    // 0: no turn yet; 1: going up (looking for a peak); -1: going down (for a trough).
    let mut dir = 0i8;
    for (i, &y) in ys.iter().enumerate().skip(1) {
        match dir {
            0 => {
                if y > ys[hi] {
                    hi = i;
                }
                if y < ys[lo] {
                    lo = i;
                }
                if y - ys[lo] >= h {
                    out.push((lo, false));
                    dir = 1;
                    hi = i;
                } else if ys[hi] - y >= h {
                    out.push((hi, true));
                    dir = -1;
                    lo = i;
                }
            }
            1 => {
                if y >= ys[hi] {
                    hi = i;
                } else if ys[hi] - y >= h {
                    out.push((hi, true));
                    dir = -1;
                    lo = i;
                }
            }
            _ => {
                if y <= ys[lo] {
                    lo = i;
                } else if y - ys[lo] >= h {
                    out.push((lo, false));
                    dir = 1;
                    hi = i;
                }
            }
        }
    }
    out
}

/// A leak under a sawtooth is read from at least this many peaks (or troughs) in the second
/// half…
const ENVELOPE_TURNS: usize = 5;
/// …on a line this good: stricter than the 0.5 of the line through every sample, as a handful
/// of points fits a rising line by chance more easily (five peaks of pure noise do so with
/// r² ≥ 0.9 less than one time in a hundred, with r² ≥ 0.5 about one in eleven).
const ENVELOPE_R2: f64 = 0.9;

/// When memory.total is known: the x at which a rising line through the series reaches it,
/// counted on from the last sample at `last` MiB.
fn reaches(total: Option<Bytes>, x_last: f64, last: f64, rate: f64) -> Option<f64> {
    let total_mib = total?.get() as f64 / MIB as f64;
    let x_hit = if last >= total_mib {
        x_last
    } else {
        x_last + (total_mib - last) / rate
    };
    (x_hit.is_finite() && x_hit >= 0.0).then_some(x_hit)
}

/// The series of one GPU from its raw samples: the samples kept (a crash's tail dropped), the
/// line through them, and the pattern, with the rate and when it fills the card for a rising one
/// or the level for one that levels off.
pub(super) fn analyse(r: Raw, unit: XUnit) -> SmiSeries {
    let Raw {
        gpu,
        name,
        total,
        xs,
        ys,
    } = r;
    let peak = ys.iter().copied().max().unwrap_or(Bytes::ZERO);
    let scale_mib = total.unwrap_or(peak).get() as f64 / MIB as f64;
    let threshold = (0.01 * scale_mib).max(32.0); // MiB
    let (n, dropped) = crash_tail(&ys, ys.len().min(xs.len()), peak, threshold);
    let xs = &xs[..n];
    let ys_b = &ys[..n];
    let ys: Vec<f64> = ys_b.iter().map(|b| b.get() as f64 / MIB as f64).collect();
    let points: Vec<SmiPoint> = xs
        .iter()
        .zip(ys_b)
        .map(|(&x, &used)| SmiPoint { x, used })
        .collect();
    let mut s = SmiSeries {
        gpu,
        name,
        total,
        x_unit: unit,
        points,
        dropped_tail: dropped,
        fit: fit(xs, &ys),
        tail_fit: None,
        pattern: Pattern::TooShort,
        peak,
        steady: None,
        growth_mib_per_x: None,
        hits_total_at_x: None,
    };
    if n < 4 {
        return s;
    }
    let c = Curve {
        xs,
        ys: &ys,
        threshold,
        total,
    };
    s.tail_fit = fit(c.tail_x(), c.tail_y());
    if let Some(t) = s.tail_fit
        && c.tail_rises(t)
    {
        s.pattern = Pattern::Rising;
        s.growth_mib_per_x = Some(t.rate_mib_per_x);
        s.hits_total_at_x = reaches(total, c.x_last(), ys[n - 1], t.rate_mib_per_x);
        return s;
    }
    let turns = c.swings();
    if let Some((l, hit)) = envelope_leak(&c, &turns) {
        s.pattern = Pattern::Rising;
        s.tail_fit = Some(l.fit);
        s.growth_mib_per_x = Some(l.fit.rate_mib_per_x);
        s.hits_total_at_x = hit;
        return s;
    }
    let (pattern, steady) = level_pattern(&c, &turns, s.fit);
    s.pattern = pattern;
    s.steady = steady;
    s
}

/// How many of the first `n` samples `ys` to keep, and how many were dropped as the tail after
/// a crash: the samples that end the log, after its peak, all more than 30 % below the peak and
/// below where the job ran lately (the lowest sample of the second half of those up to the
/// peak) by more than `threshold` MiB: the process ended. A sawtooth's falls are no crash: it
/// comes back up to its next peak, and after its last peak it stops at its usual troughs.
fn crash_tail(ys: &[Bytes], n: usize, peak: Bytes, threshold: f64) -> (usize, u32) {
    let Some(pi) = ys[..n].iter().rposition(|y| *y == peak) else {
        return (n, 0);
    };
    let lately = ys[pi / 2..=pi].iter().copied().min().unwrap_or(peak);
    let bound = (peak.get() / 10 * 7) as f64;
    let bound = bound.min(lately.get() as f64 - threshold * MIB as f64);
    let down = ys[pi + 1..n]
        .iter()
        .rev()
        .take_while(|y| (y.get() as f64) < bound)
        .count();
    let cut = n - down;
    if down > 0 && cut >= 2 {
        (cut, down as u32)
    } else {
        (n, 0)
    }
}

/// The samples a series' pattern is read from (at least 4, the crash tail dropped).
struct Curve<'a> {
    /// The samples' x.
    xs: &'a [f64],
    /// The samples' memory used, in MiB.
    ys: &'a [f64],
    /// The least growth, in MiB, that counts: 1 % of the card (or of the peak), at least 32.
    threshold: f64,
    /// memory.total, when known.
    total: Option<Bytes>,
}

impl Curve<'_> {
    /// Where the second half starts.
    fn half(&self) -> usize {
        self.ys.len() / 2
    }

    /// The x of the second half.
    fn tail_x(&self) -> &[f64] {
        &self.xs[self.half()..]
    }

    /// The MiB of the second half.
    fn tail_y(&self) -> &[f64] {
        &self.ys[self.half()..]
    }

    /// The last sample's x.
    fn x_last(&self) -> f64 {
        self.xs[self.xs.len() - 1]
    }

    /// The second half, with its line `t`, rises: the line rises with r² ≥ 0.5 and the last
    /// sample is at least the threshold above the first.
    fn tail_rises(&self, t: LinearFit) -> bool {
        let tail_y = self.tail_y();
        let tail_rise = tail_y[tail_y.len() - 1] - tail_y[0];
        t.direction == Direction::Rising && t.r2 >= 0.5 && tail_rise >= self.threshold
    }

    /// The turning points of a sawtooth (memory allocated and freed every few samples), which
    /// hides a slow leak from the line through every sample. A swing counts when it is at least
    /// three times the growth that makes a leak and a quarter of the second half's range
    /// (smaller wiggles of a larger cycle are not turns of their own).
    fn swings(&self) -> Vec<(usize, bool)> {
        let tail_y = self.tail_y();
        let tail_min = tail_y.iter().copied().fold(f64::MAX, f64::min);
        let tail_max = tail_y.iter().copied().fold(f64::MIN, f64::max);
        turns(
            self.ys,
            (3.0 * self.threshold).max((tail_max - tail_min) / 4.0),
        )
    }

    /// The peaks (`want_peak`) or the troughs among `turns` from sample `from` on, as (x, MiB).
    fn envelope(
        &self,
        turns: &[(usize, bool)],
        want_peak: bool,
        from: usize,
    ) -> (Vec<f64>, Vec<f64>) {
        turns
            .iter()
            .filter(|&&(i, p)| p == want_peak && i >= from)
            .map(|&(i, _)| (self.xs[i], self.ys[i]))
            .unzip()
    }
}

/// A slow leak under a sawtooth, read from its envelopes: one rising over the second half by
/// the same test as the samples (direction, growth of at least the threshold between its first
/// and last turn), with at least ENVELOPE_TURNS turns and r² ≥ ENVELOPE_R2. When both do, the
/// one that reaches memory.total first (the peaks, normally: the peak is when the job runs out)
/// gives the rate; without memory.total, the peaks. Its line and when it reaches memory.total.
fn envelope_leak(c: &Curve<'_>, turns: &[(usize, bool)]) -> Option<(Line, Option<f64>)> {
    let x_last = c.x_last();
    let mut leak: Option<(Line, Option<f64>)> = None;
    for want_peak in [true, false] {
        let (ex, ey) = c.envelope(turns, want_peak, c.half());
        if ex.len() < ENVELOPE_TURNS {
            continue;
        }
        let Some(l) = line(&ex, &ey) else {
            continue;
        };
        let rise = ey[ey.len() - 1] - ey[0];
        if l.fit.direction != Direction::Rising || l.fit.r2 < ENVELOPE_R2 || rise < c.threshold {
            continue;
        }
        let hit = reaches(
            c.total,
            x_last,
            l.intercept + l.slope * x_last,
            l.fit.rate_mib_per_x,
        );
        let sooner = match (&leak, hit) {
            (None, _) => true,
            (Some((_, Some(prev))), Some(h)) => h < *prev,
            (Some((_, None)), Some(_)) => true,
            (Some(_), None) => false,
        };
        if sooner {
            leak = Some((l, hit));
        }
    }
    leak
}

/// The pattern of a series that does not rise (`fit` is the line through every sample), and
/// its steady level (the mean of the second half) unless it falls. A sawtooth (two peaks and
/// two troughs at least) is judged by its peaks: going down when they do, and its shape that of
/// the floor it starts from followed by its peaks (so a level sawtooth is one jump to its
/// working cycle, and one whose peaks grow in steps and level off a stepped plateau), wherever
/// in the cycle the log starts and ends.
fn level_pattern(
    c: &Curve<'_>,
    turns: &[(usize, bool)],
    fit_all: Option<LinearFit>,
) -> (Pattern, Option<Bytes>) {
    let (ys, threshold) = (c.ys, c.threshold);
    let n = ys.len();
    let (peak_x, peak_y) = c.envelope(turns, true, 0);
    let troughs = turns.iter().filter(|t| !t.1).count();
    let cyclic = peak_y.len() >= 2 && troughs >= 2;
    let shape: Vec<f64> = if cyclic {
        let floor = turns
            .iter()
            .find(|t| !t.1)
            .map_or(ys[0], |t| ys[t.0].min(ys[0]));
        core::iter::once(floor)
            .chain(peak_y.iter().copied())
            .collect()
    } else {
        ys.to_vec()
    };
    let falling = if cyclic {
        peak_y[peak_y.len() - 1] < peak_y[0] - threshold
            && fit(&peak_x, &peak_y).is_some_and(|f| f.direction == Direction::Falling)
    } else {
        ys[n - 1] < ys[0] - threshold && fit_all.is_some_and(|f| f.direction == Direction::Falling)
    };
    if falling {
        return (Pattern::Falling, None);
    }
    // Levels off. The level: the mean of the second half.
    let tail_y = c.tail_y();
    let level = tail_y.iter().sum::<f64>() / tail_y.len() as f64;
    let steady = Some(Bytes::from_f64(level * MIB as f64));
    let first = shape[0];
    let max = shape.iter().copied().fold(f64::MIN, f64::max);
    let rise = max - first;
    if rise < threshold {
        return (Pattern::Flat, steady);
    }
    let biggest_step = shape.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    let pattern = if biggest_step >= 0.6 * rise {
        Pattern::JumpThenFlat
    } else {
        Pattern::SteppedPlateau
    };
    (pattern, steady)
}
