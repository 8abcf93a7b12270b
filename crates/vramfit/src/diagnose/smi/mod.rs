//! `nvidia-smi` logs: the default table printed repeatedly (`watch -n 1 nvidia-smi`, or
//! `nvidia-smi -l 1`), and `--query-gpu=… --format=csv` output, with a least-squares trend per
//! GPU.
//!
//! The guide's test (§6 Q4): record memory after each iteration; a curve that keeps rising and
//! then crashes is a leak; one that fails at once, or jumps to a high level and stays there
//! until it crashes, is capacity. Stepped growth that levels off is the caching allocator
//! keeping blocks for reuse, which is normal.
//!
//! A sawtooth (memory allocated and freed every few samples: the caching allocator off or
//! emptied, an inference server's batches) hides a slow leak from the line through the samples,
//! whose r² the swings keep low. Its turning points are found by a zigzag (a swing counts when
//! it is at least three times the growth that makes a leak, and a quarter of the second half's
//! range), and its envelopes, the line through its peaks and the line through its troughs, are
//! fitted over the second half: either one rising there (at least 5 turns, r² ≥ 0.9, growth
//! of at least the threshold) is a leak, its rate and its time to memory.total from the
//! envelope that reaches memory.total first (the peaks, normally: the job runs out at a peak).
//! A sawtooth whose envelopes are level is not a leak; its shape is read from its peaks after
//! the floor it starts from (one jump to a working cycle, or peaks growing in steps that level
//! off), and its falls are neither a decline nor a crash.
//!
//! `nvidia-smi` prints memory in MiB (`12345MiB / 81559MiB`, `12345 MiB`, or `12345` with
//! `nounits`), so every value here is a whole number of MiB.

#[cfg(test)]
mod tests;
mod trend;

use alloc::string::String;
use alloc::vec::Vec;

use super::scan::{Legacy, count_at, last_size_ending_at, size_at};
use super::{InputFormat, MAX_LINES, MAX_POINTS};
use crate::units::{Bytes, MIB};
use trend::analyse;
#[cfg(test)]
use trend::fit;

/// What the x axis counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum XUnit {
    /// Seconds since the first sample (CSV with a `timestamp` column).
    Seconds,
    /// Sample number, from 0 (tables, and CSV without timestamps).
    Sample,
}

/// One sample.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SmiPoint {
    /// Seconds or sample number (see [`XUnit`]); finite, not negative.
    pub x: f64,
    /// Memory used on the GPU.
    pub used: Bytes,
}

/// Which way a fitted line goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Direction {
    /// Up.
    Rising,
    /// Down.
    Falling,
    /// Less than 1 MiB over the fitted range.
    Flat,
}

/// A least-squares line through some samples, given by its two ends so that it plots directly
/// (values below zero are clamped to zero).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LinearFit {
    /// The line at the first sample fitted.
    pub start: SmiPoint,
    /// The line at the last sample fitted.
    pub end: SmiPoint,
    /// |slope| in MiB per x unit (per second or per sample).
    pub rate_mib_per_x: f64,
    /// The sign of the slope.
    pub direction: Direction,
    /// Coefficient of determination in [0, 1] (1 when every sample is on the line).
    pub r2: f64,
}

/// The shape of a series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Pattern {
    /// Still rising over its second half, or under a sawtooth its peaks or troughs are: a leak.
    Rising,
    /// One jump, then level: the job's steady state (capacity-type behaviour); a sawtooth whose
    /// peaks are level from the first.
    JumpThenFlat,
    /// Several steps up, then level: the caching allocator growing to its working set (normal);
    /// a sawtooth whose peaks grow in steps, then level off.
    SteppedPlateau,
    /// Level from the start.
    Flat,
    /// Going down (a sawtooth: its peaks).
    Falling,
    /// Fewer than 4 samples: no shape.
    TooShort,
}

