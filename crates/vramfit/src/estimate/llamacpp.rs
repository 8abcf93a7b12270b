//! llama.cpp: GGUF weights offloaded block by block (`-ngl`) and split over GPUs by layer, the
//! KV cache of the whole context, ggml's compute buffer.

use super::PeakSource;
use super::engine::{
    CardTraits, Context, ExpertParallel, Formats, LayerOffload, PastTrained, Required, Rules,
};
use super::state::{StateFigures, StateLayout};
use super::{Kernel, Parts, Phase, Run, activations, tensor_bytes, weights};
use crate::model::Role;
use crate::precision::{Dtype, KvDtype, Quantization};
use crate::throughput::Runtime;
use crate::units::Bytes;

/// llama.cpp's decisions: its own buffers, one context (`-c`) shared by the sequences, the
/// layers on the GPU as given (`-ngl`), quantized KV caches.
pub(super) const RULES: Rules = Rules {
    name: "llama.cpp",
    peak: PeakSource::Llamacpp,
    kv_dtypes: Some(&[
        KvDtype::Auto,
        KvDtype::Fp16,
        KvDtype::Bf16,
        KvDtype::Q8_0,
        KvDtype::Q4_0,
    ]),
    required: Required::Total,
    context: Context::Shared { setting: "-c" },
    past_trained: PastTrained::Unnoted,
    offload: LayerOffload::GpuLayers,
    output_layer_first: true,
    dequantizes_gguf: false,
    decompressed_mla: false,
    indexer_keys: super::engine::IndexerKeys::KvType,
    delta_net_with_plain_attention: false,
    gemma4_layers: true,
    pooled_indexer: false,
    step3p5_layers: true,
    compressed_cache: crate::estimate::engine::CompressedCache::Refused,
    gemma4_full_qkv: false,
    gemma3n_full_qkv: true,
    expert_parallel: ExpertParallel::None,
    fp32_auto: crate::estimate::engine::Fp32Auto::Keeps,
    native_kv_formats: false,
    flash_only_when_asked: false,
    expert_offload: true,
    unlike_cards: super::engine::UnlikeCards::SplitsLayers,
    library_names: false,
    dp_attention: false,
    copies_share_requests: false,
    runtime: Runtime::Llamacpp,
    formats: Formats::Gguf,
    reads: CardTraits {
        workspace: false,
        vllm_defaults: false,
        memory: false,
    },
};

