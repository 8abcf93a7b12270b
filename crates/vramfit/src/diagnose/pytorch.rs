//! PyTorch's `CUDA out of memory` message, in every shape it has had.
//!
//! - 1.0–1.3: `CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.92 GiB total
//!   capacity; 9.79 GiB already allocated; 39.50 MiB free; 104.40 MiB cached)`, where `cached`
//!   is what the caching allocator holds beyond the allocated memory;
//! - 1.4–2.0: `… (GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.44 MiB free;
//!   14.81 GiB reserved in total by PyTorch)`, where `reserved` includes `allocated`;
//! - 2.1 and later: `… Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of
//!   which 1.05 GiB is free. Process 12345 has 78.09 GiB memory in use. Including non-PyTorch
//!   memory, this process has 78.09 GiB memory in use. Of the allocated memory 75.87 GiB is
//!   allocated by PyTorch, and 1.60 GiB is reserved by PyTorch but unallocated.` (2.1 spelled
//!   it `capacty`);
//! - without numbers: `RuntimeError: CUDA error: out of memory` (raised by a CUDA call outside
//!   the caching allocator: context creation, cuBLAS workspaces, NCCL).
//!
//! ROCm builds print the same with `HIP` for `CUDA`.

use alloc::string::String;
use alloc::vec::Vec;

use super::Evidence;
use super::scan::{
    Legacy, count_at, find_all, flatten, raw_size_text, raw_size_text_before, size_after_spaces,
    size_at, size_before,
};
use crate::units::Bytes;

/// Which shape of the message was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum PytorchOomStyle {
    /// `(GPU 0; … total capacity; … already allocated; … free; … reserved in total by PyTorch)`
    /// or, before 1.4, `… cached)`.
    Parenthesised,
    /// 2.1 and later: `GPU 0 has a total capacity of … of which … is free. …`.
    Sentences,
    /// `CUDA error: out of memory`, or a message cut before its numbers.
    NoNumbers,
}

/// Another process on the same GPU, as the message lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OtherProcess {
    /// Its process id, as the driver sees it (inside a container it may differ from `os.getpid()`).
    pub pid: u64,
    /// The memory it holds.
    pub bytes: Bytes,
}

/// What a PyTorch OOM message says. Sizes are exact (see the module docs for rounding).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PytorchOom {
    /// Which shape of the message.
    pub style: Option<PytorchOomStyle>,
    /// `CUDA` or `HIP`.
    pub backend: String,
    /// The device index.
    pub device: Option<u32>,
    /// `Tried to allocate`: the request that failed.
    pub requested: Option<Bytes>,
    /// The device's total memory as CUDA reports it (less than the label: 79.15 GiB on an 80 GB card).
    pub total_capacity: Option<Bytes>,
    /// Free on the device when it failed, as the driver says.
    pub free: Option<Bytes>,
    /// Held by live tensors (PyTorch's `memory_allocated()`).
    pub allocated: Option<Bytes>,
    /// Held by the caching allocator in total (`memory_reserved()`), allocated included.
    pub reserved: Option<Bytes>,
    /// Reserved but not allocated: cached blocks, free but possibly in pieces.
    pub reserved_unallocated: Option<Bytes>,
    /// This process including non-PyTorch memory (CUDA context, cuBLAS, NCCL), 2.1 and later.
    pub this_process: Option<Bytes>,
    /// The processes the message lists (2.1 and later), this one possibly among them.
    pub processes: Vec<OtherProcess>,
    /// Memory held by other processes: the listed ones less this process.
    pub other_processes: Option<Bytes>,
    /// How many OOM messages the text holds; the last one is read.
    pub messages: u32,
}

/// Reads the last PyTorch OOM message in `text`, or `None` when there is none.
pub fn parse_pytorch_oom(text: &str) -> Option<PytorchOom> {
    parse(text).map(|(oom, _)| oom)
}

const ANCHORS: [&str; 4] = [
    "CUDA out of memory",
    "HIP out of memory",
    "CUDA error: out of memory",
    "OutOfMemoryError",
];

/// Whether the text holds a PyTorch OOM at all.
pub(crate) fn looks_like(flat: &str) -> bool {
    ANCHORS.iter().any(|a| flat.contains(a)) || flat.contains("out of memory. Tried to allocate")
}

/// A size the message gives for a field that could not be read: not a plain decimal number
/// with a unit (`1e30 GiB`, `-2.00 GiB`, `nan GiB`), or more than 1 PiB. It is left out of the
/// numbers rather than guessed, and named in a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unread {
    /// The evidence name of the field (`requested`, `total_capacity`, …).
    pub field: &'static str,
    /// The words as written.
    pub text: String,
}

pub(crate) fn parse(text: &str) -> Option<(PytorchOom, Vec<Evidence>)> {
    let flat = flatten(text);
    parse_flat(&flat).map(|(p, ev, _)| (p, ev))
}

