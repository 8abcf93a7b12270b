//! `torch.cuda.memory_summary()` reports.
//!
//! The layout (`torch/cuda/memory.py`): a 75-column table with a title
//! `PyTorch CUDA memory summary, device ID 0`, a line `CUDA OOMs: 58 | cudaMalloc retries: 66`,
//! then one row per metric with the columns `Cur Usage | Peak Usage | Tot Alloc | Tot Freed`,
//! each followed (unless `abbreviated=True`) by `from large pool` and `from small pool` rows.
//! The metrics are `Allocated memory`, `Active memory`, `Requested memory` (2.0+),
//! `GPU reserved memory`, `Non-releasable memory` (the inactive split blocks), and the counts
//! `Allocations`, `Active allocs`, `GPU reserved segments`, `Non-releasable allocs`,
//! `Oversize allocations`, `Oversize GPU segments`.
//!
//! Sizes are printed floored to a whole unit (`14935 MB`), in `B/KB/MB/GB/TB` before 2.0
//! (meaning powers of 1024) and `B/KiB/MiB/GiB/TiB` since; counts as `728` or `9234 K`. Each is
//! read as printed, so a value is exact to the printed unit.

use alloc::string::String;
use alloc::vec::Vec;

use super::MAX_SUMMARIES;
use super::scan::{Legacy, count_after, count_at, size_at_capped};
use crate::units::Bytes;

/// One metric row: the four columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SummaryMetric {
    /// `Cur Usage`.
    pub current: u64,
    /// `Peak Usage`.
    pub peak: u64,
    /// `Tot Alloc`: total ever allocated.
    pub total_allocated: u64,
    /// `Tot Freed`: total ever freed.
    pub total_freed: u64,
}

/// One `memory_summary()` report. Size metrics are in bytes; count metrics are counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MemorySummary {
    /// `device ID`.
    pub device: Option<u32>,
    /// `CUDA OOMs`: allocations that failed even after freeing the cache.
    pub cuda_ooms: Option<u64>,
    /// `cudaMalloc retries`: times the allocator had to free its cache and retry.
    pub cudamalloc_retries: Option<u64>,
    /// `Allocated memory`, bytes.
    pub allocated: Option<SummaryMetric>,
    /// `Active memory`, bytes.
    pub active: Option<SummaryMetric>,
    /// `Requested memory`, bytes (what callers asked for, before rounding to blocks).
    pub requested: Option<SummaryMetric>,
    /// `GPU reserved memory`, bytes.
    pub reserved: Option<SummaryMetric>,
    /// `Non-releasable memory`, bytes: free pieces of blocks split by live tensors.
    pub non_releasable: Option<SummaryMetric>,
    /// `Allocations`, count.
    pub allocations: Option<SummaryMetric>,
    /// `GPU reserved segments`, count.
    pub segments: Option<SummaryMetric>,
    /// `Non-releasable allocs`, count.
    pub non_releasable_allocs: Option<SummaryMetric>,
    /// Whether the report was cut off before its last metric.
    pub truncated: bool,
}

impl MemorySummary {
    /// Fragmentation: non-releasable / reserved (current), or, without that row,
    /// (reserved − allocated) / reserved. In [0, 1]; `None` without reserved memory.
    pub fn fragmentation(&self) -> Option<f64> {
        let reserved = self.reserved?.current;
        if reserved == 0 {
            return None;
        }
        let waste = match (self.non_releasable, self.allocated) {
            (Some(n), _) => n.current,
            (None, Some(a)) => reserved.saturating_sub(a.current),
            (None, None) => return None,
        };
        Some((waste as f64 / reserved as f64).clamp(0.0, 1.0))
    }

    /// Reserved − allocated, now.
    pub fn cached_free(&self) -> Option<Bytes> {
        Some(Bytes::new(
            self.reserved?
                .current
                .saturating_sub(self.allocated?.current),
        ))
    }
}

/// The reports found in a text, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MemorySummaryLog {
    /// Each report, as read.
    pub reports: Vec<MemorySummary>,
}

const TITLE: &str = "PyTorch CUDA memory summary";

/// Whether `text` holds a report (its title, or its metric rows).
pub(crate) fn looks_like(text: &str) -> bool {
    text.contains(TITLE)
        || (text.contains("| Allocated memory")
            && (text.contains("reserved memory") || text.contains("Non-releasable memory")))
}

