//! OOM diagnosis: parsers for what a user already has, and the decision tree.
//!
//! The guide (§2.3) sorts out-of-memory failures into three kinds, and this module tells them
//! apart from text a user can paste:
//!
//! - **capacity** (容量型): the job needs more memory than the card has, at start-up or at its
//!   peak step;
//! - **fragmentation** (碎片型): enough memory is free in total, but not in one block, because
//!   the allocator's cache is split into pieces;
//! - **leak** (泄漏型): memory grows with every iteration until it hits the ceiling.
//!
//! [`diagnose`] recognises the format ([`InputFormat`]), reads the numbers it contains
//! ([`Evidence`], sizes exact to the byte), classifies ([`Kind`]), explains why in Chinese and
//! English, and ranks the fixes from the decision tree ([`tree`]). Each parser is public too
//! ([`parse_pytorch_oom`], [`parse_memory_summaries`], [`parse_nvidia_smi`], …).
//!
//! # How sizes are read
//!
//! A size is read exactly, in integers: `14.56 GiB` is 14.56 × 2^30 = 15,633,680,957.44 bytes,
//! rounded to the nearest byte (halves up): 15,633,680,957. `KiB`/`MiB`/`GiB` are powers of
//! 1024. `KB`/`MB`/`GB` are powers of 1000, except in PyTorch's `memory_summary()` (before 2.0
//! it printed `MB` for MiB) and in vLLM's start-up log (it printed `GB` after dividing by 2^30),
//! where they are read as powers of 1024. Sizes above 1 PiB are not sizes and are ignored.
//!
//! # Limits
//!
//! The core does no I/O and cannot panic. Work is bounded: at most the last [`MAX_INPUT_BYTES`]
//! of the text are read (errors come at the end of logs; a note says so when more was given),
//! `nvidia-smi` logs and `memory_summary()` reports to [`MAX_LINES`] lines, at most
//! [`MAX_POINTS`] samples per `nvidia-smi` series and [`MAX_SUMMARIES`] `memory_summary()`
//! reports are kept.
//!
//! # Classification rules
//!
//! ### PyTorch OOM messages
//!
//! PyTorch's caching allocator keeps freed blocks in *segments* obtained with `cudaMalloc` and
//! reuses them; a block can only be returned to the driver when its whole segment is free. On
//! a failed request it frees every fully free cached segment and retries; the OOM is raised
//! only after that retry fails. So, at the moment of the message:
//!
//! 1. `requested > total capacity` → **capacity** (`capacity_static`, high confidence): no card
//!    of this size can hold that one tensor.
//! 2. other processes hold memory and `requested > total − other processes` → **capacity**,
//!    caused by the other processes (`capacity_static`).
//! 3. memory held outside PyTorch's cache is large — the processes listed besides this one, or,
//!    without a list, `total − reserved − free` less the 2 GiB a CUDA context with its libraries
//!    may take — at least 10 % of the card, and the request fits once it is free →
//!    **capacity** caused by that memory (`capacity_static`, `stop_other_processes` first; high
//!    confidence with a process list, medium without);
//! 4. `reserved − allocated ≥ requested` and `≥ 15 %` of reserved → **fragmentation**: the cache
//!    held enough free memory in total, but only as pieces of segments that still contain live
//!    tensors (non-releasable), none big enough. High confidence from `≥ 2 × requested` and
//!    `≥ 25 %`; medium otherwise.
//! 5. the driver reported free ≥ 1.2 × requested + 256 MiB, yet the allocation failed →
//!    **fragmentation** below the cache (low confidence): the device's free memory is in pieces
//!    (Windows WDDM) or another process raced for it (pytorch#59778).
//! 6. otherwise → **capacity** at the peak step (`capacity_peak`, medium): live tensors fill the
//!    card. One message cannot show a **leak**: that needs memory per iteration, so the
//!    explanation says so and asks for an `nvidia-smi` log.
//!
//! Before rule 3, a message without what PyTorch allocated and reserved (cut, or with sizes
//! that are not plain numbers: `1e30 GiB`, `-2.00 GiB`, above 1 PiB) is capacity at low
//! confidence, asking for the whole message; nothing missing is taken as 0, and each unread size
//! is named in a note. Numbers that cannot all be true (a total of 0, free above the total,
//! allocated above reserved) give **unknown**, naming the contradiction.
//!
//! ### `memory_summary()` reports
//!
//! Fragmentation = non-releasable / reserved (or (reserved − allocated) / reserved without
//! that row). Several reports whose allocated memory rises steadily → **leak**. Fragmentation
//! ≥ 20 % with `cudaMalloc retries` or `CUDA OOMs` → **fragmentation** (high); ≥ 30 % without
//! them → fragmentation (medium: it will bite later). Retries or OOMs with little fragmentation
//! → **capacity** at the peak (medium). Neither → capacity, low: nothing is wrong in this report.
//!
//! ### `nvidia-smi` logs
//!
//! Each GPU's series is fitted by least squares, all of it and its second half. Rising over the
//! second half (fit r² ≥ 0.5, growth ≥ 1 % of memory.total and ≥ 32 MiB) → **leak**, with the
//! rate and the time it reaches memory.total. Under a sawtooth (memory allocated and freed every
//! few samples, swings of at least three times that growth) the line through the samples fits
//! badly, so its envelopes are fitted too, the peaks and the troughs of the second half: either
//! rising (≥ 5 turns, r² ≥ 0.9, the same growth) → **leak**, with the rate and time of the
//! envelope that reaches memory.total first. Level (one jump then flat, steps then flat, or
//! flat; a sawtooth by its peaks) → **capacity** (low; medium when the peak is ≥ 90 % of
//! memory.total): not a leak; if it still runs out, the steady state plus the peak of one step
//! exceeds the card, or the cache is fragmented, which `memory_summary()` tells. Fewer than 4
//! samples → **unknown** (a single print has no shape). Samples that end the log more than 30 %
//! below the peak, and below where the job ran lately, are the process ending (a crash) and are
//! left out of the fit, with a note (a sawtooth's troughs are not). CSV without `index` or
//! `timestamp` columns is read as one GPU: log with `index` (the checks say so) for several.
//!
//! A table's `Processes:` list (of its last print) is read per GPU: on a GPU where more than
//! one process holds memory, the largest is taken as the job and the rest as *other
//! processes* (processes printed with `N/A` memory, inside a container or under WDDM, count as
//! unknown: what the others hold is then a lower bound). A single print (no curve) whose other
//! processes hold ≥ 10 % of a card → **capacity** caused by them (`capacity_static`,
//! `stop_other_processes` first; medium when that card is ≥ 90 % used, low otherwise), naming
//! each process (PID, name, memory) and what the others hold; when several GPUs qualify, the one
//! with the largest share. Others that also hold memory on other GPUs are named as ranks of a
//! multi-GPU job that opened a context on this one too. Every other shared GPU, and any shared
//! GPU in a log with a curve (whose verdict stands), is named in a note.
//!
//! ### TensorFlow, JAX, vLLM, llama.cpp
//!
//! TensorFlow: request > BFC limit → capacity (static); limit − in use ≥ request →
//! fragmentation (the BFC pool had the bytes, not the chunk); else capacity at the peak.
//! StreamExecutor's `failed to allocate … from device` lines alone (the BFC pool growing): capacity
//! at low confidence. JAX: capacity (XLA plans buffers at compile time; JAX preallocates 75 % of
//! the card). vLLM start-up errors and llama.cpp allocation failures: capacity, with the engine's
//! own knobs first among the fixes; llama.cpp's pinned host-memory warning alone is system RAM,
//! which llama.cpp recovers from: **unknown**, no GPU verdict.

