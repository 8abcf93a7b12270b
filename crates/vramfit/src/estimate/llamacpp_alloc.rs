//! ggml's graph allocator replayed over llama.cpp's prompt graph of a plain decoder with flash
//! attention, for where it places the output.
//!
//! The compute buffer is the allocator's high-water mark over the worst-case prompt graph, not
//! the largest set of live tensors: `ggml_dyn_tallocr_alloc` (`ggml/src/ggml-alloc.c`) puts a
//! tensor in the smallest free hole that holds it and, where none does, at the start of the last
//! free block, growing the buffer. The logits (`ubatch × n_vocab × 4 B`, a graph output) fit no
//! hole, so they go above the final norm's output, which ADD, RMS_NORM and MUL (`ggml_op_can_
//! inplace`) keep in the memory of the last block's down projection; where that projection was
//! placed depends on the holes the whole graph left. vramfit's output stage, `ubatch × (n_vocab
//! + hidden) × 4 B`, assumed it at offset 0; the replay finds the offset.
//!
//! The graph is `llm_build_llama`/`llm_build_qwen2` as llama.cpp builds it with flash attention
//! (`src/models/qwen2.cpp`, `build_attn`, `build_attn_mha`, `build_ffn` in `src/llama-graph.cpp`;
//! read in the copy vendored by llama-cpp-python 0.3.20, April 2026): the inputs a CUDA split
//! copies from the host at its start (token embeddings, positions, K and V row ids, the f32 mask,
//! the output ids), then per block the norm, Q (with RoPE), V, K (with RoPE) written to the
//! cache, the mask cast to f16 once, flash attention, the output projection, the last block's
//! rows gathered by the output ids, the residual, the norm, gate, up, SwiGLU, down and the
//! residual; then the final norm and the logits. Replayed, it gives the five published loads of
//! such models in `tests/data/llamacpp-buffers.csv` to the 0.01 MiB: Qwen2.5-7B at `-c 32768`
//! 382.01 MiB (the output stage alone is 304.00), Qwen2.5-14B 307.00, Mistral Nemo at `-c 8192`
//! 266.00 (its last down projection placed at offset 0) and at `-c 4096` 304.01 (placed 38.01
//! MiB up, the logits from 48.01 MiB), Qwen3-4B 301.75 (`llamacpp_alloc_tests.rs`).

use alloc::vec::Vec;

/// The buffer's alignment: the CUDA backend's 128 B (`ggml_backend_cuda_buffer_type_get_alignment`).
const ALIGN: u64 = 128;

/// What the allocator needs of an op: whether it may run in place (`ggml_op_can_inplace`: ADD,
/// MUL, RMS_NORM, ROPE among them) and whether it is a view of another tensor.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// A new tensor (matrix products, GET_ROWS, CPY, GLU, FLASH_ATTN_EXT, a copied input).
    New,
    /// An op that reuses its first parent's memory when that parent has no other use.
    InPlace,
    /// A view (reshape, permute) of the node named.
    View(usize),
    /// A write into the KV cache: its output is a view of the cache, outside the buffer.
    External,
}

/// One node: its bytes, its op, its parents within the graph (weights and the cache are
/// outside the buffer and not listed), and whether it is a graph output (never freed).
struct Node {
    bytes: u64,
    op: Op,
    srcs: Vec<usize>,
    output: bool,
}

/// The shape a plain decoder's prompt graph takes: hidden size, query and K/V widths (heads ×
/// head size), the feed-forward's width, the vocabulary, the blocks, the ubatch's tokens and the
/// cache cells the mask spans.
#[derive(Clone, Copy)]
pub(super) struct DenseGraph {
    pub(super) hidden: u64,
    pub(super) q_width: u64,
    pub(super) kv_width: u64,
    pub(super) ffn: u64,
    pub(super) vocab: u64,
    pub(super) layers: u64,
    pub(super) ubatch: u64,
    pub(super) cells: u64,
}

/// The ubatch's padding in the mask (`GGML_KQ_MASK_PAD`, 64 in these builds; a ubatch of 64 or
/// more tokens is padded the same by any smaller pad that divides it).
const MASK_PAD: u64 = 64;

