//! SGLang's figures: every number of a serving run (the weights, the token pool, the request
//! table, the prefill chunk, the CUDA graphs) and no text.

use super::super::Run;
use super::super::parts::Slack;
use super::super::state::StateLayout;
use super::{
    SGLANG_CUDA_GRAPH_PER_LAYER, SGLANG_LOAD_OVERHEAD, SGLANG_MAMBA_FULL_MEMORY_RATIO,
    capture_sizes, default_running_requests,
};
use crate::units::Bytes;

impl Run<'_> {
    /// SGLang's figures: the weights and their loading, the token pool, the request table, the
    /// prefill chunk and the CUDA graphs.
    pub(super) fn sglang_figures(&self) -> SglangFigures {
        let a = &self.arch;
        let weights = self.serving_weights();
        let load = SGLANG_LOAD_OVERHEAD.get();
        let layers = a.num_layers.div_ceil(self.pp);
        // The cache's layers: the model's, or those assumed for a bare parameter count.
        let cache = self.cache_arch();
        let numbers = Run::new(self.w, false);
        let (cell, _) = numbers.kv_bytes(1, 1, cache.num_layers.div_ceil(self.pp), false);
        let cell = if cache.is_generative() {
            cell.max(1)
        } else {
            0
        };
        // Speculative decoding: the draft's KV in every cell (`speculative.rs`).
        let target_layers = cache.num_layers.div_ceil(self.pp);
        let draft = self.sglang_draft(cell, target_layers);
        let cell = cell.saturating_add(draft.map_or(0, |d| d.cell));
        let context = self.max_model_len;
        // A P/D side (`--disaggregation-mode`): what it changes (`disaggregation.rs`).
        let side = self.sglang_side();
        // The tokens one request of context_length takes of the pool: the decode side keeps
        // num_reserved_decode_tokens free for each running request.
        let per_request_tokens = context.saturating_add(side.reserved);
        let preload = self.sglang_preload();
        // A hybrid's state layers: one request's convolution and recurrent state, kept apart in
        // SGLang's MambaPool.
        let per_request = self.state_figures(1, layers, StateLayout::Vllm).bytes;
        // The LoRA pool is allocated after the weights and before the token pool is sized.
        let lora = self.sglang_lora();
        // The draft is loaded before the pool is sized, out of the same static budget.
        let loaded = weights
            .saturating_add(load)
            .saturating_add(lora.map_or(0, |l| l.bytes))
            .saturating_add(draft.map_or(0, |d| d.weights));
        let (pool, state) =
            self.sglang_pool(loaded, cell, preload, per_request, per_request_tokens);
        // Under DP attention each group's scheduler takes `max_running_requests / dp_size` of
        // them (`ModelRunner`: `server_args.max_running_requests // dp_size`) into its own pool.
        let ranks = self.dp_attention.max(1);
        let requests = self
            .max_running_requests
            // Speculative decoding's own default (`_handle_eagle_family`), set in ServerArgs
            // and so divided among the groups as a given one is.
            .or(draft.map(|_| super::speculative::SPECULATIVE_RUNNING_REQUESTS))
            .map(|r| (r / ranks).max(1))
            .unwrap_or_else(|| default_running_requests(pool.tokens(), context));
        // SGLang runs no more requests than the MambaPool holds states.
        let requests = match state {
            Some(s) => requests.min(s.slots),
            None => requests,
        };
        // ReqToTokenPool: an int32 slot per token of context_length + 4 for every running request
        // (and, on the decode side, for the extra slots of requests still arriving).
        let table = requests
            .saturating_add(side.extra_slots)
            .saturating_mul(context.saturating_add(4))
            .saturating_mul(4);
        // The prefill of one chunk: the same per-token forward as vLLM's profile run.
        let prefill_per_token = self.serving_forward_per_token();
        // Under DP attention every group prefills its chunk at once and the MLP takes all of
        // them: per GPU, the same as one undivided chunk over the tp GPUs.
        // The decode side runs no prefill: its largest forward is one token of every running
        // request.
        let forward_tokens = if side.decode {
            requests
        } else {
            self.max_num_batched_tokens
        };
        let prefill = forward_tokens
            .saturating_mul(self.dp_attention.max(1))
            .saturating_mul(prefill_per_token)
            .div_ceil(self.tp);
        // The prefill side captures no decode graphs.
        let cuda_graphs = (self.cuda_graphs && !side.prefill).then(|| {
            let graphs = capture_sizes(self.cuda_graph_max_bs);
            let bytes = graphs
                .saturating_mul(layers)
                .saturating_mul(SGLANG_CUDA_GRAPH_PER_LAYER.get());
            (graphs, bytes)
        });
        // The decode side captures no prefill graphs.
        let prefill_graphs = if side.decode {
            super::PrefillGraphs::OFF
        } else {
            self.prefill_graphs
        };
        let prefill_graph_bytes = prefill_graphs.bytes();
        // M_theory: the memory whose static fraction holds the weights, the loading and `batch`
        // requests of context_length, plus what is in use before loading.
        // `batch` requests of context_length, a group's share of them under DP attention.
        let batch = self.batch.div_ceil(ranks);
        let demand = batch
            .saturating_mul(per_request_tokens)
            .saturating_mul(cell);
        // With a MambaPool the rest is split r : 1 between the states and the tokens, so the
        // rest must be (1 + r) × the tokens' and (1 + r) / r × the states' demand.
        let demand = if per_request > 0 {
            let r = SGLANG_MAMBA_FULL_MEMORY_RATIO;
            let states = batch.saturating_mul(per_request) as f64 * (1.0 + r) / r;
            Bytes::from_f64((demand as f64 * (1.0 + r)).max(states)).get()
        } else {
            demand
        };
        let in_use = self.device.as_ref().map_or(0, |d| d.in_use.get());
        let theory =
            Bytes::from_f64(loaded.saturating_add(demand) as f64 / self.sglang_pool_fraction())
                .get()
                .saturating_add(preload)
                .saturating_add(in_use);
        // The rest of what is free before loading, `1 − mem_fraction_static` of it, must hold
        // what SGLang allocates beside its pools: the request table, the prefill chunk, the CUDA
        // graphs of decode and prefill, and the padding slot the token pool holds beyond its rest.
        let slack = Slack {
            fraction: self.sglang_pool_fraction(),
            before: preload.saturating_add(in_use),
            outside: [
                table,
                prefill,
                cuda_graphs.map_or(0, |(_, b)| b),
                prefill_graph_bytes,
                cell,
            ]
            .into_iter()
            .fold(0, u64::saturating_add),
        };
        SglangFigures {
            weights,
            load,
            lora,
            draft,
            layers,
            cell,
            context,
            preload,
            pool,
            state,
            requests,
            table,
            prefill_per_token,
            prefill,
            cuda_graphs,
            prefill_graphs,
            prefill_graph_bytes,
            theory,
            slack,
            ranks,
            side,
            per_request_tokens,
        }
    }

    /// The token pool: on a card, `mem_fraction_static` of the memory free before loading less
    /// what loading took (`loaded`), in cells of `cell` bytes; without one, `batch` requests of
    /// context_length. A hybrid's states (`per_request` bytes each) come first: on a card
    /// `r / (1 + r)` of that rest in whole states (`ModelRunner._handle_max_mamba_cache`, `r`
    /// = `mamba_full_memory_ratio`), the tokens from what is left; without one, `batch` states.
    fn sglang_pool(
        &self,
        loaded: u64,
        cell: u64,
        preload: u64,
        per_request: u64,
        per_request_tokens: u64,
    ) -> (SglangPool, Option<SglangState>) {
        let Some(d) = &self.device else {
            // A group's share of the requests under DP attention.
            let batch = self.batch.div_ceil(self.dp_attention.max(1));
            let tokens = batch.saturating_mul(per_request_tokens);
            let state = (per_request > 0).then(|| SglangState {
                per_request,
                slots: batch,
                bytes: batch.saturating_mul(per_request),
            });
            return (
                SglangPool::Demand {
                    tokens,
                    kv: tokens.saturating_mul(cell),
                },
                state,
            );
        };
        // SGLang sizes from the memory free at start (`get_available_gpu_memory` after the
        // distributed init, `min_per_gpu_memory`), which other programs' memory is out of:
        // `profile_max_num_token`'s rest = free after loading − pre × (1 − mem_fraction_static)
        // = pre × mem_fraction_static − loaded, so memory in use shrinks the pool by
        // mem_fraction_static of it.
        let memory = d.memory.get();
        let in_use = d.in_use.get();
        let pre = d.free().get().saturating_sub(preload);
        let rest = Bytes::from_f64(pre as f64 * self.sglang_pool_fraction())
            .get()
            .saturating_sub(loaded);
        let state = (per_request > 0).then(|| {
            let r = SGLANG_MAMBA_FULL_MEMORY_RATIO;
            let budget = Bytes::from_f64(rest as f64 * r / (1.0 + r)).get();
            let slots = budget / per_request;
            SglangState {
                per_request,
                slots,
                bytes: slots.saturating_mul(per_request),
            }
        });
        let for_tokens = rest.saturating_sub(state.map_or(0, |s| s.bytes));
        let tokens = for_tokens.checked_div(cell).unwrap_or(0);
        // The pool holds one more token: slot 0 takes the padded tokens' dummy writes.
        let kv = if tokens > 0 {
            (tokens + 1).saturating_mul(cell)
        } else {
            0
        };
        (
            SglangPool::Card {
                memory,
                in_use,
                pre,
                rest,
                tokens,
                kv,
            },
            state,
        )
    }
}

