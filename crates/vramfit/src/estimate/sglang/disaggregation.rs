//! SGLang's disaggregated prefill and decode (`--disaggregation-mode prefill|decode`), read from
//! SGLang 0.5.23's source: what each side changes against a plain server, the default
//! `mem_fraction_static` of each side, and the notes that give the other side's pool.
//!
//! - The prefill side captures no decode CUDA graphs (`cuda_graph_hook.
//!   apply_cuda_graph_disaggregation_roles`), and its default fraction reserves none for them
//!   (`memory_hook.reserve_for_graph_mb`: the `cuda_graph_max_bs × 2` MiB and DP attention's
//!   padding only where `disaggregation_mode != "prefill"`).
//! - The decode side runs no prefill: its default fraction reserves for `max(max_running_requests
//!   (or cuda_graph_max_bs), 2048) × 1.5` MiB of activations, not the prefill chunk
//!   (`memory_hook._handle_gpu_memory_settings`); its largest forward is one token per running
//!   request. Its request table has `disaggregation_decode_extra_slots` more rows
//!   (`DecodeReqToTokenPool`: `size + pre_alloc_size + 1`), and before it admits a request it
//!   keeps `num_reserved_decode_tokens` free for every running one
//!   (`DecodePreallocQueue._active_reserved_tokens`, `_prealloc_required_tokens`): a request of
//!   context_length takes context_length + that many of its pool. Its radix cache is off
//!   (`handle_pd_disaggregation`).
//! - Both: Mooncake and NIXL register the token pool already allocated with their transfer
//!   engines (`register_buffer_to_engine` of the KV pointers): no GPU memory of their own. The
//!   transfer's `MetadataBuffers` are CPU tensors (`device = "cpu"`): `max_running_requests × 2`
//!   rows of 1,600 B (ten tensors: 16 int32 × 4, 128 float32 + 128 int32 top log-probs, 16 fp32,
//!   16 int64, 16 fp32 hidden padding, 8 uint64) in host memory.

use super::super::{Parts, Run};
use super::figures::SglangFigures;
use crate::estimate::{Disaggregation, DisaggregationMode};

/// One row of SGLang's P/D metadata buffers, in CPU memory (`MetadataBuffers.__init__` without
/// speculative decoding, the sampling mask, DSA indices or the KV checksum): output ids, cached
/// tokens, the token's log-prob value and index (16 × 4 B each), the top log-probs' values and
/// indices (128 × 4 B each), top-k p (16 × 4 B) and index (16 × 8 B), the hidden-state padding
/// (16 × 4 B) and the bootstrap room (8 × 8 B).
pub(super) const METADATA_ROW: u64 = 4 * 16 * 4 + 2 * 128 * 4 + 16 * 4 + 16 * 8 + 16 * 4 + 8 * 8;

/// What the P/D side changes in SGLang's figures.
#[derive(Clone, Copy, Default)]
pub(in crate::estimate) struct Side {
    /// The prefill side: no decode graphs.
    pub(super) prefill: bool,
    /// The decode side: no prefill, the reserved tokens and the extra rows.
    pub(super) decode: bool,
    /// `num_reserved_decode_tokens` on the decode side, else 0.
    pub(super) reserved: u64,
    /// `disaggregation_decode_extra_slots` on the decode side, else 0.
    pub(super) extra_slots: u64,
}

