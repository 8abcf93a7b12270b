//! `torch.cuda.memory_summary()` reports: what the allocator holds against what tensors use.

use alloc::format;
use alloc::vec::Vec;

use super::{Verdict, a, build, paste_curve, unknown};
use crate::diagnose::pytorch::{self, PytorchOom};
use crate::diagnose::summary::{self, MemorySummary, MemorySummaryLog};
use crate::diagnose::{
    Confidence, Diagnosis, Evidence, InputFormat, Kind, MAX_SUMMARIES, Parsed, Text,
};
use crate::units::Bytes;

pub(super) fn summary_evidence(s: &MemorySummary, ev: &mut Vec<Evidence>) {
    let size = |ev: &mut Vec<Evidence>, name: &str, b: u64| {
        ev.push(Evidence::size(name, Bytes::new(b), summary::size_text(b)))
    };
    if let Some(m) = s.allocated {
        size(ev, "allocated", m.current);
        size(ev, "allocated_peak", m.peak);
    }
    if let Some(m) = s.reserved {
        size(ev, "reserved", m.current);
        size(ev, "reserved_peak", m.peak);
    }
    if let Some(m) = s.non_releasable {
        size(ev, "non_releasable", m.current);
    }
    if let Some(n) = s.cuda_ooms {
        ev.push(Evidence::value("cuda_ooms", n as f64, format!("{n}")));
    }
    if let Some(n) = s.cudamalloc_retries {
        ev.push(Evidence::value(
            "cudamalloc_retries",
            n as f64,
            format!("{n}"),
        ));
    }
    if let Some(f) = s.fragmentation() {
        let how = if s.non_releasable.is_some() {
            "non-releasable / reserved"
        } else {
            "(reserved − allocated) / reserved"
        };
        ev.push(Evidence::value(
            "fragmentation_ratio",
            f,
            format!("{how} = {:.1} %", f * 100.0),
        ));
    }
}

pub(super) fn from_summary(log: MemorySummaryLog, text: &str) -> Diagnosis {
    let mut ev = Vec::new();
    let Some(s) = log.reports.last().cloned() else {
        return unknown(text);
    };
    summary_evidence(&s, &mut ev);
    // An OOM message pasted with the report: its request is evidence too.
    let oom = pytorch::parse(text).map(|(p, _)| p);
    if let Some(req) = oom.as_ref().and_then(|p| p.requested) {
        ev.push(Evidence::size("requested", req, a(req)));
    }
    let mut v = classify_summary(&log, &s, oom.as_ref(), &mut ev);
    if log.reports.len() > 1 {
        v.notes.push(Text::new(
            format!(
                "{} reports were read; the numbers are from the last one.",
                log.reports.len()
            ),
            format!("共读取 {} 份报告；数字取自最后一份。", log.reports.len()),
        ));
    }
    if log.reports.len() >= MAX_SUMMARIES {
        v.notes.push(Text::new(
            format!("Only the first {MAX_SUMMARIES} reports were read."),
            format!("只读取了前 {MAX_SUMMARIES} 份报告。"),
        ));
    }
    if s.truncated {
        v.notes.push(Text::new(
            "The last report is cut off; the rows present were read.",
            "最后一份报告不完整；已读取现有的行。",
        ));
    }
    build(
        InputFormat::MemorySummary,
        v,
        ev,
        Parsed::MemorySummary(log),
    )
}

/// Decides the kind from a `memory_summary()` log (and an OOM message pasted with it): rising
/// allocations across reports are a leak; otherwise the last report's fragmentation and the
/// allocator's retries and OOMs decide. The rules run in order; the first that applies decides.
pub(super) fn classify_summary(
    log: &MemorySummaryLog,
    s: &MemorySummary,
    oom: Option<&PytorchOom>,
    ev: &mut Vec<Evidence>,
) -> Verdict {
    if let Some(v) = rising_allocations(log, ev) {
        return v;
    }
    let n = SummaryNumbers::of(s);
    if let Some(v) = request_exceeds_card(oom) {
        return v;
    }
    if let Some(v) = fragmented(&n) {
        return v;
    }
    if n.retries > 0 || n.ooms > 0 {
        return ceiling_hit(&n);
    }
    no_trouble(&n)
}

