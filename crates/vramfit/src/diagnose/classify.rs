//! Recognising the format and classifying. The rules are documented on the `diagnose`
//! module (its "Classification rules" section), next to the public API.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::llamacpp::{self, LlamaCppError, LlamaCppStage};
use super::pytorch::{self, PytorchOom, PytorchOomStyle, Unread};
use super::scan::{clip_tail, flatten, unquote};
use super::smi::{self, Pattern, SmiLog, SmiProcess, XUnit};
use super::summary::{self, MemorySummary, MemorySummaryLog};
use super::tfjax::{self, JaxOom, TensorflowOom};
use super::vllm::{self, VllmError, VllmErrorKind};
use super::{
    Confidence, Diagnosis, Evidence, Fix, InputFormat, Kind, MAX_INPUT_BYTES, MAX_SUMMARIES,
    Parsed, Text, fix, leaf,
};
use crate::units::Bytes;

/// Recognises the format of `text` without classifying it.
pub fn detect(text: &str) -> InputFormat {
    let text = unquote(clip_tail(text, MAX_INPUT_BYTES));
    let text = text.as_ref();
    if summary::looks_like(text) && !summary::parse_memory_summaries(text).reports.is_empty() {
        return InputFormat::MemorySummary;
    }
    let flat = flatten(text);
    if vllm::looks_like(&flat) {
        InputFormat::VllmError
    } else if llamacpp::looks_like(&flat) {
        InputFormat::LlamacppError
    } else if pytorch::looks_like(&flat) {
        InputFormat::PytorchOom
    } else if tfjax::looks_like_tf(&flat) {
        InputFormat::TensorflowOom
    } else if tfjax::looks_like_jax(&flat) {
        InputFormat::JaxOom
    } else {
        match smi::parse_nvidia_smi(text) {
            Some(log) => log.source,
            None => InputFormat::Unknown,
        }
    }
}

/// Recognises the format of `text`, reads its numbers and classifies the OOM.
///
/// Never fails and never panics: text it cannot read gives [`Kind::Unknown`] with
/// `what_to_paste_instead`.
///
/// ```
/// use vramfit::diagnose::{diagnose, InputFormat, Kind};
/// let d = diagnose("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. \
///     GPU 0 has a total capacity of 79.15 GiB of which 1.05 GiB is free. Of the allocated \
///     memory 75.87 GiB is allocated by PyTorch, and 1.60 GiB is reserved by PyTorch but unallocated.");
/// assert_eq!(d.input, InputFormat::PytorchOom);
/// assert_eq!(d.kind, Kind::Capacity);
/// ```
pub fn diagnose(text: &str) -> Diagnosis {
    let mut notes = Vec::new();
    let clipped = clip_tail(text, MAX_INPUT_BYTES);
    if clipped.len() < text.len() {
        notes.push(Text::new(
            format!(
                "Only the last {} MiB of the text were read (errors come at the end of logs).",
                MAX_INPUT_BYTES >> 20
            ),
            format!(
                "只读取了文本的最后 {} MiB（错误信息通常在日志末尾）。",
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    let text = unquote(clipped);
    let text = text.as_ref();
    let mut d = if summary::looks_like(text) {
        let log = summary::parse_memory_summaries(text);
        if log.reports.is_empty() {
            None
        } else {
            Some(from_summary(log, text))
        }
    } else {
        None
    }
    .unwrap_or_else(|| {
        let flat = flatten(text);
        if let Some((v, ev)) = vllm::parse(&flat) {
            from_vllm(v, ev)
        } else if let Some((l, ev)) = llamacpp::parse(&flat) {
            from_llamacpp(l, ev)
        } else if let Some((p, ev, unread)) = pytorch::parse_flat(&flat) {
            from_pytorch(p, ev, unread)
        } else if let Some((t, ev)) = tfjax::parse_tf(&flat) {
            from_tf(t, ev, tfjax::driver_failures_only(&flat))
        } else if let Some((j, ev)) = tfjax::parse_jax(&flat) {
            from_jax(j, ev)
        } else if let Some(log) = smi::parse_nvidia_smi(text) {
            from_smi(log)
        } else {
            unknown(text)
        }
    });
    notes.append(&mut d.notes);
    d.notes = notes;
    d
}

/// What the classifier decided, before the fixes are looked up.
struct Verdict {
    kind: Kind,
    leaf: &'static str,
    confidence: Confidence,
    explanation: Text,
    /// Format-specific fixes first; the leaf's fixes are appended.
    fixes: Vec<&'static str>,
    paste: Option<Text>,
    notes: Vec<Text>,
}

impl Verdict {
    fn new(kind: Kind, leaf: &'static str, confidence: Confidence, explanation: Text) -> Verdict {
        Verdict {
            kind,
            leaf,
            confidence,
            explanation,
            fixes: Vec::new(),
            paste: None,
            notes: Vec::new(),
        }
    }
}

fn build(input: InputFormat, v: Verdict, evidence: Vec<Evidence>, parsed: Parsed) -> Diagnosis {
    let mut ids: Vec<&'static str> = v.fixes;
    if let Some(l) = leaf(v.leaf) {
        ids.extend(l.fixes.iter().copied());
    }
    let mut fixes: Vec<Fix> = Vec::new();
    for id in ids {
        if fixes.iter().any(|f| f.id == id) {
            continue;
        }
        if let Some(f) = fix(id) {
            fixes.push(Fix {
                id: String::from(f.id),
                effort: f.effort,
                title: f.title.into(),
                detail: f.detail.into(),
            });
        }
    }
    // Cheapest first; the order of the tree among equals.
    fixes.sort_by_key(|f| f.effort);
    let leaf_id = (v.kind != Kind::Unknown).then(|| String::from(v.leaf));
    Diagnosis {
        kind: v.kind,
        input,
        confidence: v.confidence,
        leaf: leaf_id,
        evidence,
        explanation: v.explanation,
        fixes,
        what_to_paste_instead: v.paste,
        notes: v.notes,
        parsed,
    }
}

fn pct(part: Bytes, whole: Bytes) -> f64 {
    if whole.get() == 0 {
        0.0
    } else {
        100.0 * part.get() as f64 / whole.get() as f64
    }
}

fn a(b: Bytes) -> String {
    b.display_auto()
}

fn paste_curve() -> Text {
    Text::new(
        "To tell a leak from capacity, log memory while it runs: `nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv -l 1 > smi.csv` for at least 10 iterations, and paste smi.csv. To tell fragmentation from capacity, paste `print(torch.cuda.memory_summary())` taken just before the failing step.",
        "要区分泄漏型与容量型，请在运行时记录显存：执行 `nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv -l 1 > smi.csv` 至少 10 个迭代，然后粘贴 smi.csv。要区分碎片型与容量型，请粘贴失败步骤之前的 `print(torch.cuda.memory_summary())` 输出。",
    )
}

fn from_pytorch(p: PytorchOom, mut ev: Vec<Evidence>, unread: Vec<Unread>) -> Diagnosis {
    let mut v = classify_pytorch(&p, &mut ev, &unread);
    for u in &unread {
        let (en, zh) = super::evidence_label(u.field).unwrap_or((u.field, u.field));
        v.notes.push(Text::new(
            format!(
                "`{}` ({en}) is not a size vramfit reads (not a plain decimal number with a unit, or more than 1 PiB); it was left out, not guessed.",
                u.text
            ),
            format!(
                "`{}`（{zh}）不是 vramfit 能读取的大小（不是带单位的普通十进制数，或超过 1 PiB）；已略去，未作猜测。",
                u.text
            ),
        ));
    }
    if p.messages > 1 {
        v.notes.push(Text::new(
            format!(
                "The text holds {} OOM messages; the last one was read.",
                p.messages
            ),
            format!("文本中有 {} 条 OOM 信息，已读取最后一条。", p.messages),
        ));
    }
    if let (Some(al), Some(t)) = (p.allocated, p.total_capacity)
        && al > t
        && t > Bytes::ZERO
        && p.reserved.is_none_or(|r| al <= r)
    {
        v.notes.push(Text::new(
                format!("PyTorch reports {} allocated on a {} device: more than the card, so shared system memory is in use (WSL or the Windows driver's sysmem fallback). Everything beyond the card's memory runs far slower.", a(al), a(t)),
                format!("PyTorch 报告在 {} 的设备上已分配 {}，超过了显卡容量，说明正在使用共享系统内存（WSL 或 Windows 驱动的 sysmem 回退），超出部分的速度会慢很多。", a(t), a(al)),
            ));
    }
    build(InputFormat::PytorchOom, v, ev, Parsed::PytorchOom(p))
}

/// What a CUDA context may hold outside PyTorch's cache without anything being wrong: the
/// context itself (a few hundred MiB), cuBLAS/cuDNN kernels and workspaces, NCCL buffers, a
/// desktop's display on the same card. The corpus's messages show 0.4–1.7 GiB outside the cache;
/// several GiB is memory held by something else.
const CONTEXT_ALLOWANCE: Bytes = Bytes::gib(2);

/// The phrase naming a field of the message that is missing, in English and Chinese.
fn missing_phrase(field: &str) -> (&'static str, &'static str) {
    match field {
        "requested" => ("the request", "申请量"),
        "total_capacity" => ("the total capacity", "总容量"),
        "allocated" => ("the memory allocated by PyTorch", "PyTorch 已分配的显存"),
        _ => ("the memory reserved by PyTorch", "PyTorch 已保留的显存"),
    }
}

/// A message without all the numbers the rules need: cut, or with sizes that could not be read.
/// Nothing missing is taken as 0.
fn pytorch_missing(p: &PytorchOom, unread: &[Unread]) -> Verdict {
    let missing: Vec<&str> = [
        ("requested", p.requested.is_some()),
        ("total_capacity", p.total_capacity.is_some()),
        ("allocated", p.allocated.is_some()),
        ("reserved", p.reserved.is_some()),
    ]
    .iter()
    .filter(|(_, read)| !read)
    .map(|(f, _)| *f)
    .collect();
    let en: Vec<&str> = missing.iter().map(|f| missing_phrase(f).0).collect();
    let zh: Vec<&str> = missing.iter().map(|f| missing_phrase(f).1).collect();
    let is = if en.len() == 1 { "is" } else { "are" };
    let (en, zh) = (join_en(&en), zh.join("、"));
    let explanation = if unread.is_empty() {
        Text::new(
            format!(
                "A PyTorch out-of-memory message, but cut before all its numbers: {en} {is} missing, so only the kind of failure is known."
            ),
            format!(
                "这是一条 PyTorch 显存不足信息，但在全部数字给出之前被截断（缺少{zh}），只能确定发生了显存不足。"
            ),
        )
    } else {
        let words: Vec<String> = unread.iter().map(|u| format!("`{}`", u.text)).collect();
        let words_zh = words.join("、");
        let (not_a_size, it) = if words.len() == 1 {
            ("is not a size", "it was")
        } else {
            ("are not sizes", "they were")
        };
        let words = join_en(&words);
        Text::new(
            format!(
                "A PyTorch out-of-memory message whose numbers could not all be read: {words} {not_a_size} (not a plain decimal number with a unit, or more than 1 PiB), so {it} left out rather than guessed, and {en} {is} unknown. Only the kind of failure is known."
            ),
            format!(
                "这是一条 PyTorch 显存不足信息，但其中的数字无法全部读取：{words_zh} 不是有效的大小（不是带单位的普通十进制数，或超过 1 PiB），因此已略去而未作猜测，{zh}未知。只能确定发生了显存不足。"
            ),
        )
    };
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_peak",
        Confidence::Low,
        explanation,
    );
    v.paste = Some(Text::new(
        "Paste the whole message as PyTorch printed it, from `CUDA out of memory` to `PYTORCH_CUDA_ALLOC_CONF`.",
        "请按 PyTorch 的原样粘贴完整信息，从 `CUDA out of memory` 到 `PYTORCH_CUDA_ALLOC_CONF`。",
    ));
    v
}

/// `a`, `a and b`, `a, b and c`.
fn join_en<S: AsRef<str>>(items: &[S]) -> String {
    let mut out = String::new();
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == items.len() { " and " } else { ", " });
        }
        out.push_str(s.as_ref());
    }
    out
}