impl DenseGraph {
    /// The nodes in the order `ggml_build_forward_expand` lays them.
    fn nodes(&self) -> Vec<Node> {
        let (e, t) = (self.hidden, self.ubatch);
        let f32s = |width: u64| width.saturating_mul(t).saturating_mul(4);
        let mut g: Vec<Node> = Vec::new();
        let add = |g: &mut Vec<Node>, bytes: u64, op: Op, srcs: &[usize]| {
            g.push(Node {
                bytes,
                op,
                srcs: srcs.to_vec(),
                output: false,
            });
            g.len() - 1
        };
        // The inputs copied from the host at the split's start.
        let embd = add(&mut g, f32s(e), Op::New, &[]);
        let pos = add(&mut g, t.saturating_mul(4), Op::New, &[]);
        let k_idx = add(&mut g, t.saturating_mul(8), Op::New, &[]);
        let v_idx = add(&mut g, t.saturating_mul(8), Op::New, &[]);
        let mask_rows = t.next_multiple_of(MASK_PAD);
        let mask_cells = self.cells.saturating_mul(mask_rows);
        let mask = add(&mut g, mask_cells.saturating_mul(4), Op::New, &[]);
        let out_ids = add(&mut g, t.saturating_mul(4), Op::New, &[]);
        let mut mask_f16 = None;
        let mut inp = embd;
        for il in 0..self.layers {
            let n = add(&mut g, f32s(e), Op::New, &[inp]);
            let n = add(&mut g, f32s(e), Op::InPlace, &[n]);
            let q = add(&mut g, f32s(self.q_width), Op::New, &[n]);
            let q = add(&mut g, 0, Op::View(q), &[q]);
            let q = add(&mut g, f32s(self.q_width), Op::InPlace, &[q, pos]);
            let v_mm = add(&mut g, f32s(self.kv_width), Op::New, &[n]);
            let v = add(&mut g, 0, Op::View(v_mm), &[v_mm]);
            let k = add(&mut g, f32s(self.kv_width), Op::New, &[n]);
            let k = add(&mut g, 0, Op::View(k), &[k]);
            let k = add(&mut g, f32s(self.kv_width), Op::InPlace, &[k, pos]);
            let k2 = add(&mut g, 0, Op::View(k), &[k]);
            add(&mut g, 0, Op::External, &[k2, k_idx]);
            let v2 = add(&mut g, 0, Op::View(v_mm), &[v]);
            add(&mut g, 0, Op::External, &[v2, v_idx]);
            let q4 = add(&mut g, 0, Op::View(q), &[q]);
            let qp = add(&mut g, 0, Op::View(q), &[q4]);
            let m = *mask_f16
                .get_or_insert_with(|| add(&mut g, mask_cells.saturating_mul(2), Op::New, &[mask]));
            let fa = add(&mut g, f32s(self.q_width), Op::New, &[qp, m]);
            let fa = add(&mut g, 0, Op::View(fa), &[fa]);
            let mut cur = add(&mut g, f32s(e), Op::New, &[fa]);
            let mut residual = inp;
            if il + 1 == self.layers {
                cur = add(&mut g, f32s(e), Op::New, &[cur, out_ids]);
                residual = add(&mut g, f32s(e), Op::New, &[residual, out_ids]);
            }
            let ffn_inp = add(&mut g, f32s(e), Op::InPlace, &[cur, residual]);
            let n = add(&mut g, f32s(e), Op::New, &[ffn_inp]);
            let n = add(&mut g, f32s(e), Op::InPlace, &[n]);
            let gate = add(&mut g, f32s(self.ffn), Op::New, &[n]);
            let up = add(&mut g, f32s(self.ffn), Op::New, &[n]);
            let act = add(&mut g, f32s(self.ffn), Op::New, &[gate, up]);
            let down = add(&mut g, f32s(e), Op::New, &[act]);
            inp = add(&mut g, f32s(e), Op::InPlace, &[down, ffn_inp]);
        }
        let n = add(&mut g, f32s(e), Op::InPlace, &[inp]);
        let norm = add(&mut g, f32s(e), Op::InPlace, &[n]);
        g[norm].output = true;
        let logits = add(&mut g, f32s(self.vocab), Op::New, &[norm]);
        g[logits].output = true;
        g
    }

    /// The buffer the allocator reserves for the graph: its high-water mark.
    pub(super) fn buffer(&self) -> u64 {
        replay(&self.nodes())
    }
}

impl super::Run<'_> {
    /// What ggml's allocator leaves below the output stage of the prompt graph, found by
    /// replaying it (`llamacpp_alloc.rs`): for a plain decoder (RMS norms, a gated feed-forward,
    /// no experts, recurrent state, latent or windowed attention) with flash attention, in the
    /// builds that reserve a micro-batch of logits, where five published loads hold it to the
    /// 0.01 MiB; 0 elsewhere. The output stage is counted from offset 0 otherwise, which the
    /// replay never undercuts (the larger of the two is taken).
    pub(super) fn llamacpp_placed(&self, ub: u64, ctx: u64, per_sequence: bool) -> u64 {
        let a = &self.arch;
        let plain = a.is_detailed()
            && a.is_generative()
            && a.gated_ffn
            && a.norm == crate::model::Norm::Rms
            && a.moe.is_none()
            && a.hybrid.is_none()
            && a.mla.is_none()
            && a.indexer.is_none()
            && a.layer_shapes.is_none()
            && a.compressed.is_none()
            && (a.sliding_window == 0
                || a.sliding_layers == 0
                || a.sliding_layers >= a.attention_layers())
            && a.hyper_connections == 0
            && !a.gated_attention
            && !a.bidirectional
            && a.encoder_layers == 0;
        if !plain
            || self.kernel != super::Kernel::Flash
            || per_sequence
            || self.pooling
            || self.cache_assumed()
        {
            return 0;
        }
        let graph = DenseGraph {
            hidden: a.hidden_size,
            q_width: a.num_heads * a.head_dim,
            kv_width: a.num_kv_heads * a.head_dim,
            ffn: super::activations::token_ffn_width(a),
            vocab: a.vocab_size,
            layers: a.num_layers.max(1),
            ubatch: ub,
            cells: self.llamacpp_kv(ctx, a.num_layers.max(1)).ctx_cells,
        };
        let output = ub * self.llamacpp_output_width() * 4;
        graph.buffer().saturating_sub(output)
    }
}