/// The verdict when several reports show allocated memory rising from one to the next (in most
/// steps, falling at most once, by enough to matter), adding the growth per report to `ev`.
/// `None` otherwise.
fn rising_allocations(log: &MemorySummaryLog, ev: &mut Vec<Evidence>) -> Option<Verdict> {
    // Several reports: is allocated memory rising from one to the next?
    let allocs: Vec<u64> = log
        .reports
        .iter()
        .filter_map(|r| r.allocated.map(|m| m.current))
        .collect();
    if allocs.len() < 3 {
        return None;
    }
    let first = allocs[0];
    let last = allocs[allocs.len() - 1];
    let ups = allocs.windows(2).filter(|w| w[1] > w[0]).count();
    let downs = allocs.windows(2).filter(|w| w[1] < w[0]).count();
    let peak_res = log
        .reports
        .iter()
        .filter_map(|r| r.reserved.map(|m| m.peak))
        .max()
        .unwrap_or(last);
    let grow = last.saturating_sub(first);
    if !(ups >= (allocs.len() - 1) * 2 / 3 && downs <= 1 && grow >= (peak_res / 100).max(32 << 20))
    {
        return None;
    }
    let per = grow / (allocs.len() as u64 - 1);
    ev.push(Evidence::size(
        "growth_per_report",
        Bytes::new(per),
        format!("+{} per report", a(Bytes::new(per))),
    ));
    Some(Verdict::new(
        Kind::Leak,
        "leak",
        if ups == allocs.len() - 1 {
            Confidence::High
        } else {
            Confidence::Medium
        },
        Text::new(
            format!(
                "Allocated memory rises in {} of {} steps between the {} reports, from {} to {} (+{} per report on average): live tensors are accumulating. Something keeps references from one iteration to the next (a loss kept with its graph, a list of outputs, a cache).",
                ups,
                allocs.len() - 1,
                allocs.len(),
                a(Bytes::new(first)),
                a(Bytes::new(last)),
                a(Bytes::new(per))
            ),
            format!(
                "在 {} 份报告之间，已分配显存在 {} 次中有 {} 次上升，从 {} 增至 {}（平均每份 +{}）：存活张量在累积。某处把引用从一次迭代带到了下一次（保留了计算图的 loss、输出列表、缓存等）。",
                allocs.len(),
                allocs.len() - 1,
                ups,
                a(Bytes::new(first)),
                a(Bytes::new(last)),
                a(Bytes::new(per))
            ),
        ),
    ))
}

/// What the last report says, as the rules past the leak rule read it (0 where it is silent).
struct SummaryNumbers {
    /// The fragmentation ratio, 0 to 1.
    frag: f64,
    /// cudaMalloc retries.
    retries: u64,
    /// CUDA OOMs.
    ooms: u64,
    /// What PyTorch reserves now.
    reserved: Bytes,
    /// The fragmented part of `reserved`.
    waste: Bytes,
    /// Peak allocated.
    peak: Bytes,
    /// Peak reserved.
    peak_res: Bytes,
}

impl SummaryNumbers {
    /// The numbers of report `s`.
    fn of(s: &MemorySummary) -> Self {
        let frag = s.fragmentation().unwrap_or(0.0);
        let reserved = Bytes::new(s.reserved.map_or(0, |m| m.current));
        SummaryNumbers {
            frag,
            retries: s.cudamalloc_retries.unwrap_or(0),
            ooms: s.cuda_ooms.unwrap_or(0),
            reserved,
            waste: Bytes::from_f64(frag * reserved.get() as f64),
            peak: Bytes::new(s.allocated.map_or(0, |m| m.peak)),
            peak_res: Bytes::new(s.reserved.map_or(0, |m| m.peak)),
        }
    }
}

/// The verdict when the pasted OOM message asks for more than the whole card; `None` otherwise.
fn request_exceeds_card(oom: Option<&PytorchOom>) -> Option<Verdict> {
    let (Some(req), Some(total)) = (
        oom.and_then(|o| o.requested),
        oom.and_then(|o| o.total_capacity),
    ) else {
        return None;
    };
    (req > total).then(|| {
        Verdict::new(
            Kind::Capacity,
            "capacity_static",
            Confidence::High,
            Text::new(
                format!(
                    "One allocation of {} is larger than the whole card ({}).",
                    a(req),
                    a(total)
                ),
                format!("单次申请 {} 就超过了整张卡的容量（{}）。", a(req), a(total)),
            ),
        )
    })
}

