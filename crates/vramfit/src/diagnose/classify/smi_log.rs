//! `nvidia-smi` logs: who shares the GPU, and the trend of its memory over time.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Verdict, a, build, paste_curve, pct};
use crate::diagnose::smi::{Pattern, SmiLog, SmiProcess, SmiSeries, XUnit};
use crate::diagnose::{Confidence, Diagnosis, Evidence, Kind, Parsed, Text};
use crate::units::Bytes;

/// "after 27 s" / "at sample 72", and the Chinese.
pub(super) fn at_x(u: XUnit, h: f64) -> (String, String) {
    match u {
        XUnit::Seconds => (format!("after {h:.0} s"), format!("约 {h:.0} 秒后")),
        XUnit::Sample => (format!("at sample {h:.0}"), format!("在第 {h:.0} 个采样处")),
    }
}

pub(super) fn x_name(u: XUnit) -> (&'static str, &'static str) {
    match u {
        XUnit::Seconds => ("s", "秒"),
        XUnit::Sample => ("sample", "个采样"),
    }
}

/// The processes holding memory on one GPU of an `nvidia-smi` table (its last print), when
/// there are several.
pub(super) struct Sharing<'a> {
    gpu: u32,
    /// memory.total of the GPU, when the table gave it.
    total: Option<Bytes>,
    /// The GPU's memory used in the last print.
    used: Option<Bytes>,
    /// The processes, as printed (those printed with 0 MiB left out).
    procs: Vec<&'a SmiProcess>,
    /// The one holding the most, among those whose memory is printed.
    largest: Option<&'a SmiProcess>,
    /// What the others hold, of those whose memory is printed (a lower bound when some are
    /// `N/A`).
    others: Bytes,
    /// How many are printed `N/A`.
    unknown: usize,
}

impl Sharing<'_> {
    /// The others' share of the card, in %, when memory.total is known.
    fn share(&self) -> Option<f64> {
        self.total
            .filter(|t| *t > Bytes::ZERO)
            .map(|t| pct(self.others, t))
    }
}

/// The GPUs of a table on which more than one process holds memory, by GPU index.
pub(super) fn sharings(log: &SmiLog) -> Vec<Sharing<'_>> {
    let mut gpus: Vec<u32> = log.processes.iter().map(|p| p.gpu).collect();
    gpus.sort_unstable();
    gpus.dedup();
    let mut out = Vec::new();
    for gpu in gpus {
        let procs: Vec<&SmiProcess> = log
            .processes
            .iter()
            .filter(|p| p.gpu == gpu && p.used != Some(Bytes::ZERO))
            .collect();
        if procs.len() < 2 {
            continue;
        }
        let mut largest: Option<&SmiProcess> = None;
        let mut known = Bytes::ZERO;
        for p in &procs {
            if let Some(u) = p.used {
                known = known.plus(u);
                if largest.and_then(|l| l.used).is_none_or(|l| u > l) {
                    largest = Some(p);
                }
            }
        }
        let others = known.minus(largest.and_then(|l| l.used).unwrap_or(Bytes::ZERO));
        let unknown = procs.iter().filter(|p| p.used.is_none()).count();
        let series = log.series.iter().find(|s| s.gpu == gpu);
        out.push(Sharing {
            gpu,
            total: series.and_then(|s| s.total),
            used: series.and_then(|s| s.points.last()).map(|p| p.used),
            procs,
            largest,
            others,
            unknown,
        });
    }
    out
}

/// `PID 123 (python) 12.00 GiB, PID 456 (python) N/A`, at most 8, then `and N more`.
pub(super) fn process_list(procs: &[&SmiProcess]) -> (String, String) {
    const SHOWN: usize = 8;
    let one = |p: &SmiProcess| {
        let name = if p.name.is_empty() {
            String::new()
        } else {
            format!(" ({})", p.name)
        };
        let mem = p.used.map_or(String::from("N/A"), a);
        format!("PID {}{name} {mem}", p.pid)
    };
    let shown: Vec<String> = procs.iter().take(SHOWN).map(|p| one(p)).collect();
    let more = procs.len().saturating_sub(SHOWN);
    let mut en = shown.join(", ");
    let mut zh = shown.join("，");
    if more > 0 {
        en.push_str(&format!(" and {more} more"));
        zh.push_str(&format!(" 等另外 {more} 个"));
    }
    (en, zh)
}