/// Reads every report in `text` (at most [`MAX_SUMMARIES`]); empty when there is none.
pub fn parse_memory_summaries(text: &str) -> MemorySummaryLog {
    let mut log = MemorySummaryLog::default();
    if !looks_like(text) {
        return log;
    }
    let mut cur: Option<MemorySummary> = None;
    for line in text.lines().take(super::MAX_LINES) {
        let l = line.trim();
        if l.contains(TITLE) {
            if let Some(done) = cur.take() {
                push(&mut log, done);
            }
            if log.reports.len() >= MAX_SUMMARIES {
                break;
            }
            let mut s = MemorySummary {
                truncated: true,
                ..Default::default()
            };
            s.device = count_after(l, "device ID").and_then(|d| u32::try_from(d).ok());
            cur = Some(s);
            continue;
        }
        if l.contains("CUDA OOMs:") {
            let s = cur.get_or_insert_with(|| MemorySummary {
                truncated: true,
                ..Default::default()
            });
            s.cuda_ooms = count_after(l, "CUDA OOMs:");
            s.cudamalloc_retries = count_after(l, "cudaMalloc retries:");
            continue;
        }
        // A row: `| Name | a | b | c | d |` (with or without the outer bars).
        let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() < 5 {
            continue;
        }
        let name = cells[0];
        if name.starts_with("from ") {
            // A pool row of the last metric: not needed for the diagnosis.
            continue;
        }
        let Some((key, is_size)) = metric_key(name) else {
            continue;
        };
        // Cumulative totals of a long run pass 1 PiB: 1 EiB is the ceiling for this table.
        let parse = |c: &str| {
            if is_size {
                size_at_capped(c, Legacy::Binary, 1 << 60).map(|(s, _)| s.bytes.get())
            } else {
                count_cell(c)
            }
        };
        let (Some(a), Some(b), Some(c), Some(d)) = (
            parse(cells[1]),
            parse(cells[2]),
            parse(cells[3]),
            parse(cells[4]),
        ) else {
            continue;
        };
        let m = SummaryMetric {
            current: a,
            peak: b,
            total_allocated: c,
            total_freed: d,
        };
        let s = cur.get_or_insert_with(|| MemorySummary {
            truncated: true,
            ..Default::default()
        });
        match key {
            "allocated" => s.allocated = Some(m),
            "active" => s.active = Some(m),
            "requested" => s.requested = Some(m),
            "reserved" => s.reserved = Some(m),
            "non_releasable" => s.non_releasable = Some(m),
            "allocations" => s.allocations = Some(m),
            "segments" => s.segments = Some(m),
            "non_releasable_allocs" => {
                s.non_releasable_allocs = Some(m);
                // The last row that every version prints: the report is complete.
                s.truncated = false;
            }
            _ => {}
        }
    }
    if let Some(done) = cur.take() {
        push(&mut log, done);
    }
    log
}

fn push(log: &mut MemorySummaryLog, s: MemorySummary) {
    if log.reports.len() < MAX_SUMMARIES && (s.allocated.is_some() || s.reserved.is_some()) {
        log.reports.push(s);
    }
}

/// The metric's key, and whether its values are sizes.
fn metric_key(name: &str) -> Option<(&'static str, bool)> {
    Some(match name {
        "Allocated memory" => ("allocated", true),
        "Active memory" => ("active", true),
        "Requested memory" => ("requested", true),
        "GPU reserved memory" | "Reserved memory" => ("reserved", true),
        "Non-releasable memory" => ("non_releasable", true),
        "Allocations" => ("allocations", false),
        "Active allocs" => ("active_allocs", false),
        "GPU reserved segments" => ("segments", false),
        "Non-releasable allocs" => ("non_releasable_allocs", false),
        "Oversize allocations" => ("oversize_allocations", false),
        "Oversize GPU segments" => ("oversize_segments", false),
        _ => return None,
    })
}

/// `728`, `9234 K`, `12 M` (PyTorch's `_format_count`: thousands and millions).
fn count_cell(c: &str) -> Option<u64> {
    let (v, n) = count_at(c)?;
    let unit = c[n..].trim();
    match unit {
        "" => Some(v),
        "K" => v.checked_mul(1000),
        "M" => v.checked_mul(1_000_000),
        _ => None,
    }
}

/// The name a size metric has in evidence.
pub(crate) fn size_text(bytes: u64) -> String {
    Bytes::new(bytes).display_auto()
}
