//! llama.cpp over several GPUs (`--split-mode layer`, its default), as `llama_model::load_tensors`
//! (`src/llama-model.cpp`) and the context's scheduler (`src/llama-context.cpp`) place it:
//!
//! - the split: each GPU's share, `--tensor-split` as given, else each device's free memory
//!   (`ggml_backend_dev_memory`), summed and normalized into cumulative split points, in `f32`;
//! - the offloaded positions, from `i_gpu_start = n_layer + 1 − ngl` over `act = min(ngl,
//!   n_layer + 1)` of them (the blocks, then the output layer at `n_layer`), each going to the
//!   first GPU whose split point is above `(il − i_gpu_start) / act` (`std::upper_bound`); the
//!   token embeddings stay in CPU memory (`dev_input` is the CPU);
//! - each block's KV cache on its block's GPU (`llama_kv_cache`: `dev_layer(il)`);
//! - pipeline parallelism (`n_copies = GGML_SCHED_MAX_COPIES = 4`) when the model has more than
//!   one device, every block and the output offloaded, split mode `layer` and no tensor
//!   overrides (`--n-cpu-moe` is one): every GPU's compute buffer then holds four copies of its
//!   split's inputs.
//!
//! Read at llama.cpp `00342301d01add50835550e8a916f12097d94517` (`load_tensors`, the split
//! points and `get_layer_buft_list`); `i_gpu_start` with the output layer first is PR #18148's.

use super::llamacpp::{GpuFigures, LLAMACPP_CONTEXT, LlamacppFigures};
use super::{CardUse, Parts, Run, UnlikeCards, b};
use crate::units::Bytes;
use alloc::string::String;
use alloc::vec::Vec;

/// ggml's `GGML_SCHED_MAX_COPIES`: the copies of each split's inputs a pipelined scheduler keeps
/// (`ggml/src/ggml-backend.cpp`, compile-time, 4 by default).
pub const LLAMACPP_PIPELINE_COPIES: u64 = 4;

/// The GPU of offloaded position `i` of `positions` (the blocks from the first offloaded one,
/// then the output layer): the first split point above `i / positions`, as llama.cpp's
/// `std::upper_bound` over its `f32` points finds it.
pub(super) fn gpu_of(points: &[f32], i: u64, positions: u64) -> usize {
    let x = i as f32 / positions.max(1) as f32;
    points
        .iter()
        .position(|&p| p > x)
        .unwrap_or(points.len().saturating_sub(1))
}