/// One GPU's samples and their trend.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SmiSeries {
    /// GPU index (from an `index` column or the table, else the order within a print).
    pub gpu: u32,
    /// GPU name when the log gives it.
    pub name: Option<String>,
    /// memory.total, when given.
    pub total: Option<Bytes>,
    /// What x counts.
    pub x_unit: XUnit,
    /// The samples, in order (after a crash drop-off is removed; see `dropped_tail`).
    pub points: Vec<SmiPoint>,
    /// Samples removed from the end because memory fell by more than 30 % of the peak after
    /// it and stayed there, below the lowest sample of the run's late part (the second half of
    /// the samples up to the peak) by more than the leak threshold: the process ended
    /// (crashed); they say nothing about the growth. A sawtooth's way down to its usual trough
    /// is kept.
    pub dropped_tail: u32,
    /// The line through all the samples.
    pub fit: Option<LinearFit>,
    /// The line through the second half: whether it is still rising. For a leak found under a
    /// sawtooth, the envelope that showed it instead: the line through the peaks (or troughs)
    /// of the second half.
    pub tail_fit: Option<LinearFit>,
    /// The shape.
    pub pattern: Pattern,
    /// The highest sample.
    pub peak: Bytes,
    /// The level it settles at, when it levels off: the mean of the second half (of a sawtooth,
    /// between its troughs and its peaks).
    pub steady: Option<Bytes>,
    /// Growth over the second half, MiB per x unit, when rising (the slope of `tail_fit`).
    pub growth_mib_per_x: Option<f64>,
    /// When rising and memory.total is known: the x at which the tail line reaches total
    /// (counted from the last sample, or for an envelope from its line at the last sample).
    pub hits_total_at_x: Option<f64>,
}

/// A process from the `Processes:` section of the last table printed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SmiProcess {
    /// The GPU index.
    pub gpu: u32,
    /// The process id.
    pub pid: u64,
    /// The process name as printed (nvidia-smi cuts long ones).
    pub name: String,
    /// Its GPU memory; `None` where nvidia-smi prints `N/A` (inside a container, under
    /// Windows' WDDM driver).
    pub used: Option<Bytes>,
}

/// A parsed `nvidia-smi` log.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SmiLog {
    /// Table or CSV.
    pub source: InputFormat,
    /// One series per GPU, by GPU index.
    pub series: Vec<SmiSeries>,
    /// Data rows that could not be read (`[N/A]`, wrong column count).
    pub rows_skipped: u32,
    /// The processes of the last table printed (empty for CSV logs).
    pub processes: Vec<SmiProcess>,
    /// Whether lines or samples were dropped at the caps.
    pub truncated: bool,
}

/// Reads an `nvidia-smi` log, table or CSV, whichever the text is.
pub fn parse_nvidia_smi(text: &str) -> Option<SmiLog> {
    parse_nvidia_smi_table(text).or_else(|| parse_nvidia_smi_csv(text))
}

struct Raw {
    gpu: u32,
    name: Option<String>,
    total: Option<Bytes>,
    xs: Vec<f64>,
    ys: Vec<Bytes>,
}

fn raw_for(raws: &mut Vec<Raw>, gpu: u32) -> Option<&mut Raw> {
    let pos = match raws.iter().position(|r| r.gpu == gpu) {
        Some(p) => p,
        None => {
            if raws.len() >= 64 {
                return None; // more GPUs than any node has
            }
            raws.push(Raw {
                gpu,
                name: None,
                total: None,
                xs: Vec::new(),
                ys: Vec::new(),
            });
            raws.len() - 1
        }
    };
    raws.get_mut(pos)
}