impl Run<'_> {
    /// A tensor as llama.cpp loads it. A checkpoint released in MXFP4 (gpt-oss) runs from its
    /// GGUF of file type MXFP4_MOE: the routed experts in MXFP4, every other matrix in Q8_0, the
    /// router and the vectors in F32 (ggml-org/gpt-oss-20b-GGUF: 72 MXFP4 and 98 Q8_0 tensors).
    ///
    /// Every other GGUF file of such a checkpoint keeps the experts in MXFP4 too: the converter
    /// writes them as they ship and the quantizer leaves them (unsloth's gpt-oss-20b F16 and
    /// Q4_K_M files: 12,036.68 and 10,694.15 MiB on the GPU in published llama.cpp logs).
    pub(super) fn gguf_tensor_bytes(&self, t: &crate::model::Tensor) -> u64 {
        if self.mxfp4_experts
            && t.role.is_expert()
            && matches!(self.quantization, Quantization::Gguf { .. })
        {
            return tensor_bytes(&Quantization::Mxfp4, &self.arch, self.dtype, t);
        }
        if self.quantization == Quantization::Mxfp4 && !t.role.is_expert() {
            if t.rows_in > 1 && t.role != Role::Router {
                return crate::precision::GgmlType::Q8_0.bytes_for(t.numel());
            }
            return t.numel().saturating_mul(4);
        }
        tensor_bytes(&self.quantization, &self.arch, self.dtype, t)
    }

    /// llama.cpp (and Ollama's planned run of it): its figures (numbers alone), their components
    /// with the text; the bytes kept in CPU memory.
    pub(super) fn llamacpp(&self, p: &mut Parts) -> (Phase, u64, u64) {
        let f = self.llamacpp_figures();
        self.llamacpp_components(&f, p);
        #[cfg(feature = "moments")]
        {
            p.start_up = Some(super::moments::LLAMACPP_START_UP);
        }
        self.llamacpp_pooling_note(p);
        p.cards = self.llamacpp_cards(&f);
        // Over one card there is no split to tell: Ollama from 0.30 may give llama-server one
        // of the cards asked for (its own note says which).
        if p.text && !self.cards.is_empty() && f.per_gpu.len() > 1 {
            self.llamacpp_cards_note(&f, p);
        }
        (Phase::Decode, 0, f.cpu)
    }

    /// Whether `-ngl`'s first layer is the output layer: the engine's rule (llama.cpp's, not
    /// Ollama's plan) in a build from llama.cpp PR #18148 on (`llamacpp_build.rs`).
    pub(super) fn llamacpp_output_first(&self) -> bool {
        // Ollama from 0.30 leaves the placement to llama-server (`ollama/version.rs`).
        let engine = self.rules().output_layer_first
            || (self.rules().offload == super::engine::LayerOffload::EngineDecides
                && super::ollama::runs_llama_server(self.llamacpp_build));
        engine && self.llamacpp_build.output_layer_first()
    }

    /// llama.cpp's figures: the blocks on the GPUs and the busiest GPU's weights, KV cache and
    /// compute buffer, and what stays in CPU memory.
    pub(super) fn llamacpp_figures(&self) -> LlamacppFigures {
        let a = &self.arch;
        let layers = a.num_layers.max(1);
        // llama.cpp (since PR #18148, December 2025) gives -ngl's first layer to the output layer,
        // then the last ngl − 1 blocks; Ollama plans the blocks first and the output layer last.
        // A bare parameter count is one block, its weights and its (assumed) cache together: on
        // the GPU with any -ngl, in CPU memory with none.
        let (on_gpu, output_on_gpu) = if self.cache_assumed() {
            let on = u64::from(self.gpu_layers > 0);
            (on, on == 1)
        } else if !self.llamacpp_output_first() {
            (self.gpu_layers.min(layers), self.gpu_layers > layers)
        } else {
            (
                self.gpu_layers.saturating_sub(1).min(layers),
                self.gpu_layers > 0,
            )
        };
        // Several GPUs: llama.cpp splits the offloaded blocks and the output layer across them
        // by its tensor split (--split-mode layer, the default; `llamacpp_split.rs`), each with
        // its blocks' KV cache and its own compute buffer; Ollama's plan splits the blocks evenly
        // and puts the output layer on the last. Shown is the GPU that limits: the one with the
        // least memory left, of alike cards the most loaded.
        let by_rule = self.llamacpp_splits_by_rule();
        let split = if by_rule {
            self.llamacpp_devices()
        } else {
            (self.dp * self.pp).clamp(1, on_gpu.max(1))
        };
        let place = self.llamacpp_placement(on_gpu, output_on_gpu, split, by_rule);
        let ctx = self.max_model_len;
        // A pooling run of an encoder attends over its ubatch alone (`llamacpp_pooling.rs`).
        let mut c = self.llamacpp_compute(self.llamacpp_attended(ctx));
        // The output layer left in CPU memory: a prompt batch of op offload's 32 tokens or more
        // runs its matrix product on the first GPU (`ggml_backend_sched` offloads an op whose
        // weight is in CPU memory to the highest-priority backend that takes it), copying the
        // output matrix into that GPU's compute buffer beside the logits and the final norm's
        // output. A published log (arXiv 2509.11947, -ngl 20 of 33 with the output on the CPU)
        // prints the sum to the 0.01 MiB: 102.54 + 31.25 + 4.00 = 137.79 MiB.
        // Ollama runs a model it gives no layer to on the CPU alone (no GPU, nothing copied);
        // llama.cpp's -ngl 0 keeps the GPU for such products.
        let gpu_used = on_gpu > 0 || matches!(self.rules().offload, LayerOffload::GpuLayers);
        c.output_copy = if !output_on_gpu
            && gpu_used
            && a.is_detailed()
            && a.is_generative()
            && !self.cache_assumed()
            && c.outputs >= LLAMACPP_OP_OFFLOAD_BATCH
        {
            place.head
        } else {
            0
        };
        c.block_copy = self.llamacpp_block_copy(c.ubatch, layers, on_gpu, gpu_used);
        // The logits (last GPU only, or the first when the output layer is copied to it) or a
        // block's largest stage, on a GPU with blocks or the output.
        let copies = self.llamacpp_pipeline_copies(by_rule, split, c.ubatch, ctx);
        let compute_of = |g: usize| {
            let output_here = if output_on_gpu {
                g == place.output_gpu
            } else {
                c.output_copy > 0 && g == 0
            };
            let logits = if output_here {
                c.outputs * self.llamacpp_output_width() * 4
            } else {
                0
            };
            // Over one GPU holding the output layer, the memory ggml's allocator leaves below
            // the output (`llamacpp_alloc.rs`).
            let placed = if output_on_gpu && split == 1 {
                c.placed
            } else {
                0
            };
            let output = if output_here {
                logits.saturating_add(c.output_copy).saturating_add(placed)
            } else {
                0
            };
            let block_copy = if g == 0 { c.block_copy } else { 0 };
            let block = c
                .ffn
                .max(c.attention)
                .saturating_add(c.expert_copy)
                .saturating_add(block_copy);
            let c = if place.stage_layers[g] > 0 || block_copy > 0 {
                output.max(block).saturating_add(copies)
            } else {
                output
            };
            (c, logits)
        };
        let state = |layers: u64| self.state_figures(self.batch, layers, StateLayout::Llamacpp);
        let mmproj = self.llamacpp_mmproj();
        let per_gpu: alloc::vec::Vec<GpuFigures> = (0..split as usize)
            .map(|g| {
                let layers = place.stage_layers[g];
                GpuFigures {
                    layers,
                    output: output_on_gpu && g == place.output_gpu,
                    weights: place.stage_w[g],
                    kv: self.llamacpp_kv(ctx, layers).bytes,
                    state: state(layers).bytes,
                    compute: compute_of(g).0,
                    mmproj: if g == 0 {
                        mmproj.map_or(0, |m| m.bytes())
                    } else {
                        0
                    },
                }
            })
            .collect();
        let busiest = self.llamacpp_limiting(&per_gpu);
        let (compute, logits) = compute_of(busiest);
        // The copied output matrix and block are the busiest GPU's only where it is the first.
        if busiest != 0 {
            c.output_copy = 0;
            c.block_copy = 0;
        }
        let kv_cpu = self
            .llamacpp_kv(ctx, layers - on_gpu)
            .bytes
            .saturating_add(state(layers - on_gpu).bytes);
        LlamacppFigures {
            layers,
            on_gpu,
            output_on_gpu,
            split,
            output_gpu: place.output_gpu,
            per_gpu,
            busiest,
            busiest_layers: place.stage_layers[busiest],
            gpu_weights: place.gpu,
            weights: place.stage_w[busiest],
            kv: self.llamacpp_kv(ctx, place.stage_layers[busiest]),
            state: state(place.stage_layers[busiest]),
            compute: LlamacppCompute { logits, ..c },
            compute_buffer: compute,
            mmproj,
            cpu: place.cpu.saturating_add(kv_cpu),
        }
    }

    /// Blocks left in CPU memory, in a build that reserves one output per sequence: a prompt
    /// batch runs their matrix products on the first GPU too, copying a block's weights
    /// into its compute buffer on top of the block's stage. A published load (Llama-3.1-8B
    /// Q4_0, -c 32768 -ub 512, 15 of 33 layers and with none; see
    /// `llamacpp_block_stage`) prints 248 MiB, the 140 MiB of the whole offload and 108 MiB,
    /// a block's q, k, v, gate, up and down in Q4_0; vramfit copies the whole largest
    /// block (its o as well: 117 MiB), the safe side. Before that build the ubatch's logits
    /// led and the copy is not seen in the logs (arXiv 2509.11947's -ngl 20: 137.79 MiB).
    fn llamacpp_block_copy(&self, ubatch: u64, layers: u64, on_gpu: u64, gpu_used: bool) -> u64 {
        let a = &self.arch;
        if self.llamacpp_build.outputs_per_sequence()
            && on_gpu < layers
            && gpu_used
            && a.is_detailed()
            && !self.cache_assumed()
            && ubatch >= LLAMACPP_OP_OFFLOAD_BATCH
        {
            self.cpu_block_largest(layers - on_gpu)
        } else {
            0
        }
    }

    /// Where the weights go: the last `on_gpu` blocks (and the output layer with
    /// `output_on_gpu`) on the GPUs, split by layer over `split` of them, the rest in CPU memory.
    fn llamacpp_placement(
        &self,
        on_gpu: u64,
        output_on_gpu: bool,
        split: u64,
        by_rule: bool,
    ) -> Placement {
        let a = &self.arch;
        let layers = a.num_layers.max(1);
        let first = layers - on_gpu;
        let mut stage_w = alloc::vec![0u64; split as usize];
        let mut stage_layers = alloc::vec![0u64; split as usize];
        // llama.cpp's GPU of each position from the first offloaded block, the output layer the
        // last; Ollama's plan: the blocks evenly, the output layer on the last GPU.
        let positions = on_gpu + u64::from(output_on_gpu);
        let points = self.llamacpp_split_points(split as usize);
        let gpu_of = |i: u64| {
            if by_rule {
                super::llamacpp_split::gpu_of(&points, i, positions)
            } else {
                weights::layer_stage(i, on_gpu, split) as usize
            }
        };
        let stage_of = |l: u64| gpu_of(l - first);
        let output_gpu = if by_rule {
            gpu_of(on_gpu)
        } else {
            split as usize - 1
        };
        let (mut gpu, mut cpu, mut head, mut embedding) = (0u64, 0u64, 0u64, 0u64);
        // Blocks alike are visited once (`n` of them from `t.layer` on); a tensor whose GGUF type
        // differs from block to block is counted block by block.
        let by_block = |t: &crate::model::Tensor| {
            matches!(self.quantization, Quantization::Gguf { .. })
                && weights::gguf_type_by_block(t.role)
        };
        a.visit_grouped(|t, n| {
            // The vision tower is no tensor of the text model's GGUF: it is the `mmproj` file,
            // which llama-server loads only with `--mmproj` (see `llamacpp_vision_note`).
            if t.role == Role::Vision {
                return;
            }
            let bytes = self.gguf_tensor_bytes(&t);
            let Some(l) = t.layer else {
                if t.role == Role::LmHead {
                    head = head.saturating_add(bytes);
                }
                if t.role == Role::Embedding {
                    embedding = embedding.saturating_add(bytes);
                }
                let here = t.role == Role::LmHead
                    || (t.role == Role::Vector && output_on_gpu)
                    || (t.role == Role::Embedding && a.tied_embeddings && output_on_gpu);
                if here {
                    gpu = gpu.saturating_add(bytes);
                } else {
                    cpu = cpu.saturating_add(bytes);
                }
                return;
            };
            // `--n-cpu-moe`: the routed experts of the first blocks stay in CPU memory.
            let from = if t.role.is_expert() {
                first.max(self.n_cpu_moe)
            } else {
                first
            };
            if split == 1 && !by_block(&t) {
                // llama.cpp offloads the last `ngl` blocks: those of `l..l + n` from `first` on.
                let on = (l + n).saturating_sub(l.max(from)).min(n);
                gpu = gpu.saturating_add(bytes.saturating_mul(on));
                stage_w[0] = stage_w[0].saturating_add(bytes.saturating_mul(on));
                cpu = cpu.saturating_add(bytes.saturating_mul(n - on));
                return;
            }
            for block in l..l + n {
                let x = if by_block(&t) {
                    self.gguf_tensor_bytes(&crate::model::Tensor {
                        layer: Some(block),
                        ..t
                    })
                } else {
                    bytes
                };
                if block >= from {
                    gpu = gpu.saturating_add(x);
                    let g = stage_of(block);
                    stage_w[g] = stage_w[g].saturating_add(x);
                } else {
                    cpu = cpu.saturating_add(x);
                }
            }
        });
        for l in first..layers {
            stage_layers[stage_of(l)] += 1;
        }
        if !a.is_detailed() {
            // A bare parameter count has no tensors: the guide's bytes per parameter, on the GPU
            // as far as -ngl reaches (all of it by default), split evenly.
            let all = self.opaque_weights();
            (gpu, cpu) = if self.gpu_layers > 0 {
                (all, 0)
            } else {
                (0, all)
            };
            stage_w.fill(gpu.div_ceil(split));
        } else {
            if !output_on_gpu {
                // The output layer stays on the CPU unless all blocks and the output are offloaded.
                gpu = gpu.saturating_sub(head);
                cpu = cpu.saturating_add(head);
            }
            // The output layer (and a tied embedding) on its GPU.
            let blocks: u64 = stage_w.iter().fold(0, |x, y| x.saturating_add(*y));
            stage_w[output_gpu] = stage_w[output_gpu].saturating_add(gpu.saturating_sub(blocks));
        }
        Placement {
            stage_w,
            stage_layers,
            output_gpu,
            gpu,
            cpu,
            // The output matrix: the LM head, or the token embeddings a tied model reads.
            head: if a.tied_embeddings { embedding } else { head },
        }
    }

    /// The compute buffer's stages for a context of `ctx` (the output's logits left to the GPU
    /// that holds it). ggml's graph allocator reuses memory from one stage of the graph to the
    /// next, so the buffer is its largest stage, for a ubatch of min(ubatch, context) tokens:
    /// - the output: the fp32 logits of the outputs the worst-case prompt graph is reserved for
    ///   and the final norm's output they are computed from. Builds before llama.cpp PR #23861
    ///   reserve every token of the ubatch an output; from it (`LlamacppBuild::outputs_per_sequence`)
    ///   `llama_context::sched_reserve` reserves `min(n_tokens, n_outputs_max)` and llama-server
    ///   sets `n_outputs_max` to one output per sequence (`src/llama-context.cpp`, "const uint32_t
    ///   n_outputs_pp = std::min(n_tokens, cparams.n_outputs_max)", read at ggml-org/llama.cpp
    ///   b29c606e in a published audit and in forks of August–October 2026);
    /// - attention without flash attention: the fp32 KQ scores (ubatch × context × heads), their
    ///   mask (ubatch × context) and four ubatch × hidden fp32 tensors of the block;
    /// - a block's feed-forward: ubatch × (4 hidden + 2 FFN width) fp32 in the builds that
    ///   reserve a ubatch of outputs (where it never leads); in the builds that reserve one
    ///   output per sequence it leads, and is held to two published loads (see
    ///   [`Run::llamacpp_block_stage`]).
    ///
    /// Published load logs (tests/data/llamacpp-buffers.csv) give these to the 0.01 MiB they
    /// print: Llama-3.1-8B, ubatch 512, n_ctx 8192, flash attention off: 512 × 8192 × 33 × 4 B +
    /// 4 × 512 × 4096 × 4 B = 560 MiB; with it, 512 × (128,256 + 4,096) × 4 B = 258.5 MiB.
    fn llamacpp_compute(&self, ctx: u64) -> LlamacppCompute {
        let a = &self.arch;
        let ub = self.ubatch.min(ctx.max(1));
        let per_sequence = self.llamacpp_build.outputs_per_sequence();
        let attention = if self.kernel == Kernel::Eager {
            ub.saturating_mul(ctx)
                .saturating_mul(a.num_heads + 1)
                .saturating_add(4 * ub * a.hidden_size)
                .saturating_mul(4)
        } else {
            0
        };
        let (ffn, attention, inputs) = if per_sequence {
            self.llamacpp_block_stage(ub, ctx, attention)
        } else {
            let ffn = ub * (a.hidden_size * 4 + activations::token_ffn_width(a) * 2) * 4;
            (ffn, attention, 0)
        };
        // llama.cpp's op offload: a batch of 32 tokens or more runs a matrix product whose
        // weights stay in CPU memory on the GPU, copying them into the compute buffer
        // (`ggml_backend_sched`, `op_offload` on by default). With `--n-cpu-moe` that is a block's
        // routed experts at once: counted on top of the block's stage, an upper bound (no
        // published log measured yet; see the book's llama.cpp page).
        let expert_copy = if self.n_cpu_moe > 0 && ub >= LLAMACPP_OP_OFFLOAD_BATCH {
            self.cpu_experts_largest_block()
        } else {
            0
        };
        LlamacppCompute {
            ubatch: ub,
            outputs: self.llamacpp_outputs(ub, per_sequence),
            ffn,
            attention,
            inputs,
            expert_copy,
            placed: self.llamacpp_placed(ub, ctx, per_sequence),
            block_copy: 0,
            logits: 0,
            output_copy: 0,
        }
    }

    /// A block's stages in the builds that reserve one output per sequence (PR #23861 on),
    /// where they, not the logits, set the buffer: (feed-forward, attention without flash
    /// attention, the graph's inputs in both). The inputs stay for the whole graph: the
    /// attention mask (f16 with flash attention, f32 without; ubatch × the cache's cells, the
    /// sliding-window cache's cells added for an interleaved model) and the token embeddings
    /// copied in from the host (ubatch × hidden × 4 B). The feed-forward then holds the
    /// residual, the norm's output, gate, up and their product and the down projection:
    /// ubatch × (3 hidden + 3 FFN width) × 4 B, and for a MoE model each used expert's down
    /// projection, ubatch × experts per token × hidden × 4 B.
    ///
    /// Held to two published loads of such builds (find_string ids in
    /// tests/data/llamacpp-buffers.notes.md, "A build with one output per sequence"):
    /// Llama-3.1-8B Q4_0, -c 32768 -ub 512, flash attention, all 33 layers (Ollama's
    /// llama-server of June 2026): 32 MiB of mask + 8 MiB of embeddings + 512 × (3 × 4,096 +
    /// 3 × 14,336) × 4 B = 108 MiB: 148 MiB against the 140 MiB it projects (over by one
    /// ubatch × hidden tensor, 8 MiB: Llama's projections are all 4,096 wide, and ggml's
    /// allocator reuses that hole); Qwen3-4B Q4_K_M, -c 8192 -np 4, all 37 layers (October
    /// 2026): 8 + 5 + 512 × (3 × 2,560 + 3 × 9,728) × 4 B = 72 MiB: 85.00 MiB against 85.01 MiB
    /// printed (the 0.01 is the positions and output ids).
    fn llamacpp_block_stage(&self, ub: u64, ctx: u64, attention: u64) -> (u64, u64, u64) {
        let a = &self.arch;
        // A bare parameter count has no shapes to size a block by (nothing of it is modelled).
        if !a.is_detailed() {
            return (0, attention, 0);
        }
        let cells = ctx.saturating_add(self.llamacpp_kv(ctx, a.num_layers.max(1)).swa_cells);
        let mask_bytes = if self.kernel == Kernel::Eager { 4 } else { 2 };
        let mask = ub
            .next_multiple_of(LLAMACPP_KQ_MASK_PAD)
            .saturating_mul(cells)
            .saturating_mul(mask_bytes);
        let embeddings = ub * a.hidden_size * 4;
        let inputs = mask.saturating_add(embeddings);
        // A MoE block's routed experts each project down to the hidden size before their
        // weighted sum (`build_moe_ffn`: `[n_embd, n_expert_used, n_tokens]`): counted on top,
        // the safe side, as no published load of a MoE model by these builds is at hand.
        let expert_outputs = a.moe.map_or(0, |m| m.experts_per_token * a.hidden_size);
        let ffn = (a.hidden_size * 3 + activations::token_ffn_width(a) * 3 + expert_outputs)
            .saturating_mul(ub)
            .saturating_mul(4)
            .saturating_add(inputs);
        // The eager attention stage counts its own f32 mask; the embeddings are added.
        let attention = if attention > 0 {
            attention.saturating_add(embeddings)
        } else {
            0
        };
        (ffn, attention, inputs)
    }

    /// The largest of the blocks whose routed experts `--n-cpu-moe` keeps in CPU memory: the
    /// sum of its expert tensors, as the GGUF file stores them.
    fn cpu_experts_largest_block(&self) -> u64 {
        let mut per_block = alloc::vec![0u64; self.n_cpu_moe as usize];
        self.arch.visit_grouped(|t, n| {
            let Some(l) = t.layer.filter(|_| t.role.is_expert()) else {
                return;
            };
            for block in l..(l + n).min(self.n_cpu_moe) {
                let x = self.gguf_tensor_bytes(&crate::model::Tensor {
                    layer: Some(block),
                    ..t
                });
                per_block[block as usize] = per_block[block as usize].saturating_add(x);
            }
        });
        per_block.into_iter().max().unwrap_or(0)
    }

    /// The largest of the first `n` blocks (those `-ngl` leaves in CPU memory): the sum of its
    /// tensors as the GGUF file stores them.
    fn cpu_block_largest(&self, n: u64) -> u64 {
        let mut per_block = alloc::vec![0u64; n as usize];
        self.arch.visit_grouped(|t, count| {
            let Some(l) = t.layer.filter(|_| t.role != Role::Vision) else {
                return;
            };
            for block in l..(l + count).min(n) {
                let x = self.gguf_tensor_bytes(&crate::model::Tensor {
                    layer: Some(block),
                    ..t
                });
                per_block[block as usize] = per_block[block as usize].saturating_add(x);
            }
        });
        per_block.into_iter().max().unwrap_or(0)
    }

    /// The KV cache of `layers` blocks for a context of `ctx`, as llama.cpp allocates it.
    pub(super) fn llamacpp_kv(&self, ctx: u64, layers: u64) -> LlamacppKv {
        // A bare parameter count is one block here, on the GPU or not as a whole: its cache is
        // the assumed shape's, all of its layers with that block.
        let a = self.cache_arch();
        let layers = if self.cache_assumed() {
            layers.saturating_mul(a.num_layers)
        } else {
            layers
        };
        if !a.is_generative() || layers == 0 || a.stage_layers(layers) == (0, 0) {
            return LlamacppKv {
                bytes: 0,
                layers: 0,
                per_layer: 0,
                full_per_layer: 0,
                swa_layers: 0,
                swa_cells: 0,
                streams: 1,
                ctx_cells: ctx,
                dtype: KvDtype::Fp16,
            };
        }
        // A DSA model's indexer keys sit in a second cache of the same type and cells
        // (`llama_kv_cache_dsa`): counted as values of each layer (GLM-5's "shared" layers, which
        // keep none, are counted with them: over by their keys).
        let per_layer = a
            .kv_elements_per_token_layer()
            .saturating_add(a.indexer.map_or(0, |ix| ix.head_dim));
        // Interleaved sliding-window layers (Gemma 2/3, gpt-oss, Llama 4's chunks) get their own
        // cache of min(n_ctx, n_swa × sequences + n_ubatch) cells, padded to 256
        // (`llama_kv_cache_iswa`, without --swa-full). A model whose every layer slides (Mistral
        // v0.1) runs as plain llama there, window ignored.
        let interleaved =
            a.sliding_window > 0 && a.sliding_layers > 0 && a.sliding_layers < a.attention_layers();
        // A hybrid's state layers keep no KV cache: the stage's attention layers alone.
        let (full, sliding) = a.stage_layers(layers);
        let layers = full + sliding;
        // A cache split by sequence (`llamacpp_build.rs`): each stream holds
        // GGML_PAD(GGML_PAD(n_ctx, 256) / n_seq, 256) cells and its own window of n_swa + ubatch.
        let streams = self.llamacpp_kv_streams();
        let (ctx_cells, window_seqs) = if streams > 1 {
            let per = (ctx.next_multiple_of(256) / streams).next_multiple_of(256);
            (per, 1)
        } else {
            (ctx, self.batch)
        };
        let (swa_layers, swa_cells) = if interleaved {
            let here = sliding;
            let cells = a
                .sliding_window
                .saturating_mul(window_seqs)
                .saturating_add(self.ubatch)
                .next_multiple_of(256)
                .min(ctx_cells);
            (here.min(layers), cells)
        } else {
            (0, 0)
        };
        // Gemma 4's full layers cache at their own width (`n_embd_k_gqa(il)`); its KV-shared
        // layers reuse an earlier layer's cells and are not in `stage_layers`.
        let full_per_layer = if a.layer_shapes.is_some() {
            a.kv_elements_full_layer()
        } else {
            per_layer
        };
        let elems = full_per_layer
            .saturating_mul(ctx_cells)
            .saturating_mul(layers - swa_layers)
            .saturating_add(
                per_layer
                    .saturating_mul(swa_cells)
                    .saturating_mul(swa_layers),
            )
            .saturating_mul(streams);
        // llama.cpp's default KV type is f16.
        let dtype = if self.kv_dtype == KvDtype::Auto {
            KvDtype::Fp16
        } else {
            self.kv_dtype
        };
        LlamacppKv {
            bytes: dtype.bytes_for(elems, Dtype::Fp16),
            layers,
            per_layer,
            full_per_layer,
            swa_layers,
            swa_cells,
            streams,
            ctx_cells,
            dtype,
        }
    }

    /// The KV cache's streams: one per sequence where llama.cpp splits it (from b5913, PR
    /// #14363: `n_stream = unified ? 1 : n_seq_max` in `llama_kv_cache`), else one. llama-server
    /// splits it when `-np` is given without `--kv-unified` (`common_params::kv_unified` is
    /// false by default); Ollama from 0.30 starts it so (`llm/llama_server.go`,
    /// `startLlamaServer`: `-c num_ctx × parallel -np parallel`, no `--kv-unified`; ollama/ollama
    /// f427fa075). Ollama's Go runner before 0.30 is counted with one stream: it keeps the
    /// window at full size (`swa_full` true in `llama_context_default_params`), where a split
    /// changes only the padding.
    fn llamacpp_kv_streams(&self) -> u64 {
        let ollama = self.rules().offload == super::engine::LayerOffload::EngineDecides;
        let split = if ollama {
            super::ollama::runs_llama_server(self.llamacpp_build)
        } else {
            !self.kv_unified.unwrap_or(false)
        };
        if split && self.batch > 1 && self.llamacpp_build.kv_streams_per_sequence() {
            self.batch
        } else {
            1
        }
    }
}

