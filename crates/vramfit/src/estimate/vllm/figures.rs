//! vLLM's figures: every number of a serving run (the weights, the profile run, the KV pool and
//! its blocks, the CUDA graphs, the context) and no text.

use super::super::parts::Slack;
use super::super::{CUDA_CONTEXT, Run};
use super::encoder::EncoderFigures;
use super::lora::LoraFigures;
use super::mxfp4::Mxfp4Backend;
use super::speculative::DrafterFigures;
use super::version::VllmVersion;
use super::{
    CUDA_GRAPH_BASE_GIB, CUDA_GRAPH_PER_LAYER_GIB, SAMPLER_FP32_COPIES, SAMPLER_SORT_BYTES,
    VLLM_BLOCK, VLLM_CUDA_CONTEXT_PARALLEL,
};
use crate::units::{Bytes, GIB};

/// Every number of a vLLM run and no text: what [`Run::vllm`] adds to the parts, and what
/// [`Run::vllm_components`] writes the formulas of.
pub(super) struct VllmFigures {
    /// The weights as vLLM loads them, without the rotary cache (with `mxfp4`'s bytes).
    pub(super) weights: u64,
    /// An MXFP4 MoE's backend and the bytes it holds beyond the checkpoint's expert tensors.
    pub(super) mxfp4: Option<(Mxfp4Backend, u64)>,
    /// The LoRA adapter slots (`enable_lora`), out of the pool's budget.
    pub(super) lora: Option<LoraFigures>,
    /// Speculative decoding's drafter (`--speculative-config`), out of the pool's budget.
    pub(super) drafter: Option<DrafterFigures>,
    /// The start-up profile's encoder outputs (with images), out of the pool's budget.
    pub(super) encoder: Option<EncoderFigures>,
    /// The rotary embedding's cos/sin cache, max_position × head_dim in the model dtype (0 where
    /// the model has none).
    pub(super) rope: u64,
    /// The profile run's forward, per batched token ([`Self::fp32_margin_per_token`] in it).
    pub(super) forward_per_token: u64,
    /// Of [`Self::forward_per_token`], the stated fp32 margin: one FFN-wide fp32 temporary
    /// (`Run::vllm_fp32_forward_margin`); 0 in any other dtype.
    pub(super) fp32_margin_per_token: u64,
    /// The profile run's forward over max_num_batched_tokens, per GPU.
    pub(super) forward: u64,
    /// The sampler's dummy run over max_num_seqs.
    pub(super) sampler: u64,
    /// The release profiles the sampler with a full sort (V1 0.8–0.16).
    pub(super) sampler_sort: bool,
    /// Marlin's fused-MoE workspaces kept under the sampler's peak (0.19 on; 0 otherwise).
    pub(super) moe_workspaces: u64,
    /// Non-torch memory growth during the profile run.
    pub(super) non_torch: Bytes,
    /// Of [`Self::non_torch`], the stated margin of the 0.17–0.20 line (`sampler.rs`).
    pub(super) profile_margin: u64,
    /// The release's profile keeps the sampler's logits on top of the forward (0.6.5–0.6.6).
    pub(super) sampler_on_forward: bool,
    /// How the KV cache's layers group into blocks.
    pub(super) layout: VllmLayout,
    /// What one request of max_model_len needs.
    pub(super) request: u64,
    /// The pool: sized from the card, or the demand without one.
    pub(super) pool: VllmPool,
    /// The CUDA-graph pool, when graphs are captured.
    pub(super) cuda_graphs: Option<u64>,
    /// The CUDA context (with NCCL's communicators in a parallel group).
    pub(super) context: Bytes,
    /// Tokens in the pool (0 for a model that is not generative).
    pub(super) tokens: u64,
    /// The card memory whose budget holds `batch` sequences of max_model_len.
    pub(super) theory: u64,
    /// What the rest of the card outside the budget must hold.
    pub(super) slack: Slack,
}