/// Reads the default table (`| 12345MiB / 81559MiB |` per GPU per print).
pub fn parse_nvidia_smi_table(text: &str) -> Option<SmiLog> {
    let mut raws: Vec<Raw> = Vec::new();
    let mut print: i64 = -1;
    let mut ordinal: u32 = 0;
    let mut in_skip = false; // MIG devices or Processes section
    let mut in_processes = false;
    let mut processes: Vec<SmiProcess> = Vec::new();
    let mut prev = "";
    let mut truncated = false;
    let mut lines = 0usize;
    for line in text.lines() {
        lines += 1;
        if lines > MAX_LINES {
            truncated = true;
            break;
        }
        if line.contains("NVIDIA-SMI") {
            print += 1;
            ordinal = 0;
            in_skip = false;
            in_processes = false;
            processes.clear();
            prev = line;
            continue;
        }
        if line.contains("MIG devices") || line.contains("Processes:") {
            in_skip = true;
            in_processes = line.contains("Processes:");
        } else if in_processes
            && processes.len() < 256
            && let Some(p) = process_row(line)
        {
            processes.push(p);
        }
        if !in_skip && let Some((used, total)) = memory_cell(line) {
            if print < 0 {
                print = 0; // a table without its banner: one print
            }
            let (index, name) = gpu_cell(prev);
            let gpu = index.unwrap_or(ordinal);
            ordinal += 1;
            if let Some(r) = raw_for(&mut raws, gpu) {
                if r.ys.len() < MAX_POINTS {
                    // Without banners every row is a new sample of its GPU.
                    let x = r.xs.len() as f64;
                    r.xs.push(x);
                    r.ys.push(used);
                    r.total = Some(total);
                    if r.name.is_none() {
                        r.name = name;
                    }
                } else {
                    truncated = true;
                }
            }
        }
        if !line.trim().is_empty() {
            prev = line;
        }
    }
    if raws.is_empty() {
        return None;
    }
    let mut log = finish(
        InputFormat::NvidiaSmiTable,
        raws,
        XUnit::Sample,
        0,
        truncated,
    );
    log.processes = processes;
    Some(log)
}

/// `|    0   N/A  N/A     12345      C   python        12000MiB |` (driver ≥ 450, with GI/CI
/// columns) or `|    0     12345      C   python     12000MiB |` (older): the type column
/// (`C`, `G`, `C+G`) comes right after the pid. The memory may be `N/A` (inside a container,
/// under WDDM): the process is kept, its memory unknown.
fn process_row(line: &str) -> Option<SmiProcess> {
    let cell = line.trim().trim_matches('|');
    let tokens: Vec<&str> = cell.split_whitespace().take(64).collect();
    if tokens.len() < 4 {
        return None;
    }
    let gpu = tokens[0].parse::<u32>().ok().filter(|g| *g < 1024)?;
    // The memory: `12000MiB`, `12000 MiB` (two tokens) or `N/A`; the name ends before it.
    let mut end = tokens.len() - 1;
    let last = tokens[end];
    let used = if last == "N/A" {
        None
    } else if last == "MiB" {
        end = end.checked_sub(1)?;
        Some(mib_field(tokens[end])?)
    } else if last.ends_with("MiB") {
        Some(mib_field(last)?)
    } else {
        return None;
    };
    let t = tokens
        .iter()
        .position(|t| matches!(*t, "C" | "G" | "C+G" | "M" | "M+C"))?;
    let pid = tokens.get(t.checked_sub(1)?)?.parse::<u64>().ok()?;
    let name = tokens
        .get(t + 1..end)
        .map(|w| w.join(" "))
        .unwrap_or_default();
    Some(SmiProcess {
        gpu,
        pid,
        name,
        used,
    })
}

/// `| N/A   33C    P0    61W / 400W |  12345MiB / 81920MiB |      0%      Default |` → (used, total).
fn memory_cell(line: &str) -> Option<(Bytes, Bytes)> {
    if !line.contains("MiB") {
        return None;
    }
    for (p, _) in line.match_indices('/') {
        let left = &line[..p];
        let right = line[p + 1..].trim_start();
        let Some(used) = last_size_ending_at(left, Legacy::Binary) else {
            continue;
        };
        if !used.text.ends_with("MiB") {
            continue;
        }
        let Some((total, _)) = size_at(right, Legacy::Binary) else {
            continue;
        };
        if !total.text.ends_with("MiB") {
            continue;
        }
        return Some((used.bytes, total.bytes));
    }
    None
}

/// `|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |` → (0, "NVIDIA A100-SXM4-80GB").
fn gpu_cell(line: &str) -> (Option<u32>, Option<String>) {
    let cell = line
        .trim()
        .trim_start_matches('|')
        .split('|')
        .next()
        .unwrap_or("");
    let tokens: Vec<&str> = cell.split_whitespace().collect();
    let Some(first) = tokens.first() else {
        return (None, None);
    };
    let Some(index) = first.parse::<u32>().ok().filter(|i| *i < 1024) else {
        return (None, None);
    };
    let mut words: &[&str] = tokens.get(1..).unwrap_or(&[]);
    if let Some((last, init)) = words.split_last()
        && matches!(*last, "On" | "Off")
    {
        words = init;
    }
    let name = (!words.is_empty()).then(|| words.join(" "));
    (Some(index), name)
}