/// Free blocks by offset, the last one open-ended; the high-water mark.
struct Arena {
    free: Vec<(u64, u64)>,
    max: u64,
}

impl Arena {
    /// `ggml_dyn_tallocr_alloc`: the smallest free block that holds `size` but the last, else
    /// the last.
    fn alloc(&mut self, size: u64) -> u64 {
        let size = size.saturating_add(ALIGN - 1) / ALIGN * ALIGN;
        let inner = self.free.len() - 1;
        let best = (0..inner)
            .filter(|&i| self.free[i].1 >= size)
            .min_by_key(|&i| (self.free[i].1, core::cmp::Reverse(i)))
            .unwrap_or(inner);
        // The last block is open-ended (ggml's holds the largest size a buffer may have): a
        // size past it saturates, never wraps.
        let at = self.free[best].0;
        self.free[best].0 = at.saturating_add(size);
        self.free[best].1 = self.free[best].1.saturating_sub(size);
        if self.free[best].1 == 0 && best < inner {
            self.free.remove(best);
        }
        self.max = self.max.max(at.saturating_add(size));
        at
    }

    /// `ggml_dyn_tallocr_free_bytes`: merged with a neighbouring block, or a block of its own.
    fn release(&mut self, at: u64, size: u64) {
        let size = size.saturating_add(ALIGN - 1) / ALIGN * ALIGN;
        for i in 0..self.free.len() {
            let (o, s) = self.free[i];
            if o.saturating_add(s) == at {
                self.free[i].1 = s.saturating_add(size);
                if i + 1 < self.free.len() && o.saturating_add(self.free[i].1) == self.free[i + 1].0
                {
                    self.free[i].1 = self.free[i].1.saturating_add(self.free[i + 1].1);
                    self.free.remove(i + 1);
                }
                return;
            }
            if at.saturating_add(size) == o {
                self.free[i] = (at, s.saturating_add(size));
                if i > 0 && self.free[i - 1].0.saturating_add(self.free[i - 1].1) == at {
                    self.free[i - 1].1 = self.free[i - 1].1.saturating_add(self.free[i].1);
                    self.free.remove(i);
                }
                return;
            }
        }
        let i = self.free.partition_point(|b| b.0 < at);
        self.free.insert(i, (at, size));
    }
}

/// `ggml_gallocr_alloc_graph_impl` over the nodes: each allocated in order (in place in its
/// first parent where that parent has no other use), each parent freed after its last use.
fn replay(nodes: &[Node]) -> u64 {
    let mut children = alloc::vec![0u32; nodes.len()];
    let mut views = alloc::vec![0u32; nodes.len()];
    for n in nodes {
        if let Op::View(of) = n.op {
            views[of] += 1;
        }
        for &s in &n.srcs {
            children[s] += 1;
        }
    }
    let mut arena = Arena {
        free: alloc::vec![(0, u64::MAX / 2)],
        max: 0,
    };
    // Each node's offset while it holds memory of its own.
    let mut at: Vec<Option<u64>> = alloc::vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        match n.op {
            Op::View(_) | Op::External => {}
            Op::InPlace => {
                // A view is never reused: the allocator does not own it (`ggml_gallocr_is_own`
                // is false for a view, so RoPE on a reshaped Q or K takes new memory).
                let p = n.srcs[0];
                let reuse = Some(p).filter(|&o| {
                    matches!(nodes[o].op, Op::New | Op::InPlace)
                        && children[o] == 1
                        && views[o] == 0
                        && !nodes[o].output
                        && nodes[o].bytes == n.bytes
                        && at[o].is_some()
                });
                at[i] = match reuse {
                    Some(o) => at[o].take(),
                    None => Some(arena.alloc(n.bytes)),
                };
            }
            Op::New => at[i] = Some(arena.alloc(n.bytes)),
        }
        for &p in &n.srcs {
            children[p] -= 1;
            if children[p] > 0 || views[p] > 0 {
                continue;
            }
            let freed = match nodes[p].op {
                Op::View(of) => {
                    views[of] -= 1;
                    (views[of] == 0 && children[of] == 0).then_some(of)
                }
                _ => Some(p),
            };
            if let Some(f) = freed.filter(|&f| !nodes[f].output)
                && let Some(o) = at[f].take()
            {
                arena.release(o, nodes[f].bytes);
            }
        }
    }
    arena.max
}
