//! Recognising the format and classifying. The rules are documented on the `diagnose`
//! module (its "Classification rules" section), next to the public API.

mod engines;
mod memory_summary;
mod smi_log;
#[cfg(test)]
mod tests;
mod torch;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::llamacpp;
use super::pytorch;
use super::scan::{clip_tail, flatten, unquote};
use super::smi;
use super::summary;
use super::tfjax;
use super::vllm;
use super::{
    Confidence, Diagnosis, Evidence, Fix, InputFormat, Kind, MAX_INPUT_BYTES, Parsed, Text, fix,
    leaf,
};
use crate::units::Bytes;
use engines::{from_jax, from_llamacpp, from_tf, from_vllm};
use memory_summary::from_summary;
use smi_log::from_smi;
use torch::from_pytorch;

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

fn tokens(n: u64) -> String {
    format!("{n}")
}