/// Every number of a llama.cpp run and no text: what [`Run::llamacpp`] adds to the parts, and
/// what [`Run::llamacpp_components`] writes the formulas of. Of several GPUs, the figures are the
/// busiest one's.
pub(super) struct LlamacppFigures {
    /// The model's blocks, those on the GPUs, and whether the output layer is there too.
    pub(super) layers: u64,
    pub(super) on_gpu: u64,
    pub(super) output_on_gpu: bool,
    /// GPUs the blocks are split over, the output layer's (from 0), each GPU's figures, the one
    /// that limits (from 0) and its blocks.
    pub(super) split: u64,
    pub(super) output_gpu: usize,
    pub(super) per_gpu: alloc::vec::Vec<GpuFigures>,
    pub(super) busiest: usize,
    pub(super) busiest_layers: u64,
    /// Weights on all the GPUs, and on the busiest.
    pub(super) gpu_weights: u64,
    pub(super) weights: u64,
    /// The busiest GPU's KV cache.
    pub(super) kv: LlamacppKv,
    /// A hybrid model's recurrent-state buffer on that GPU.
    pub(super) state: StateFigures,
    /// The busiest GPU's compute buffer: its stages, and the largest.
    pub(super) compute: LlamacppCompute,
    pub(super) compute_buffer: u64,
    /// The mmproj's buffers (`llamacpp_mmproj.rs`), with images.
    pub(super) mmproj: Option<super::llamacpp_mmproj::MmprojFigures>,
    /// Bytes kept in CPU memory: the weights and the KV cache of the blocks left there.
    pub(super) cpu: u64,
}