use alloc::string::String;
use alloc::vec::Vec;

use crate::units::Bytes;

mod classify;
mod llamacpp;
mod pytorch;
mod scan;
mod smi;
mod summary;
mod tfjax;
mod tree;
mod vllm;

#[rustfmt::skip]
#[path = "generated/oom_tree.rs"]
mod oom_tree;
#[rustfmt::skip]
#[path = "generated/faq.rs"]
mod faq_data;

#[cfg(test)]
mod proptests;

pub use classify::{detect, diagnose};
pub use llamacpp::{LlamaCppError, LlamaCppStage, parse_llamacpp_error};
pub use pytorch::{OtherProcess, PytorchOom, PytorchOomStyle, parse_pytorch_oom};
pub use smi::{
    Direction, LinearFit, Pattern, SmiLog, SmiPoint, SmiProcess, SmiSeries, XUnit,
    parse_nvidia_smi, parse_nvidia_smi_csv, parse_nvidia_smi_table,
};
pub use summary::{MemorySummary, MemorySummaryLog, SummaryMetric, parse_memory_summaries};
pub use tfjax::{JaxOom, TensorflowOom, parse_jax_oom, parse_tensorflow_oom};
pub use tree::{
    Answer, Check, DecisionTree, FaqEntry, FaqSlot, FixInfo, L10n, Leaf, Node, check, faq,
    faq_entry, fix, leaf, node, tree,
};
pub use vllm::{VllmError, VllmErrorKind, parse_vllm_error};