/// What one GPU's process list says, in both languages: who holds what, what the others hold,
/// and, when some of the others are ranks of a job on other GPUs, that they are.
pub(super) fn sharing_text(s: &Sharing<'_>, all: &[SmiProcess]) -> (String, String) {
    let (list_en, list_zh) = process_list(&s.procs);
    let g = s.gpu;
    let n = s.procs.len();
    let Some(largest) = s.largest else {
        return (
            format!(
                "GPU {g}: {n} processes use it: {list_en}. nvidia-smi prints their memory as N/A (inside a container, or under Windows' WDDM driver), so what each holds is unknown: run `nvidia-smi` on the host (containers) or read each process's dedicated GPU memory in Task Manager (Windows)."
            ),
            format!(
                "GPU {g}：有 {n} 个进程在使用：{list_zh}。nvidia-smi 将它们的显存显示为 N/A（在容器内，或使用 Windows 的 WDDM 驱动），因此无法得知各自占用多少：请在宿主机上运行 `nvidia-smi`（容器），或在任务管理器中查看各进程的专用 GPU 内存（Windows）。"
            ),
        );
    };
    let mut en = format!("GPU {g}: {n} processes hold memory: {list_en}.");
    let mut zh = format!("GPU {g}：有 {n} 个进程占用显存：{list_zh}。");
    let at_least = if s.unknown > 0 { "at least " } else { "" };
    let at_least_zh = if s.unknown > 0 { "至少" } else { "" };
    let (share_en, share_zh) = match (s.share(), s.total) {
        (Some(sh), Some(t)) => (
            format!(" ({sh:.0} % of the {} card)", a(t)),
            format!("（占 {} 显卡的 {sh:.0}%）", a(t)),
        ),
        _ => (String::new(), String::new()),
    };
    en.push_str(&format!(
        " Besides the largest (PID {}), the others hold {at_least}{}{share_en}.",
        largest.pid,
        a(s.others)
    ));
    zh.push_str(&format!(
        "除占用最多的进程（PID {}）外，其他进程{at_least_zh}占用 {}{share_zh}。",
        largest.pid,
        a(s.others)
    ));
    if s.unknown > 0 {
        en.push_str(&format!(
            " {} of them show N/A (memory not reported inside a container or under WDDM).",
            s.unknown
        ));
        zh.push_str(&format!(
            "其中 {} 个显示为 N/A（在容器内或 WDDM 下不报告显存）。",
            s.unknown
        ));
    }
    // Other processes that also hold memory on another GPU: ranks of a multi-GPU job whose
    // CUDA context landed on this GPU too.
    let ranks: Vec<String> = s
        .procs
        .iter()
        .filter(|p| p.pid != largest.pid)
        .filter(|p| all.iter().any(|q| q.pid == p.pid && q.gpu != g))
        .map(|p| format!("{}", p.pid))
        .collect();
    if !ranks.is_empty() {
        let k = ranks.len();
        let (pids_en, pids_zh) = if k > 8 {
            (
                format!("{}, …", ranks[..8].join(", ")),
                format!("{}……", ranks[..8].join("、")),
            )
        } else {
            (ranks.join(", "), ranks.join("、"))
        };
        en.push_str(&format!(
            " {k} of the others (PID {pids_en}) also hold memory on other GPUs: ranks of a multi-GPU job that opened a CUDA context on GPU {g} as well. Make each rank use only its own GPU: `torch.cuda.set_device(local_rank)` before any CUDA call, `map_location` in `torch.load`, or one `CUDA_VISIBLE_DEVICES` per rank."
        ));
        zh.push_str(&format!(
            "其中 {k} 个（PID {pids_zh}）同时在其他 GPU 上占用显存：它们是多卡任务的各个 rank，也在 GPU {g} 上创建了 CUDA 上下文。请让每个 rank 只使用自己的 GPU：在任何 CUDA 调用之前执行 `torch.cuda.set_device(local_rank)`，`torch.load` 时指定 `map_location`，或为每个 rank 单独设置 `CUDA_VISIBLE_DEVICES`。"
        ));
    }
    (en, zh)
}