pub(crate) fn parse_flat(flat: &str) -> Option<(PytorchOom, Vec<Evidence>, Vec<Unread>)> {
    if !looks_like(flat) {
        return None;
    }
    let mut unread = Vec::new();
    let tries = find_all(flat, "Tried to allocate", 10_000);
    let mut oom = PytorchOom {
        backend: String::from(if flat.contains("HIP out of memory") {
            "HIP"
        } else {
            "CUDA"
        }),
        ..Default::default()
    };
    let mut ev = Vec::new();
    let Some(&last) = tries.last() else {
        oom.style = Some(PytorchOomStyle::NoNumbers);
        oom.messages = find_all(flat, "out of memory", 10_000).len().max(1) as u32;
        return Some((oom, ev, unread));
    };
    oom.messages = tries.len() as u32;
    // The message runs from `Tried to allocate` to the next one or about 1.5 KB.
    let seg = super::scan::clip(&flat[last..], 1500);

    let after = &seg["Tried to allocate".len()..];
    if let Some(req) = size_after_spaces(after, Legacy::Decimal) {
        oom.requested = Some(req.bytes);
        ev.push(Evidence::size("requested", req.bytes, req.text));
    } else {
        unread_after(&mut unread, "requested", after);
    }

    if let Some(open) = seg.find("(GPU ") {
        parse_parenthesised(&seg[open + 5..], &mut oom, &mut ev, &mut unread);
    } else if seg.contains("has a total capac") || seg.contains(". GPU ") {
        parse_sentences(seg, &mut oom, &mut ev, &mut unread);
    }
    if oom.style.is_none() {
        oom.style = Some(PytorchOomStyle::NoNumbers);
    }
    Some((oom, ev, unread))
}

/// Records the words after a label as an unread size, when there are any.
fn unread_after(unread: &mut Vec<Unread>, field: &'static str, after: &str) {
    let text = raw_size_text(after);
    if !text.is_empty() {
        unread.push(Unread { field, text });
    }
}

/// Records the words before a phrase as an unread size, when there are any.
fn unread_before(unread: &mut Vec<Unread>, field: &'static str, prefix: &str) {
    let text = raw_size_text_before(prefix);
    if !text.is_empty() {
        unread.push(Unread { field, text });
    }
}

/// The size after `needle`, or the words there recorded as unread when `needle` is present.
fn read_after(
    seg: &str,
    needle: &str,
    field: &'static str,
    unread: &mut Vec<Unread>,
) -> Option<super::scan::Size> {
    let i = seg.find(needle)?;
    let after = &seg[i + needle.len()..];
    let size = size_after_spaces(after, Legacy::Decimal);
    if size.is_none() {
        unread_after(unread, field, after);
    }
    size
}

/// The size before `phrase`, or the words there recorded as unread when `phrase` is present.
fn read_before(
    seg: &str,
    phrase: &str,
    field: &'static str,
    unread: &mut Vec<Unread>,
) -> Option<super::scan::Size> {
    let i = seg.find(phrase)?;
    let size = size_before(seg, phrase, Legacy::Decimal);
    if size.is_none() {
        unread_before(unread, field, &seg[..i]);
    }
    size
}

/// `0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.44 MiB free; 14.81 GiB reserved in total by PyTorch)`
fn parse_parenthesised(
    s: &str,
    oom: &mut PytorchOom,
    ev: &mut Vec<Evidence>,
    unread: &mut Vec<Unread>,
) {
    const LABELS: [(&str, &str); 5] = [
        ("total capacity", "total_capacity"),
        ("already allocated", "allocated"),
        ("free", "free"),
        ("reserved in total", "reserved"),
        ("cached", "reserved_unallocated"),
    ];
    let inner = match s.find(')') {
        Some(close) => &s[..close],
        None => s, // truncated: read what is there
    };
    let mut parts = inner.split(';');
    if let Some(dev) = parts.next().and_then(|d| count_at(d.trim())) {
        oom.device = u32::try_from(dev.0).ok();
    }
    let mut any = false;
    for part in parts {
        let p = part.trim();
        let Some((size, n)) = size_at(p, Legacy::Decimal) else {
            // A known label after words that are not a size: say so rather than drop it.
            if let Some((label, field)) = LABELS.iter().find(|(l, _)| p.contains(l))
                && let Some(i) = p.find(label)
            {
                unread_before(unread, field, &p[..i]);
            }
            continue;
        };
        let label = p[n..].trim();
        let name = if label.starts_with("total capacity") {
            oom.total_capacity = Some(size.bytes);
            "total_capacity"
        } else if label.starts_with("already allocated") {
            oom.allocated = Some(size.bytes);
            "allocated"
        } else if label.starts_with("free") {
            oom.free = Some(size.bytes);
            "free"
        } else if label.starts_with("reserved in total") {
            oom.reserved = Some(size.bytes);
            "reserved"
        } else if label.starts_with("cached") {
            oom.reserved_unallocated = Some(size.bytes);
            "reserved_unallocated"
        } else {
            continue;
        };
        any = true;
        ev.push(Evidence::size(name, size.bytes, size.text));
    }
    if !any {
        return;
    }
    oom.style = Some(PytorchOomStyle::Parenthesised);
    match (oom.reserved, oom.allocated, oom.reserved_unallocated) {
        // Allocated above reserved cannot be (reserved includes it): nothing is derived, and the
        // classifier reports the contradiction.
        (Some(r), Some(a), None) if a <= r => {
            let gap = r.minus(a);
            oom.reserved_unallocated = Some(gap);
            ev.push(Evidence::size(
                "reserved_unallocated",
                gap,
                alloc::format!("= {} − {}", r.display_auto(), a.display_auto()),
            ));
        }
        (None, Some(a), Some(c)) => {
            let r = a.plus(c);
            oom.reserved = Some(r);
            ev.push(Evidence::size(
                "reserved",
                r,
                alloc::format!("= {} + {}", a.display_auto(), c.display_auto()),
            ));
        }
        _ => {}
    }
}