/// At most this many bytes of a pasted text are read (4 MiB); the rest is ignored, with a note.
pub const MAX_INPUT_BYTES: usize = 4 << 20;
/// At most this many lines are read (a 1 Hz `nvidia-smi` CSV log of 5½ hours on one GPU).
pub const MAX_LINES: usize = 20_000;
/// At most this many samples are kept per `nvidia-smi` series.
pub const MAX_POINTS: usize = 20_000;
/// At most this many `memory_summary()` reports are read from one text.
pub const MAX_SUMMARIES: usize = 64;

/// The three kinds of out-of-memory failure of the guide (§2.3), or `Unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Kind {
    /// 容量型: the job needs more memory than the card has.
    Capacity,
    /// 碎片型: enough memory in total, but not in one piece.
    Fragmentation,
    /// 泄漏型: memory grows every iteration until it runs out.
    Leak,
    /// The text did not say enough to tell.
    Unknown,
}

impl Kind {
    /// `capacity`, `fragmentation`, `leak` or `unknown`: the name in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Capacity => "capacity",
            Kind::Fragmentation => "fragmentation",
            Kind::Leak => "leak",
            Kind::Unknown => "unknown",
        }
    }

    /// The kind's name in a language: `capacity` / `容量型`.
    pub const fn name(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Kind::Capacity, Lang::En) => "capacity",
            (Kind::Capacity, Lang::Zh) => "容量型",
            (Kind::Fragmentation, Lang::En) => "fragmentation",
            (Kind::Fragmentation, Lang::Zh) => "碎片型",
            (Kind::Leak, Lang::En) => "leak",
            (Kind::Leak, Lang::Zh) => "泄漏型",
            (Kind::Unknown, Lang::En) => "unknown",
            (Kind::Unknown, Lang::Zh) => "无法判断",
        }
    }
}

/// The formats [`diagnose`] recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum InputFormat {
    /// PyTorch's `CUDA out of memory. Tried to allocate …` (every version since 1.0), also HIP.
    PytorchOom,
    /// TensorFlow's `ResourceExhaustedError` / `OOM when allocating tensor` / BFC allocator log.
    TensorflowOom,
    /// JAX/XLA `RESOURCE_EXHAUSTED: Out of memory while trying to allocate N bytes`.
    JaxOom,
    /// vLLM start-up errors about the KV cache and `gpu_memory_utilization`.
    VllmError,
    /// llama.cpp / ggml buffer allocation failures.
    LlamacppError,
    /// `torch.cuda.memory_summary()` reports.
    MemorySummary,
    /// `nvidia-smi` default table, printed once or repeatedly.
    NvidiaSmiTable,
    /// `nvidia-smi --query-gpu=… --format=csv` output.
    NvidiaSmiCsv,
    /// Nothing recognised.
    Unknown,
}

impl InputFormat {
    /// The snake_case name, as in JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            InputFormat::PytorchOom => "pytorch_oom",
            InputFormat::TensorflowOom => "tensorflow_oom",
            InputFormat::JaxOom => "jax_oom",
            InputFormat::VllmError => "vllm_error",
            InputFormat::LlamacppError => "llamacpp_error",
            InputFormat::MemorySummary => "memory_summary",
            InputFormat::NvidiaSmiTable => "nvidia_smi_table",
            InputFormat::NvidiaSmiCsv => "nvidia_smi_csv",
            InputFormat::Unknown => "unknown",
        }
    }
}

/// A display language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese (zh-CN).
    Zh,
}

/// A text in both languages, owned (built from the numbers read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Text {
    /// English.
    pub en: String,
    /// Simplified Chinese.
    pub zh: String,
}

impl Text {
    /// A text from its two languages.
    pub fn new(en: impl Into<String>, zh: impl Into<String>) -> Text {
        Text {
            en: en.into(),
            zh: zh.into(),
        }
    }

