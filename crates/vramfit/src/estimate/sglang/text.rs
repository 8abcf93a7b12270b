//! SGLang's text: the components from the figures, with their formulas and notes in English and
//! Chinese (when the run builds text).

use super::super::{CUDA_CONTEXT, ComponentKind, Formula, Parts, Run, b, thousands};
use super::figures::{SglangFigures, SglangPool, SglangState};
use super::{SGLANG_CUDA_GRAPH_PER_LAYER, SGLANG_MAMBA_FULL_MEMORY_RATIO};
use crate::units::short;

impl Run<'_> {
    /// The request table's formula: a row per running request (the decode side's extra rows
    /// with them), each of the context's token slots.
    fn sglang_table_text(&self, f: &SglangFigures) -> Formula {
        let (requests, context, extra) = (f.requests, f.context, f.side.extra_slots);
        if f.side.decode {
            formula!(self.text;
                let size = b(f.table);
                ["({requests} max_running_requests + {extra} disaggregation_decode_extra_slots) × ({context} context_length + 4) × 4 B (int32) = {size}"],
                ["({requests} 个 max_running_requests + {extra} 个 disaggregation_decode_extra_slots) × ({context} context_length + 4) × 4 B (int32) = {size}"]
            )
        } else {
            formula!(self.text;
                let size = b(f.table);
                ["{requests} max_running_requests × ({context} context_length + 4) × 4 B (int32) = {size}"],
                ["{requests} 个 max_running_requests × ({context} context_length + 4) × 4 B (int32) = {size}"]
            )
        }
    }

    /// The CUDA graphs, one component: the decode graphs by batch size (fitted per layer) and the
    /// prefill graphs by token count (what SGLang reserves for them), whichever are captured.
    fn sglang_graphs_component(&self, f: &SglangFigures, p: &mut Parts) {
        let decode = f.cuda_graphs.map_or(0, |(_, g)| g);
        let total = decode.saturating_add(f.prefill_graph_bytes);
        if total == 0 {
            return;
        }
        let (bs, layers_here) = (self.cuda_graph_max_bs, f.layers);
        let (sizes, tokens) = (f.prefill_graphs.sizes(), f.prefill_graphs.max_tokens);
        let per = b(SGLANG_CUDA_GRAPH_PER_LAYER.get());
        let formula = match (f.cuda_graphs, f.prefill_graph_bytes) {
            (Some((graphs, g)), 0) => formula!(self.text;
                let size = b(g);
                ["{graphs} graphs up to cuda_graph_max_bs {bs} × {layers_here} layers × {per} (fitted to SGLang's capture logs) = {size}"],
                ["{graphs} 个图（至 cuda_graph_max_bs {bs}）× {layers_here} 层 × {per}（拟合自 SGLang 的捕获日志）= {size}"]
            ),
            (decode_graphs, pre) if f.prefill_graphs.mla => formula!(self.text;
                let (d, pre, size) = (b(decode), b(pre), b(total));
                let graphs = decode_graphs.map_or(0, |(n, _)| n);
                ["decode: {graphs} graphs up to cuda_graph_max_bs {bs} × {layers_here} layers × {per} = {d}; prefill: graphs up to {tokens} tokens of an MLA model, SGLang's flat reserve {pre}; in all {size}"],
                ["解码：{graphs} 个图（至 cuda_graph_max_bs {bs}）× {layers_here} 层 × {per} = {d}；预填充：至 {tokens} 个 token 的图（MLA 模型），SGLang 的固定预留 {pre}；合计 {size}"]
            ),
            (decode_graphs, pre) => formula!(self.text;
                let (d, pre, size) = (b(decode), b(pre), b(total));
                let graphs = decode_graphs.map_or(0, |(n, _)| n);
                ["decode: {graphs} graphs up to cuda_graph_max_bs {bs} × {layers_here} layers × {per} = {d}; prefill: {sizes} graphs up to {tokens} tokens × 8 MiB (SGLang's reserve for them) = {pre}; in all {size}"],
                ["解码：{graphs} 个图（至 cuda_graph_max_bs {bs}）× {layers_here} 层 × {per} = {d}；预填充：{sizes} 个图（至 {tokens} 个 token）× 8 MiB（SGLang 为它们的预留）= {pre}；合计 {size}"]
            ),
        };
        if f.prefill_graph_bytes == 0 {
            p.add(
                ComponentKind::CudaGraphs,
                total,
                false,
                formula,
                en_str!("Captured after the pool, out of the memory outside the static fraction."),
                zh_str!("在 token 池之后捕获，占用静态比例之外的显存。"),
            );
        } else {
            p.add(
                ComponentKind::CudaGraphs,
                total,
                false,
                formula,
                en_str!("Captured after the pool, out of the memory outside the static fraction. SGLang captures its prefill graphs (breakable CUDA graphs, on by default on NVIDIA cards; --disable-prefill-cuda-graph turns them off) by token count and reserves room for them in its default mem_fraction_static."),
                zh_str!("在 token 池之后捕获，占用静态比例之外的显存。SGLang 按 token 数捕获预填充图（可中断的 CUDA 图，NVIDIA 卡上默认开启；--disable-prefill-cuda-graph 可关闭），并在默认的 mem_fraction_static 中为它们预留空间。"),
            );
        }
    }

    /// SGLang's components from its figures, with their formulas and notes in both languages
    /// (when the run builds text).
    pub(super) fn sglang_components(&self, f: &SglangFigures, p: &mut Parts) {
        p.add(
            ComponentKind::Weights,
            f.weights,
            true,
            self.sglang_weights_text(f),
            en_str!("Weights as SGLang loads them."),
            zh_str!("SGLang 加载的权重。"),
        );
        p.add(
            ComponentKind::NonTorch,
            f.load,
            false,
            formula!(self.text;
                [
                    "memory taken while loading beyond the weights: {} (measured on SGLang's load logs)",
                    b(f.load)
                ],
                [
                    "加载时权重之外占用的显存：{}（据 SGLang 加载日志实测）",
                    b(f.load)
                ]
            ),
            en_str!("Counted by SGLang's free-memory measurement, so it comes out of the static fraction."),
            zh_str!("SGLang 按空闲显存测量，因此从静态比例中扣除。"),
        );
        if let Some(l) = &f.lora {
            p.add(
                ComponentKind::LoraAdapters,
                l.bytes,
                true,
                self.sglang_lora_text(l),
                en_str!("SGLang's LoRA memory pool (enable_lora), allocated after the weights, so it comes out of the static fraction."),
                zh_str!("SGLang 的 LoRA 显存池（enable_lora），在权重之后分配，因此从静态比例中扣除。"),
            );
            let (cpu, gpu) = (l.slots.max_cpu_loras, l.slots.max_loras);
            let (targets_en, targets_zh) = if l.slots.targets_given {
                ("the target modules given", "所给的目标模块")
            } else {
                (
                    "every linear layer, the embedding and the LM head (--lora-target-modules all; SGLang otherwise takes the union of its adapters' modules, which can be fewer)",
                    "每个线性层、嵌入层与输出头（--lora-target-modules all；否则 SGLang 取各适配器模块的并集，可能更少）",
                )
            };
            p.note(
                "sglang_lora",
                en!("LoRA: {gpu} adapters of one batch hold GPU slots on {targets_en}; up to {cpu} (--max-loaded-loras) are cached in CPU memory (host memory, not counted on the GPU). The LoRA kernels' batch buffers are a few kilobytes and not counted."),
                zh!("LoRA：一个批次的 {gpu} 个适配器在{targets_zh}上占用 GPU 槽位；至多 {cpu} 个（--max-loaded-loras）缓存在 CPU 内存中（主机内存，不计入显存）。LoRA 内核的批次缓冲只有几 KB，不计入。"),
            );
        }
        self.sglang_draft_component(f, p);
        let (en, zh) = match f.pool {
            SglangPool::Card { .. } => (
                en_str!(
                    "SGLang preallocates its token pool from the static fraction of the memory free at start."
                ),
                zh_str!("SGLang 按启动时空闲显存的静态比例预分配 token 池。"),
            ),
            SglangPool::Demand { .. } => (
                en_str!("Without a card, the pool that serves `batch` requests of context_length."),
                zh_str!("未指定显卡时：满足 batch 个 context_length 请求所需的池。"),
            ),
        };
        p.add(
            ComponentKind::KvCache,
            f.pool.kv(),
            true,
            self.sglang_pool_text(f),
            en,
            zh,
        );
        if let Some(state) = f.state {
            p.add(
                ComponentKind::StateCache,
                state.bytes,
                true,
                self.sglang_state_text(f, state),
                en_str!("SGLang's MambaPool: one state per request slot for the linear-attention or state-space layers, whatever the context."),
                zh_str!("SGLang 的 MambaPool：线性注意力或状态空间层每个请求槽位一份状态，与上下文长度无关。"),
            );
        }
        p.add(
            ComponentKind::ReqToTokenPool,
            f.table,
            true,
            self.sglang_table_text(f),
            en_str!("Each running request's row of token slots, allocated after the pool, out of the memory outside the static fraction."),
            zh_str!("每个运行中请求的一行 token 槽位，在 token 池之后分配，占用静态比例之外的显存。"),
        );
        p.add(
            ComponentKind::Activations,
            f.prefill,
            true,
            self.sglang_prefill_text(f),
            en_str!(
                "A prefill chunk's working set, out of the memory outside the static fraction."
            ),
            zh_str!("一个预填充分块的工作集，占用静态比例之外的显存。"),
        );
        self.sglang_graphs_component(f, p);
        p.add(
            ComponentKind::CudaContext,
            f.preload,
            false,
            self.sglang_context_text(f),
            en_str!("In use before SGLang measures the free memory: outside the static fraction."),
            zh_str!("SGLang 测量空闲显存之前已占用：不在静态比例之内。"),
        );
        if self.text && f.ranks > 1 {
            let (dp, requests) = (f.ranks, f.requests);
            p.note(
                "sglang_dp_attention",
                en!("DP attention: each of the dp_size {dp} groups runs attention for its own requests and keeps its own token pool on every GPU, so the pool shown holds one group's requests (up to {requests}), {dp}× that in all; the MoE layers stay split over every GPU. SGLang divides chunked_prefill_size and a given max_running_requests by dp_size, and its default mem_fraction_static reserves cuda_graph_max_bs × dp_size × 3 MiB more."),
                zh!("DP attention：dp_size {dp} 个组各自为自己的请求运行注意力，并在每个 GPU 上保留自己的 token 池，因此所示的池只容纳一个组的请求（至多 {requests} 个），总共是它的 {dp} 倍；MoE 层仍按全部 GPU 切分。SGLang 会把 chunked_prefill_size 和给定的 max_running_requests 除以 dp_size，其默认 mem_fraction_static 还会多预留 cuda_graph_max_bs × dp_size × 3 MiB。"),
            );
        }
        self.sglang_vision_note(p);
        let a = &self.arch;
        if self.text && a.sliding_window > 0 && a.is_generative() {
            p.note(
                "sglang_sliding_window",
                en!("SGLang is counted with every layer caching the whole context; builds with its hybrid sliding-window pool (swa_full_tokens_ratio) keep fewer tokens in the sliding layers and hold more in the full ones."),
                zh!("按 SGLang 每一层都缓存整个上下文计算；带混合滑动窗口池（swa_full_tokens_ratio）的版本在滑动窗口层保存更少 token，全局层可以保存更多。"),
            );
        }
    }

    /// The prefill chunk's formula: one chunk over the tp GPUs, or under DP attention every
    /// group's chunk at once.
    fn sglang_prefill_text(&self, f: &SglangFigures) -> Formula {
        let (chunk, per, tp, dp) = (
            self.max_num_batched_tokens,
            f.prefill_per_token,
            self.tp,
            f.ranks,
        );
        if f.side.decode && dp > 1 {
            let requests = f.requests;
            formula!(self.text;
                let size = b(f.prefill);
                ["decode batch of dp_size {dp} × {requests} running requests (each group's) × 1 token × {per} B / tp {tp} = {size} (the decode side runs no prefill)"],
                ["解码批次 dp_size {dp} × {requests} 个运行中请求（每组各自的）× 1 个 token × {per} B / tp {tp} = {size}（解码端不做预填充）"]
            )
        } else if f.side.decode {
            let requests = f.requests;
            formula!(self.text;
                let size = b(f.prefill);
                ["decode batch of {requests} running requests × 1 token × {per} B / tp {tp} = {size} (the decode side runs no prefill)"],
                ["解码批次 {requests} 个运行中请求 × 1 个 token × {per} B / tp {tp} = {size}（解码端不做预填充）"]
            )
        } else if dp > 1 {
            formula!(self.text;
                let size = b(f.prefill);
                ["prefill of dp_size {dp} × chunked_prefill_size {chunk} tokens (each group's) × {per} B / tp {tp} = {size}"],
                ["分块预填充 dp_size {dp} × chunked_prefill_size {chunk} 个 token（每组各一块）× {per} B / tp {tp} = {size}"]
            )
        } else {
            formula!(self.text;
                let size = b(f.prefill);
                ["prefill of chunked_prefill_size {chunk} tokens × {per} B / tp {tp} = {size}"],
                ["分块预填充 chunked_prefill_size {chunk} 个 token × {per} B / tp {tp} = {size}"]
            )
        }
    }

    /// The weights' formula, with the routed experts over ep and the attention over its groups
    /// under DP attention.
    fn sglang_weights_text(&self, f: &SglangFigures) -> Formula {
        let wf = self.sglang_ep_text(self.weights_formula(f.weights));
        if f.ranks > 1 {
            let (dp, attn_tp) = (f.ranks, self.tp / f.ranks);
            formula!(self.text;
                [
                    "{}; DP attention (dp_size {dp}): attention over tp / dp_size = {attn_tp} GPU{}, the embedding whole on each",
                    wf.en,
                    if attn_tp == 1 { "" } else { "s" }
                ],
                [
                    "{}；DP attention（dp_size {dp}）：注意力按 tp / dp_size = {attn_tp} 个 GPU 切分，嵌入层每个 GPU 各存一份完整的",
                    wf.zh
                ]
            )
        } else {
            wf
        }
    }

    /// `wf` with the routed experts over ep.
    fn sglang_ep_text(&self, wf: Formula) -> Formula {
        if self.ep > 1 {
            let (ep, experts) = (self.ep, self.arch.moe.map_or(0, |m| m.num_experts));
            formula!(self.text;
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
        } else {
            wf
        }
    }

    /// The token pool's formula: the static fraction on a card, the demand without one.
    // In one language, the other's words about memory in use are not used.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn sglang_pool_text(&self, f: &SglangFigures) -> Formula {
        let (cell, context, preload, mfs) =
            (f.cell, f.context, f.preload, self.sglang_pool_fraction());
        match f.pool {
            SglangPool::Card {
                memory,
                in_use,
                pre,
                rest,
                tokens,
                kv,
            } => formula!(self.text;
                // Memory other programs hold, named where there is some.
                let (others, others_zh) = if in_use > 0 {
                    (
                        en!(" − {} in use by other programs", b(in_use)),
                        zh!(" − 其他程序已占用 {}", b(in_use)),
                    )
                } else {
                    (alloc::string::String::new(), alloc::string::String::new())
                };
                let (lora, lora_zh) = match (f.lora.is_some(), f.draft.is_some()) {
                    (true, true) => (" + LoRA pool + draft", " + LoRA 池 + 草稿模型"),
                    (true, false) => (" + LoRA pool", " + LoRA 池"),
                    (false, true) => (" + draft", " + 草稿模型"),
                    (false, false) => ("", ""),
                };
                let (memory, pre_s, mfs_s, rest_s, tokens_s, cell_s, size) = (
                    b(memory),
                    b(pre),
                    // Four figures: a multimodal model's cut fraction has more digits than
                    // the site's own float text writes as core does (`units::float_text`).
                    short(crate::units::four_figures(mfs)),
                    b(rest),
                    thousands(tokens),
                    super::speculative::cell_text(cell, f.draft),
                    b(kv),
                );
                [
                    "({memory}{others} − {} in use before loading = {pre_s}) × mem_fraction_static {mfs_s} − (weights + loading{lora}) = {rest_s} → {tokens_s} tokens (+1 padding slot) × {cell_s} B per token = {size}",
                    b(preload)
                ],
                [
                    "({memory}{others_zh} − 加载前已用 {} = {pre_s}) × mem_fraction_static {mfs_s} − (权重 + 加载占用{lora_zh}) = {rest_s} → {tokens_s} token（+1 个填充槽）× {cell_s} B 每 token = {size}",
                    b(preload)
                ]
            ),
            SglangPool::Demand { kv, .. } if f.side.decode => formula!(self.text;
                let (batch, cell_s, size, r) = (self.batch.div_ceil(f.ranks), thousands(cell), b(kv), f.side.reserved);
                [
                    "{batch} × (context_length {context} + num_reserved_decode_tokens {r}) × {cell_s} B per token = {size} (no GPU given: the KV the decode side's pool must hold)"
                ],
                [
                    "{batch} × (context_length {context} + num_reserved_decode_tokens {r}) × {cell_s} B 每 token = {size}（未指定显卡：解码端 token 池必须容纳的量）"
                ]
            ),
            SglangPool::Demand { kv, .. } => formula!(self.text;
                let (batch, cell_s, size) = (self.batch.div_ceil(f.ranks), thousands(cell), b(kv));
                [
                    "{batch} × context_length {context} × {cell_s} B per token = {size} (no GPU given: the KV the pool must hold)"
                ],
                [
                    "{batch} × context_length {context} × {cell_s} B 每 token = {size}（未指定显卡：token 池必须容纳的量）"
                ]
            ),
        }
    }

    /// The MambaPool's formula: on a card `r / (1 + r)` of the rest in whole states, without one
    /// `batch` states.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn sglang_state_text(&self, f: &SglangFigures, s: SglangState) -> Formula {
        let (per, slots, size) = (thousands(s.per_request), thousands(s.slots), b(s.bytes));
        match f.pool {
            SglangPool::Card { rest, .. } => formula!(self.text;
                let (rest, r) = (b(rest), short(SGLANG_MAMBA_FULL_MEMORY_RATIO));
                [
                    "{rest} × mamba_full_memory_ratio {r} / (1 + {r}) → {slots} states (max_mamba_cache_size) × {per} B per request = {size}"
                ],
                [
                    "{rest} × mamba_full_memory_ratio {r} / (1 + {r}) → {slots} 份状态（max_mamba_cache_size）× {per} B 每请求 = {size}"
                ]
            ),
            SglangPool::Demand { .. } => formula!(self.text;
                [
                    "{slots} requests × {per} B per request = {size} (no GPU given: the states the pool must hold)"
                ],
                [
                    "{slots} 个请求 × {per} B 每请求 = {size}（未指定显卡：状态池必须容纳的量）"
                ]
            ),
        }
    }

    /// The CUDA context's formula, with the distributed init at tp × pp ≥ 2 and a one-GPU
    /// server's init below it.
    // Built without a language, the two branches are the same empty formula.
    #[cfg_attr(
        not(any(feature = "en", feature = "zh")),
        allow(clippy::if_same_then_else)
    )]
    fn sglang_context_text(&self, f: &SglangFigures) -> Formula {
        let (preload, context) = (f.preload, CUDA_CONTEXT.get());
        if self.tp * self.pp > 1 {
            formula!(self.text;
                [
                    "CUDA context {} + distributed init {} (measured on SGLang's logs)",
                    b(context),
                    b(preload - context)
                ],
                [
                    "CUDA 上下文 {} + 分布式初始化 {}（据 SGLang 日志实测）",
                    b(context),
                    b(preload - context)
                ]
            )
        } else {
            formula!(self.text;
                [
                    "CUDA context {} + one GPU's init {} (measured on SGLang's H100 log)",
                    b(context),
                    b(preload - context)
                ],
                [
                    "CUDA 上下文 {} + 单卡初始化 {}（据 SGLang 的 H100 日志实测）",
                    b(context),
                    b(preload - context)
                ]
            )
        }
    }
}