/// One GPU's share of a llama.cpp run: its blocks (and the output layer), weights, KV cache,
/// recurrent state and compute buffer, its CUDA context not counted.
#[derive(Clone, Copy)]
pub(super) struct GpuFigures {
    pub(super) layers: u64,
    pub(super) output: bool,
    pub(super) weights: u64,
    pub(super) kv: u64,
    pub(super) state: u64,
    pub(super) compute: u64,
    /// The mmproj's weights and CLIP's compute buffer (`--mmproj` with images), on the first
    /// GPU, CLIP's backend ("CLIP using CUDA0 backend"); 0 on the others.
    pub(super) mmproj: u64,
}

impl GpuFigures {
    /// Its buffers and the CUDA context: what the card holds.
    pub(super) fn used(&self) -> u64 {
        self.weights
            .saturating_add(self.kv)
            .saturating_add(self.state)
            .saturating_add(self.compute)
            .saturating_add(self.mmproj)
            .saturating_add(LLAMACPP_CONTEXT.get())
    }
}

/// The KV cache of some blocks.
#[derive(Clone, Copy)]
pub(super) struct LlamacppKv {
    /// Its bytes.
    pub(super) bytes: u64,
    /// The blocks it caches (0: no cache, none there or the model is not generative).
    pub(super) layers: u64,
    /// Values per token per layer (a sliding layer's where they differ).
    pub(super) per_layer: u64,
    /// Values per token of a full-attention layer: Gemma 4's at `global_head_dim`, otherwise
    /// `per_layer`.
    pub(super) full_per_layer: u64,
    /// Interleaved sliding-window layers among them, and the cells each caches (per stream).
    pub(super) swa_layers: u64,
    pub(super) swa_cells: u64,
    /// Its streams (one per sequence where llama.cpp splits the cache, else 1), and the cells
    /// of a full-attention layer in each (the context where there is one stream).
    pub(super) streams: u64,
    pub(super) ctx_cells: u64,
    /// The cache's type (f16 by default).
    pub(super) dtype: KvDtype,
}