/// Numbers that cannot all be true of one card at one moment, in English and Chinese.
fn pytorch_contradiction(p: &PytorchOom) -> Option<(String, String)> {
    if p.total_capacity == Some(Bytes::ZERO) {
        return Some((
            String::from("the card's total capacity is given as 0 B"),
            String::from("显卡总容量为 0 B"),
        ));
    }
    if let (Some(f), Some(t)) = (p.free, p.total_capacity)
        && f > t
    {
        return Some((
            format!("{} free on a card of {}", a(f), a(t)),
            format!("总容量 {} 的显卡上空闲 {}", a(t), a(f)),
        ));
    }
    if let (Some(al), Some(r)) = (p.allocated, p.reserved)
        && al > r
    {
        return Some((
            format!(
                "PyTorch's reserved memory includes its allocated memory, yet {} allocated is more than {} reserved",
                a(al),
                a(r)
            ),
            format!(
                "PyTorch 已保留的显存包含其已分配的显存，但已分配 {} 大于已保留 {}",
                a(al),
                a(r)
            ),
        ));
    }
    None
}

fn classify_pytorch(p: &PytorchOom, ev: &mut Vec<Evidence>, unread: &[Unread]) -> Verdict {
    if p.style == Some(PytorchOomStyle::NoNumbers) && unread.is_empty() {
        let mut v = Verdict::new(
            Kind::Capacity,
            "capacity_peak",
            Confidence::Low,
            Text::new(
                "A CUDA out-of-memory error without the allocator's numbers: either a CUDA call outside PyTorch's caching allocator ran out (context creation, cuBLAS/cuDNN workspaces, NCCL buffers), or the message was cut before its numbers. Memory is full, but the text cannot say why.",
                "这是一条没有分配器数字的 CUDA 显存不足错误：要么是 PyTorch 缓存分配器之外的 CUDA 调用（上下文创建、cuBLAS/cuDNN 工作区、NCCL 缓冲区）申请失败，要么信息在数字之前被截断。显存已满，但仅凭这段文字无法判断原因。",
            ),
        );
        v.paste = Some(paste_curve());
        return v;
    }
    if let Some((en, zh)) = pytorch_contradiction(p) {
        let mut v = Verdict::new(
            Kind::Unknown,
            "capacity_peak",
            Confidence::Low,
            Text::new(
                format!(
                    "These numbers cannot all be true: {en}. The message was edited or pieced together from several, so no kind is given from it."
                ),
                format!(
                    "这些数字不可能同时成立：{zh}。该信息被改动过或由多条拼接而成，因此不据此判断类型。"
                ),
            ),
        );
        v.paste = Some(Text::new(
            "Paste the whole message exactly as PyTorch printed it.",
            "请按 PyTorch 的原样粘贴完整信息。",
        ));
        return v;
    }
    let (Some(req), Some(total)) = (p.requested, p.total_capacity) else {
        return pytorch_missing(p, unread);
    };
    let others = p.other_processes.unwrap_or(Bytes::ZERO);
    if req > total {
        return Verdict::new(
            Kind::Capacity,
            "capacity_static",
            Confidence::High,
            Text::new(
                format!(
                    "One allocation of {} is larger than the whole card ({}). No setting of the allocator can help: the tensor itself must shrink (smaller batch or sequence, lower precision, sharding), or it needs a card with more memory.",
                    a(req),
                    a(total)
                ),
                format!(
                    "单次申请 {} 就超过了整张卡的容量（{}）。调整分配器无济于事：必须缩小张量本身（减小 batch 或序列长度、降低精度、切分到多卡），或换用显存更大的卡。",
                    a(req),
                    a(total)
                ),
            ),
        );
    }
    if others > Bytes::ZERO && req > total.minus(others) {
        let mut v = Verdict::new(
            Kind::Capacity,
            "capacity_static",
            Confidence::High,
            Text::new(
                format!(
                    "Other processes hold {} of this {} card, so the {} request cannot fit even in an empty PyTorch cache. Stop them (see `nvidia-smi`), or run on a card of your own.",
                    a(others),
                    a(total),
                    a(req)
                ),
                format!(
                    "其他进程占用了这张 {} 显卡中的 {}，因此即使 PyTorch 缓存为空，{} 的申请也放不下。请停止这些进程（见 `nvidia-smi`），或换用独占的显卡。",
                    a(total),
                    a(others),
                    a(req)
                ),
            ),
        );
        v.fixes.push("stop_other_processes");
        return v;
    }
    // The rules below need what PyTorch holds; a message cut before it, or with it unreadable,
    // says no more than that memory ran out.
    let (Some(allocated), Some(reserved)) = (p.allocated, p.reserved) else {
        return pytorch_missing(p, unread);
    };
    let unalloc = p
        .reserved_unallocated
        .unwrap_or_else(|| reserved.minus(allocated));

    // Memory on the card that is neither in PyTorch's cache nor free: this process's CUDA
    // context and libraries, and everything other processes hold.
    let outside = p
        .free
        .filter(|f| reserved.plus(*f) <= total)
        .map(|f| total.minus(reserved).minus(f));
    if let (Some(out), Some(f)) = (outside, p.free) {
        ev.push(Evidence::size(
            "outside_pytorch",
            out,
            format!("= {} − {} − {}", a(total), a(reserved), a(f)),
        ));
    }
    // Who holds it: the processes the message lists (2.1 and later; this process is not among
    // "others"), or, without a list, all of it less what a CUDA context may take.
    let listed = !p.processes.is_empty() || p.this_process.is_some();
    let (held, excess) = if listed {
        let o = outside.map_or(others, |out| others.min(out));
        (o, o)
    } else {
        let o = outside.unwrap_or(Bytes::ZERO);
        (o, o.minus(CONTEXT_ALLOWANCE))
    };
    let free = p.free.unwrap_or(Bytes::ZERO);
    let held_is_large = excess > Bytes::ZERO && held.get() >= total.get() / 10;
    // The driver's free memory below the request (with the margin of rule 4: above it, the
    // failure is below the cache), and the request fits once the memory held elsewhere is free.
    let driver_had_room = free >= Bytes::from_f64(req.get() as f64 * 1.2).plus(Bytes::mib(256));
    if held_is_large && !driver_had_room && req <= free.plus(excess) {
        let need = reserved.plus(req);
        let (en, zh, confidence) = if listed {
            (
                format!(
                    "Other processes hold {} of this {} card. This process needs what PyTorch holds ({}) plus the {} request, {} in all, which the card could hold without them; with them only {} is free. Stop them (`nvidia-smi` lists them) or run on a card of your own: a smaller batch is not the fix.",
                    a(held),
                    a(total),
                    a(reserved),
                    a(req),
                    a(need),
                    a(free)
                ),
                format!(
                    "其他进程占用了这张 {} 显卡中的 {}。本进程需要 PyTorch 已持有的 {} 加上申请的 {}，共 {}，没有这些进程时显卡放得下；有它们在，只剩 {} 空闲。请停止这些进程（`nvidia-smi` 会列出）或换用独占的显卡：减小 batch 不是办法。",
                    a(total),
                    a(held),
                    a(reserved),
                    a(req),
                    a(need),
                    a(free)
                ),
                Confidence::High,
            )
        } else {
            (
                format!(
                    "{} of this {} card is held outside PyTorch's cache ({} − {} reserved by PyTorch − {} free). A CUDA context takes a few hundred MiB (up to about {} with cuDNN, NCCL or a display); this much is another process on the same GPU (a notebook kernel, a run that did not exit) or memory another library took in this process. PyTorch holds only {}, and its {} request would fit without it. Find it with `nvidia-smi` and stop it: a smaller batch is not the fix.",
                    a(held),
                    a(total),
                    a(total),
                    a(reserved),
                    a(free),
                    a(CONTEXT_ALLOWANCE),
                    a(reserved),
                    a(req)
                ),
                format!(
                    "这张 {} 显卡中有 {} 在 PyTorch 缓存之外被占用（{} − PyTorch 已保留 {} − 空闲 {}）。CUDA 上下文只占几百 MiB（加上 cuDNN、NCCL 或显示输出最多约 {}）；这么多显存是同一 GPU 上的其他进程（notebook 内核、未退出的上次运行）或本进程中其他库申请的。PyTorch 只持有 {}，没有这部分占用时，{} 的申请放得下。请用 `nvidia-smi` 找到并停止它：减小 batch 不是办法。",
                    a(total),
                    a(held),
                    a(total),
                    a(reserved),
                    a(free),
                    a(CONTEXT_ALLOWANCE),
                    a(reserved),
                    a(req)
                ),
                Confidence::Medium,
            )
        };
        let mut v = Verdict::new(
            Kind::Capacity,
            "capacity_static",
            confidence,
            Text::new(en, zh),
        );
        v.fixes.push("stop_other_processes");
        return v;
    }

    let share = pct(unalloc, reserved);
    if reserved > Bytes::ZERO {
        ev.push(Evidence::value(
            "fragmentation_ratio",
            share / 100.0,
            format!("{} / {} = {:.1} %", a(unalloc), a(reserved), share),
        ));
    }
    if unalloc >= req && unalloc > Bytes::ZERO && share >= 15.0 {
        let strong = unalloc >= req.times(2) && share >= 25.0;
        let mut v = Verdict::new(
            Kind::Fragmentation,
            "fragmentation",
            if strong {
                Confidence::High
            } else {
                Confidence::Medium
            },
            Text::new(
                format!(
                    "PyTorch had {} reserved but unallocated ({:.0} % of its {} cache) — at least the {} requested — yet no single free block was large enough. The cache is fragmented: free pieces sit inside segments that still hold live tensors, so they can be neither merged nor returned to the driver.",
                    a(unalloc),
                    share,
                    a(reserved),
                    a(req)
                ),
                format!(
                    "PyTorch 有 {} 已保留但未分配（占其 {} 缓存的 {:.0}%），不少于申请的 {}，但没有一个空闲块足够大。这是碎片化：空闲碎片位于仍有存活张量的段中，既无法合并，也无法归还给驱动。",
                    a(unalloc),
                    a(reserved),
                    share,
                    a(req)
                ),
            ),
        );
        v.fixes.push("expandable_segments");
        return v;
    }
    // The driver said more was free than requested (with a margin for segment rounding and the
    // driver's own needs), yet cudaMalloc failed: the device's free memory is in pieces
    // (WDDM on Windows), or another process took it between the two calls.
    if let Some(free) = p.free
        && free >= Bytes::from_f64(req.get() as f64 * 1.2).plus(Bytes::mib(256))
    {
        let mut v = Verdict::new(
            Kind::Fragmentation,
            "fragmentation",
            Confidence::Low,
            Text::new(
                format!(
                    "The driver reported {} free, more than the {} requested, yet the allocation failed. Below the PyTorch cache: the device's free memory is itself in pieces (common under Windows' WDDM driver model), or another process took memory between the report and the request. Restart the process, close other GPU programs, and prefer Linux/WSL2 or TCC mode for large jobs.",
                    a(free),
                    a(req)
                ),
                format!(
                    "驱动报告有 {} 空闲，多于申请的 {}，但分配仍然失败。问题在 PyTorch 缓存之下：设备的空闲显存本身是零碎的（Windows WDDM 驱动模式下常见），或者在报告与申请之间被其他进程占用。请重启进程、关闭其他使用 GPU 的程序，大任务尽量使用 Linux/WSL2 或 TCC 模式。",
                    a(free),
                    a(req)
                ),
            ),
        );
        v.fixes.push("stop_other_processes");
        v.paste = Some(paste_curve());
        return v;
    }
    let used = allocated;
    let (of_card_en, of_card_zh) = if used <= total {
        (
            format!(" of the {} card ({:.0} %)", a(total), pct(used, total)),
            format!(
                "占用了 {} 显卡中的 {}（{:.0}%）",
                a(total),
                a(used),
                pct(used, total)
            ),
        )
    } else {
        (
            format!(
                ", more than the whole {} card (shared system memory makes up the rest)",
                a(total)
            ),
            format!(
                "占用了 {}，超过整张 {} 显卡（超出部分在共享系统内存中）",
                a(used),
                a(total)
            ),
        )
    };
    // Memory held by others that is not the cause, but is not this job's either.
    let (also_en, also_zh) = if listed && held > Bytes::ZERO {
        (
            format!(
                " Other processes also hold {} of the card: stop them to gain that much.",
                a(held)
            ),
            format!("另有其他进程占用了 {}：停止它们可多出这么多显存。", a(held)),
        )
    } else if !listed && held_is_large {
        (
            format!(
                " Also, {} is held outside PyTorch's cache, more than a CUDA context takes: find it with `nvidia-smi`.",
                a(held)
            ),
            format!(
                "此外，PyTorch 缓存之外还占用了 {}，超过 CUDA 上下文所需：请用 `nvidia-smi` 查找。",
                a(held)
            ),
        )
    } else {
        (String::new(), String::new())
    };
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_peak",
        Confidence::Medium,
        Text::new(
            format!(
                "Live tensors hold {}{of_card_en}, and the cache has only {} free, less than the {} this step asks for: the step's peak needs more memory than the card has. A single message cannot show a leak — that needs memory per iteration; if this fails only after many iterations, log `nvidia-smi` to check.{also_en}",
                a(used),
                a(unalloc),
                a(req)
            ),
            format!(
                "存活张量{of_card_zh}，缓存中仅剩 {} 空闲，少于本步申请的 {}：这一步的峰值需求超过了显卡容量。单条信息无法判断泄漏——那需要每次迭代的显存记录；如果是运行很多迭代后才失败，请用 `nvidia-smi` 记录曲线确认。{also_zh}",
                a(unalloc),
                a(req)
            ),
        ),
    );
    if !also_en.is_empty() {
        v.fixes.push("stop_other_processes");
    }
    v.paste = Some(paste_curve());
    v
}