/// Every number of an SGLang run and no text: what [`Run::sglang`] adds to the parts, and what
/// [`Run::sglang_components`] writes the formulas of.
pub(super) struct SglangFigures {
    /// The weights as SGLang loads them.
    pub(super) weights: u64,
    /// What loading takes beyond them.
    pub(super) load: u64,
    /// The LoRA pool (`--enable-lora`).
    pub(super) lora: Option<super::lora::SglangLora>,
    /// The speculative draft (`--speculative-algorithm`), loaded before the pool.
    pub(super) draft: Option<super::speculative::SglangDraft>,
    /// Layers on this GPU.
    pub(super) layers: u64,
    /// One token's keys and values over those layers (at least 1 for a generative model), and
    /// the draft's share of them under speculative decoding.
    pub(super) cell: u64,
    /// context_length.
    pub(super) context: u64,
    /// Memory in use before loading: the CUDA context and the distributed init.
    pub(super) preload: u64,
    /// The token pool.
    pub(super) pool: SglangPool,
    /// A hybrid's MambaPool: the states of its linear-attention or state-space layers.
    pub(super) state: Option<SglangState>,
    /// max_running_requests, given or SGLang's default.
    pub(super) requests: u64,
    /// The request-to-token table (`ReqToTokenPool`).
    pub(super) table: u64,
    /// The prefill chunk's bytes per token, and its bytes per GPU.
    pub(super) prefill_per_token: u64,
    pub(super) prefill: u64,
    /// The CUDA graphs captured and their bytes, when graphs are captured.
    pub(super) cuda_graphs: Option<(u64, u64)>,
    /// The prefill graphs captured (none on the decode side) and what they hold outside the
    /// static fraction: SGLang's own reserve for them.
    pub(super) prefill_graphs: super::PrefillGraphs,
    pub(super) prefill_graph_bytes: u64,
    /// The card memory whose static fraction holds `batch` requests of context_length.
    pub(super) theory: u64,
    /// What the rest of the card outside the static fraction must hold.
    pub(super) slack: Slack,
    /// The groups that each hold a pool of their own on every GPU: `dp_size` under DP attention,
    /// else 1.
    pub(super) ranks: u64,
    /// The P/D side this instance serves, and what it changes.
    pub(super) side: super::disaggregation::Side,
    /// The pool's tokens one request of context_length takes: context_length, and on the
    /// decode side num_reserved_decode_tokens more.
    pub(super) per_request_tokens: u64,
}

