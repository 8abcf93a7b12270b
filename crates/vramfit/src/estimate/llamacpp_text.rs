//! llama.cpp's components from its figures (`llamacpp.rs`): the weights, KV cache and compute
//! buffer with their formulas and notes in both languages.

use super::ComponentKind;
use super::llamacpp::{LLAMACPP_CONTEXT, LlamacppFigures, LlamacppKv};
use super::state::StateLayout;
use super::{Formula, Parts, Run, b};

impl Run<'_> {
    /// llama.cpp's components from its figures, with their formulas and notes in both languages
    /// (when the run builds text).
    pub(super) fn llamacpp_components(&self, f: &LlamacppFigures, p: &mut Parts) {
        p.add(
            ComponentKind::Weights,
            f.weights,
            false,
            self.llamacpp_weights_text(f),
            en_str!("llama.cpp offloads whole blocks (-ngl); the rest runs on the CPU."),
            zh_str!("llama.cpp 按层卸载（-ngl），其余在 CPU 上运行。"),
        );
        p.add(
            ComponentKind::KvCache,
            f.kv.bytes,
            false,
            self.llamacpp_kv_text(&f.kv),
            en_str!("llama.cpp allocates the whole context (-c) up front."),
            zh_str!("llama.cpp 预先分配整个上下文（-c）。"),
        );
        if f.state.bytes > 0 {
            p.add(
                ComponentKind::StateCache,
                f.state.bytes,
                false,
                self.state_text(&f.state, self.batch, StateLayout::Llamacpp),
                en_str!("llama.cpp's recurrent-state buffer (RS): R and S in f32, one cell per sequence (--parallel), printed beside the KV buffer."),
                zh_str!("llama.cpp 的递归状态缓冲区（RS）：R 与 S 均为 f32，每条序列（--parallel）一个单元，与 KV 缓冲区并列打印。"),
            );
        }
        p.add(
            ComponentKind::ComputeBuffer,
            f.compute_buffer,
            false,
            self.llamacpp_compute_text(f),
            en_str!(
                "ggml's graph allocator reserves the largest graph's intermediate tensors once."
            ),
            zh_str!("ggml 图分配器按最大计算图一次性预留中间张量。"),
        );
        if let Some(m) = &f.mmproj {
            p.add(
                ComponentKind::VisionWeights,
                m.weights,
                false,
                self.llamacpp_mmproj_weights_text(m),
                en_str!("With images, llama-server loads the --mmproj file (the vision tower and projector) into its own buffer on the first GPU (--no-mmproj-offload keeps it in CPU memory); an F32 file is twice this."),
                zh_str!("有图像时，llama-server 把 --mmproj 文件（视觉编码器与投影层）加载到第一张 GPU 上的独立缓冲区（--no-mmproj-offload 时留在 CPU 内存）；F32 文件为此值的两倍。"),
            );
            p.add(
                ComponentKind::EncoderActivations,
                m.compute,
                false,
                self.llamacpp_clip_text(m),
                en_str!("CLIP's graph allocator reserves for its warmup image and grows for a larger one, one image (or tile) at a time in f32; flash attention assumed (no attention matrix)."),
                zh_str!("CLIP 的图分配器按预热图像预留，遇到更大的图像时增长；每次一张图像（或分块），f32；假定使用 flash attention（不生成注意力矩阵）。"),
            );
        }
        p.add(
            ComponentKind::CudaContext,
            LLAMACPP_CONTEXT.get(),
            false,
            formula!(self.text;
                ["CUDA context and cuBLAS: {}", b(LLAMACPP_CONTEXT.get())],
                ["CUDA 上下文与 cuBLAS：{}", b(LLAMACPP_CONTEXT.get())]
            ),
            en_str!("The CUDA runtime's own memory."),
            zh_str!("CUDA 运行时自身占用。"),
        );
    }

    /// The weights' formula: the blocks on the GPU (and which GPU of several), or the guide's
    /// bytes per parameter.
    fn llamacpp_weights_text(&self, f: &LlamacppFigures) -> Formula {
        let (on_gpu, layers, split, output_on_gpu) = (f.on_gpu, f.layers, f.split, f.output_on_gpu);
        let on = if split > 1 {
            let (n, here) = (f.busiest + 1, f.busiest_layers);
            let output = f.busiest == f.output_gpu && output_on_gpu;
            formula!(self.text;
                [
                    " (GPU {n} of {split}: {here} of them{})",
                    if output { " + output layer" } else { "" }
                ],
                [
                    "（GPU {n} / {split}：其中 {here} 块{}）",
                    if output { " + 输出层" } else { "" }
                ]
            )
        } else {
            Formula::default()
        };
        let moe = match self.n_cpu_moe {
            0 => Formula::default(),
            n => formula!(self.text;
                [", the routed experts of the first {n} blocks in CPU memory (--n-cpu-moe {n})"],
                ["，前 {n} 块的路由专家留在 CPU 内存（--n-cpu-moe {n}）"]
            ),
        };
        if self.arch.is_detailed() {
            formula!(self.text;
                let size = b(f.weights);
                [
                    "{on_gpu} of {layers} blocks{} on the GPU{}{}; token embeddings stay in CPU memory = {size}",
                    if output_on_gpu { " + output layer" } else { "" },
                    on.en,
                    moe.en
                ],
                [
                    "{on_gpu} / {layers} 块{}在 GPU 上{}{}；词嵌入留在 CPU 内存 = {size}",
                    if output_on_gpu { " + 输出层" } else { "" },
                    on.zh,
                    moe.zh
                ]
            )
        } else if split > 1 {
            formula!(self.text;
                let (wf, size) = (self.weights_formula(f.gpu_weights), b(f.weights));
                ["{} / {split} GPUs = {size}", wf.en],
                ["{} / {split} 个 GPU = {size}", wf.zh]
            )
        } else {
            self.weights_formula(f.gpu_weights)
        }
    }

    /// The KV cache's formula: values per token per layer over the context, with the sliding
    /// layers' cells.
    fn llamacpp_kv_text(&self, kv: &LlamacppKv) -> Formula {
        if kv.layers == 0 {
            return formula!(self.text; text "no KV cache on the GPU", "GPU 上没有 KV 缓存");
        }
        if !self.text {
            return Formula::default();
        }
        let mut f = self.llamacpp_kv_stream_text(kv);
        // A cache split by sequence: its streams first, the rest being one stream's.
        if kv.streams > 1 {
            let n = kv.streams;
            #[cfg(feature = "en")]
            f.en.insert_str(
                0,
                &alloc::format!("{n} streams (one per sequence, without --kv-unified) × "),
            );
            #[cfg(feature = "zh")]
            f.zh.insert_str(
                0,
                &alloc::format!("{n} 个流（每条序列一个，KV 缓存未统一）× "),
            );
        }
        f
    }

    /// The KV cache's formula within one stream (the whole cache where it is unified).
    fn llamacpp_kv_stream_text(&self, kv: &LlamacppKv) -> Formula {
        let (per_layer, layers, swa_layers, swa_cells) =
            (kv.per_layer, kv.layers, kv.swa_layers, kv.swa_cells);
        let (ctx, name, size) = (kv.ctx_cells, kv.dtype.name(), b(kv.bytes));
        // A split cache's window holds one sequence's.
        let seqs = if kv.streams > 1 { 1 } else { self.batch };
        if swa_layers > 0 && kv.full_per_layer != per_layer {
            let (full, full_per, window) = (
                layers - swa_layers,
                kv.full_per_layer,
                self.arch.sliding_window,
            );
            formula!(self.text;
                [
                    "({full_per} values per token × {full} full layers × {ctx} context + {per_layer} values per token × {swa_layers} sliding layers × {swa_cells} cells (window {window} × {seqs} seq + ubatch, padded to 256)) × {name} = {size}"
                ],
                [
                    "({full_per} 个值每 token × {full} 个全局层 × {ctx} 上下文 + {per_layer} 个值每 token × {swa_layers} 个滑动窗口层 × {swa_cells} 个单元（窗口 {window} × {seqs} 条序列 + ubatch，补齐到 256 的倍数）) × {name} = {size}"
                ]
            )
        } else if swa_layers > 0 {
            let (full, window, ubatch) =
                (layers - swa_layers, self.arch.sliding_window, self.ubatch);
            formula!(self.text;
                [
                    "{per_layer} values per token per layer × ({full} layers × {ctx} context + {swa_layers} sliding layers × {swa_cells} cells (window {window} × {seqs} seq + ubatch {ubatch}, padded to 256)) × {name} = {size}"
                ],
                [
                    "{per_layer} 个值每 token 每层 × ({full} 层 × {ctx} 上下文 + {swa_layers} 个滑动窗口层 × {swa_cells} 个单元（窗口 {window} × {seqs} 条序列 + ubatch {ubatch}，补齐到 256 的倍数）) × {name} = {size}"
                ]
            )
        } else if self.cache_assumed() {
            formula!(self.text;
                [
                    "{per_layer} values per token per layer × {layers} layers × {ctx} context × {name} = {size} (a shape assumed from the parameter count)"
                ],
                ["{per_layer} 个值每 token 每层 × {layers} 层 × {ctx} 上下文 × {name} = {size}（由参数量假定的形状）"]
            )
        } else {
            formula!(self.text;
                [
                    "{per_layer} values per token per layer × {layers} layers × {ctx} context × {name} = {size}"
                ],
                ["{per_layer} 个值每 token 每层 × {layers} 层 × {ctx} 上下文 × {name} = {size}"]
            )
        }
    }

    /// The compute buffer's formula: the largest of the output, a block's feed-forward and its
    /// attention without flash attention, with the copies a prompt batch makes of weights in
    /// CPU memory.
    fn llamacpp_compute_text(&self, f: &LlamacppFigures) -> Formula {
        let a = &self.arch;
        let c = &f.compute;
        let ctx = self.llamacpp_attended(self.max_model_len);
        let (ub, heads, hidden) = (c.ubatch, a.num_heads, a.hidden_size);
        let rows = c.outputs;
        let output = if c.output_copy > 0 {
            let (vocab, x) = (a.vocab_size, b(c.output_copy));
            formula!(self.text;
                ["output matrix copied from CPU memory for a prompt batch {x} + {rows} × ({vocab} logits + {hidden}) × 4 B, "],
                ["提示批处理时从 CPU 内存复制来的输出矩阵 {x} + {rows} × ({vocab} 个 logits + {hidden}) × 4 B，"]
            )
        } else if c.logits > 0 && self.llamacpp_cacheless() {
            formula!(self.text;
                ["output {rows} × {hidden} × 4 B (every token's embedding, no output matrix), "],
                ["输出 {rows} × {hidden} × 4 B（每个 token 的嵌入，没有输出矩阵），"]
            )
        } else if c.logits > 0 && c.placed > 0 && f.output_on_gpu && f.split == 1 {
            // ggml's allocator leaves memory below the output (`llamacpp_alloc.rs`).
            let (vocab, x) = (a.vocab_size, b(c.placed));
            formula!(self.text;
                ["output {rows} × ({vocab} logits + {hidden}) × 4 B above the {x} ggml's allocator leaves below it (its placement replayed), "],
                ["输出 {rows} × ({vocab} 个 logits + {hidden}) × 4 B，位于 ggml 分配器在其下留出的 {x} 之上（按其分配顺序重放），"]
            )
        } else if c.logits > 0 {
            let vocab = a.vocab_size;
            formula!(self.text;
                ["output {rows} × ({vocab} logits + {hidden}) × 4 B, "],
                ["输出 {rows} × ({vocab} 个 logits + {hidden}) × 4 B，"]
            )
        } else {
            Formula::default()
        };
        let attention_text = if c.attention > 0 {
            formula!(self.text;
                [", attention {ub} × {ctx} × ({heads} heads + mask) × 4 B + 4 × {ub} × {hidden} × 4 B"],
                ["，注意力 {ub} × {ctx} × ({heads} 个头 + 掩码) × 4 B + 4 × {ub} × {hidden} × 4 B"]
            )
        } else {
            Formula::default()
        };
        let inputs = if c.inputs > 0 {
            formula!(self.text;
                let (x, ffn) = (b(c.inputs), super::activations::token_ffn_width(a));
                let experts = a.moe.map_or(0, |m| m.experts_per_token);
                let moe = if experts > 0 { alloc::format!(" + {experts} × {hidden}") } else { alloc::string::String::new() };
                [" (mask and token embeddings {x} + {ub} × (3 × {hidden} + 3 × {ffn}{moe}) × 4 B)"],
                ["（掩码与词元嵌入 {x} + {ub} × (3 × {hidden} + 3 × {ffn}{moe}) × 4 B）"]
            )
        } else {
            Formula::default()
        };
        let copy = if c.expert_copy > 0 {
            formula!(self.text;
                let x = b(c.expert_copy);
                [" + a block's experts copied from CPU memory for a prompt batch {x}"],
                [" + 提示批处理时从 CPU 内存复制来的一块专家权重 {x}"]
            )
        } else {
            Formula::default()
        };
        let block_copy = if c.block_copy > 0 {
            formula!(self.text;
                let x = b(c.block_copy);
                [" + a CPU block's weights copied for a prompt batch {x}"],
                [" + 提示批处理时复制来的一块 CPU 层权重 {x}"]
            )
        } else {
            Formula::default()
        };
        formula!(self.text;
            let (ffn, size) = (b(c.ffn), b(f.compute_buffer));
            [
                "max({}feed-forward {ffn}{}{}{}{}) = {size}",
                output.en,
                inputs.en,
                attention_text.en,
                copy.en,
                block_copy.en
            ],
            [
                "max({}前馈 {ffn}{}{}{}{}) = {size}",
                output.zh,
                inputs.zh,
                attention_text.zh,
                copy.zh,
                block_copy.zh
            ]
        )
    }
}
