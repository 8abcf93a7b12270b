//! Serving with vLLM: the weights, the start-up profile run, the KV pool sized from
//! `gpu_memory_utilization`, CUDA graphs, and the concurrency the pool holds.

use super::ComponentKind;
use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::parts::PoolBudget;
use super::{CUDA_CONTEXT, Parts, Phase, Run, ServePool, activations, b, thousands};
use crate::precision::KvDtype;
use crate::throughput::Runtime;
use crate::units::{Bytes, GIB, short};
use alloc::string::String;

/// vLLM's decisions: its pool within `gpu_memory_utilization`, `max_model_len` per sequence,
/// fp8 KV caches, expert parallelism.
pub(super) const RULES: Rules = Rules {
    name: "vLLM",
    peak: PeakSource::Torch,
    kv_dtypes: Some(&[KvDtype::Auto, KvDtype::Fp16, KvDtype::Bf16, KvDtype::Fp8]),
    required: Required::Theory,
    context: Context::PerSequence {
        setting: "max_model_len",
    },
    past_trained: PastTrained::RefusedUnlessVllmAllowLong,
    offload: LayerOffload::None,
    dequantizes_gguf: false,
    decompressed_mla: false,
    expert_parallel: ExpertParallel::WholeGroup,
    downcasts_fp32: true,
    native_kv_formats: false,
    flash_only_when_asked: false,
    library_names: false,
    runtime: Runtime::Batched,
    formats: Formats::Serving,
    reads: CardTraits {
        workspace: true,
        vllm_defaults: true,
        memory: false,
    },
};