impl Run<'_> {
    /// This SGLang run's P/D side: nothing for a plain server.
    pub(super) fn sglang_side(&self) -> Side {
        match self.disaggregation() {
            Some(Disaggregation {
                mode: DisaggregationMode::Decode,
                reserved_decode_tokens,
                extra_slots,
                ..
            }) => Side {
                prefill: false,
                decode: true,
                reserved: reserved_decode_tokens,
                extra_slots,
            },
            Some(_) => Side {
                prefill: true,
                ..Side::default()
            },
            None => Side::default(),
        }
    }

    /// The other side's pool with the same settings: its tokens, and the requests of
    /// context_length it holds at once (over every DP-attention group).
    fn sglang_other_side(&self, d: Disaggregation) -> (u64, f64, f64) {
        let mut w = self.w.clone();
        w.disaggregation = Some(Disaggregation {
            mode: d.mode.other(),
            other_mem_fraction_static: self.mem_fraction_static,
            ..d
        });
        w.mem_fraction_static = d.other_mem_fraction_static;
        let f = Run::new(&w, false).sglang_figures();
        let tokens = f.pool.tokens();
        let held = (tokens as f64 / (f.per_request_tokens as f64).max(1.0)).min(f.requests as f64)
            * f.ranks as f64;
        (
            tokens,
            libm::floor(held * 100.0) / 100.0,
            w.mem_fraction_static,
        )
    }

    /// The notes of a P/D side: what SGLang changes on it, that the transfer backend and the
    /// prefix cache hold no memory of their own, the metadata in CPU memory, and the other
    /// side's pool.
    // In one language, the other's words are not used.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn sglang_side_notes(&self, f: &SglangFigures, p: &mut Parts) {
        let Some(d) = self.disaggregation().filter(|_| self.text) else {
            return;
        };
        let (backend, rows) = (d.backend.name(), f.requests.saturating_mul(2));
        let (other_tokens, other_held, other_fraction) = self.sglang_other_side(d);
        let (rows_s, metadata, other_tokens) = (
            super::super::thousands(rows),
            super::super::b(rows.saturating_mul(METADATA_ROW)),
            super::super::thousands(other_tokens),
        );
        // Four figures, so that every build writes the same text (`units::float_text`).
        let other_fraction = crate::units::short(crate::units::four_figures(other_fraction));
        let other_held = crate::units::short(crate::units::four_figures(other_held));
        let row = METADATA_ROW;
        match d.mode {
            DisaggregationMode::Prefill => p.note(
                "sglang_pd_prefill",
                en!("PD disaggregation, the prefill side (--disaggregation-mode prefill): SGLang captures no decode CUDA graphs here and its default mem_fraction_static reserves none for them. The pool holds the prompts being prefilled and those whose KV cache is still being sent to the decode side; the transfer backend {backend} registers this pool with its engine and holds no GPU memory of its own, and the radix cache (prefix caching) reuses the pool's own tokens. The transfer's metadata buffers, {rows_s} rows (max_running_requests × 2) × {row} B = {metadata}, are in CPU memory. The decode side with these settings: mem_fraction_static {other_fraction}, {other_tokens} tokens, {other_held} requests of context_length at once (estimate it with disaggregation_mode decode)."),
                zh!("预填充与解码分离，预填充端（--disaggregation-mode prefill）：SGLang 在这一端不捕获解码 CUDA 图，其默认 mem_fraction_static 也不为它们预留。池中保存正在预填充的提示词，以及 KV 缓存尚在发往解码端的请求；传输后端 {backend} 只是把这个池注册到其传输引擎，自身不占 GPU 显存，radix cache（前缀缓存）复用池中已有的 token。传输用的元数据缓冲 {rows_s} 行（max_running_requests × 2）× {row} B = {metadata}，位于 CPU 内存。相同设置下的解码端：mem_fraction_static {other_fraction}，{other_tokens} 个 token，可同时容纳 {other_held} 个 context_length 长的请求（用 disaggregation_mode decode 估算它）。"),
            ),
            DisaggregationMode::Decode => {
                let (reserved, extra, context) = (d.reserved_decode_tokens, d.extra_slots, f.context);
                p.note(
                    "sglang_pd_decode",
                    en!("PD disaggregation, the decode side (--disaggregation-mode decode): SGLang runs no prefill here and captures no prefill graphs; its largest forward is one token of each running request, and its default mem_fraction_static reserves for that batch, not for a prefill chunk. Before it admits a request it keeps num_reserved_decode_tokens {reserved} free for every running one, so a request of context_length takes {context} + {reserved} tokens of the pool; the request table has {extra} extra rows for requests still arriving (disaggregation_decode_extra_slots). The radix cache is off here (--disaggregation-decode-enable-radix-cache turns it on); prefix caching holds no memory of its own either way. The transfer backend {backend} registers this pool with its engine and holds no GPU memory of its own; the transfer's metadata buffers, {rows_s} rows × {row} B = {metadata}, are in CPU memory. The prefill side with these settings: mem_fraction_static {other_fraction}, {other_tokens} tokens, {other_held} requests of context_length at once (estimate it with disaggregation_mode prefill)."),
                    zh!("预填充与解码分离，解码端（--disaggregation-mode decode）：SGLang 在这一端不做预填充、不捕获预填充图；最大的一次前向是每个运行中请求各一个 token，其默认 mem_fraction_static 按这一批预留，而不是按预填充分块。接纳新请求前，它为每个运行中的请求保留 num_reserved_decode_tokens {reserved} 个空闲 token，因此一个 context_length 长的请求占池中 {context} + {reserved} 个 token；请求表为仍在传输中的请求多留 {extra} 行（disaggregation_decode_extra_slots）。这一端关闭 radix cache（--disaggregation-decode-enable-radix-cache 可开启）；无论开关，前缀缓存都不占用额外显存。传输后端 {backend} 只是把这个池注册到其传输引擎，自身不占 GPU 显存；传输用的元数据缓冲 {rows_s} 行 × {row} B = {metadata}，位于 CPU 内存。相同设置下的预填充端：mem_fraction_static {other_fraction}，{other_tokens} 个 token，可同时容纳 {other_held} 个 context_length 长的请求（用 disaggregation_mode prefill 估算它）。"),
                );
            }
        }
    }
}

#[cfg(test)]
#[path = "disaggregation_tests.rs"]
mod tests;