impl VllmFigures {
    /// The weights with the rotary cache.
    pub(super) fn weights_total(&self) -> u64 {
        self.weights + self.rope
    }

    /// The profile run's torch peak: the larger of the forward and the sampler, or their sum
    /// where the release keeps both (0.6.5–0.6.6); the fused-MoE workspaces kept under the
    /// sampler's (`sampler.rs`).
    pub(super) fn activations(&self) -> u64 {
        if self.sampler_on_forward {
            self.forward.saturating_add(self.sampler)
        } else {
            self.forward
                .max(self.sampler.saturating_add(self.moe_workspaces))
        }
    }
}

/// The KV cache's layers on this GPU as vLLM's hybrid allocator groups them: layers of one
/// attention type cut into groups of `group_size` layers (the smaller type's count, or the
/// larger's when they are within 25 %), the last group padded; a block id holds 16 tokens in each
/// of the group's shared tensors, and every group of a request takes its own blocks from the one
/// pool.
#[derive(Clone, Copy)]
pub(super) struct VllmLayout {
    /// Layers on this GPU.
    pub(super) layers: u64,
    /// KV bytes per token over those layers (at least 1 for a generative model).
    pub(super) per_token: u64,
    /// KV bytes per token per layer.
    pub(super) per_layer: u64,
    /// Full-attention layers, sliding-window layers, and layers with a cross-attention cache.
    pub(super) global: u64,
    pub(super) local: u64,
    pub(super) cross: u64,
    /// Layers per group.
    pub(super) group_size: u64,
    /// Groups of each type.
    pub(super) groups_full: u64,
    pub(super) groups_window: u64,
    pub(super) groups_cross: u64,
    /// Blocks per request: a full layer's (the whole max_model_len), a sliding layer's
    /// (cdiv(min(window − 1 + batched tokens, max_model_len), 16) + 1), a cross-attention layer's
    /// (the encoder's frames).
    pub(super) full_blocks: u64,
    pub(super) window_blocks: u64,
    pub(super) cross_blocks: u64,
    /// A hybrid's state layers, their groups, and the 16-token blocks of one state layer's page
    /// per request: vLLM raises the attention block size until one page holds a layer's state
    /// (`HybridAttentionMambaModelConfig.verify_and_update_config`, v0.11), so a state layer
    /// takes `cdiv(state, 16-token page)` blocks' worth per running request.
    pub(super) state_layers: u64,
    pub(super) groups_state: u64,
    pub(super) state_blocks: u64,
}

/// vLLM's KV pool.
#[derive(Clone, Copy)]
pub(super) enum VllmPool {
    /// On a card: what the utilisation budget leaves, in whole blocks.
    Card {
        /// The card's memory.
        memory: u64,
        /// Memory other programs hold that the budget pays for (before 0.9.1, where the profile
        /// counts it as non-torch memory; 0 from 0.9.1, which checks it at start-up instead).
        others: u64,
        /// Bytes left in the budget.
        available: u64,
        /// Whole blocks in them, and their bytes.
        blocks: u64,
        used: u64,
        /// Requests of max_model_len the blocks hold at once.
        concurrency: f64,
    },
    /// Without a card: the KV of `batch` sequences of max_model_len.
    Demand {
        /// Its bytes.
        bytes: u64,
    },
}

impl VllmPool {
    /// The pool's bytes, as the KV-cache component shows them.
    pub(super) fn bytes(self) -> u64 {
        match self {
            VllmPool::Card { used, .. } => used,
            VllmPool::Demand { bytes } => bytes,
        }
    }
}