/// The compute buffer's stages.
#[derive(Clone, Copy)]
pub(super) struct LlamacppCompute {
    /// Tokens per ubatch: min(ubatch, context).
    pub(super) ubatch: u64,
    /// The outputs the prompt graph is reserved for: the ubatch's tokens before llama.cpp
    /// PR #23861, one per sequence from it.
    pub(super) outputs: u64,
    /// A block's feed-forward.
    pub(super) ffn: u64,
    /// Attention without flash attention (0 with it).
    pub(super) attention: u64,
    /// The graph's inputs counted in both stages above (mask and token embeddings; 0 in the
    /// builds that reserve a ubatch of outputs, where the block stages never lead).
    pub(super) inputs: u64,
    /// A block's routed experts copied from CPU memory for a prompt batch (`--n-cpu-moe`).
    pub(super) expert_copy: u64,
    /// The largest CPU block's weights copied for a prompt batch (op offload), on the first
    /// GPU, in the builds that reserve one output per sequence (see `llamacpp_figures`).
    pub(super) block_copy: u64,
    /// The output's logits, on the GPU that holds the output layer (0 on the others).
    pub(super) logits: u64,
    /// The output matrix copied from CPU memory for a prompt batch (op offload), when the
    /// output layer stays there: on the first GPU, 0 on the others.
    pub(super) output_copy: u64,
    /// What ggml's allocator leaves below the output stage on the GPU that holds it (a plain
    /// decoder with flash attention and the micro-batch of logits; `llamacpp_alloc.rs`).
    pub(super) placed: u64,
}

