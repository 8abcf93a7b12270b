//! The parts an estimate is built from while a run shape computes it, and the formulas' text in
//! the languages the crate is built with.

use super::{Component, ComponentKey, ComponentKind, Difference, Workload};
use crate::units::Bytes;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One run of the estimator over a workload: the workload, and whether the formulas' and notes'
/// text is wanted. Every run shape is a method of it; it reads the workload's fields through
/// `Deref`.
pub(super) struct Run<'a> {
    pub(super) w: &'a Workload,
    /// Build the text (formulas, notes, differences); off, the estimate carries numbers only.
    pub(super) text: bool,
}

impl core::ops::Deref for Run<'_> {
    type Target = Workload;
    fn deref(&self) -> &Workload {
        self.w
    }
}

/// vLLM's KV pool against its requests (`kv_cache_utils.py`: `check_enough_kv_cache_memory`,
/// `get_max_concurrency_for_kv_cache_config`).
#[derive(Clone, Copy)]
pub(super) struct ServePool {
    /// Bytes left for the pool in the utilisation budget.
    pub(super) available: u64,
    /// What one request of max_model_len needs: every full-attention layer the whole length, a
    /// sliding-window layer its window plus one step's tokens (`SlidingWindowSpec`).
    pub(super) request: u64,
    /// Requests of max_model_len the pool holds at once.
    pub(super) concurrency: f64,
    /// What sizes the pool, which says how the engine refuses a pool too small.
    pub(super) budget: PoolBudget,
}

/// What sizes a serving engine's KV pool.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum PoolBudget {
    /// `gpu_memory_utilization` of the card, less what the profile run measured (vLLM): a pool
    /// too small for one request of `max_model_len` refuses to start.
    Utilization,
    /// `mem_fraction_static` of the card, less the weights (SGLang): a pool too small for one
    /// token refuses to start (no pool at all).
    MemFractionStatic,
    /// `free_gpu_memory_fraction` of what the profile left (TensorRT-LLM): a pool too small for
    /// one request of `max_seq_len` starts, with `max_seq_len` cut to the pool.
    #[cfg(feature = "trtllm")]
    FreeFraction,
}

pub(super) struct Parts {
    /// Whether the run builds text: off, components carry no notes.
    pub(super) text: bool,
    pub(super) comps: Vec<Component>,
    pub(super) notes: Vec<Difference>,
    /// PyTorch-allocated bytes at the peak when it is not the plain sum of the torch components
    /// (HF inference: the KV cache is only partly filled at the prefill peak).
    pub(super) peak: Option<u64>,
    /// Serving: tokens in vLLM's pool.
    pub(super) serve_tokens: Option<u64>,
    /// Serving on a card: what vLLM's pool holds against one request of max_model_len.
    pub(super) serve_pool: Option<ServePool>,
    /// Serving: `M_theory`, the card memory that holds the wanted concurrency (Ollama: that holds
    /// the whole model on the GPUs).
    pub(super) theory: Option<u64>,
    /// Ollama: its offload decision and the split `ollama ps` prints.
    pub(super) ollama: Option<super::OllamaLoad>,
}

impl Parts {
    pub(super) fn add(
        &mut self,
        kind: ComponentKind,
        bytes: u64,
        torch: bool,
        formula: Formula,
        en: &str,
        zh: &str,
    ) {
        let (formula, formula_zh) = formula.into_texts();
        let (note_en, note_zh) = if self.text {
            (en.to_string(), zh.to_string())
        } else {
            (String::new(), String::new())
        };
        self.comps.push(Component {
            key: ComponentKey::at_peak(kind),
            bytes: Bytes::new(bytes),
            torch,
            formula,
            formula_zh,
            note_en,
            note_zh,
        });
    }
    pub(super) fn note(&mut self, key: &str, en: String, zh: String) {
        if !self.text {
            return;
        }
        self.notes.push(Difference {
            key: key.to_string(),
            en,
            zh,
        });
    }
    /// A component's size, alive at the peak or not.
    pub(super) fn get(&self, kind: ComponentKind) -> u64 {
        self.sum_where(|k| k == kind)
    }

    /// The components whose kind passes `which`, alive at the peak or not, saturating: an input
    /// at the edge of its ranges (eager attention over 15 million tokens) can make them exceed
    /// `u64`.
    pub(super) fn sum_where(&self, which: impl Fn(ComponentKind) -> bool) -> u64 {
        self.comps
            .iter()
            .filter(|c| which(c.key.kind))
            .map(|c| c.bytes.get())
            .fold(0, u64::saturating_add)
    }
}

/// A formula in the languages the crate is built with: its English and its Chinese, each only
/// under that language's feature (as the notes' text is), so that a module in one language
/// carries one language's words. Written with [`formula!`]; a value computed only for the
/// formula goes unused in a build without either language.
#[derive(Debug, Default)]
pub(super) struct Formula {
    #[cfg(feature = "en")]
    pub(super) en: String,
    #[cfg(feature = "zh")]
    pub(super) zh: String,
}

impl Formula {
    /// A text the same in both languages: numbers, units and names.
    pub(super) fn same(text: String) -> Self {
        Formula {
            #[cfg(all(feature = "en", feature = "zh"))]
            en: text.clone(),
            #[cfg(all(feature = "en", not(feature = "zh")))]
            en: text,
            #[cfg(feature = "zh")]
            zh: text,
        }
    }

    /// The English and the Chinese, empty without their features.
    pub(super) fn into_texts(self) -> (String, String) {
        #[cfg(feature = "en")]
        let en = self.en;
        #[cfg(not(feature = "en"))]
        let en = String::new();
        #[cfg(feature = "zh")]
        let zh = self.zh;
        #[cfg(not(feature = "zh"))]
        let zh = String::new();
        (en, zh)
    }
}

pub(super) fn b(x: u64) -> String {
    Bytes::new(x).display_auto()
}

/// Separates thousands: 8030261248 → 8,030,261,248.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