fn summary_evidence(s: &MemorySummary, ev: &mut Vec<Evidence>) {
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

fn from_summary(log: MemorySummaryLog, text: &str) -> Diagnosis {
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

fn classify_summary(
    log: &MemorySummaryLog,
    s: &MemorySummary,
    oom: Option<&PytorchOom>,
    ev: &mut Vec<Evidence>,
) -> Verdict {
    // Several reports: is allocated memory rising from one to the next?
    let allocs: Vec<u64> = log
        .reports
        .iter()
        .filter_map(|r| r.allocated.map(|m| m.current))
        .collect();
    if allocs.len() >= 3 {
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
        if ups >= (allocs.len() - 1) * 2 / 3 && downs <= 1 && grow >= (peak_res / 100).max(32 << 20)
        {
            let per = grow / (allocs.len() as u64 - 1);
            ev.push(Evidence::size(
                "growth_per_report",
                Bytes::new(per),
                format!("+{} per report", a(Bytes::new(per))),
            ));
            return Verdict::new(
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
            );
        }
    }
    let frag = s.fragmentation().unwrap_or(0.0);
    let retries = s.cudamalloc_retries.unwrap_or(0);
    let ooms = s.cuda_ooms.unwrap_or(0);
    let reserved = Bytes::new(s.reserved.map_or(0, |m| m.current));
    let waste = Bytes::from_f64(frag * reserved.get() as f64);
    if let (Some(req), Some(total)) = (
        oom.and_then(|o| o.requested),
        oom.and_then(|o| o.total_capacity),
    ) && req > total
    {
        return Verdict::new(
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
        );
    }
    if frag >= 0.2 && (retries > 0 || ooms > 0) {
        let mut v = Verdict::new(
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
        );
        v.fixes.push("expandable_segments");
        return v;
    }
    if frag >= 0.3 {
        let mut v = Verdict::new(
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
        );
        v.fixes.push("expandable_segments");
        return v;
    }
    let peak = Bytes::new(s.allocated.map_or(0, |m| m.peak));
    let peak_res = Bytes::new(s.reserved.map_or(0, |m| m.peak));
    if retries > 0 || ooms > 0 {
        return Verdict::new(
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
        );
    }
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

/// "after 27 s" / "at sample 72", and the Chinese.
fn at_x(u: XUnit, h: f64) -> (String, String) {
    match u {
        XUnit::Seconds => (format!("after {h:.0} s"), format!("约 {h:.0} 秒后")),
        XUnit::Sample => (format!("at sample {h:.0}"), format!("在第 {h:.0} 个采样处")),
    }
}

fn x_name(u: XUnit) -> (&'static str, &'static str) {
    match u {
        XUnit::Seconds => ("s", "秒"),
        XUnit::Sample => ("sample", "个采样"),
    }
}

/// The processes holding memory on one GPU of an `nvidia-smi` table (its last print), when
/// there are several.
struct Sharing<'a> {
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
fn sharings(log: &SmiLog) -> Vec<Sharing<'_>> {
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
fn process_list(procs: &[&SmiProcess]) -> (String, String) {
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
fn sharing_text(s: &Sharing<'_>, all: &[SmiProcess]) -> (String, String) {
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
const OTHERS_SHARE: f64 = 10.0;

fn from_smi(log: SmiLog) -> Diagnosis {
    let mut ev = Vec::new();
    let source = log.source;
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
    // The process list of the last print: GPUs that several processes share.
    let shared = sharings(&log);
    for sh in &shared {
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
    // The GPU whose other processes hold the largest share of it, when that share matters.
    let main = shared
        .iter()
        .filter(|sh| sh.share().is_some_and(|x| x >= OTHERS_SHARE))
        .max_by(|x, y| {
            x.share()
                .unwrap_or(0.0)
                .total_cmp(&y.share().unwrap_or(0.0))
        });
    let mut explained: Option<u32> = None;
    let leak = log
        .series
        .iter()
        .filter(|s| s.pattern == Pattern::Rising)
        .max_by_key(|s| s.peak);
    let v = if let Some(s) = leak {
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
    } else if log.series.iter().all(|s| s.pattern == Pattern::TooShort)
        && let Some(sh) = main
    {
        // One print, no curve, but its process list shows memory other processes hold.
        explained = Some(sh.gpu);
        let (list_en, list_zh) = sharing_text(sh, &log.processes);
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
    } else if log.series.iter().all(|s| s.pattern == Pattern::TooShort) {
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
    } else {
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
    };
    let mut v = v;
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
    build(source, v, ev, Parsed::NvidiaSmi(log))
}

fn from_tf(t: TensorflowOom, ev: Vec<Evidence>, driver_failures: usize) -> Diagnosis {
    let req = t.requested.or(t.tensor_bytes);
    let mut v = match (req, t.limit, t.in_use) {
        // Only StreamExecutor's failed cuMemAlloc lines: the allocator growing its pool.
        (Some(r), None, _) if driver_failures > 0 => {
            let mut v = Verdict::new(
                Kind::Capacity,
                "capacity_peak",
                Confidence::Low,
                Text::new(
                    format!(
                        "TensorFlow's allocator could not get {} from the driver (cuMemAlloc failed; {} such line(s), the last one read). It retries with 90 % of the size each time and carries on if a smaller pool is enough, so this is fatal only when `OOM when allocating tensor` follows; then the card is full: the job's peak needs more than the card, or another process holds part of it (`nvidia-smi`).",
                        a(r),
                        driver_failures
                    ),
                    format!(
                        "TensorFlow 的分配器未能从驱动获得 {}（cuMemAlloc 失败；共 {} 行，已读取最后一行）。它每次以 90% 的大小重试，较小的内存池够用时会继续运行，因此只有后面出现 `OOM when allocating tensor` 时才是致命的；那时显卡已满：作业峰值超过显卡容量，或有其他进程占用了一部分（`nvidia-smi`）。",
                        a(r),
                        driver_failures
                    ),
                ),
            );
            v.fixes.push("stop_other_processes");
            v.paste = Some(Text::new(
                "Paste the rest of the log: the `OOM when allocating tensor with shape[…]` line and the BFC allocator's statistics (`Limit:`, `InUse:`), if TensorFlow stopped.",
                "如果 TensorFlow 中止了，请粘贴日志的其余部分：`OOM when allocating tensor with shape[…]` 这一行以及 BFC 分配器的统计信息（`Limit:`、`InUse:`）。",
            ));
            v
        }
        (Some(r), Some(l), _) if r > l => Verdict::new(
            Kind::Capacity,
            "capacity_static",
            Confidence::High,
            Text::new(
                format!(
                    "The tensor ({}) is larger than all the memory TensorFlow may use on this GPU ({}).",
                    a(r),
                    a(l)
                ),
                format!(
                    "该张量（{}）超过了 TensorFlow 在此 GPU 上可用的全部显存（{}）。",
                    a(r),
                    a(l)
                ),
            ),
        ),
        (Some(r), Some(l), Some(u)) if l.minus(u) >= r => {
            let mut v = Verdict::new(
                Kind::Fragmentation,
                "fragmentation",
                Confidence::Medium,
                Text::new(
                    format!(
                        "The BFC allocator had {} free in its {} pool — at least the {} requested — but no free chunk that large: the pool is fragmented.",
                        a(l.minus(u)),
                        a(l),
                        a(r)
                    ),
                    format!(
                        "BFC 分配器的 {} 内存池中还有 {} 空闲，不少于申请的 {}，但没有足够大的连续块：内存池碎片化。",
                        a(l),
                        a(l.minus(u)),
                        a(r)
                    ),
                ),
            );
            v.fixes.push("tf_cuda_malloc_async");
            v.fixes.push("pad_shapes");
            v
        }
        (Some(r), _, _) => {
            let mut v = Verdict::new(
                Kind::Capacity,
                "capacity_peak",
                if t.limit.is_some() {
                    Confidence::Medium
                } else {
                    Confidence::Low
                },
                Text::new(
                    format!(
                        "TensorFlow could not fit a {} tensor: the model's live tensors fill the GPU at this step. Shrink the step (batch, input size) or the model's precision.",
                        a(r)
                    ),
                    format!(
                        "TensorFlow 放不下一个 {} 的张量：这一步的存活张量已占满 GPU。请缩小单步（batch、输入尺寸）或降低模型精度。",
                        a(r)
                    ),
                ),
            );
            if t.limit.is_none() {
                v.paste = Some(Text::new(
                    "Paste the BFC allocator's statistics from the log too (`Limit:`, `InUse:`, `MaxInUse:`) to tell capacity from fragmentation.",
                    "请一并粘贴日志中 BFC 分配器的统计信息（`Limit:`、`InUse:`、`MaxInUse:`），以区分容量型与碎片型。",
                ));
            }
            v
        }
        (None, _, _) => {
            let mut v = Verdict::new(
                Kind::Capacity,
                "capacity_peak",
                Confidence::Low,
                Text::new(
                    "TensorFlow ran out of GPU memory; the text does not say how much was requested.",
                    "TensorFlow 显存不足；文本中没有申请量。",
                ),
            );
            v.paste = Some(Text::new(
                "Paste the line `OOM when allocating tensor with shape[…] and type …` and the BFC allocator's statistics.",
                "请粘贴 `OOM when allocating tensor with shape[…] and type …` 这一行以及 BFC 分配器的统计信息。",
            ));
            v
        }
    };
    v.fixes.insert(0, "tf_memory_growth");
    build(InputFormat::TensorflowOom, v, ev, Parsed::TensorflowOom(t))
}

fn from_jax(j: JaxOom, ev: Vec<Evidence>) -> Diagnosis {
    let req = j.requested.map_or(String::new(), |r| format!(" {}", a(r)));
    let plan_en = j.total_allocation.map_or(String::new(), |t| {
        format!(" XLA planned {} for this program.", a(t))
    });
    let plan_zh = j
        .total_allocation
        .map_or(String::new(), |t| format!("XLA 为该程序规划了 {}。", a(t)));
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_peak",
        if j.requested.is_some() {
            Confidence::Medium
        } else {
            Confidence::Low
        },
        Text::new(
            format!(
                "XLA could not allocate{req}.{plan_en} By default JAX preallocates 75 % of the GPU and must fit everything in it; XLA plans buffers at compile time, so this is the program's peak, not a leak."
            ),
            format!(
                "XLA 无法分配{req}。{plan_zh}JAX 默认预分配 GPU 的 75%，所有数据都要放进这部分；XLA 在编译时规划缓冲区，因此这是程序的峰值需求，而非泄漏。"
            ),
        ),
    );
    v.fixes.insert(0, "jax_mem_fraction");
    build(InputFormat::JaxOom, v, ev, Parsed::JaxOom(j))
}

fn tokens(n: u64) -> String {
    format!("{n}")
}

fn from_vllm(x: VllmError, ev: Vec<Evidence>) -> Diagnosis {
    let (en, zh, fixes): (String, String, &[&'static str]) = match x.kind {
        VllmErrorKind::MaxSeqLenOverKvTokens => {
            let (m, k) = (
                x.max_model_len.map_or(String::from("?"), tokens),
                x.kv_cache_tokens.map_or(String::from("?"), tokens),
            );
            (
                format!(
                    "The model's max_model_len ({m} tokens) is longer than the KV cache can hold ({k} tokens): one full-length request would not fit. Set `--max-model-len {k}` or less, or free memory for the KV pool."
                ),
                format!(
                    "模型的 max_model_len（{m} tokens）超过了 KV cache 能容纳的长度（{k} tokens）：一个满长度请求都放不下。请设置 `--max-model-len {k}` 或更小，或为 KV 池腾出显存。"
                ),
                &[
                    "vllm_max_model_len",
                    "vllm_gpu_memory_utilization",
                    "vllm_kv_fp8",
                    "vllm_tensor_parallel",
                ],
            )
        }
        VllmErrorKind::KvCacheTooSmall => {
            let need = x.kv_needed.map_or(String::from("?"), a);
            let have = x.kv_available.map_or(String::from("?"), a);
            let m = x.max_model_len.map_or(String::from("?"), tokens);
            let est_en = x.estimated_max_model_len.map_or(String::new(), |e| {
                format!(" vLLM estimates that {e} tokens would fit: `--max-model-len {e}`.")
            });
            let est_zh = x.estimated_max_model_len.map_or(String::new(), |e| {
                format!("vLLM 估计可容纳 {e} tokens：`--max-model-len {e}`。")
            });
            (
                format!(
                    "One request at max_model_len ({m} tokens) needs {need} of KV cache, but only {have} is left for it after the weights and activations.{est_en}"
                ),
                format!(
                    "一个 max_model_len（{m} tokens）的请求需要 {need} 的 KV cache，但除去权重和激活后只剩 {have}。{est_zh}"
                ),
                &[
                    "vllm_max_model_len",
                    "vllm_kv_fp8",
                    "vllm_gpu_memory_utilization",
                    "vllm_tensor_parallel",
                ],
            )
        }
        VllmErrorKind::FreeMemoryBelowUtilization => {
            let free = x.free_on_startup.map_or(String::from("?"), a);
            let total = x.total.map_or(String::from("?"), a);
            let u = x
                .gpu_memory_utilization
                .map_or(String::from("?"), |u| format!("{u}"));
            let want = x.utilization_bytes.map_or(String::from("?"), a);
            (
                format!(
                    "Only {free} of {total} is free at start-up, but gpu_memory_utilization {u} asks vLLM to take {want}: another process (or a previous vLLM instance) holds the rest. Stop it, or lower `--gpu-memory-utilization` below the free share."
                ),
                format!(
                    "启动时 {total} 中只有 {free} 空闲，而 gpu_memory_utilization {u} 要求 vLLM 占用 {want}：其余显存被其他进程（或之前的 vLLM 实例）占用。请停止该进程，或把 `--gpu-memory-utilization` 调低到空闲比例以下。"
                ),
                &["stop_other_processes", "vllm_gpu_memory_utilization"],
            )
        }
        VllmErrorKind::NoCacheBlocks => (
            String::from(
                "After loading the weights and profiling one forward pass, nothing of the gpu_memory_utilization budget is left for the KV cache: the weights (plus activations) already fill it. Raise the budget if the card has room, or shrink the weights (quantization, tensor parallel).",
            ),
            String::from(
                "加载权重并剖析一次前向计算后，gpu_memory_utilization 预算中已没有留给 KV cache 的空间：权重（加上激活）已将其占满。若显卡仍有余量可提高预算，否则需缩小权重（量化、张量并行）。",
            ),
            &[
                "vllm_gpu_memory_utilization",
                "vllm_max_num_seqs",
                "quantization",
                "vllm_tensor_parallel",
            ],
        ),
    };
    let mut v = Verdict::new(
        Kind::Capacity,
        "capacity_static",
        Confidence::High,
        Text::new(en, zh),
    );
    v.fixes.extend_from_slice(fixes);
    build(InputFormat::VllmError, v, ev, Parsed::VllmError(x))
}

fn from_llamacpp(l: LlamaCppError, ev: Vec<Evidence>) -> Diagnosis {
    let req = l
        .requested
        .map_or(String::new(), |r| format!(" ({})", a(r)));
    let (leaf_id, conf, en, zh, fixes): (
        &'static str,
        Confidence,
        String,
        String,
        &[&'static str],
    ) = match l.stage {
        LlamaCppStage::Weights => (
            "capacity_static",
            Confidence::High,
            format!(
                "The weights of the offloaded layers{req} do not fit on the GPU. Offload fewer layers (`-ngl`), the rest runs on the CPU, or use a smaller quant."
            ),
            format!(
                "卸载到 GPU 的层的权重{req}放不下。请减少卸载层数（`-ngl`），其余层在 CPU 上运行，或使用更小的量化版本。"
            ),
            &["llamacpp_ngl", "quantization", "llamacpp_ctx"],
        ),
        LlamaCppStage::KvCache => (
            "capacity_static",
            Confidence::High,
            format!(
                "The KV cache{req} does not fit next to the weights: it grows with the context (`-c`). Use a smaller context or a quantized KV cache."
            ),
            format!(
                "KV cache{req}与权重放不到一起：它随上下文长度（`-c`）增长。请减小上下文或量化 KV cache。"
            ),
            &["llamacpp_ctx", "llamacpp_kv_quant", "llamacpp_ngl"],
        ),
        LlamaCppStage::Compute => (
            "capacity_static",
            Confidence::High,
            format!(
                "The compute buffers{req} do not fit after the weights and KV cache. They grow with the batch sizes (`-b`, `-ub`) and the context."
            ),
            format!(
                "在权重和 KV cache 之后，计算缓冲区{req}放不下。它随批大小（`-b`、`-ub`）和上下文增长。"
            ),
            &["llamacpp_batch", "llamacpp_ctx", "llamacpp_ngl"],
        ),
        LlamaCppStage::HostPinned => return from_llamacpp_pinned(l, ev),
        LlamaCppStage::Unknown => (
            "capacity_static",
            Confidence::Medium,
            format!(
                "A GPU buffer{req} could not be allocated while loading. Reduce what is placed on the GPU: layers (`-ngl`), context (`-c`), batch (`-ub`)."
            ),
            format!(
                "加载时无法分配 GPU 缓冲区{req}。请减少放在 GPU 上的内容：层数（`-ngl`）、上下文（`-c`）、批大小（`-ub`）。"
            ),
            &["llamacpp_ngl", "llamacpp_ctx", "llamacpp_batch"],
        ),
    };
    let mut v = Verdict::new(Kind::Capacity, leaf_id, conf, Text::new(en, zh));
    v.fixes.extend_from_slice(fixes);
    build(InputFormat::LlamacppError, v, ev, Parsed::LlamacppError(l))
}

/// llama.cpp's `ggml_cuda_host_malloc: failed to allocate … MiB of pinned memory` with no GPU
/// failure in the log: `cudaMallocHost` (page-locked system RAM, for faster copies) failed, and
/// llama.cpp went on with an ordinary CPU buffer (ggml-cuda logs it and returns no buffer; the
/// caller falls back). Nothing ran out of GPU memory, so there is no GPU verdict.
fn from_llamacpp_pinned(l: LlamaCppError, ev: Vec<Evidence>) -> Diagnosis {
    let size = l.requested.map_or(String::new(), |r| format!(" {}", a(r)));
    let (went_on_en, went_on_zh) = match (l.layers_offloaded, l.kv_buffer) {
        (Some((n, m)), Some(kv)) => (
            format!(
                " The log goes on: {n}/{m} layers were offloaded to the GPU and the {} KV buffer was allocated there.",
                a(kv)
            ),
            format!(
                "日志随后显示：{n}/{m} 层已卸载到 GPU，{} 的 KV 缓冲区也已在 GPU 上分配。",
                a(kv)
            ),
        ),
        (Some((n, m)), None) => (
            format!(" The log goes on: {n}/{m} layers were offloaded to the GPU."),
            format!("日志随后显示：{n}/{m} 层已卸载到 GPU。"),
        ),
        _ => (String::new(), String::new()),
    };
    let mut v = Verdict::new(
        Kind::Unknown,
        "host_memory",
        Confidence::Low,
        Text::new(
            format!(
                "Not a GPU out-of-memory error: llama.cpp could not get{size} of pinned (page-locked) system RAM, a warning it recovers from by using an ordinary CPU buffer instead (only host-to-GPU copies are slower).{went_on_en} Free system RAM, or set `GGML_CUDA_NO_PINNED=1` to skip pinning and the warning."
            ),
            format!(
                "这不是显存不足错误：llama.cpp 未能申请到{size}的锁页（page-locked）系统内存。这只是警告，llama.cpp 会改用普通 CPU 缓冲区继续运行（仅主机到 GPU 的拷贝变慢）。{went_on_zh}可释放系统内存，或设置 `GGML_CUDA_NO_PINNED=1` 跳过锁页并消除该警告。"
            ),
        ),
    );
    v.paste = Some(Text::new(
        "If llama.cpp did stop, paste the log up to its last line: the error it stopped on (`failed to allocate CUDA0 buffer`, `failed to create context`, …) tells what ran out.",
        "如果 llama.cpp 确实中止了，请粘贴直到最后一行的日志：导致中止的错误（`failed to allocate CUDA0 buffer`、`failed to create context` 等）说明了是什么不足。",
    ));
    build(InputFormat::LlamacppError, v, ev, Parsed::LlamacppError(l))
}

fn unknown(text: &str) -> Diagnosis {
    let t = text.trim();
    let oomish = t.contains("out of memory") || t.contains("Out of memory") || t.contains("OOM");
    let en = if t.is_empty() {
        String::from("Nothing was pasted.")
    } else if oomish {
        String::from(
            "This mentions running out of memory, but not in a form vramfit reads (no request size, no allocator numbers, no memory curve), so the kind cannot be told.",
        )
    } else {
        String::from("This is not a format vramfit recognises.")
    };
    let zh = if t.is_empty() {
        String::from("没有粘贴任何内容。")
    } else if oomish {
        String::from(
            "这段文字提到了显存不足，但不是 vramfit 能读取的形式（没有申请量、分配器数字或显存曲线），无法判断类型。",
        )
    } else {
        String::from("无法识别这段文字的格式。")
    };
    let mut v = Verdict::new(
        Kind::Unknown,
        "capacity_peak",
        Confidence::Low,
        Text::new(en, zh),
    );
    v.paste = Some(Text::new(
        "Paste one of: the whole `CUDA out of memory …` message (PyTorch), `torch.cuda.memory_summary()` output, an `nvidia-smi` log (`nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv -l 1`, or repeated `nvidia-smi` tables), a TensorFlow `OOM when allocating tensor …` / JAX `RESOURCE_EXHAUSTED` error, a vLLM start-up `ValueError`, or llama.cpp's load log.",
        "请粘贴以下之一：完整的 `CUDA out of memory …` 信息（PyTorch）、`torch.cuda.memory_summary()` 输出、`nvidia-smi` 日志（`nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv -l 1`，或多次打印的 `nvidia-smi` 表格）、TensorFlow 的 `OOM when allocating tensor …` / JAX 的 `RESOURCE_EXHAUSTED` 错误、vLLM 启动时的 `ValueError`，或 llama.cpp 的加载日志。",
    ));
    build(InputFormat::Unknown, v, Vec::new(), Parsed::None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text pasted from a Markdown quote (`> ` before every line, as GitHub shows a pasted log)
    /// reads as the text itself: an nvidia-smi table's rows and a memory summary's lines.
    #[test]
    fn a_quoted_paste_reads_as_the_text() {
        for text in [
            include_str!(
                "../../../../tests/corpus/diagnose/smi-table-notebook-kernel-holds-10gib.txt"
            ),
            include_str!(
                "../../../../tests/corpus/diagnose/summary-2.x-fragmented-with-retries.txt"
            ),
            "RuntimeError: CUDA out of memory. Tried to allocate 60.00 MiB (GPU 0; 11.17 GiB total \
             capacity; 505.96 MiB already allocated; 12.50 MiB free; 530.00 MiB reserved in total \
             by PyTorch)",
        ] {
            let plain = diagnose(text);
            let quoted: String = text.lines().map(|l| alloc::format!("> {l}\n")).collect();
            let nested: String = text.lines().map(|l| alloc::format!("> > {l}\n")).collect();
            for q in [quoted, nested] {
                let d = diagnose(&q);
                assert_eq!(
                    (d.kind, d.input, d.leaf.clone()),
                    (plain.kind, plain.input, plain.leaf.clone())
                );
                assert_eq!(d.evidence, plain.evidence);
                assert_eq!(detect(&q), plain.input);
            }
            assert_ne!(plain.input, InputFormat::Unknown);
        }
        // A text with one quoted line among many is left as it is.
        assert!(matches!(
            super::unquote("a\nb\n> c\nd\n"),
            alloc::borrow::Cow::Borrowed(_)
        ));
    }

    fn bytes(d: &Diagnosis, name: &str) -> Option<u64> {
        d.evidence
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| e.bytes)
            .map(Bytes::get)
    }

    /// One `nvidia-smi` print (driver 535 layout): GPUs as (index, used MiB, total MiB),
    /// processes as (gpu, pid, name, memory as printed).
    fn smi_table(gpus: &[(u32, u64, u64)], procs: &[(u32, u64, &str, &str)]) -> String {
        let mut t = String::from(
            "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n",
        );
        for (i, used, total) in gpus {
            t.push_str(&format!(
                "|   {i}  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0 Off |                  Off |\n| 30%   52C    P2             281W / 450W |  {used}MiB / {total}MiB |     97%      Default |\n"
            ));
        }
        t.push_str("| Processes:                                                                            |\n");
        for (g, pid, name, mem) in procs {
            t.push_str(&format!(
                "|    {g}   N/A  N/A     {pid}      C   {name}                          {mem} |\n"
            ));
        }
        t
    }

    /// The brief's case: a stale notebook kernel keeps 10 GiB of a nearly full 24 GB card.
    #[test]
    fn another_process_holding_a_full_card_is_named_first() {
        let d = diagnose(&smi_table(
            &[(0, 24010, 24564)],
            &[
                (0, 48812, "python", "13700MiB"),
                (0, 3121, "/opt/conda/bin/python", "10240MiB"),
            ],
        ));
        assert_eq!(d.input, InputFormat::NvidiaSmiTable);
        assert_eq!(d.kind, Kind::Capacity);
        assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
        assert_eq!(d.confidence, Confidence::Medium);
        assert_eq!(d.fixes[0].id, "stop_other_processes");
        assert!(d.what_to_paste_instead.is_none());
        assert_eq!(bytes(&d, "other_processes"), Some(10240 << 20));
        assert_eq!(bytes(&d, "process_memory"), Some(13700 << 20));
        let en = &d.explanation.en;
        for part in [
            "PID 48812 (python) 13.38 GiB",
            "PID 3121 (/opt/conda/bin/python) 10.00 GiB",
            "Besides the largest (PID 48812), the others hold 10.00 GiB (42 % of the 23.99 GiB card)",
            "nearly full",
        ] {
            assert!(en.contains(part), "{part}: {en}");
        }
        let zh = &d.explanation.zh;
        assert!(
            zh.contains("PID 3121") && zh.contains("10.00 GiB") && zh.contains("42%"),
            "{zh}"
        );
        assert!(d.notes.is_empty());
    }

    /// One process holding the card: the verdict of a single print, unchanged.
    #[test]
    fn one_process_keeps_the_single_print_verdict() {
        let d = diagnose(&smi_table(
            &[(0, 23400, 24564)],
            &[(0, 42420, "python", "22900MiB")],
        ));
        assert_eq!(d.kind, Kind::Unknown);
        assert_eq!(d.confidence, Confidence::Low);
        assert!(d.fixes.iter().all(|f| f.id != "stop_other_processes"));
        assert!(d.notes.is_empty());
        assert_eq!(bytes(&d, "other_processes"), None);
    }

    /// A desktop's Xorg and shell beside the job (under 10 % of the card): named in a note,
    /// the verdict and the fixes unchanged.
    #[test]
    fn small_other_processes_are_only_noted() {
        let d = diagnose(&smi_table(
            &[(0, 23400, 24564)],
            &[
                (0, 1842, "/usr/lib/xorg/Xorg", "215MiB"),
                (0, 2101, "/usr/bin/gnome-shell", "48MiB"),
                (0, 42420, "python", "22900MiB"),
                (0, 5555, "idle", "0MiB"),
            ],
        ));
        assert_eq!(d.kind, Kind::Unknown);
        assert!(d.fixes.iter().all(|f| f.id != "stop_other_processes"));
        assert_eq!(bytes(&d, "other_processes"), Some(263 << 20));
        assert_eq!(d.notes.len(), 1);
        let n = &d.notes[0];
        assert!(n.en.contains("GPU 0: 3 processes hold memory"), "{}", n.en);
        assert!(n.en.contains("Too little"), "{}", n.en);
        assert!(
            !n.en.contains("5555"),
            "0 MiB is not holding memory: {}",
            n.en
        );
        assert!(
            n.zh.contains("PID 1842") && n.zh.contains("不足以"),
            "{}",
            n.zh
        );
    }

    /// `N/A` memory: the others hold at least what is printed; all `N/A`, nothing is computed.
    #[test]
    fn na_memory_gives_a_lower_bound_or_nothing() {
        let d = diagnose(&smi_table(
            &[(0, 24010, 24564)],
            &[
                (0, 1, "python", "13700MiB"),
                (0, 2, "python", "8000MiB"),
                (0, 3, "python", "N/A"),
            ],
        ));
        assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
        assert_eq!(d.fixes[0].id, "stop_other_processes");
        assert_eq!(bytes(&d, "other_processes"), Some(8000 << 20));
        assert!(
            d.explanation
                .en
                .contains("the others hold at least 7.81 GiB"),
            "{}",
            d.explanation.en
        );
        assert!(d.explanation.en.contains("PID 3 (python) N/A"));
        assert!(d.explanation.zh.contains("至少"));

        let d = diagnose(&smi_table(
            &[(0, 24010, 24564)],
            &[(0, 1, "python", "N/A"), (0, 2, "python", "N/A")],
        ));
        assert_eq!(d.kind, Kind::Unknown);
        assert_eq!(bytes(&d, "other_processes"), None);
        assert!(d.fixes.iter().all(|f| f.id != "stop_other_processes"));
        assert_eq!(d.notes.len(), 1);
        assert!(d.notes[0].en.contains("N/A"), "{}", d.notes[0].en);
    }

    /// Several GPUs: the verdict is about the GPU whose others hold the largest share; other
    /// shared GPUs get notes; ranks also on other GPUs are named as such.
    #[test]
    fn several_gpus_pick_the_largest_share() {
        let d = diagnose(&smi_table(
            &[(0, 30000, 81559), (1, 80000, 81559), (2, 12000, 81559)],
            &[
                (0, 10, "python", "20000MiB"),
                (0, 11, "python", "9500MiB"),
                (1, 20, "python", "50000MiB"),
                (1, 21, "jupyter", "29500MiB"),
                (2, 11, "python", "11500MiB"),
            ],
        ));
        assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
        assert_eq!(d.confidence, Confidence::Medium);
        assert!(
            d.explanation.en.starts_with("GPU 1: 2 processes"),
            "{}",
            d.explanation.en
        );
        assert_eq!(bytes(&d, "other_processes"), Some(9500 << 20));
        assert_eq!(d.notes.len(), 1);
        assert!(d.notes[0].en.starts_with("GPU 0:"), "{}", d.notes[0].en);
        assert!(
            d.notes[0]
                .en
                .contains("(PID 11) also hold memory on other GPUs"),
            "{}",
            d.notes[0].en
        );
        assert!(d.notes[0].zh.contains("rank"), "{}", d.notes[0].zh);
    }

    /// A curve keeps its verdict; the last print's other processes are noted.
    #[test]
    fn a_curve_keeps_its_verdict_with_a_note() {
        let mut log = String::new();
        for i in 0..8u64 {
            log.push_str(&smi_table(
                &[(0, 10000 + 1000 * i, 81559)],
                &[(0, 1, "python", "9000MiB"), (0, 2, "python", "20000MiB")],
            ));
        }
        let d = diagnose(&log);
        assert_eq!(d.kind, Kind::Leak);
        assert_eq!(d.fixes[0].id, "free_graph_refs");
        assert_eq!(d.notes.len(), 1);
        assert!(
            d.notes[0].en.contains("the others hold 8.79 GiB"),
            "{}",
            d.notes[0].en
        );
    }

    /// 2.1 and later, another process listed: this process needs 11.91 + 1.95 GiB of a
    /// 23.65 GiB card, so it is the 10 GiB of process 1111, not the job's peak.
    #[test]
    fn a_listed_process_holding_the_card_is_the_cause() {
        let d = diagnose(
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.20 GiB is free. Process 1111 has 10.00 GiB memory in use. Process 2222 has 12.43 GiB memory in use. Including non-PyTorch memory, this process has 12.43 GiB memory in use. Of the allocated memory 11.50 GiB is allocated by PyTorch, and 420.00 MiB is reserved by PyTorch but unallocated.",
        );
        assert_eq!(d.kind, Kind::Capacity);
        assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
        assert_eq!(d.confidence, Confidence::High);
        assert_eq!(d.fixes[0].id, "stop_other_processes");
        assert_eq!(bytes(&d, "other_processes"), Some(10 << 30));
        // 23.65 GiB − (11.50 GiB + 420 MiB) − 1.20 GiB, each rounded to the byte.
        assert_eq!(
            bytes(&d, "outside_pytorch"),
            Some(25_393_994_138 - (12_348_030_976 + 440_401_920) - 1_288_490_189)
        );
        assert!(
            d.explanation.en.contains("13.86 GiB in all"),
            "{}",
            d.explanation.en
        );
    }

    /// Small stray contexts of other ranks (4 × 414 MiB on a 39.49 GiB card) are not the
    /// cause: the verdict stays the peak, but freeing them is offered.
    #[test]
    fn small_other_processes_keep_the_peak_verdict() {
        let d = diagnose(
            "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 572.00 MiB. GPU 0 has a total capacity of 39.49 GiB of which 321.31 MiB is free. Process 3721648 has 414.00 MiB memory in use. Including non-PyTorch memory, this process has 37.46 GiB memory in use. Process 1374765 has 414.00 MiB memory in use. Process 1374763 has 414.00 MiB memory in use. Process 1374764 has 414.00 MiB memory in use. Of the allocated memory 36.04 GiB is allocated by PyTorch, and 321.37 MiB is reserved by PyTorch but unallocated.",
        );
        assert_eq!(d.leaf.as_deref(), Some("capacity_peak"));
        assert_eq!(d.confidence, Confidence::Medium);
        assert_eq!(bytes(&d, "other_processes"), Some((4 * 414) << 20));
        assert!(d.fixes.iter().any(|f| f.id == "stop_other_processes"));
        assert!(
            d.explanation
                .en
                .contains("Other processes also hold 1.62 GiB")
        );
    }

    /// Nothing in PyTorch's cache and 7.78 GiB of a 7.79 GiB card held elsewhere: the request of
    /// 1 MiB fails because of that memory.
    #[test]
    fn an_empty_cache_on_a_full_card() {
        let d = diagnose(
            "RuntimeError: CUDA out of memory. Tried to allocate 1024.00 KiB (GPU 0; 7.79 GiB total capacity; 0 bytes already allocated; 5.44 MiB free; 0 bytes reserved in total by PyTorch)",
        );
        assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
        assert_eq!(d.fixes[0].id, "stop_other_processes");
        assert_eq!(
            bytes(&d, "outside_pytorch"),
            Some(8_364_448_809 - 5_704_253)
        );
    }

    /// A request past 1 PiB is refused and named, not dropped as "cut".
    #[test]
    fn an_overflowing_request_is_named() {
        let d = diagnose(
            "RuntimeError: CUDA out of memory. Tried to allocate 99999999999999999999.00 GiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.44 MiB free; 14.71 GiB reserved in total by PyTorch)",
        );
        assert_eq!(d.confidence, Confidence::Low);
        assert_eq!(bytes(&d, "requested"), None);
        assert_eq!(bytes(&d, "total_capacity"), Some(16_943_645_983));
        assert!(
            d.explanation
                .en
                .contains("`99999999999999999999.00 GiB` is not a size")
        );
        assert!(!d.explanation.en.contains("cut"));
        assert!(
            d.notes
                .iter()
                .any(|n| n.en.contains("99999999999999999999.00 GiB")
                    && n.zh.contains("99999999999999999999.00 GiB"))
        );
        assert!(d.what_to_paste_instead.is_some());
    }

    /// `1e300 GiB` is not 300 GiB, `1e30 GiB` not a capacity.
    #[test]
    fn exponents_are_refused_whole() {
        let d = diagnose(
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 1e30 GiB of which 1.05 GiB is free. Of the allocated memory 1e300 GiB is allocated by PyTorch, and 1.60 GiB is reserved by PyTorch but unallocated.",
        );
        assert_eq!(bytes(&d, "allocated"), None);
        assert_eq!(bytes(&d, "total_capacity"), None);
        assert_eq!(bytes(&d, "requested"), Some(2 << 30));
        assert_eq!(d.confidence, Confidence::Low);
        assert!(
            d.explanation
                .en
                .contains("`1e30 GiB` and `1e300 GiB` are not sizes")
        );
        assert!(!d.explanation.en.contains('%'));
    }

    /// Allocated above reserved (and above the card) cannot be: no percentage over 100, no
    /// derived 0 B, no kind.
    #[test]
    fn allocated_above_reserved_is_a_contradiction() {
        let d = diagnose(
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 20.56 GiB already allocated; 3.44 MiB free; 14.71 GiB reserved in total by PyTorch)",
        );
        assert_eq!(d.kind, Kind::Unknown);
        assert!(
            d.explanation
                .en
                .contains("20.56 GiB allocated is more than 14.71 GiB reserved")
        );
        assert!(d.explanation.zh.contains("20.56 GiB"));
        assert_eq!(bytes(&d, "reserved_unallocated"), None);
        assert!(!d.explanation.en.contains('%'));
        assert!(
            d.notes
                .iter()
                .all(|n| !n.en.contains("shared system memory"))
        );
        assert!(d.what_to_paste_instead.is_some());

        let zero = diagnose(
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 0 bytes total capacity; 0 bytes already allocated; 0 bytes free; 0 bytes reserved in total by PyTorch)",
        );
        assert_eq!(zero.kind, Kind::Unknown);
        assert!(zero.explanation.en.contains("0 B"));
    }

    /// A WSL-shaped message (allocated above the card, below reserved) is not a contradiction.
    #[test]
    fn wsl_allocated_above_the_card_is_not_a_contradiction() {
        let d = diagnose(
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB (GPU 0; 8.00 GiB total capacity; 17.20 GiB already allocated; 0 bytes free; 19.15 GiB reserved in total by PyTorch)",
        );
        assert_eq!(d.leaf.as_deref(), Some("capacity_peak"));
        assert!(
            d.notes
                .iter()
                .any(|n| n.en.contains("shared system memory"))
        );
        // No share of the card above 100 %.
        assert!(
            d.explanation
                .en
                .contains("Live tensors hold 17.20 GiB, more than the whole 8.00 GiB card"),
            "{}",
            d.explanation.en
        );
        assert!(!d.explanation.en.contains(" %)"));
    }

    /// A GPU failure after a pinned-memory warning: the GPU buffer's size is the request.
    #[test]
    fn a_pinned_warning_does_not_hide_a_gpu_failure() {
        let d = diagnose(
            "ggml_cuda_host_malloc: failed to allocate 1024.00 MiB of pinned memory: out of memory\nalloc_tensor_range: failed to allocate CUDA0 buffer of size 10345253120\nllama_model_load: error loading model: unable to allocate CUDA0 buffer",
        );
        assert_eq!(d.kind, Kind::Capacity);
        assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
        assert_eq!(bytes(&d, "requested"), Some(10_345_253_120));
    }

    /// The newer spelling of XLA's allocator message.
    #[test]
    fn xla_resource_exhausted_request() {
        let d = diagnose(
            "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.00GiB (2147483648B) on device ordinal 0",
        );
        assert_eq!(d.input, InputFormat::JaxOom);
        assert_eq!(d.leaf.as_deref(), Some("capacity_peak"));
        assert_eq!(bytes(&d, "requested"), Some(2_147_483_648));
        // A byte count past 1 PiB is refused.
        let d = diagnose(
            "RESOURCE_EXHAUSTED: Failed to allocate request for 8.00EiB (9223372036854775807B) on device ordinal 0",
        );
        assert_eq!(d.input, InputFormat::JaxOom);
        assert_eq!(bytes(&d, "requested"), None);
        assert_eq!(d.confidence, Confidence::Low);
    }
}