impl Run<'_> {
    pub(super) fn vllm(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let a = &self.arch;
        let w0 = super::weights::per_gpu_weight_bytes_ep(
            a,
            self.dtype,
            &self.quantization,
            (self.tp, self.pp),
            self.ep,
            self.tp * self.dp,
        );
        let w0 = if a.is_detailed() {
            w0
        } else {
            self.opaque_weights()
        };
        // vLLM's rotary embedding keeps a cos/sin cache of max_position × head_dim in the model dtype.
        let rope = if a.is_generative() && a.mla.is_none() && a.learned_positions == 0 {
            a.max_position_embeddings
                .saturating_mul(a.head_dim)
                .saturating_mul(self.act_bytes())
        } else {
            0
        };
        let w = w0 + rope;
        p.add(
            ComponentKind::Weights,
            w,
            true,
            if self.ep > 1 {
                let (ep, experts) = (self.ep, a.moe.map_or(0, |m| m.num_experts));
                formula!(self.text;
                    let wf = self.weights_formula(w0);
                    [
                        "{}; routed experts over ep {ep}: {} of {experts} per GPU",
                        wf.en,
                        experts / ep
                    ],
                    [
                        "{}；路由专家按 ep {ep} 切分：每个 GPU {} / {experts} 个",
                        wf.zh,
                        experts / ep
                    ]
                )
            } else if rope == 0 {
                self.weights_formula(w0)
            } else {
                let (pos, dim, bytes) = (a.max_position_embeddings, a.head_dim, self.act_bytes());
                formula!(self.text;
                    let wf = self.weights_formula(w0);
                    ["{} + rotary cos/sin cache {pos} × {dim} × {bytes} B", wf.en],
                    [
                        "{} + 旋转位置编码 cos/sin 缓存 {pos} × {dim} × {bytes} B",
                        wf.zh
                    ]
                )
            },
            en_str!("Weights as vLLM loads them."),
            zh_str!("vLLM 加载的权重。"),
        );
        // Profile run: the larger of the forward pass over max_num_batched_tokens and the sampler's
        // dummy run over max_num_seqs (fp32 logits, a sorted copy, int64 indices: ≈ 15.1 B per
        // vocabulary entry per sequence, calibrated on the vLLM 0.19 H100 runs).
        let act = self.act_bytes();
        let (per_tok, _) = activations::inference_per_token(a, act);
        let forward = self
            .max_num_batched_tokens
            .saturating_mul(per_tok.saturating_sub(8 * a.hidden_size) + 2 * act * a.hidden_size)
            .div_ceil(self.tp);
        let sampler = Bytes::from_f64(
            self.max_num_seqs as f64 * a.vocab_size as f64 * 4.0 * SAMPLER_FP32_COPIES,
        )
        .get();
        let acts = forward.max(sampler);
        p.add(
            ComponentKind::Activations,
            acts,
            true,
            {
                formula!(self.text;
                    let (tokens, per, fwd) = (self.max_num_batched_tokens, per_tok.saturating_sub(8 * a.hidden_size) + 2 * act * a.hidden_size, b(forward));
                    let (seqs, vocab, copies, smp) = (self.max_num_seqs, a.vocab_size, short(SAMPLER_FP32_COPIES), b(sampler));
                    ["max(forward over {tokens} batched tokens × {per} B = {fwd}, sampler {seqs} seqs × {vocab} vocab × 4 B × {copies} = {smp})"],
                    ["max(前向 {tokens} 个批内 token × {per} B = {fwd}，采样器 {seqs} 条序列 × {vocab} 词表 × 4 B × {copies} = {smp})"]
                )
            },
            en_str!("vLLM's start-up profile run: its torch peak is reserved out of the budget."),
            zh_str!("vLLM 启动时的剖析运行：其峰值从预算中扣除。"),
        );
        let non_torch = if self.tp > 1 {
            VLLM_NON_TORCH_TP
        } else if self.pp > 1 {
            VLLM_NON_TORCH_PP
        } else {
            VLLM_NON_TORCH
        };
        p.add(
            ComponentKind::NonTorch,
            non_torch.get(),
            false,
            formula!(self.text;
                [
                    "non-torch memory growth during the profile run: {} (measured: {})",
                    b(non_torch.get()),
                    if self.tp > 1 {
                        "NCCL and custom all-reduce buffers at tp ≥ 2"
                    } else {
                        "tp = 1"
                    }
                ],
                [
                    "剖析运行期间非 torch 内存的增长：{} (实测：{})",
                    b(non_torch.get()),
                    if self.tp > 1 {
                        "NCCL 与自定义 all-reduce 缓冲，tp ≥ 2"
                    } else {
                        "tp = 1"
                    }
                ]
            ),
            en_str!("cuBLAS/NCCL memory outside PyTorch, subtracted from the budget."),
            zh_str!("PyTorch 之外的 cuBLAS/NCCL 内存，从预算中扣除。"),
        );
        let layers_here = a.num_layers.div_ceil(self.pp);
        let (per_token, _) = self.kv_bytes(1, 1, layers_here, false);
        let per_token = if a.is_generative() {
            per_token.max(1)
        } else {
            0
        };
        // The hybrid allocator (sliding-window models): layers of one attention type are cut into
        // groups of `gs` layers (the smaller type's count, or the larger's when they are within
        // 25 %), the last group padded; a block id holds 16 tokens in each of the `gs` shared
        // tensors, and every group of a request takes its own blocks from the one pool. A full
        // layer needs the whole length, a sliding one cdiv(min(window − 1 + batched tokens,
        // max_model_len), 16) + 1 blocks.
        let per_layer = per_token / layers_here.max(1);
        let global = if a.sliding_window > 0 {
            a.global_layers() * layers_here / a.num_layers.max(1)
        } else {
            layers_here
        };
        let local = layers_here - global;
        // Whisper's decoder layers each have a cross-attention cache of the encoder's frames
        // (`CrossAttentionSpec`: cdiv(max_num_encoder_input_tokens, 16) blocks per request), a
        // type of its own beside the self-attention layers.
        let frames = self.encoder_stack().1;
        let cross = if frames > 0 { layers_here } else { 0 };
        let gs = match (global, local.max(cross)) {
            (0, n) | (n, 0) => n.max(1),
            (g, l) if g.max(l) * 4 < g.min(l) * 5 => g.max(l),
            (g, l) => g.min(l),
        };
        let (groups_full, groups_window, groups_cross) =
            (global.div_ceil(gs), local.div_ceil(gs), cross.div_ceil(gs));
        let full_blocks = self.max_model_len.div_ceil(VLLM_BLOCK);
        let window_blocks = (a.sliding_window.saturating_sub(1) + self.max_num_batched_tokens)
            .min(self.max_model_len)
            .div_ceil(VLLM_BLOCK)
            + 1;
        let cross_blocks = frames.div_ceil(VLLM_BLOCK);
        let request = per_layer
            .saturating_mul(VLLM_BLOCK)
            .saturating_mul(global * full_blocks + local * window_blocks + cross * cross_blocks);
        let budget_used = w + acts + non_torch.get();
        let (pool, tokens) = match &self.device {
            Some(d) => {
                let budget =
                    Bytes::from_f64(d.memory.get() as f64 * self.gpu_memory_utilization).get();
                let pool = budget.saturating_sub(budget_used);
                let block = per_layer * VLLM_BLOCK * gs;
                let blocks = pool.checked_div(block).unwrap_or(0);
                let pool_used = blocks * block;
                let groups = groups_full + groups_window + groups_cross;
                let per_request = groups_full * full_blocks
                    + groups_window * window_blocks
                    + groups_cross * cross_blocks;
                // Per block: one layer's 16 tokens × the group size (every layer of a dense model).
                let per_layer = if self.text {
                    thousands(per_layer)
                } else {
                    String::new()
                };
                let per_block = if groups_cross > 0 {
                    formula!(self.text;
                        [
                            "{gs} layers × {per_layer} B per token per layer ({groups} groups of {gs} layers: {groups_full} self-attention, {groups_cross} cross-attention of {cross_blocks} blocks per request)"
                        ],
                        [
                            "{gs} 层 × {per_layer} B 每 token 每层 ({groups} 组，每组 {gs} 层：{groups_full} 个自注意力组，{groups_cross} 个交叉注意力组，每请求 {cross_blocks} 块)"
                        ]
                    )
                } else if groups > 1 {
                    formula!(self.text;
                        [
                            "{gs} layers × {per_layer} B per token per layer ({groups} groups of {gs} layers: {groups_full} global, {groups_window} sliding)"
                        ],
                        [
                            "{gs} 层 × {per_layer} B 每 token 每层 ({groups} 组，每组 {gs} 层：{groups_full} 个全局组，{groups_window} 个滑动窗口组)"
                        ]
                    )
                } else {
                    formula!(self.text;
                        let per_token = thousands(per_token); ["{per_token} B per token"], ["{per_token} B 每 token"])
                };
                let formula = formula!(self.text;
                    let (memory, util, size, blocks_n) = (
                        b(d.memory.get()),
                        short(self.gpu_memory_utilization),
                        b(pool),
                        thousands(blocks),
                    );
                    [
                        "{memory} × {util} − (weights + activations + non-torch) = {size} → {blocks_n} blocks × 16 tokens × {}",
                        per_block.en
                    ],
                    [
                        "{memory} × {util} − (权重 + 激活 + 非 torch) = {size} → {blocks_n} 块 × 16 token × {}",
                        per_block.zh
                    ]
                );
                p.add(
                    ComponentKind::KvCache,
                    pool_used,
                    true,
                    formula,
                    en_str!("vLLM preallocates every byte left in the budget as KV blocks."),
                    zh_str!("vLLM 把预算内剩余显存全部预分配为 KV 块。"),
                );
                if a.is_generative() {
                    p.serve_pool = Some(ServePool {
                        available: pool,
                        request,
                        concurrency: blocks as f64 / per_request.max(1) as f64,
                        budget: PoolBudget::Utilization,
                    });
                }
                (pool_used, blocks / groups.max(1) * VLLM_BLOCK)
            }
            None => {
                let tokens = self.batch.saturating_mul(self.max_model_len);
                let pool = self.batch.saturating_mul(request);
                let full = full_blocks * VLLM_BLOCK;
                let per_layer = if self.text {
                    thousands(per_layer)
                } else {
                    String::new()
                };
                let per_seq = if cross > 0 {
                    let frames = cross_blocks * VLLM_BLOCK;
                    formula!(self.text;
                        [
                            "{layers_here} layers × ({full} tokens + {frames} cross-attention frames) × {per_layer} B per token per layer"
                        ],
                        [
                            "{layers_here} 层 × ({full} token + {frames} 个交叉注意力帧) × {per_layer} B 每 token 每层"
                        ]
                    )
                } else if local > 0 {
                    let window = window_blocks * VLLM_BLOCK;
                    formula!(self.text;
                        [
                            "({global} global layers × {full} tokens + {local} sliding layers × {window} tokens) × {per_layer} B per token per layer"
                        ],
                        [
                            "({global} 个全局层 × {full} token + {local} 个滑动窗口层 × {window} token) × {per_layer} B 每 token 每层"
                        ]
                    )
                } else {
                    formula!(self.text;
                        let per_token = thousands(per_token);
                        ["{full} max_model_len × {per_token} B per token"],
                        ["{full} max_model_len × {per_token} B 每 token"]
                    )
                };
                let formula = formula!(self.text;
                    let (batch, size) = (self.batch, b(pool));
                    [
                        "{batch} {} × {} = {size} (no GPU given: the KV the pool must hold)",
                        if batch == 1 { "seq" } else { "seqs" },
                        per_seq.en
                    ],
                    [
                        "{batch} 条序列 × {} = {size}（未指定显卡：KV 池必须容纳的量）",
                        per_seq.zh
                    ]
                );
                p.add(
                    ComponentKind::KvCache,
                    pool,
                    true,
                    formula,
                    en_str!("Without a card, the pool that serves `batch` full-length sequences."),
                    zh_str!("未指定显卡时：满足 batch 条满长序列所需的池。"),
                );
                p.note(
                    "vllm_no_device", String::from(en_str!("No GPU given: vLLM would size its pool from gpu_memory_utilization × the card; shown is the KV needed for `batch` sequences of max_model_len.")), String::from(zh_str!("未指定显卡：vLLM 会按 gpu_memory_utilization × 显存确定 KV 池；此处显示 batch 条 max_model_len 序列所需的 KV。")));
                (pool, tokens)
            }
        };
        let _ = pool;
        if self.cuda_graphs {
            let g = Bytes::from_f64(
                (CUDA_GRAPH_BASE_GIB + CUDA_GRAPH_PER_LAYER_GIB * layers_here as f64) * GIB as f64,
            )
            .get();
            p.add(ComponentKind::CudaGraphs, g, false, formula!(self.text; let (base, per, size) = (short(CUDA_GRAPH_BASE_GIB), short(CUDA_GRAPH_PER_LAYER_GIB), b(g)); ["{base} GiB + {per} GiB × {layers_here} layers = {size} (fitted to vLLM 0.19 H100 runs)"], ["{base} GiB + {per} GiB × {layers_here} 层 = {size} (拟合自 vLLM 0.19 H100 的实测)"]), en_str!("Captured after the pool is sized, so real use overshoots utilisation × memory by this much."), zh_str!("在 KV 池确定后捕获，实际占用因此超出利用率 × 显存。"));
        }
        // Each worker of a tensor- or pipeline-parallel group also holds NCCL's communicators
        // and the custom all-reduce buffers before the profile run.
        let (context, context_text) = if self.tp * self.pp > 1 {
            (
                VLLM_CUDA_CONTEXT_PARALLEL,
                formula!(self.text; text "CUDA context with NCCL communicators: 1.53 GiB (measured, H100, vLLM 0.19, tp or pp ≥ 2)", "CUDA 上下文与 NCCL 通信器：1.53 GiB (实测，H100, vLLM 0.19，tp 或 pp ≥ 2)"),
            )
        } else {
            (
                CUDA_CONTEXT,
                formula!(self.text; text "CUDA context: 0.51 GiB (measured, H100, vLLM 0.19)", "CUDA 上下文：0.51 GiB (实测，H100, vLLM 0.19)"),
            )
        };
        p.add(
            ComponentKind::CudaContext,
            context.get(),
            false,
            context_text,
            en_str!("Outside the utilisation budget."),
            zh_str!("不计入利用率预算。"),
        );
        p.comps.retain(|c| c.key != ComponentKind::Workspace);
        let tokens = if a.is_generative() { tokens } else { 0 };
        p.serve_tokens = Some(tokens);
        // M_theory for serving (the guide's stage 2: KV at the peak concurrency): the card memory
        // whose utilisation budget holds the weights, the profile peak, non-torch memory and the KV
        // of `batch` sequences of max_model_len, plus what lives outside the budget.
        let demand = self.batch.saturating_mul(request);
        let outside = context
            .get()
            .saturating_add(p.get(ComponentKind::CudaGraphs));
        p.theory = Some(
            Bytes::from_f64(
                budget_used.saturating_add(demand) as f64 / self.gpu_memory_utilization,
            )
            .get()
            .saturating_add(outside),
        );
        (Phase::Serving, 0, 0)
    }
}