/// Others holding at least this share of a card (%) is a cause worth acting on first.
pub(super) const OTHERS_SHARE: f64 = 10.0;

/// The diagnosis of an `nvidia-smi` log: each GPU's numbers as evidence, one verdict (a leak, a
/// card others share, too few samples, or no leak), and notes on the rest.
pub(super) fn from_smi(log: SmiLog) -> Diagnosis {
    let mut ev = Vec::new();
    let source = log.source;
    series_evidence(&log, &mut ev);
    // The process list of the last print: GPUs that several processes share.
    let shared = sharings(&log);
    sharing_evidence(&shared, &mut ev);
    let (mut v, explained) = smi_verdict(&log, &shared);
    smi_notes(&mut v, &log, &shared, explained);
    build(source, v, ev, Parsed::NvidiaSmi(log))
}

/// Adds each GPU's curve to `ev`: its capacity, peak, samples, growth, when it reaches the
/// capacity, and its steady level, those the log gives.
fn series_evidence(log: &SmiLog, ev: &mut Vec<Evidence>) {
    for s in &log.series {
        let tag = format!("gpu{}", s.gpu);
        if let Some(t) = s.total {
            ev.push(Evidence::size(
                "total_capacity",
                t,
                format!("{tag}: {}", a(t)),
            ));
        }
        ev.push(Evidence::size(
            "peak_used",
            s.peak,
            format!("{tag}: {}", a(s.peak)),
        ));
        ev.push(Evidence::value(
            "samples",
            s.points.len() as f64,
            format!("{tag}: {} samples", s.points.len()),
        ));
        if let Some(g) = s.growth_mib_per_x {
            let (en, _) = x_name(s.x_unit);
            ev.push(Evidence::value(
                "growth_mib_per_x",
                g,
                format!("{tag}: +{g:.1} MiB/{en}"),
            ));
        }
        if let Some(h) = s.hits_total_at_x {
            ev.push(Evidence::value(
                "hits_total_at_x",
                h,
                format!("{tag}: {}", at_x(s.x_unit, h).0),
            ));
        }
        if let Some(st) = s.steady {
            ev.push(Evidence::size("steady", st, format!("{tag}: {}", a(st))));
        }
    }
}