/// Where the weights go: per GPU of the split its weights and blocks, and over all of them the
/// GPUs' and the CPU's bytes.
struct Placement {
    stage_w: alloc::vec::Vec<u64>,
    stage_layers: alloc::vec::Vec<u64>,
    /// The GPU the output layer goes to.
    output_gpu: usize,
    gpu: u64,
    cpu: u64,
    /// The output matrix's bytes as the file stores it.
    head: u64,
}

/// The ubatch's padding in the attention mask: `GGML_KQ_MASK_PAD`, 64 in the builds of 2024–2025
/// (`ggml/include/ggml.h`); later builds pad less, so 64 is the safe side.
const LLAMACPP_KQ_MASK_PAD: u64 = 64;

/// The smallest batch llama.cpp runs on the GPU with weights kept in CPU memory: op offload's
/// `GGML_OP_OFFLOAD_MIN_BATCH`, 32 unless set (`ggml/src/ggml-cuda/ggml-cuda.cu`,
/// `ggml_backend_cuda_device_offload_op`).
const LLAMACPP_OP_OFFLOAD_BATCH: u64 = 32;

/// llama.cpp's CUDA context and cuBLAS handles: about 300 MiB.
pub const LLAMACPP_CONTEXT: Bytes = Bytes::mib(300);