/// SGLang's MambaPool: one state per request slot over the state layers on this GPU.
#[derive(Clone, Copy)]
pub(super) struct SglangState {
    /// One request's convolution (`kernel − 1` inputs, model dtype) and recurrent (fp32) state.
    pub(super) per_request: u64,
    /// Request slots (`max_mamba_cache_size`).
    pub(super) slots: u64,
    /// Their bytes.
    pub(super) bytes: u64,
}

/// SGLang's token pool.
#[derive(Clone, Copy)]
pub(super) enum SglangPool {
    /// On a card: `mem_fraction_static` of the memory free before loading (`pre`), less what
    /// loading took (`rest` left), in whole tokens, and the pool's bytes with its padding slot.
    Card {
        memory: u64,
        /// Memory other programs hold before SGLang starts.
        in_use: u64,
        pre: u64,
        rest: u64,
        tokens: u64,
        kv: u64,
    },
    /// Without a card: `batch` requests of context_length.
    Demand { tokens: u64, kv: u64 },
}

impl SglangPool {
    /// Tokens in the pool.
    pub(super) fn tokens(self) -> u64 {
        match self {
            SglangPool::Card { tokens, .. } | SglangPool::Demand { tokens, .. } => tokens,
        }
    }

    /// The pool's bytes.
    pub(super) fn kv(self) -> u64 {
        match self {
            SglangPool::Card { kv, .. } | SglangPool::Demand { kv, .. } => kv,
        }
    }
}