impl Run<'_> {
    /// vLLM's figures: the weights, the profile run, the pool and what lives outside it.
    pub(super) fn vllm_figures(&self) -> VllmFigures {
        let a = &self.arch;
        let version = self.vllm_version;
        let mxfp4 = self.vllm_mxfp4_extra(version);
        let weights = self
            .serving_weights()
            .saturating_add(mxfp4.map_or(0, |(_, extra)| extra));
        // vLLM's rotary embedding keeps a cos/sin cache of max_position × head_dim in the model dtype.
        // A bidirectional decoder (EmbeddingGemma) keeps its rotary embedding too.
        let rotary = a.is_generative() || a.bidirectional;
        let rope = if rotary && a.mla.is_none() && a.learned_positions == 0 {
            a.max_position_embeddings
                .saturating_mul(a.head_dim)
                .saturating_mul(self.act_bytes())
        } else {
            0
        };
        // Profile run: the larger of the forward pass over max_num_batched_tokens and the sampler's
        // dummy run over max_num_seqs (fp32 logits, a sorted copy, int64 indices: ≈ 15.1 B per
        // vocabulary entry per sequence, calibrated on the vLLM 0.19 H100 runs; 38 B where the
        // release sorts the whole vocabulary, V1 0.8–0.16).
        let fp32_margin_per_token = self.vllm_fp32_forward_margin();
        let forward_per_token = self
            .serving_forward_per_token()
            .saturating_add(fp32_margin_per_token);
        let whole = version.profile_whole_forward_and_sampler();
        let forward = self
            .max_num_batched_tokens
            .saturating_mul(forward_per_token)
            .div_ceil(if whole { 1 } else { self.tp });
        let (sampler, sampler_sort, moe_workspaces) = self.vllm_sampler(version, mxfp4);
        // The stated margin of the 0.17–0.20 line (`sampler.rs`), counted with the non-torch
        // memory: both are out of the budget whatever the profile's peak.
        let profile_margin = self.vllm_triton_line_margin(version);
        let non_torch = Bytes::new(
            version
                .non_torch(self.tp, self.pp)
                .get()
                .saturating_add(profile_margin),
        );
        let drafter = self.vllm_drafter();
        let l = self.vllm_layout(drafter.as_ref());
        let request = l.per_layer.saturating_mul(VLLM_BLOCK).saturating_mul(
            l.global * l.full_blocks
                + l.local * l.window_blocks
                + l.cross * l.cross_blocks
                + l.state_layers * l.state_blocks,
        );
        // The graphs are the model's blocks (none known for a bare parameter count), not the
        // cache's layers.
        let graph_layers = a.num_layers.div_ceil(self.pp);
        let cuda_graphs = self.cuda_graphs.then(|| {
            Bytes::from_f64(
                (CUDA_GRAPH_BASE_GIB + CUDA_GRAPH_PER_LAYER_GIB * graph_layers as f64) * GIB as f64,
            )
            .get()
        });
        // From 0.21 the graphs are profiled before the pool is sized and come out of its budget;
        // from 0.26 a hybrid's profile also charges a transient of one more forward.
        let graphs_in_budget = match cuda_graphs {
            Some(g) if version.graphs_in_budget() => {
                let transient = if version.hybrid_graph_transient() && l.state_layers > 0 {
                    forward
                } else {
                    0
                };
                g.saturating_add(transient)
            }
            _ => 0,
        };
        let profile = if whole {
            forward.saturating_add(sampler)
        } else {
            forward.max(sampler.saturating_add(moe_workspaces))
        };
        let lora = self.vllm_lora();
        let encoder = self.vllm_encoder(profile);
        let budget_used = weights
            + rope
            + profile
            + non_torch.get()
            + graphs_in_budget
            + lora.map_or(0, |l| l.bytes())
            + drafter.map_or(0, |d| d.bytes())
            + encoder.map_or(0, |e| e.total());
        let (pool, tokens) = self.vllm_pool(&l, budget_used, request);
        // Each worker of a tensor- or pipeline-parallel group also holds NCCL's communicators
        // and the custom all-reduce buffers before the profile run.
        let context = if self.tp * self.pp > 1 {
            VLLM_CUDA_CONTEXT_PARALLEL
        } else {
            CUDA_CONTEXT
        };
        let outside = if graphs_in_budget > 0 {
            context.get()
        } else {
            context.get().saturating_add(cuda_graphs.unwrap_or(0))
        };
        let (theory, slack) = self.vllm_theory(budget_used, request, outside);
        VllmFigures {
            weights,
            mxfp4,
            lora,
            drafter,
            encoder,
            rope,
            forward_per_token,
            fp32_margin_per_token,
            forward,
            sampler,
            sampler_sort,
            moe_workspaces,
            non_torch,
            profile_margin,
            sampler_on_forward: whole,
            layout: l,
            request,
            pool,
            cuda_graphs,
            context,
            tokens: if self.cache_arch().is_generative() {
                tokens
            } else {
                0
            },
            theory,
            slack,
        }
    }

    /// The sampler's dummy run in vLLM's profile: its bytes, whether the release sorts the whole
    /// vocabulary, and the fused-MoE workspaces kept under it.
    fn vllm_sampler(
        &self,
        version: VllmVersion,
        mxfp4: Option<(Mxfp4Backend, u64)>,
    ) -> (u64, bool, u64) {
        let a = &self.arch;
        let sampler_sort = version.full_sort_sampler() && !self.pooling;
        // A pooling model's profile runs `_dummy_pooler_run` on the forward's hidden states in
        // place of `_dummy_sampler_run` (`profile_run`, vllm/v1/worker/gpu_model_runner.py
        // lines 6136-6139 at 0.33.0): no logits over the vocabulary. The pooled output (one
        // hidden vector per sequence for CLS, LAST or MEAN pooling) is left out: at most
        // max_num_seqs × hidden, 2 MiB for 1,024 × 1,024 in fp16.
        let sampler = if self.pooling {
            0
        } else if sampler_sort {
            // Beside the sort, `profile_run` holds the forward's hidden states (batched tokens ×
            // hidden) and `_dummy_sampler_run` the gathered last ones and their random copy
            // (2 × sequences × hidden), in the model dtype.
            let hidden = self
                .max_num_batched_tokens
                .saturating_add(2 * self.max_num_seqs)
                .saturating_mul(a.hidden_size)
                .saturating_mul(self.act_bytes());
            self.max_num_seqs
                .saturating_mul(a.vocab_size)
                .saturating_mul(SAMPLER_SORT_BYTES)
                .saturating_add(hidden)
        } else if let Some(sms) = self.vllm_triton_topk_sms(version) {
            // The Triton top-k/top-p buffer counted by the card's SMs (`sampler.rs`).
            self.vllm_triton_sampler(sms)
        } else {
            Bytes::from_f64(
                self.max_num_seqs as f64 * a.vocab_size as f64 * 4.0 * SAMPLER_FP32_COPIES,
            )
            .get()
        };
        // Fused-MoE workspaces the workspace manager keeps under the sampler (`sampler.rs`).
        let moe_workspaces = if self.pooling {
            0
        } else {
            self.vllm_moe_workspaces(version, mxfp4)
        };
        (sampler, sampler_sort, moe_workspaces)
    }

    /// The stated margin of an fp32 model's profile forward, per batched token: one FFN-wide
    /// fp32 temporary (`4 B × ffn`, the widest FFN or an expert's), in every release. The one
    /// fp32 run measured (Llama-3.1-8B at 8,192 batched tokens on an H100, vLLM 0.19.0, the llm-d
    /// study's `tests/data/vllm-h100-v0.19-calibration.csv`) profiled 2.21 GiB where the count
    /// of a compiled block gives 1.81 GiB (8,192 × 4 B × (4 × 4,096 + 3 × 14,336)), and its pool
    /// came out 0.59 % larger than vLLM's. Read in the v0.19.0 source, the sampler is not the
    /// cause: `Sampler.forward`'s `logits.to(torch.float32)` copies nothing when the logits are
    /// fp32 already, so an fp32 model's sampler holds half a copy less than a bf16 one's (three
    /// copies of 0.49, the Triton rows 0.06 and the hidden states 0.16: 1.69 GiB, under 2.21); the
    /// peak is the forward. The same count is within 2 % of the one bf16 run whose forward is its peak
    /// (granite-3.1-8b, 0.84 against 0.85 GiB). What the fp32 forward holds beyond it — 0.40 GiB,
    /// 3.2 hidden-wide fp32 tensors a token — was not found in the source (the attention is
    /// skipped in the profile, without metadata, in both dtypes; fp32 runs Triton's attention,
    /// bf16 FlashAttention); one more FFN-wide fp32 temporary, as an unfused SwiGLU's
    /// `silu(gate)` would hold, is 0.44 GiB there: counted as a stated margin, which leaves that
    /// run's pool 0.04 GiB (0.1 %) short and scales with the FFN and the batched tokens.
    pub(super) fn vllm_fp32_forward_margin(&self) -> u64 {
        let a = &self.arch;
        if self.act_bytes() != 4 || !a.is_detailed() {
            return 0;
        }
        let ffn = match a.moe {
            Some(m) => m.expert_intermediate_size.max(m.shared_intermediate_size),
            None => a.widest_ffn(),
        };
        ffn.saturating_mul(4)
    }

    /// `M_theory` for serving (the guide's stage 2: KV at the peak concurrency): the card memory
    /// whose utilisation budget holds `budget_used` and the KV of `batch` requests of `request`
    /// bytes; and the rest of the card, which must hold what lives `outside` the budget (`Slack`,
    /// taken with the allocator's reserve when the estimate is finished). Memory other programs
    /// hold comes out of the budget before 0.9.1 and out of the rest since (the start-up check of
    /// the free memory).
    fn vllm_theory(&self, budget_used: u64, request: u64, outside: u64) -> (u64, Slack) {
        let demand = self.batch.saturating_mul(request);
        let in_use = self.device.as_ref().map_or(0, |d| d.in_use.get());
        let (in_budget, in_rest) = if self.vllm_version.refuses_short_free() {
            (0, in_use)
        } else {
            (in_use, 0)
        };
        let theory = Bytes::from_f64(
            budget_used.saturating_add(in_budget).saturating_add(demand) as f64
                / self.gpu_memory_utilization,
        )
        .get();
        let slack = Slack {
            fraction: self.gpu_memory_utilization,
            before: 0,
            outside: outside.saturating_add(in_rest),
        };
        (theory, slack)
    }

    /// The KV cache's layers on this GPU and how vLLM's allocator groups them, the drafter's
    /// attention layers among the full-attention ones.
    fn vllm_layout(&self, drafter: Option<&DrafterFigures>) -> VllmLayout {
        // The model's, or for a bare parameter count the shape assumed for its cache.
        let a = self.cache_arch();
        let layers = a.num_layers.div_ceil(self.pp);
        let numbers = Run::new(self.w, false);
        let (per_token, _) = numbers.kv_bytes(1, 1, layers, false);
        let per_token = if a.is_generative() {
            per_token.max(1)
        } else {
            0
        };
        let (global, local) = a.stage_layers(layers);
        // A hybrid's state layers keep no KV: the bytes per token are the attention layers'.
        // Gemma 4's full layers are wider than its sliding ones: each layer is counted at the
        // wider page, an upper bound on how vLLM's allocator holds the two (not checked against
        // a vLLM log).
        let per_layer = match a.layer_shapes {
            Some(_) => {
                let total =
                    global * a.kv_elements_full_layer() + local * a.kv_elements_sliding_layer();
                let widest = a
                    .kv_elements_full_layer()
                    .max(a.kv_elements_sliding_layer());
                (per_token * widest).div_ceil(total.max(1))
            }
            None => per_token / (global + local).max(1),
        };
        // The drafter's attention layers join the target's in the pool.
        let (draft_layers, draft_per_layer) =
            drafter.map_or((0, 0), |d| (d.kv_layers, d.kv_per_layer));
        let per_token = per_token.saturating_add(draft_layers.saturating_mul(draft_per_layer));
        let state = self.state_figures(1, layers, super::super::state::StateLayout::Vllm);
        let state_per_layer = state.conv_per_layer + state.recurrent_per_layer;
        let state_blocks = state_per_layer.div_ceil((per_layer * VLLM_BLOCK).max(1));
        // Whisper's decoder layers each have a cross-attention cache of the encoder's frames
        // (`CrossAttentionSpec`: cdiv(max_num_encoder_input_tokens, 16) blocks per request), a
        // type of its own beside the self-attention layers.
        let frames = self.encoder_stack().1;
        let cross = if frames > 0 { layers } else { 0 };
        // Beside a target whose every layer attends to the whole context, vLLM keeps the
        // drafter's layers in the one group of full attention (`UniformTypeKVCacheSpecs`, each
        // layer its own width): one block holds 16 tokens of every layer, the bytes per token
        // summed, shown as one layer of their width. Beside other layer kinds, the draft layers
        // join the full-attention groups at the wider of the two widths: the safe side of
        // vLLM's unified page size.
        let uniform = local == 0 && cross == 0 && state.layers == 0;
        let (global, per_layer) = match draft_layers {
            0 => (global, per_layer),
            _ if uniform => (1, per_token),
            n => (global + n, per_layer.max(draft_per_layer)),
        };
        let group_size = match (global, local.max(cross).max(state.layers)) {
            (0, n) | (n, 0) => n.max(1),
            (g, l) if g.max(l) * 4 < g.min(l) * 5 => g.max(l),
            (g, l) => g.min(l),
        };
        VllmLayout {
            layers,
            per_token,
            per_layer,
            global,
            local,
            cross,
            group_size,
            groups_full: global.div_ceil(group_size),
            groups_window: local.div_ceil(group_size),
            groups_cross: cross.div_ceil(group_size),
            full_blocks: self.max_model_len.div_ceil(VLLM_BLOCK),
            window_blocks: (a.sliding_window.saturating_sub(1) + self.max_num_batched_tokens)
                .min(self.max_model_len)
                .div_ceil(VLLM_BLOCK)
                + 1,
            cross_blocks: frames.div_ceil(VLLM_BLOCK),
            state_layers: state.layers,
            groups_state: state.layers.div_ceil(group_size),
            state_blocks,
        }
    }

    /// The pool and its tokens: on a card the budget left after `budget_used`, in whole blocks;
    /// without one, `batch` requests.
    fn vllm_pool(&self, l: &VllmLayout, budget_used: u64, request: u64) -> (VllmPool, u64) {
        let Some(d) = &self.device else {
            let pool = VllmPool::Demand {
                bytes: self.batch.saturating_mul(request),
            };
            return (pool, self.batch.saturating_mul(self.max_model_len));
        };
        let memory = d.memory.get();
        let budget = Bytes::from_f64(memory as f64 * self.gpu_memory_utilization).get();
        let others = if self.vllm_version.refuses_short_free() {
            0
        } else {
            d.in_use.get()
        };
        let available = budget.saturating_sub(budget_used).saturating_sub(others);
        let block = l.per_layer * VLLM_BLOCK * l.group_size;
        let blocks = available.checked_div(block).unwrap_or(0);
        let groups = l.groups_full + l.groups_window + l.groups_cross + l.groups_state;
        let per_request = l.groups_full * l.full_blocks
            + l.groups_window * l.window_blocks
            + l.groups_cross * l.cross_blocks
            + l.groups_state * l.state_blocks;
        let pool = VllmPool::Card {
            memory,
            others,
            available,
            blocks,
            used: blocks * block,
            concurrency: blocks as f64 / per_request.max(1) as f64,
        };
        (pool, blocks / groups.max(1) * VLLM_BLOCK)
    }
}