    /// The text in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

impl From<L10n> for Text {
    fn from(t: L10n) -> Text {
        Text::new(t.en, t.zh)
    }
}

/// How sure the classification is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Confidence {
    /// A guess from partial evidence; the checks of the leaf will decide.
    Low,
    /// The numbers point one way, but one message cannot rule out the others.
    Medium,
    /// The numbers decide (e.g. a request larger than the whole card, a rising curve).
    High,
}

/// One number read from the input, with its name and the words it was written with.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Evidence {
    /// What it is, snake_case: `requested`, `total_capacity`, `reserved_unallocated`, …
    pub name: String,
    /// The size, when it is a size (exact bytes).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub bytes: Option<Bytes>,
    /// The value, when it is a count, a ratio or a rate (finite, not negative).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub value: Option<f64>,
    /// The text as read (`14.56 GiB`), or as computed when derived (`= 1.60 GiB`).
    pub text: String,
}

/// What an evidence name means, in English and in Chinese, for a page that shows it to a person
/// (the name itself stays the key of the JSON and the CLI). `None` for a name not emitted.
pub fn evidence_label(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "requested" => ("Requested allocation", "请求分配"),
        "total_capacity" => ("Total capacity", "总容量"),
        "free" => ("Free on the GPU", "GPU 空闲"),
        "this_process" => ("This process", "本进程"),
        "process_memory" => ("A process's memory", "进程占用"),
        "other_processes" => ("Other processes", "其他进程"),
        "outside_pytorch" => (
            "Held outside PyTorch's cache (total − reserved − free)",
            "PyTorch 缓存之外的占用（总量 − 已保留 − 空闲）",
        ),
        "allocated" => ("Allocated by PyTorch", "PyTorch 已分配"),
        "allocated_peak" => ("Allocated, peak", "已分配峰值"),
        "active" => ("Active memory", "活跃显存"),
        "reserved" => ("Reserved by PyTorch's allocator", "PyTorch 分配器已保留"),
        "reserved_peak" => ("Reserved, peak", "已保留峰值"),
        "reserved_unallocated" => ("Reserved but unallocated", "已保留但未分配"),
        "non_releasable" => ("Non-releasable memory", "不可释放显存"),
        "allocations" => ("Allocations", "分配次数"),
        "active_allocs" => ("Active allocations", "活跃分配数"),
        "segments" => ("Reserved segments", "已保留段数"),
        "non_releasable_allocs" => ("Non-releasable allocations", "不可释放分配数"),
        "oversize_allocations" => ("Oversize allocations", "超大分配数"),
        "oversize_segments" => ("Oversize segments", "超大段数"),
        "fragmentation_ratio" => (
            "Fragmentation: unallocated share of reserved",
            "碎片率：已保留中未分配的比例",
        ),
        "cuda_ooms" => ("CUDA out-of-memory errors", "CUDA 显存不足次数"),
        "cudamalloc_retries" => ("cudaMalloc retries", "cudaMalloc 重试次数"),
        "growth_per_report" => ("Growth per report", "每次报告的增长"),
        "tensor" => ("The tensor being allocated", "正在分配的张量"),
        "device" => ("Device", "设备"),
        "free_on_startup" => ("Free at startup", "启动时空闲"),
        "gpu_memory_utilization" => (
            "Utilization budget (gpu_memory_utilization)",
            "显存利用率上限（gpu_memory_utilization）",
        ),
        "utilization_bytes" => ("Utilization budget in bytes", "利用率上限对应的显存"),
        "weights" => ("Model weights", "模型权重"),
        "kv_needed" => ("KV cache needed", "所需 KV 缓存"),
        "kv_available" => ("KV cache available", "可用 KV 缓存"),
        "kv_cache_tokens" => ("Tokens the KV cache holds", "KV 缓存可容纳的 token"),
        "gpu_blocks" => ("KV blocks on the GPU", "GPU 上的 KV 块"),
        "max_model_len" => ("max_model_len", "max_model_len"),
        "estimated_max_model_len" => (
            "Longest max_model_len that fits",
            "能放下的最长 max_model_len",
        ),
        "layers_offloaded" => ("Layers on the GPU", "放到 GPU 上的层"),
        "n_ctx" => ("Context (n_ctx)", "上下文（n_ctx）"),
        "model_buffer" => ("Model buffer", "模型缓冲区"),
        "kv_buffer" => ("KV cache buffer", "KV 缓存缓冲区"),
        "compute_buffer" => ("Compute buffer", "计算缓冲区"),
        "samples" => ("Samples", "采样数"),
        "peak_used" => ("Peak used", "使用峰值"),
        "steady" => ("Steady state", "稳定值"),
        "growth_mib_per_x" => ("Growth rate", "增长速率"),
        "hits_total_at_x" => ("Reaches the card's total", "达到显卡总量"),
        "in_use" => (
            "In use (TensorFlow's allocator)",
            "使用中（TensorFlow 分配器）",
        ),
        "max_in_use" => (
            "Most in use (TensorFlow's allocator)",
            "最大使用量（TensorFlow 分配器）",
        ),
        "limit" => ("Allocator limit", "分配器上限"),
        "total_allocation" => ("Total allocation (XLA)", "总分配（XLA）"),
        "temp_allocation" => ("Temporary allocation (XLA)", "临时分配（XLA）"),
        "total_fragmentation" => ("Fragmentation (XLA)", "碎片（XLA）"),
        _ => return None,
    })
}