/// `GPU 0 has a total capacity of 79.15 GiB of which 1.05 GiB is free. Process …`
fn parse_sentences(
    seg: &str,
    oom: &mut PytorchOom,
    ev: &mut Vec<Evidence>,
    unread: &mut Vec<Unread>,
) {
    oom.style = Some(PytorchOomStyle::Sentences);
    if let Some(i) = seg.find(". GPU ") {
        oom.device = count_at(&seg[i + 6..]).and_then(|(d, _)| u32::try_from(d).ok());
    }
    let needle = if seg.contains("total capacty of") {
        "total capacty of"
    } else {
        "total capacity of"
    };
    let total = read_after(seg, needle, "total_capacity", unread);
    if let Some(t) = total {
        oom.total_capacity = Some(t.bytes);
        ev.push(Evidence::size("total_capacity", t.bytes, t.text));
    }
    if let Some(f) = read_after(seg, "of which", "free", unread) {
        oom.free = Some(f.bytes);
        ev.push(Evidence::size("free", f.bytes, f.text));
    }
    // `Process 12345 has 78.09 GiB memory in use.` — at most 64 of them.
    for i in find_all(seg, "Process ", 64) {
        let rest = &seg[i + 8..];
        let Some((pid, n)) = count_at(rest) else {
            continue;
        };
        let Some(after) = rest[n..].strip_prefix(" has ") else {
            continue;
        };
        let Some(size) = size_after_spaces(after, Legacy::Decimal) else {
            unread_after(unread, "process_memory", after);
            continue;
        };
        ev.push(Evidence::size(
            "process_memory",
            size.bytes,
            alloc::format!("process {pid}: {}", size.text),
        ));
        oom.processes.push(OtherProcess {
            pid,
            bytes: size.bytes,
        });
    }
    if let Some(p) = read_after(seg, "this process has", "this_process", unread) {
        oom.this_process = Some(p.bytes);
        ev.push(Evidence::size("this_process", p.bytes, p.text));
    }
    if let Some(a) = read_before(seg, "is allocated by PyTorch", "allocated", unread) {
        oom.allocated = Some(a.bytes);
        ev.push(Evidence::size("allocated", a.bytes, a.text));
    }
    if let Some(u) = read_before(
        seg,
        "is reserved by PyTorch but unallocated",
        "reserved_unallocated",
        unread,
    ) {
        oom.reserved_unallocated = Some(u.bytes);
        ev.push(Evidence::size("reserved_unallocated", u.bytes, u.text));
    }
    if let (Some(a), Some(u)) = (oom.allocated, oom.reserved_unallocated) {
        let r = a.plus(u);
        oom.reserved = Some(r);
        ev.push(Evidence::size(
            "reserved",
            r,
            alloc::format!("= {} + {}", a.display_auto(), u.display_auto()),
        ));
    }
    // Other processes: the listed ones less this one. The driver's pid may not be ours (in a
    // container), so this process is recognised by its size when the message gives it, or,
    // when one process is listed and it holds at least what PyTorch reserved, it is taken as us.
    if !oom.processes.is_empty() {
        let listed: Bytes = oom.processes.iter().map(|p| p.bytes).sum();
        let me = match oom.this_process {
            Some(me) => Some(me),
            None if oom.processes.len() == 1
                && oom.reserved.is_some_and(|r| oom.processes[0].bytes >= r) =>
            {
                Some(oom.processes[0].bytes)
            }
            None => None,
        };
        let others = match me {
            Some(me) if oom.processes.iter().any(|p| close(p.bytes, me)) => listed.minus(me),
            Some(_) | None => listed,
        };
        oom.other_processes = Some(others);
        if others > Bytes::ZERO {
            ev.push(Evidence::size(
                "other_processes",
                others,
                alloc::format!("= {} held by other processes", others.display_auto()),
            ));
        }
    }
}

/// Two printed sizes that are the same number (within the 0.01-unit rounding of the message).
fn close(a: Bytes, b: Bytes) -> bool {
    let (hi, lo) = if a >= b {
        (a.get(), b.get())
    } else {
        (b.get(), a.get())
    };
    hi - lo <= hi / 200
}