/// Column roles in CSV output.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Col {
    Timestamp,
    Index,
    Name,
    Used,
    Total,
    Other,
}

/// Reads `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]` output.
///
/// With a header, columns are found by name (`timestamp`, `index`, `name`, `memory.used`,
/// `memory.total`). Without one, a field shaped like `2024/05/01 12:00:01.123` is the
/// timestamp, a non-numeric one is the name, and the numeric fields are `used, total` (two)
/// or `index, used, total` (three) — the order of the documented command; other shapes are
/// refused rather than guessed. GPUs are told apart by `index`, else by their order among rows
/// with the same timestamp, else the log is one GPU.
pub fn parse_nvidia_smi_csv(text: &str) -> Option<SmiLog> {
    let mut cols: Option<Vec<Col>> = None;
    let mut raws: Vec<Raw> = Vec::new();
    let mut skipped = 0u32;
    let mut truncated = false;
    let mut t0: Option<(i64, f64)> = None;
    let mut any_ts = false;
    let mut last_ts: Option<String> = None;
    let mut ordinal = 0u32;
    let mut lines = 0usize;
    for line in text.lines() {
        lines += 1;
        if lines > MAX_LINES {
            truncated = true;
            break;
        }
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        if l.contains("memory.used") {
            cols = Some(l.split(',').map(|h| header_role(h.trim())).collect());
            continue;
        }
        let fields: Vec<&str> = l.split(',').map(str::trim).collect();
        if fields.len() < 2 || fields.len() > 32 {
            if cols.is_some() || !raws.is_empty() {
                skipped += 1;
            }
            continue;
        }
        let roles = match &cols {
            Some(c) => c.clone(),
            None => match guess_roles(&fields) {
                Some(r) => r,
                None => {
                    if !raws.is_empty() {
                        skipped += 1;
                    }
                    continue;
                }
            },
        };
        if roles.len() != fields.len() {
            skipped += 1;
            continue;
        }
        let mut ts = None;
        let mut ts_text = None;
        let mut index = None;
        let mut name = None;
        let mut used = None;
        let mut total = None;
        for (role, f) in roles.iter().zip(&fields) {
            match role {
                Col::Timestamp => {
                    ts = timestamp_parts(f);
                    ts_text = Some(*f);
                }
                Col::Index => index = f.parse::<u32>().ok().filter(|i| *i < 1024),
                Col::Name => name = Some(*f),
                Col::Used => used = mib_field(f),
                Col::Total => total = mib_field(f),
                Col::Other => {}
            }
        }
        let Some(used) = used else {
            skipped += 1;
            continue;
        };
        if let (Some(u), Some(t)) = (Some(used), total)
            && u > t
        {
            skipped += 1;
            continue;
        }
        // The GPU: index, else order within a timestamp group, else 0.
        let gpu = match (index, ts_text) {
            (Some(i), _) => i,
            (None, Some(t)) => {
                if last_ts.as_deref() == Some(t) {
                    ordinal += 1;
                } else {
                    ordinal = 0;
                    last_ts = Some(String::from(t));
                }
                ordinal
            }
            (None, None) => 0,
        };
        let x_seconds = ts.map(|(whole, frac)| {
            any_ts = true;
            let (w0, f0) = *t0.get_or_insert((whole, frac));
            ((whole.saturating_sub(w0)) as f64 + (frac - f0)).max(0.0)
        });
        let Some(r) = raw_for(&mut raws, gpu) else {
            skipped += 1;
            continue;
        };
        if r.ys.len() >= MAX_POINTS {
            truncated = true;
            continue;
        }
        let x = x_seconds.unwrap_or(r.xs.len() as f64);
        r.xs.push(x);
        r.ys.push(used);
        if total.is_some() {
            r.total = total;
        }
        if r.name.is_none() {
            r.name = name.map(String::from);
        }
    }
    if raws.is_empty() {
        return None;
    }
    let unit = if any_ts {
        XUnit::Seconds
    } else {
        XUnit::Sample
    };
    if unit == XUnit::Seconds {
        // A series whose rows lacked a readable timestamp was numbered by sample: renumber all
        // by sample rather than mix units.
        let mixed = raws.iter().any(|r| r.xs.windows(2).any(|w| w[1] < w[0]));
        if mixed {
            for r in &mut raws {
                for (i, x) in r.xs.iter_mut().enumerate() {
                    *x = i as f64;
                }
            }
            return Some(finish(
                InputFormat::NvidiaSmiCsv,
                raws,
                XUnit::Sample,
                skipped,
                truncated,
            ));
        }
    }
    Some(finish(
        InputFormat::NvidiaSmiCsv,
        raws,
        unit,
        skipped,
        truncated,
    ))
}