/// Adds to `ev`, for each GPU several processes share, what the others hold and what each of the
/// first 16 holds.
fn sharing_evidence(shared: &[Sharing<'_>], ev: &mut Vec<Evidence>) {
    for sh in shared {
        let tag = format!("gpu{}", sh.gpu);
        if sh.largest.is_some() {
            ev.push(Evidence::size(
                "other_processes",
                sh.others,
                format!("{tag}: {} held by other processes", a(sh.others)),
            ));
        }
        for p in sh.procs.iter().take(16) {
            if let Some(u) = p.used {
                ev.push(Evidence::size(
                    "process_memory",
                    u,
                    format!("{tag}: process {}: {}", p.pid, a(u)),
                ));
            }
        }
    }
}

/// The verdict on a log, and the GPU whose sharing it explains (to leave out of the notes): the
/// largest rising curve is a leak; without curves, a card others hold a large share of; without
/// either, too few samples; otherwise no leak.
fn smi_verdict(log: &SmiLog, shared: &[Sharing<'_>]) -> (Verdict, Option<u32>) {
    // The GPU whose other processes hold the largest share of it, when that share matters.
    let main = shared
        .iter()
        .filter(|sh| sh.share().is_some_and(|x| x >= OTHERS_SHARE))
        .max_by(|x, y| {
            x.share()
                .unwrap_or(0.0)
                .total_cmp(&y.share().unwrap_or(0.0))
        });
    let leak = log
        .series
        .iter()
        .filter(|s| s.pattern == Pattern::Rising)
        .max_by_key(|s| s.peak);
    let too_short = log.series.iter().all(|s| s.pattern == Pattern::TooShort);
    match (leak, main) {
        (Some(s), _) => (leak_verdict(s), None),
        (None, Some(sh)) if too_short => (shared_card(sh, &log.processes), Some(sh.gpu)),
        _ if too_short => (too_few_samples(), None),
        _ => (no_leak(log), None),
    }
}

/// The verdict on a curve that keeps rising: a leak, with its rate and when it fills the card.
fn leak_verdict(s: &SmiSeries) -> Verdict {
    let (en, zh) = x_name(s.x_unit);
    let g = s.growth_mib_per_x.unwrap_or(0.0);
    let strong = s.points.len() >= 10 && s.tail_fit.is_some_and(|t| t.r2 >= 0.8);
    let when_en = match (s.hits_total_at_x, s.total) {
        (Some(h), Some(t)) => format!(
            " At this rate it reaches memory.total ({}) {}.",
            a(t),
            at_x(s.x_unit, h).0
        ),
        _ => String::new(),
    };
    let when_zh = match (s.hits_total_at_x, s.total) {
        (Some(h), Some(t)) => {
            format!("按此速度，{}达到总容量（{}）。", at_x(s.x_unit, h).1, a(t))
        }
        _ => String::new(),
    };
    Verdict::new(
        Kind::Leak,
        "leak",
        if strong {
            Confidence::High
        } else {
            Confidence::Medium
        },
        Text::new(
            format!(
                "GPU {} keeps rising through the second half of the log (+{g:.1} MiB per {en}, from {} to a peak of {}) with no plateau: memory grows with every iteration, the signature of a leak.{when_en}",
                s.gpu,
                a(s.points.first().map_or(Bytes::ZERO, |p| p.used)),
                a(s.peak)
            ),
            format!(
                "GPU {} 的显存在日志后半段持续上升（每{zh} +{g:.1} MiB，从 {} 到峰值 {}），没有平台期：显存随迭代增长，这是泄漏的特征。{when_zh}",
                s.gpu,
                a(s.points.first().map_or(Bytes::ZERO, |p| p.used)),
                a(s.peak)
            ),
        ),
    )
}

/// The verdict on a single print whose process list shows others holding a large share of GPU
/// `sh.gpu`: capacity taken by them, more sure when the card is nearly full.
fn shared_card(sh: &Sharing<'_>, processes: &[SmiProcess]) -> Verdict {
    // One print, no curve, but its process list shows memory other processes hold.
    let (list_en, list_zh) = sharing_text(sh, processes);
    let full = match (sh.used, sh.total) {
        (Some(u), Some(t)) => pct(u, t),
        _ => 0.0,
    };
    let (state_en, state_zh) = match (sh.used, sh.total) {
        (Some(u), Some(t)) if full >= 90.0 => (
            format!(
                " The card is nearly full ({} of {} used): a job that needs more here runs out because of what the others hold. Stop the ones that are not yours (an idle notebook kernel, a run that did not exit) or use another card; a smaller batch is not the fix.",
                a(u),
                a(t)
            ),
            format!(
                "显卡几乎已满（已用 {}，共 {}）：在这张卡上需要更多显存的任务会因其他进程的占用而不足。请停止不属于你的进程（闲置的 notebook 内核、未退出的上次运行）或换用其他显卡；减小 batch 不是办法。",
                a(u),
                a(t)
            ),
        ),
        (Some(u), Some(t)) => (
            format!(
                " The card has {} of {} in use, so this print shows no shortage yet; if a job runs out of memory on it, what the others hold is the first thing to free: stop the ones that are not yours.",
                a(u),
                a(t)
            ),
            format!(
                "这张卡已用 {}，共 {}，此次输出尚未显示显存不足；如果任务在这张卡上显存不足，应首先释放其他进程占用的部分：停止不属于你的进程。",
                a(u),
                a(t)
            ),
        ),
        _ => (String::new(), String::new()),
    };
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_static",
        if full >= 90.0 {
            Confidence::Medium
        } else {
            Confidence::Low
        },
        Text::new(
            format!("{list_en}{state_en}"),
            format!("{list_zh}{state_zh}"),
        ),
    );
    v.fixes.push("stop_other_processes");
    if full < 90.0 {
        v.paste = Some(paste_curve());
    }
    v
}

/// The verdict on a log too short for a curve, with nothing else to go on.
fn too_few_samples() -> Verdict {
    let mut v = Verdict::new(
        Kind::Unknown,
        "capacity_peak",
        Confidence::Low,
        Text::new(
            "Fewer than 4 samples per GPU: a single print shows usage now, not how it changes.",
            "每块 GPU 的采样少于 4 个：单次输出只反映当前用量，看不出变化趋势。",
        ),
    );
    v.paste = Some(paste_curve());
    v
}

/// The verdict on curves that do not rise: the shape of the highest, and that running out of
/// memory with it is capacity.
fn no_leak(log: &SmiLog) -> Verdict {
    let s = log
        .series
        .iter()
        .filter(|s| s.pattern != Pattern::TooShort)
        .max_by_key(|s| s.peak);
    let (gpu, peak, total, pattern) = s.map_or((0, Bytes::ZERO, None, Pattern::Flat), |s| {
        (s.gpu, s.peak, s.total, s.pattern)
    });
    let (shape_en, shape_zh) = match pattern {
        Pattern::JumpThenFlat => (
            "jumps to its working level and stays there",
            "跃升到工作水平后保持平稳",
        ),
        Pattern::SteppedPlateau => (
            "grows in steps and levels off — the caching allocator reaching its working set, which is normal",
            "阶梯式增长后趋于平稳——这是缓存分配器达到工作集的正常现象",
        ),
        Pattern::Falling => ("goes down", "在下降"),
        _ => ("stays flat", "保持平稳"),
    };
    let full = total.map_or(0.0, |t| pct(peak, t));
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_peak",
        if full >= 90.0 {
            Confidence::Medium
        } else {
            Confidence::Low
        },
        Text::new(
            format!(
                "GPU {gpu} {shape_en}: no leak. Peak {}{}. If the job runs out of memory, it is capacity: the steady state plus one step's peak exceeds the card (or the cache is fragmented, which `torch.cuda.memory_summary()` tells).",
                a(peak),
                total.map_or(String::new(), |t| format!(" of {} ({full:.0} %)", a(t)))
            ),
            format!(
                "GPU {gpu} 的显存{shape_zh}：没有泄漏。峰值 {}{}。如果任务显存不足，属于容量型：稳态用量加上单步峰值超过了显卡容量（或缓存碎片化，可用 `torch.cuda.memory_summary()` 判断）。",
                a(peak),
                total.map_or(String::new(), |t| format!(
                    "，总容量 {}（{full:.0}%）",
                    a(t)
                ))
            ),
        ),
    );
    if full < 90.0 {
        v.paste = Some(paste_curve());
    }
    v
}