/// vLLM's sampler dummy run keeps about this many fp32 copies of `max_num_seqs × vocab` logits
/// (fp32 logits, a sorted copy and int64 indices for top-k/top-p): the median ratio of the profile
/// peak to `max_num_seqs × vocab × 4 B` over the vLLM 0.19 H100 calibration runs.
pub const SAMPLER_FP32_COPIES: f64 = 3.78;
/// vLLM's non-torch memory growth during profiling at tp = 1: 0.25 GiB (calibration median).
pub const VLLM_NON_TORCH: Bytes = Bytes::new(268_435_456);
/// At pp ≥ 2, tp = 1: 0.07 GiB.
pub const VLLM_NON_TORCH_PP: Bytes = Bytes::new(75_161_928);
/// At tp ≥ 2 (NCCL and custom all-reduce): 2.1 GiB.
pub const VLLM_NON_TORCH_TP: Bytes = Bytes::new(2_254_857_830);
/// vLLM's KV block size in tokens.
pub const VLLM_BLOCK: u64 = 16;
/// CUDA memory of a vLLM worker in a tensor- or pipeline-parallel group before its profile run
/// (context, NCCL communicators, custom all-reduce buffers): 1.53 GiB, the median of
/// `init_cuda_memory_gib` over the six tp/pp ≥ 2 runs of the calibration data (1.43–1.55).
pub const VLLM_CUDA_CONTEXT_PARALLEL: Bytes = Bytes::new(1_642_824_991); // 1.53 GiB
/// CUDA-graph pool: intercept, fitted on the calibration runs.
pub const CUDA_GRAPH_BASE_GIB: f64 = 0.09;
/// CUDA-graph pool per layer on the GPU, fitted on the calibration runs.
pub const CUDA_GRAPH_PER_LAYER_GIB: f64 = 0.0238;
