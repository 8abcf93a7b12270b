//! vLLM's text: the components from the figures, with their formulas and notes in English and
//! Chinese (when the run builds text).

use super::super::{ComponentKind, Formula, Parts, Run, b, thousands};
use super::figures::{VllmFigures, VllmLayout, VllmPool};
use super::mxfp4::Mxfp4Backend;
use super::{
    CUDA_GRAPH_BASE_GIB, CUDA_GRAPH_PER_LAYER_GIB, SAMPLER_FP32_COPIES, SAMPLER_SORT_BYTES,
    VLLM_BLOCK,
};
use crate::units::{fixed, short};
use alloc::string::String;

impl Run<'_> {
    /// vLLM's components from its figures, with their formulas and notes in both languages
    /// (when the run builds text).
    pub(super) fn vllm_components(&self, f: &VllmFigures, p: &mut Parts) {
        p.add(
            ComponentKind::Weights,
            f.weights_total(),
            true,
            self.vllm_weights_text(f),
            en_str!("Weights as vLLM loads them."),
            zh_str!("vLLM 加载的权重。"),
        );
        if let Some(l) = &f.lora {
            p.add(
                ComponentKind::LoraAdapters,
                l.bytes(),
                true,
                self.vllm_lora_text(l),
                en_str!("LoRA adapter slots (enable_lora), allocated at start-up out of the pool's budget."),
                zh_str!("LoRA 适配器槽位（enable_lora），启动时分配，从 KV 池预算中扣除。"),
            );
            let (cpu, gpu) = (l.slots.max_cpu_loras, l.slots.max_loras);
            p.note(
                "vllm_lora_cpu",
                en!("max_cpu_loras {cpu}: vLLM caches up to {cpu} adapters in CPU memory (host memory, not counted on the GPU) and copies those in use into the {gpu} GPU slots. The embedding and LM head slots are counted for every model (vLLM wraps them where the model class lists them, as Llama and Qwen3 do); fully_sharded_loras is off, and the CUDA graphs captured with and without adapters are the fitted constant's."),
                zh!("max_cpu_loras {cpu}：vLLM 在 CPU 内存中缓存至多 {cpu} 个适配器（主机内存，不计入显存），把正在使用的复制到 {gpu} 个 GPU 槽位。嵌入与 LM head 的槽位对每个模型都计入（vLLM 仅在模型类列出它们时包装，如 Llama、Qwen3）；fully_sharded_loras 为关，带与不带适配器分别捕获的 CUDA 图按拟合常数计。"),
            );
        }
        // Only a build with the `speculative` feature has a drafter (`vllm_drafter`).
        if cfg!(feature = "speculative")
            && let Some(d) = &f.drafter
        {
            self.vllm_drafter_components(d, p);
        }
        if let Some(e) = &f.encoder {
            p.add(
                ComponentKind::EncoderCache,
                e.bytes(),
                true,
                self.vllm_encoder_text(e),
                en_str!("vLLM's encoder cache at its start-up profile: the largest images' encoder outputs, held while the text forward is profiled, out of the pool's budget."),
                zh_str!("vLLM 启动剖析时的编码器缓存：最大图像的编码器输出，在剖析文本前向时保留，从 KV 池预算中扣除。"),
            );
            self.vllm_encoder_activations(e, p);
            if let Some(limit) = e.default_limit {
                p.note(
                    "vllm_encoder_profile",
                    en!("No image is asked, but the model's encoder towers are loaded: vLLM's start-up profile still encodes dummy items of the largest size at its default --limit-mm-per-prompt ({limit} per modality not named), so the encoder cache and activations are counted and the KV pool is that much smaller. language_model_only (--language-model-only, or every modality at 0) leaves the towers and this profile out."),
                    zh!("未要求图像，但模型的编码器已加载：vLLM 启动剖析仍按默认的 --limit-mm-per-prompt（未指定的模态各 {limit} 个）以最大尺寸的虚拟项运行编码器，因此计入编码器缓存与激活，KV 池相应变小。language_model_only（--language-model-only，或每个模态设为 0）会省去编码器及这一剖析。"),
                );
            }
        }
        // A tower vLLM loads whose image tokens vramfit does not model (Llama 4's, Kimi K2.5's):
        // vLLM still profiles its encoder at start-up, which this estimate cannot size, so the
        // user is told the pool it gives may be smaller.
        if f.encoder.is_none() && self.arch.vision_params > 0 && self.arch.image_tokens.is_none() {
            let tower = thousands(self.arch.vision_params);
            p.note(
                "vllm_encoder_unmodelled",
                en!("This model's encoder towers ({tower} parameters, counted in the weights) are loaded, and vLLM's start-up profile encodes dummy items of the largest size with them, but vramfit does not model this tower's image tokens: the encoder cache and the tower's activations of that profile are not counted, so vLLM's KV pool may be smaller than shown. language_model_only (--language-model-only, or every modality at 0 in --limit-mm-per-prompt) leaves the towers and this profile out, and then the estimate is whole."),
                zh!("该模型的编码器（{tower} 个参数，已计入权重）会被加载，vLLM 启动剖析会用它们以最大尺寸的虚拟项运行编码器，但 vramfit 未对该编码器的图像 token 建模：剖析中的编码器缓存与编码器激活未计入，因此 vLLM 实际给出的 KV 池可能比这里显示的小。language_model_only（--language-model-only，或在 --limit-mm-per-prompt 中把每个模态设为 0）会省去编码器及这一剖析，此时估算是完整的。"),
            );
        }
        if let Some(o) = self.kv_offload.filter(|_| self.text) {
            self.vllm_kv_offload_note(o, p);
        }
        p.add(
            ComponentKind::Activations,
            f.activations(),
            true,
            self.vllm_profile_text(f),
            en_str!("vLLM's start-up profile run: its torch peak is reserved out of the budget."),
            zh_str!("vLLM 启动时的剖析运行：其峰值从预算中扣除。"),
        );
        if f.fp32_margin_per_token > 0 && self.text {
            let ffn = f.fp32_margin_per_token / 4;
            p.note(
                "vllm_fp32_forward",
                en!("float32: vLLM's profile of an fp32 model measured 0.40 GiB above the count of its forward (Llama-3.1-8B at 8,192 batched tokens on an H100, vLLM 0.19.0), not explained by the sampler (fp32 logits make it smaller) nor found in vLLM's source; one more FFN-wide fp32 temporary ({ffn} × 4 B a token) is counted as a stated margin, which leaves that run's pool 0.1 % short of vLLM's."),
                zh!("float32：vLLM 对 fp32 模型的剖析实测比其前向的计数高 0.40 GiB（Llama-3.1-8B，8,192 个批内 token，H100，vLLM 0.19.0），采样器不能解释（fp32 logits 反而使其更小），vLLM 源码中也未找到原因；按声明余量多计一个 FFN 宽的 fp32 临时张量（每 token {ffn} × 4 B），该次运行的池因此比 vLLM 的小 0.1 %。"),
            );
        }
        p.add(
            ComponentKind::NonTorch,
            f.non_torch.get(),
            false,
            self.vllm_non_torch_text(f),
            en_str!("cuBLAS/NCCL memory outside PyTorch, subtracted from the budget."),
            zh_str!("PyTorch 之外的 cuBLAS/NCCL 内存，从预算中扣除。"),
        );
        let (en, zh) = match f.pool {
            VllmPool::Card { .. } => (
                en_str!("vLLM preallocates every byte left in the budget as KV blocks."),
                zh_str!("vLLM 把预算内剩余显存全部预分配为 KV 块。"),
            ),
            VllmPool::Demand { .. } => (
                en_str!("Without a card, the pool that serves `batch` full-length sequences."),
                zh_str!("未指定显卡时：满足 batch 条满长序列所需的池。"),
            ),
        };
        p.add(
            ComponentKind::KvCache,
            f.pool.bytes(),
            true,
            self.vllm_pool_text(f),
            en,
            zh,
        );
        if let VllmPool::Demand { .. } = f.pool {
            p.note(
                "vllm_no_device",
                String::from(en_str!("No GPU given: vLLM would size its pool from gpu_memory_utilization × the card; shown is the KV needed for `batch` sequences of max_model_len.")),
                String::from(zh_str!("未指定显卡：vLLM 会按 gpu_memory_utilization × 显存确定 KV 池；此处显示 batch 条 max_model_len 序列所需的 KV。")),
            );
        }
        if let Some(g) = f.cuda_graphs {
            p.add(
                ComponentKind::CudaGraphs,
                g,
                false,
                self.vllm_cuda_graphs_text(g),
                en_str!("Captured after the pool is sized, so real use overshoots utilisation × memory by this much."),
                zh_str!("在 KV 池确定后捕获，实际占用因此超出利用率 × 显存。"),
            );
        }
        p.add(
            ComponentKind::CudaContext,
            f.context.get(),
            false,
            self.vllm_context_text(),
            en_str!("Outside the utilisation budget."),
            zh_str!("不计入利用率预算。"),
        );
    }

    /// The weights' formula: the checkpoint's tensors, then what vLLM's MXFP4 backend holds
    /// beyond them.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn vllm_weights_text(&self, f: &VllmFigures) -> Formula {
        let Some((backend, extra)) = f.mxfp4 else {
            return self.vllm_checkpoint_text(f, f.weights);
        };
        let (name, layout, layout_zh) = match backend {
            Mxfp4Backend::Marlin => (
                "Marlin",
                "intermediate width padded to 128, hidden to 256",
                "中间维补齐到 128、隐藏维补齐到 256",
            ),
            Mxfp4Backend::Triton => (
                "Triton",
                "scales kept beside their swizzled copy, fp32 biases",
                "原缩放与重排后的副本并存、fp32 偏置",
            ),
            Mxfp4Backend::FlashInferSm100 => (
                "FlashInfer SM100",
                "both widths padded to 256",
                "两个维度均补齐到 256",
            ),
        };
        formula!(self.text;
            let base = self.vllm_checkpoint_text(f, f.weights.saturating_sub(extra));
            let extra = b(extra);
            ["{} + MXFP4 experts as vLLM's {name} backend holds them ({layout}): {extra}", base.en],
            ["{} + MXFP4 专家，按 vLLM {name} 后端的持有方式（{layout_zh}）：{extra}", base.zh]
        )
    }

    /// The checkpoint's weights of `weights` bytes: the weights, the experts over ep, or the
    /// rotary cache.
    fn vllm_checkpoint_text(&self, f: &VllmFigures, weights: u64) -> Formula {
        let a = &self.arch;
        if self.ep > 1 {
            let (ep, experts) = (self.ep, a.moe.map_or(0, |m| m.num_experts));
            formula!(self.text;
                let wf = self.weights_formula(weights);
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
        } else if f.rope == 0 {
            self.weights_formula(weights)
        } else {
            let (pos, dim, bytes) = (a.max_position_embeddings, a.head_dim, self.act_bytes());
            formula!(self.text;
                let wf = self.weights_formula(weights);
                ["{} + rotary cos/sin cache {pos} × {dim} × {bytes} B", wf.en],
                [
                    "{} + 旋转位置编码 cos/sin 缓存 {pos} × {dim} × {bytes} B",
                    wf.zh
                ]
            )
        }
    }

    /// The forward's bytes per batched token as the profile formula writes them: with an fp32
    /// model, the count and the stated fp32 margin (`Run::vllm_fp32_forward_margin`) apart.
    fn vllm_forward_per_token_text(&self, f: &VllmFigures) -> String {
        if f.fp32_margin_per_token == 0 {
            return alloc::format!("{}", f.forward_per_token);
        }
        alloc::format!(
            "({} + {} × 4)",
            f.forward_per_token - f.fp32_margin_per_token,
            f.fp32_margin_per_token / 4
        )
    }

    /// The profile run's formula: the forward against the sampler.
    // In one language, the other's words about the workspaces are not used.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn vllm_profile_text(&self, f: &VllmFigures) -> Formula {
        if self.pooling {
            return formula!(self.text;
                let (tokens, per, fwd) = (self.max_num_batched_tokens, self.vllm_forward_per_token_text(f), b(f.forward));
                ["forward over {tokens} batched tokens × {per} B = {fwd}; a pooling model (--runner pooling) runs its pooler, not the sampler: no logits"],
                ["前向 {tokens} 个批内 token × {per} B = {fwd}；池化模型（--runner pooling）运行池化器而非采样器：没有 logits"]
            );
        }
        if f.sampler_sort {
            return formula!(self.text;
                let (tokens, per, fwd) = (self.max_num_batched_tokens, self.vllm_forward_per_token_text(f), b(f.forward));
                let (seqs, vocab, sort, smp) = (self.max_num_seqs, self.arch.vocab_size, SAMPLER_SORT_BYTES, b(f.sampler));
                let (hidden, bytes) = (self.arch.hidden_size, self.act_bytes());
                ["max(forward over {tokens} batched tokens × {per} B = {fwd}, sampler's full sort {seqs} seqs × {vocab} vocab × {sort} B + hidden states ({tokens} + 2 × {seqs}) × {hidden} × {bytes} B = {smp})"],
                ["max(前向 {tokens} 个批内 token × {per} B = {fwd}，采样器全词表排序 {seqs} 条序列 × {vocab} 词表 × {sort} B + 隐藏状态 ({tokens} + 2 × {seqs}) × {hidden} × {bytes} B = {smp})"]
            );
        }
        if let Some(sms) = self.vllm_triton_topk_sms(self.vllm_version) {
            return formula!(self.text;
                let (tokens, per, fwd) = (self.max_num_batched_tokens, self.vllm_forward_per_token_text(f), b(f.forward));
                let (seqs, vocab, copies, smp) = (self.max_num_seqs, self.arch.vocab_size, fixed(super::sampler::SAMPLER_COPIES_PER_SEQ, 3), b(f.sampler));
                let (ws, ws_zh) = if f.moe_workspaces > 0 {
                    (
                        en!(" + the fused-MoE workspaces kept under it {}", b(f.moe_workspaces)),
                        zh!(" + 其下保留的融合专家工作区 {}", b(f.moe_workspaces)),
                    )
                } else {
                    (alloc::string::String::new(), alloc::string::String::new())
                };
                ["max(forward over {tokens} batched tokens × {per} B = {fwd}, sampler {seqs} seqs × {vocab} vocab × 4 B × {copies} + the Triton top-k/top-p buffer {sms} SMs × {vocab} × 4 B = {smp}{ws})"],
                ["max(前向 {tokens} 个批内 token × {per} B = {fwd}，采样器 {seqs} 条序列 × {vocab} 词表 × 4 B × {copies} + Triton 采样内核缓冲 {sms} 个 SM × {vocab} × 4 B = {smp}{ws_zh})"]
            );
        }
        formula!(self.text;
            let (tokens, per, fwd) = (self.max_num_batched_tokens, self.vllm_forward_per_token_text(f), b(f.forward));
            let (seqs, vocab, copies, smp) = (self.max_num_seqs, self.arch.vocab_size, short(SAMPLER_FP32_COPIES), b(f.sampler));
            ["max(forward over {tokens} batched tokens × {per} B = {fwd}, sampler {seqs} seqs × {vocab} vocab × 4 B × {copies} = {smp})"],
            ["max(前向 {tokens} 个批内 token × {per} B = {fwd}，采样器 {seqs} 条序列 × {vocab} 词表 × 4 B × {copies} = {smp})"]
        )
    }

    /// Non-torch memory's formula, with the line's stated margin where it applies.
    // In one language, the other's words about the margin are not used.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn vllm_non_torch_text(&self, f: &VllmFigures) -> Formula {
        let measured = f.non_torch.get().saturating_sub(f.profile_margin);
        let (margin, margin_zh) = if f.profile_margin > 0 && self.text {
            (
                en!(
                    " + {} stated margin of the 0.17–0.20 line (the largest unexplained excess of its published runs, granite-3.1-8b's 0.23 GiB, rounded up) = {}",
                    b(f.profile_margin),
                    b(f.non_torch.get())
                ),
                zh!(
                    " + 0.17–0.20 版本线的声明余量 {}（该版本线公开运行中最大的未解释超出，granite-3.1-8b 的 0.23 GiB，向上取整）= {}",
                    b(f.profile_margin),
                    b(f.non_torch.get())
                ),
            )
        } else {
            (String::new(), String::new())
        };
        formula!(self.text;
            [
                "non-torch memory growth during the profile run: {} (measured: {}){margin}",
                b(measured),
                if self.tp > 1 {
                    "NCCL and custom all-reduce buffers at tp ≥ 2"
                } else {
                    "tp = 1"
                }
            ],
            [
                "剖析运行期间非 torch 内存的增长：{} (实测：{}){margin_zh}",
                b(measured),
                if self.tp > 1 {
                    "NCCL 与自定义 all-reduce 缓冲，tp ≥ 2"
                } else {
                    "tp = 1"
                }
            ]
        )
    }

    /// The CUDA context's formula.
    // Built without a language, the two branches are the same empty formula.
    #[cfg_attr(
        not(any(feature = "en", feature = "zh")),
        allow(clippy::if_same_then_else)
    )]
    fn vllm_context_text(&self) -> Formula {
        if self.tp * self.pp > 1 {
            formula!(self.text; text "CUDA context with NCCL communicators: 1.53 GiB (measured, H100, vLLM 0.19, tp or pp ≥ 2)", "CUDA 上下文与 NCCL 通信器：1.53 GiB (实测，H100, vLLM 0.19，tp 或 pp ≥ 2)")
        } else {
            formula!(self.text; text "CUDA context: 0.51 GiB (measured, H100, vLLM 0.19)", "CUDA 上下文：0.51 GiB (实测，H100, vLLM 0.19)")
        }
    }

    /// The pool's formula: the budget left in blocks on a card, the demand without one.
    // Built without a language, the branches of a text differ by their words alone.
    #[cfg_attr(
        not(any(feature = "en", feature = "zh")),
        allow(clippy::if_same_then_else)
    )]
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn vllm_pool_text(&self, f: &VllmFigures) -> Formula {
        if !self.text {
            return Formula::default();
        }
        let l = &f.layout;
        let per_layer = thousands(l.per_layer);
        let (gs, groups_full, groups_window, groups_cross, cross_blocks) = (
            l.group_size,
            l.groups_full,
            l.groups_window,
            l.groups_cross,
            l.cross_blocks,
        );
        match f.pool {
            VllmPool::Card {
                memory,
                others,
                available,
                blocks,
                ..
            } => {
                let groups = groups_full + groups_window + groups_cross;
                // Per block: one layer's 16 tokens × the group size (every layer of a dense model).
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
                        let per_token = thousands(l.per_token); ["{per_token} B per token"], ["{per_token} B 每 token"])
                };
                formula!(self.text;
                    let (memory, util, size, blocks_n) = (
                        b(memory),
                        short(self.gpu_memory_utilization),
                        b(available),
                        thousands(blocks),
                    );
                    let (lora, lora_zh) = if f.lora.is_some() {
                        (" + LoRA slots", " + LoRA 槽位")
                    } else {
                        ("", "")
                    };
                    // Before 0.9.1 the profile counts other programs' memory as non-torch.
                    let (others, others_zh) = if others > 0 {
                        (
                            en!(" + {} in use by other programs", b(others)),
                            zh!(" + 其他程序已占用的 {}", b(others)),
                        )
                    } else {
                        (String::new(), String::new())
                    };
                    [
                        "{memory} × {util} − (weights + activations + non-torch{lora}{others}) = {size} → {blocks_n} blocks × 16 tokens × {}",
                        per_block.en
                    ],
                    [
                        "{memory} × {util} − (权重 + 激活 + 非 torch{lora_zh}{others_zh}) = {size} → {blocks_n} 块 × 16 token × {}",
                        per_block.zh
                    ]
                )
            }
            VllmPool::Demand { bytes } => self.vllm_demand_text(l, &per_layer, bytes),
        }
    }

    /// The pool's formula without a card: `batch` sequences of max_model_len.
    fn vllm_demand_text(&self, l: &VllmLayout, per_layer: &str, pool: u64) -> Formula {
        let (layers_here, global, local) = (l.layers, l.global, l.local);
        let full = l.full_blocks * VLLM_BLOCK;
        let per_seq = if l.cross > 0 {
            let frames = l.cross_blocks * VLLM_BLOCK;
            formula!(self.text;
                [
                    "{layers_here} layers × ({full} tokens + {frames} cross-attention frames) × {per_layer} B per token per layer"
                ],
                [
                    "{layers_here} 层 × ({full} token + {frames} 个交叉注意力帧) × {per_layer} B 每 token 每层"
                ]
            )
        } else if local > 0 {
            let window = l.window_blocks * VLLM_BLOCK;
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
                let per_token = thousands(l.per_token);
                ["{full} max_model_len × {per_token} B per token"],
                ["{full} max_model_len × {per_token} B 每 token"]
            )
        };
        formula!(self.text;
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
        )
    }

    /// The CUDA-graph pool's formula.
    fn vllm_cuda_graphs_text(&self, g: u64) -> Formula {
        let layers_here = self.arch.num_layers.div_ceil(self.pp);
        formula!(self.text;
            let (base, per, size) = (short(CUDA_GRAPH_BASE_GIB), short(CUDA_GRAPH_PER_LAYER_GIB), b(g));
            ["{base} GiB + {per} GiB × {layers_here} layers = {size} (fitted to vLLM 0.19 H100 runs)"],
            ["{base} GiB + {per} GiB × {layers_here} 层 = {size} (拟合自 vLLM 0.19 H100 的实测)"]
        )
    }
    /// What KV offloading to CPU memory holds and what it does not change.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn vllm_kv_offload_note(&self, o: crate::estimate::workload::KvOffload, p: &mut Parts) {
        let size = crate::units::short(o.gib);
        match o.backend {
            crate::estimate::KvOffloadingBackend::Native => p.note(
                "vllm_kv_offloading",
                en!("kv_offloading_size {size} GiB: vLLM keeps up to {size} GiB of the KV blocks it evicts in pinned CPU memory (over the server's ranks together, counted in the host memory), and a request with the same prefix loads them back instead of recomputing them. The GPU's pool is the same: it holds no more requests at once and no longer a context."),
                zh!("kv_offloading_size {size} GiB：vLLM 把被逐出的 KV 块中至多 {size} GiB 保存在锁页 CPU 内存中（整个服务各 rank 合计，计入主机内存），前缀相同的请求会把它们读回而不是重新计算。GPU 上的池不变：不能同时容纳更多请求，也不能容纳更长的上下文。"),
            ),
            crate::estimate::KvOffloadingBackend::Lmcache => p.note(
                "vllm_kv_offloading",
                en!("kv_offloading_backend lmcache: the evicted KV blocks go to LMCache's own server, which sizes its memory itself (kv_offloading_size is not passed to it); no host memory is counted here. The GPU's pool is the same."),
                zh!("kv_offloading_backend lmcache：被逐出的 KV 块交给 LMCache 自己的服务，其内存由它自行决定（kv_offloading_size 不会传给它）；此处不计主机内存。GPU 上的池不变。"),
            ),
        }
    }
}