/// The verdict when the reserved memory is fragmented: surely when the allocator has already
/// retried or failed (at 20 %), likely when it has not yet (at 30 %). `None` below.
fn fragmented(n: &SummaryNumbers) -> Option<Verdict> {
    let SummaryNumbers {
        frag,
        retries,
        ooms,
        reserved,
        waste,
        ..
    } = *n;
    let mut v = if frag >= 0.2 && (retries > 0 || ooms > 0) {
        Verdict::new(
            Kind::Fragmentation,
            "fragmentation",
            Confidence::High,
            Text::new(
                format!(
                    "{:.0} % of the {} PyTorch reserved ({}) cannot be released: free pieces of blocks split by live tensors. The allocator had to free its cache and retry cudaMalloc {} time(s) and failed {} time(s): the memory is there, but not in one piece.",
                    frag * 100.0,
                    a(reserved),
                    a(waste),
                    retries,
                    ooms
                ),
                format!(
                    "PyTorch 保留的 {} 中有 {:.0}%（{}）无法释放：它们是被存活张量切分的块中的空闲碎片。分配器已 {} 次清空缓存重试 cudaMalloc，{} 次失败：显存总量够，但不连续。",
                    a(reserved),
                    frag * 100.0,
                    a(waste),
                    retries,
                    ooms
                ),
            ),
        )
    } else if frag >= 0.3 {
        Verdict::new(
            Kind::Fragmentation,
            "fragmentation",
            Confidence::Medium,
            Text::new(
                format!(
                    "No OOM or retry yet, but {:.0} % of the {} reserved ({}) is non-releasable fragments: when memory gets tight, requests will fail with that much free in pieces.",
                    frag * 100.0,
                    a(reserved),
                    a(waste)
                ),
                format!(
                    "尚未出现 OOM 或重试，但保留的 {} 中有 {:.0}%（{}）是无法释放的碎片：显存紧张时，申请会在有这么多零散空闲的情况下失败。",
                    a(reserved),
                    frag * 100.0,
                    a(waste)
                ),
            ),
        )
    } else {
        return None;
    };
    v.fixes.push("expandable_segments");
    Some(v)
}

/// The verdict when the allocator retried or failed with little fragmentation: the step's peak
/// is what the card holds.
fn ceiling_hit(n: &SummaryNumbers) -> Verdict {
    let SummaryNumbers {
        frag,
        retries,
        ooms,
        peak,
        peak_res,
        ..
    } = *n;
    Verdict::new(
        Kind::Capacity,
        "capacity_peak",
        Confidence::Medium,
        Text::new(
            format!(
                "The allocator hit the ceiling ({} cudaMalloc retries, {} OOMs) with little fragmentation ({:.0} %): the peak of a step ({} allocated, {} reserved) is what the card can hold. The job needs less memory at its peak, or a larger card.",
                retries,
                ooms,
                frag * 100.0,
                a(peak),
                a(peak_res)
            ),
            format!(
                "分配器已触顶（cudaMalloc 重试 {} 次，OOM {} 次），而碎片很少（{:.0}%）：单步峰值（已分配 {}，已保留 {}）就是显卡能容纳的上限。需要降低峰值显存，或换更大的卡。",
                retries,
                ooms,
                frag * 100.0,
                a(peak),
                a(peak_res)
            ),
        ),
    )
}

/// The verdict on a report that shows no trouble: what to compare if the job fails later.
fn no_trouble(n: &SummaryNumbers) -> Verdict {
    let SummaryNumbers {
        frag,
        peak,
        peak_res,
        ..
    } = *n;
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_peak",
        Confidence::Low,
        Text::new(
            format!(
                "This report shows no trouble: no OOM, no cudaMalloc retry, {:.0} % fragmentation; peak allocated {}, peak reserved {}. If the job fails later, the peak grows (longer inputs, a bigger batch) or memory leaks: compare reports taken several iterations apart.",
                frag * 100.0,
                a(peak),
                a(peak_res)
            ),
            format!(
                "这份报告没有异常：没有 OOM，没有 cudaMalloc 重试，碎片率 {:.0}%；峰值已分配 {}，峰值已保留 {}。如果之后失败，要么是峰值变大（输入更长、batch 更大），要么是泄漏：请对比间隔若干迭代的多份报告。",
                frag * 100.0,
                a(peak),
                a(peak_res)
            ),
        ),
    );
    v.paste = Some(paste_curve());
    v
}