/// Adds the notes on what the verdict does not say: the other shared GPUs (all but
/// `explained`), a dropped tail, a cut log, skipped rows.
fn smi_notes(v: &mut Verdict, log: &SmiLog, shared: &[Sharing<'_>], explained: Option<u32>) {
    // Every other GPU that several processes share is named in a note.
    for sh in shared.iter().filter(|sh| Some(sh.gpu) != explained) {
        let (en, zh) = sharing_text(sh, &log.processes);
        let small = sh.largest.is_some() && sh.share().is_some_and(|x| x < OTHERS_SHARE);
        v.notes.push(if small {
            Text::new(
                format!("{en} Too little to be the cause of a shortage."),
                format!("{zh}这点占用不足以造成显存不足。"),
            )
        } else {
            Text::new(en, zh)
        });
    }
    if log.series.iter().any(|s| s.dropped_tail > 0) {
        v.notes.push(Text::new(
            "Memory falls sharply at the end of the log (the process ended or crashed); those samples were left out of the trend.",
            "日志末尾显存骤降（进程结束或崩溃），这些采样未计入趋势。",
        ));
    }
    if log.truncated {
        v.notes.push(Text::new(
            "The log was longer than the caps; the rest was not read.",
            "日志超过上限，其余部分未读取。",
        ));
    }
    if log.rows_skipped > 0 {
        v.notes.push(Text::new(
            format!(
                "{} rows could not be read (`[N/A]` or a different column count) and were skipped.",
                log.rows_skipped
            ),
            format!(
                "有 {} 行无法读取（`[N/A]` 或列数不同），已跳过。",
                log.rows_skipped
            ),
        ));
    }
}