/// Words in an evidence text (the numbers as read, with a few English words around them) and
/// their Chinese, longest first; numbers and units are untouched.
const EVIDENCE_ZH: &[(&str, &str)] = &[
    (" held by other processes", " 由其他进程占用"),
    (" of pinned host memory", " 锁页主机内存"),
    (" per report", " / 每次报告"),
    (" samples", " 个采样"),
    (" tokens", " 个 token"),
    (" blocks", " 个块"),
    (" layers", " 层"),
    ("process ", "进程 "),
    ("device ", "设备 "),
    ("after ", "经过 "),
];

/// An evidence text in Chinese: [`Evidence::text`] with its few English words translated.
pub fn evidence_text_zh(text: &str) -> String {
    let mut out = String::from(text);
    for (en, zh) in EVIDENCE_ZH {
        if out.contains(en) {
            out = out.replace(en, zh);
        }
    }
    out
}

impl Evidence {
    /// A size.
    pub fn size(name: &str, bytes: Bytes, text: impl Into<String>) -> Evidence {
        Evidence {
            name: name.into(),
            bytes: Some(bytes),
            value: None,
            text: text.into(),
        }
    }

    /// A value (clamped to a finite non-negative number).
    pub fn value(name: &str, value: f64, text: impl Into<String>) -> Evidence {
        let v = if value.is_finite() && value > 0.0 {
            value
        } else {
            0.0
        };
        Evidence {
            name: name.into(),
            bytes: None,
            value: Some(v),
            text: text.into(),
        }
    }
}

/// A fix, copied from the decision tree's table, ranked by effort.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Fix {
    /// Its id in the tree's fix table (`reduce_batch`, `expandable_segments`, …).
    pub id: String,
    /// Effort from 1 (a flag) to 5 (new hardware).
    pub effort: u8,
    /// One line.
    pub title: Text,
    /// What to do and what it saves.
    pub detail: Text,
}

/// What a parser read, by format, for the site to show (and plot, for `nvidia-smi` logs).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(tag = "format", rename_all = "snake_case")
)]
pub enum Parsed {
    /// A PyTorch OOM message.
    PytorchOom(PytorchOom),
    /// A TensorFlow OOM.
    TensorflowOom(TensorflowOom),
    /// A JAX/XLA OOM.
    JaxOom(JaxOom),
    /// A vLLM start-up error.
    VllmError(VllmError),
    /// A llama.cpp allocation failure.
    LlamacppError(LlamaCppError),
    /// One or more `memory_summary()` reports.
    MemorySummary(MemorySummaryLog),
    /// An `nvidia-smi` log (table or CSV), as series with fitted trends.
    NvidiaSmi(SmiLog),
    /// Nothing.
    None,
}

/// The answer to a pasted text.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Diagnosis {
    /// The kind of OOM.
    pub kind: Kind,
    /// The format recognised.
    pub input: InputFormat,
    /// How sure the kind is.
    pub confidence: Confidence,
    /// The leaf of the decision tree this lands on (`capacity_peak`, `fragmentation`, …).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub leaf: Option<String>,
    /// The numbers read, in the order they matter.
    pub evidence: Vec<Evidence>,
    /// Why this kind, from those numbers.
    pub explanation: Text,
    /// What to do, cheapest first.
    pub fixes: Vec<Fix>,
    /// What would decide it better, when the input cannot (always set for `unknown`).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub what_to_paste_instead: Option<Text>,
    /// Remarks about the input: truncated, odd numbers, several messages.
    pub notes: Vec<Text>,
    /// The parsed data, by format.
    pub parsed: Parsed,
}