impl Run<'_> {
    /// Whether llama.cpp's own split rule places the blocks: the engine splits layers by card
    /// (not Ollama's plan) and the model has tensors to place.
    pub(super) fn llamacpp_splits_by_rule(&self) -> bool {
        // Ollama over unlike cards hands llama.cpp its plan's layer counts as `--tensor-split`.
        let by_split = match self.rules().unlike_cards {
            UnlikeCards::SplitsLayers => true,
            UnlikeCards::OwnPlan => !self.cards.is_empty(),
            UnlikeCards::EqualShards | UnlikeCards::NotFollowed => false,
        };
        by_split && self.arch.is_detailed() && !self.cache_assumed()
    }

    /// The GPUs llama.cpp's model spreads over: the cards, or the alike GPUs.
    pub(super) fn llamacpp_devices(&self) -> u64 {
        if self.cards.is_empty() {
            (self.dp * self.pp).max(1)
        } else {
            self.cards.len() as u64
        }
    }

    /// The memory of GPU `g` of the run, where a card is known.
    fn card_memory(&self, g: usize) -> Option<Bytes> {
        match self.cards.get(g) {
            Some(d) => Some(d.memory),
            None => self.device.as_ref().map(|d| d.memory),
        }
    }

    /// The memory free on GPU `g` when the run starts (its memory less what other programs
    /// hold), which its share must fit in.
    fn card_free(&self, g: usize) -> Option<Bytes> {
        match self.cards.get(g) {
            Some(d) => Some(d.free()),
            None => self.device.as_ref().map(|d| d.free()),
        }
    }

    /// Each GPU's share before it is normalized: the tensor split as given, else its free memory
    /// at start, taken as its memory less llama.cpp's CUDA context (alike GPUs: equal shares).
    pub(super) fn llamacpp_shares(&self, n: usize) -> Vec<f32> {
        if self.tensor_split.len() == n {
            return self.tensor_split.clone();
        }
        (0..n)
            .map(|g| match self.cards.get(g) {
                // `ggml_backend_dev_memory`'s free: other programs' memory is out of it.
                Some(d) => d.free().get().saturating_sub(LLAMACPP_CONTEXT.get()) as f32,
                None => 1.0,
            })
            .collect()
    }

    /// llama.cpp's split points over `n` GPUs: the shares summed in order and divided by their
    /// sum, in `f32` as llama.cpp computes them.
    pub(super) fn llamacpp_split_points(&self, n: usize) -> Vec<f32> {
        let mut points = self.llamacpp_shares(n);
        let mut sum = 0.0f32;
        for p in points.iter_mut() {
            sum += *p;
            *p = sum;
        }
        if sum > 0.0 {
            for p in points.iter_mut() {
                *p /= sum;
            }
        }
        points
    }

    /// The copies of its split's inputs each GPU with blocks holds when llama.cpp pipelines the
    /// GPUs: `n_copies` × (the hidden state a ubatch enters with, ubatch × hidden × 4 B, and its
    /// positions, ubatch × 4 B), and `n_copies − 1` more of the attention mask (ubatch × context
    /// × 4 B; the block's own stage counts one). 0 when the scheduler is not pipelined.
    ///
    /// A published log of two unlike cards (llama.cpp PR #6122, RTX 4070 Ti + RTX 3090 Ti,
    /// Command-R, n_ctx 4096, ubatch 512, "pipeline parallelism enabled (n_copies=4)") prints
    /// CUDA0's compute buffer as 672.01 MiB: the attention stage 512 + 8 + 64 MiB and
    /// 4 × (16 + 0.002) + 3 × 8 MiB of copies (`tests/it/llamacpp_split.rs`).
    pub(super) fn llamacpp_pipeline_copies(
        &self,
        by_rule: bool,
        split: u64,
        ubatch: u64,
        ctx: u64,
    ) -> u64 {
        let layers = self.arch.num_layers.max(1);
        let pipelined = by_rule && split > 1 && self.gpu_layers > layers && self.n_cpu_moe == 0;
        if !pipelined {
            return 0;
        }
        let inputs = ubatch
            .saturating_mul(self.arch.hidden_size)
            .saturating_add(ubatch)
            .saturating_mul(4);
        let mask = ubatch.saturating_mul(ctx).saturating_mul(4);
        inputs
            .saturating_mul(LLAMACPP_PIPELINE_COPIES)
            .saturating_add(mask.saturating_mul(LLAMACPP_PIPELINE_COPIES - 1))
    }

    /// The GPU that limits the run: of cards that are not alike, the one with the least memory
    /// left (the most missing); of alike GPUs, the most loaded (the last of equals).
    pub(super) fn llamacpp_limiting(&self, per_gpu: &[GpuFigures]) -> usize {
        let mut best = 0;
        let mut worst = i128::MIN;
        for (g, f) in per_gpu.iter().enumerate() {
            let memory = if self.cards.is_empty() {
                0
            } else {
                self.card_free(g).map_or(0, Bytes::get)
            };
            let short = f.used() as i128 - memory as i128;
            if short >= worst {
                (best, worst) = (g, short);
            }
        }
        best
    }

    /// Each card's share of a llama.cpp run over several GPUs with a card known, or over the
    /// cards named (Ollama's choice of one of them included), and which one limits (not Ollama's
    /// plan over alike GPUs, whose even split is its own).
    pub(super) fn llamacpp_cards(&self, f: &LlamacppFigures) -> Vec<CardUse> {
        let known = !self.cards.is_empty() || self.device.is_some();
        let several = f.per_gpu.len() >= 2 || !self.cards.is_empty();
        if !several || !known || !self.llamacpp_splits_by_rule() {
            return Vec::new();
        }
        f.per_gpu
            .iter()
            .enumerate()
            .map(|(g, x)| {
                let id = self
                    .cards
                    .get(g)
                    .or(self.device.as_ref())
                    .map_or("gpu", |d| d.id);
                let memory = self.card_memory(g).unwrap_or(Bytes::new(0));
                let free = self.card_free(g).unwrap_or(Bytes::new(0));
                let used = Bytes::new(x.used());
                CardUse {
                    gpu: String::from(id),
                    memory_bytes: memory,
                    layers: x.layers,
                    output_layer: x.output,
                    weights_bytes: Bytes::new(x.weights),
                    kv_cache_bytes: Bytes::new(x.kv.saturating_add(x.state)),
                    compute_bytes: Bytes::new(x.compute),
                    used_bytes: used,
                    fits: used <= free,
                    headroom_bytes: free.minus(used),
                    shortfall_bytes: used.minus(free),
                    limits: g == f.busiest,
                }
            })
            .collect()
    }

    /// The note of a run over unlike cards: the split, each card's share, the one that limits.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn llamacpp_cards_note(&self, f: &LlamacppFigures, p: &mut Parts) {
        let n = f.per_gpu.len();
        let shares = self.llamacpp_shares(n);
        let given = self.tensor_split.len() == n;
        let split_text = shares
            .iter()
            .map(|&s| {
                if given {
                    crate::units::number_text(f64::from(s))
                } else {
                    b(s as u64)
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut en_cards = String::new();
        let mut zh_cards = String::new();
        for (g, x) in f.per_gpu.iter().enumerate() {
            let id = self.cards.get(g).map_or("gpu", |d| d.id);
            let memory = self.card_memory(g).map_or(String::new(), |m| b(m.get()));
            let (blocks, used) = (x.layers, b(x.used()));
            let out_en = if x.output { " + output layer" } else { "" };
            let out_zh = if x.output { " + 输出层" } else { "" };
            let lim_en = if g == f.busiest { " (limits)" } else { "" };
            let lim_zh = if g == f.busiest {
                "（限制所在）"
            } else {
                ""
            };
            en_cards += &en!("; CUDA{g} {id}: {blocks} blocks{out_en}, {used} of {memory}{lim_en}");
            zh_cards += &zh!("；CUDA{g} {id}：{blocks} 块{out_zh}，{used} / {memory}{lim_zh}");
        }
        let (how_en, how_zh) = if given {
            (
                en!("by the tensor split given (-ts {split_text})"),
                zh!("切分按所给的 tensor split（-ts {split_text}）"),
            )
        } else {
            (
                en!(
                    "by each card's free memory at start, taken as its memory less the {} CUDA context ({split_text}); a card that drives a display has less free, so give -ts to fix the split",
                    b(LLAMACPP_CONTEXT.get())
                ),
                zh!(
                    "切分按启动时各卡的空闲显存，取其显存减去 {} 的 CUDA 上下文（{split_text}）；驱动显示器的卡空闲更少，可用 -ts 固定切分",
                    b(LLAMACPP_CONTEXT.get())
                ),
            )
        };
        p.note(
            "llamacpp_unlike_cards",
            en!(
                "llama.cpp splits the blocks and the output layer over the cards, each block's KV cache with it, {how_en}. The fit is per card, and the figures shown are those of the card with the least memory left{en_cards}."
            ),
            zh!(
                "llama.cpp 把各块与输出层分到各卡，每块的 KV 缓存随块而放，{how_zh}。是否放得下按卡判断，所示数字是剩余显存最少的那张卡的{zh_cards}。"
            ),
        );
    }
}