fn header_role(h: &str) -> Col {
    let name = h
        .split('[')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match name.as_str() {
        "timestamp" => Col::Timestamp,
        "index" => Col::Index,
        "name" | "gpu_name" => Col::Name,
        "memory.used" => Col::Used,
        "memory.total" => Col::Total,
        _ => Col::Other,
    }
}

fn guess_roles(fields: &[&str]) -> Option<Vec<Col>> {
    let mut roles = Vec::with_capacity(fields.len());
    let mut numeric = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if timestamp_seconds(f).is_some() {
            roles.push(Col::Timestamp);
        } else if mib_field(f).is_some() {
            roles.push(Col::Other);
            numeric.push(i);
        } else if !f.is_empty() && !f.contains('[') {
            roles.push(Col::Name);
        } else {
            return None;
        }
    }
    match numeric.as_slice() {
        [u, t] => {
            roles[*u] = Col::Used;
            roles[*t] = Col::Total;
        }
        [i, u, t] => {
            roles[*i] = Col::Index;
            roles[*u] = Col::Used;
            roles[*t] = Col::Total;
        }
        _ => return None,
    }
    if roles.iter().filter(|r| **r == Col::Name).count() > 1
        || roles.iter().filter(|r| **r == Col::Timestamp).count() > 1
    {
        return None;
    }
    Some(roles)
}

/// `12345 MiB`, `12345MiB` or `12345` (with `nounits`) → bytes. nvidia-smi prints whole MiB.
fn mib_field(f: &str) -> Option<Bytes> {
    let (v, n) = count_at(f)?;
    let unit = f[n..].trim();
    if !(unit.is_empty() || unit == "MiB") || f[..n].contains(',') {
        return None;
    }
    let b = v.checked_mul(MIB)?;
    (b <= crate::units::MAX_SIZE.get()).then_some(Bytes::new(b))
}

/// `2024/05/01 12:00:01.123` (or with `-`) → seconds since 1970 (proleptic Gregorian, UTC),
/// whole and fraction apart so that differences keep millisecond precision.
fn timestamp_parts(f: &str) -> Option<(i64, f64)> {
    let b = f.as_bytes();
    if b.len() < 19 || !b.is_ascii() {
        return None;
    }
    let num = |r: core::ops::Range<usize>| -> Option<i64> {
        let s = f.get(r)?;
        if !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    if !matches!(b[4], b'/' | b'-')
        || b[7] != b[4]
        || b[10] != b' '
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut frac = 0.0;
    if b.len() > 20 && b[19] == b'.' {
        let digits = f.get(20..)?;
        if !digits.bytes().all(|c| c.is_ascii_digit()) || digits.len() > 9 {
            return None;
        }
        let v: u32 = digits.parse().ok()?;
        frac = f64::from(v) / libm::pow(10.0, digits.len() as f64);
    } else if b.len() != 19 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some((days * 86_400 + h * 3600 + mi * 60 + s, frac))
}

/// [`timestamp_parts`] as one number (for tests and for telling a timestamp field apart).
fn timestamp_seconds(f: &str) -> Option<f64> {
    timestamp_parts(f).map(|(w, fr)| w as f64 + fr)
}

/// Days since 1970-01-01 (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn finish(
    source: InputFormat,
    raws: Vec<Raw>,
    unit: XUnit,
    skipped: u32,
    truncated: bool,
) -> SmiLog {
    let mut series: Vec<SmiSeries> = raws.into_iter().map(|r| analyse(r, unit)).collect();
    series.sort_by_key(|s| s.gpu);
    SmiLog {
        source,
        series,
        rows_skipped: skipped,
        processes: Vec::new(),
        truncated,
    }
}
