//! A PyTorch `CUDA out of memory` error: capacity, fragmentation or a leak, from the numbers it
//! prints (and what it leaves out).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Verdict, a, build, join_en, paste_curve, pct};
use crate::diagnose::pytorch::{PytorchOom, PytorchOomStyle, Unread};
use crate::diagnose::{Confidence, Diagnosis, Evidence, InputFormat, Kind, Parsed, Text};
use crate::units::Bytes;

pub(super) fn from_pytorch(p: PytorchOom, mut ev: Vec<Evidence>, unread: Vec<Unread>) -> Diagnosis {
    let mut v = classify_pytorch(&p, &mut ev, &unread);
    for u in &unread {
        let (en, zh) = crate::diagnose::evidence_label(u.field).unwrap_or((u.field, u.field));
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
pub(super) const CONTEXT_ALLOWANCE: Bytes = Bytes::gib(2);

/// The phrase naming a field of the message that is missing, in English and Chinese.
pub(super) fn missing_phrase(field: &str) -> (&'static str, &'static str) {
    match field {
        "requested" => ("the request", "申请量"),
        "total_capacity" => ("the total capacity", "总容量"),
        "allocated" => ("the memory allocated by PyTorch", "PyTorch 已分配的显存"),
        _ => ("the memory reserved by PyTorch", "PyTorch 已保留的显存"),
    }
}

/// A message without all the numbers the rules need: cut, or with sizes that could not be read.
/// Nothing missing is taken as 0.
pub(super) fn pytorch_missing(p: &PytorchOom, unread: &[Unread]) -> Verdict {
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

/// Numbers that cannot all be true of one card at one moment, in English and Chinese.
pub(super) fn pytorch_contradiction(p: &PytorchOom) -> Option<(String, String)> {
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

/// The numbers every rule past the first checks needs: the request, the card, and what
/// PyTorch's cache holds.
struct CacheNumbers {
    /// The failing request.
    req: Bytes,
    /// The card's total capacity.
    total: Bytes,
    /// What live tensors hold.
    allocated: Bytes,
    /// What PyTorch's cache holds in all.
    reserved: Bytes,
    /// What the cache holds that no tensor uses: as printed, or reserved less allocated.
    unalloc: Bytes,
    /// The driver's free memory, 0 when the message does not say.
    free: Bytes,
}

/// Memory on the card held outside PyTorch's cache, and how much of it points elsewhere.
struct Outside {
    /// The message lists the processes on the card (PyTorch 2.1 and later).
    listed: bool,
    /// What is held outside the cache: by the listed processes, or all of it without a list.
    held: Bytes,
    /// The part of `held` that is more than a CUDA context needs.
    excess: Bytes,
    /// `excess` is positive and `held` is at least a tenth of the card.
    held_is_large: bool,
}

/// Decides the kind of a PyTorch OOM from its numbers, adding the evidence it computes on the
/// way (memory outside the cache, the fragmentation ratio) to `ev`. The rules run in order; the
/// first that applies decides.
pub(super) fn classify_pytorch(
    p: &PytorchOom,
    ev: &mut Vec<Evidence>,
    unread: &[Unread],
) -> Verdict {
    if p.style == Some(PytorchOomStyle::NoNumbers) && unread.is_empty() {
        return no_numbers();
    }
    if let Some((en, zh)) = pytorch_contradiction(p) {
        return contradiction(&en, &zh);
    }
    let (Some(req), Some(total)) = (p.requested, p.total_capacity) else {
        return pytorch_missing(p, unread);
    };
    let others = p.other_processes.unwrap_or(Bytes::ZERO);
    if let Some(v) = request_exceeds_card(req, total, others) {
        return v;
    }
    // The rules below need what PyTorch holds; a message cut before it, or with it unreadable,
    // says no more than that memory ran out.
    let (Some(allocated), Some(reserved)) = (p.allocated, p.reserved) else {
        return pytorch_missing(p, unread);
    };
    let n = CacheNumbers {
        req,
        total,
        allocated,
        reserved,
        unalloc: p
            .reserved_unallocated
            .unwrap_or_else(|| reserved.minus(allocated)),
        free: p.free.unwrap_or(Bytes::ZERO),
    };
    let outside = outside_cache(p, &n, ev);
    if let Some(v) = held_elsewhere(&n, &outside) {
        return v;
    }
    if let Some(v) = fragmented_cache(&n, ev) {
        return v;
    }
    if let Some(v) = fragmented_below_cache(p.free, req) {
        return v;
    }
    peak(&n, &outside)
}

/// The verdict on a CUDA OOM that prints none of the allocator's numbers: memory is full, and
/// nothing more can be said.
fn no_numbers() -> Verdict {
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
    v
}

/// The verdict on numbers that contradict each other (`en`/`zh` say how): no kind is given from
/// an edited or pieced-together message.
fn contradiction(en: &str, zh: &str) -> Verdict {
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
    v
}

/// The verdict when the request cannot fit whatever PyTorch does: larger than the card, or than
/// what other processes leave of it. `None` when it could fit.
fn request_exceeds_card(req: Bytes, total: Bytes, others: Bytes) -> Option<Verdict> {
    if req > total {
        return Some(Verdict::new(
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
        ));
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
        return Some(v);
    }
    None
}

/// Memory on the card outside PyTorch's cache and who holds it, adding `outside_pytorch` to
/// `ev` when the driver's free memory lets it be computed.
fn outside_cache(p: &PytorchOom, n: &CacheNumbers, ev: &mut Vec<Evidence>) -> Outside {
    let (total, reserved) = (n.total, n.reserved);
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
    let others = p.other_processes.unwrap_or(Bytes::ZERO);
    let listed = !p.processes.is_empty() || p.this_process.is_some();
    let (held, excess) = if listed {
        let o = outside.map_or(others, |out| others.min(out));
        (o, o)
    } else {
        let o = outside.unwrap_or(Bytes::ZERO);
        (o, o.minus(CONTEXT_ALLOWANCE))
    };
    Outside {
        listed,
        held,
        excess,
        held_is_large: excess > Bytes::ZERO && held.get() >= total.get() / 10,
    }
}

/// The driver's `free` memory is enough for `req` with the margin of the below-the-cache rule
/// (segment rounding, the driver's own needs).
fn driver_had_room(free: Bytes, req: Bytes) -> bool {
    free >= Bytes::from_f64(req.get() as f64 * 1.2).plus(Bytes::mib(256))
}

/// The verdict when memory held outside the cache is the cause: it is large, the driver had no
/// room, and the request fits once it is freed. `None` otherwise.
fn held_elsewhere(n: &CacheNumbers, o: &Outside) -> Option<Verdict> {
    let CacheNumbers {
        req,
        total,
        reserved,
        free,
        ..
    } = *n;
    let held = o.held;
    // The driver's free memory below the request (with the margin of rule 4: above it, the
    // failure is below the cache), and the request fits once the memory held elsewhere is free.
    if !(o.held_is_large && !driver_had_room(free, req) && req <= free.plus(o.excess)) {
        return None;
    }
    let need = reserved.plus(req);
    let (en, zh, confidence) = if o.listed {
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
    Some(v)
}

/// The verdict when PyTorch's cache holds enough unused memory for the request, in pieces too
/// small for it. Adds `fragmentation_ratio` to `ev` whenever the cache holds anything. `None`
/// when the cache's unused share is too small to blame.
fn fragmented_cache(n: &CacheNumbers, ev: &mut Vec<Evidence>) -> Option<Verdict> {
    let CacheNumbers {
        req,
        reserved,
        unalloc,
        ..
    } = *n;
    let share = pct(unalloc, reserved);
    if reserved > Bytes::ZERO {
        ev.push(Evidence::value(
            "fragmentation_ratio",
            share / 100.0,
            format!("{} / {} = {:.1} %", a(unalloc), a(reserved), share),
        ));
    }
    if !(unalloc >= req && unalloc > Bytes::ZERO && share >= 15.0) {
        return None;
    }
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
    Some(v)
}

/// The verdict when the driver said more was free than requested (with a margin for segment
/// rounding and the driver's own needs), yet cudaMalloc failed: the device's free memory is in
/// pieces (WDDM on Windows), or another process took it between the two calls. `None` when the
/// driver gave no free memory or too little.
fn fragmented_below_cache(free: Option<Bytes>, req: Bytes) -> Option<Verdict> {
    let free = free.filter(|f| driver_had_room(*f, req))?;
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
    Some(v)
}

/// The verdict when no other rule applies: live tensors fill the card at this step's peak,
/// noting memory held outside the cache that is not the cause.
fn peak(n: &CacheNumbers, o: &Outside) -> Verdict {
    let CacheNumbers {
        req,
        total,
        allocated: used,
        unalloc,
        ..
    } = *n;
    let (of_card_en, of_card_zh) = share_of_card(used, total);
    let (also_en, also_zh) = also_held(o);
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

/// How `used` compares with the card, in English (a phrase to follow the size) and Chinese:
/// its share, or that it is more than the card.
fn share_of_card(used: Bytes, total: Bytes) -> (String, String) {
    if used <= total {
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
    }
}

/// A sentence on memory held by others that is not the cause but is not this job's either, in
/// English and Chinese; empty when there is none worth naming.
fn also_held(o: &Outside) -> (String, String) {
    let held = o.held;
    if o.listed && held > Bytes::ZERO {
        (
            format!(
                " Other processes also hold {} of the card: stop them to gain that much.",
                a(held)
            ),
            format!("另有其他进程占用了 {}：停止它们可多出这么多显存。", a(held)),
        )
    } else if !o.listed && o.held_is_large {
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
    }
}
