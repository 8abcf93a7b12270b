//! Ollama's layer decision (`llm/memory.go` `estimateGPULayers`, read at ollama/ollama v0.12.5,
//! commit 3d32249c749c6f77c1dc8a7cb55ae74fc2f4c08b): the GPUs with room for the graph, the
//! minimum and two layers; then each block from the last to the first (v0.7.0 and later) on the
//! next GPU with room, its weights and its own KV; then the output layer with any vision tower.

use super::super::Run;
use super::OLLAMA_MINIMUM_MEMORY;
use crate::model::Role;
use alloc::vec;
use alloc::vec::Vec;

/// Ollama's own estimate of a load and the layers it offloads (`estimateGPULayers`).
#[derive(Clone, Debug, PartialEq)]
pub(in crate::estimate) struct Plan {
    /// Layers on the GPUs, the output layer counting as one.
    pub(in crate::estimate) layers: u64,
    /// Layers on each GPU.
    pub(in crate::estimate) per_gpu: Vec<u64>,
    /// Ollama's estimate on each GPU.
    pub(in crate::estimate) allocations: Vec<u64>,
    /// `memory.required.partial`: what the GPUs hold.
    pub(in crate::estimate) vram: u64,
    /// `memory.required.full`: the whole model loaded.
    pub(in crate::estimate) total: u64,
    /// `memory.required.kv`.
    pub(in crate::estimate) kv: u64,
    /// The graph it counted (full or partial offload).
    pub(in crate::estimate) graph: u64,
    /// `memory.graph.partial` and `memory.graph.full` as logged.
    pub(in crate::estimate) graph_partial: u64,
    pub(in crate::estimate) graph_full: u64,
    /// One block and its KV (`blk.0`), the layer held as buffer.
    pub(in crate::estimate) layer: u64,
    /// `memory.weights.repeating`: the blocks' weights.
    pub(in crate::estimate) repeating: u64,
    /// The output layer (`output_norm` and `output`, or `token_embd` when tied).
    pub(in crate::estimate) output: u64,
    /// `projector.weights` and `projector.graph`: a vision tower counted with the output layer.
    pub(in crate::estimate) projector: (u64, u64),
}

impl Run<'_> {
    /// Each block's weights as Ollama sizes them (`blk.N`), and the output layer.
    fn ollama_blocks(&self) -> (Vec<u64>, u64) {
        let a = &self.arch;
        // A bare parameter count: the blocks of the shape assumed for its cache, each an equal
        // share of the weights, and no output layer of its own.
        let blocks = self.cache_arch().num_layers as usize;
        if !a.is_detailed() {
            let all = self.opaque_weights();
            return (vec![all.div_ceil(blocks.max(1) as u64); blocks], 0);
        }
        let mut block = vec![0u64; blocks];
        let (mut output, mut embedding) = (0u64, 0u64);
        for t in a.tensors() {
            let bytes = self.gguf_tensor_bytes(&t);
            match t.layer {
                Some(l) if (l as usize) < blocks => {
                    block[l as usize] = block[l as usize].saturating_add(bytes)
                }
                Some(_) => {}
                None if t.role == Role::LmHead || t.role == Role::Vector => {
                    output = output.saturating_add(bytes)
                }
                None if t.role == Role::Embedding => embedding = embedding.saturating_add(bytes),
                None => {}
            }
        }
        // `output`, or `token_embd` when the model has none (tied embeddings).
        if a.tied_embeddings {
            output = output.saturating_add(embedding);
        }
        (block, output)
    }

    /// Ollama's decision for `num_ctx` tokens a sequence over `parallel` sequences on GPUs of
    /// `free` bytes each (`OLLAMA_GPU_OVERHEAD` 0, no projector file beside the model).
    pub(in crate::estimate) fn ollama_plan(
        &self,
        num_ctx: u64,
        parallel: u64,
        free: &[u64],
    ) -> Plan {
        let (block, output) = self.ollama_blocks();
        let blocks = block.len();
        let bare = self.cache_assumed();
        let (kv, kv_default) = self.ollama_kv_layers(num_ctx, parallel);
        let kv_of = |i: usize| kv.get(i).copied().unwrap_or(0);
        let kv_total = kv.iter().fold(0u64, |x, y| x.saturating_add(*y));
        let (mut partial, mut full) = self.ollama_graph(num_ctx, parallel, kv_default);
        if partial == 0 {
            // `GQA × KV / 6` over the per-layer KV's total.
            let a = self.cache_arch();
            partial = a.num_heads / a.num_kv_heads.max(1) * kv_total / 6;
        }
        if full == 0 {
            full = partial;
        }
        let (logged_partial, logged_full) = (partial, full);
        if free.len() > 1 {
            full = partial;
        }
        let graph_max = partial.max(full);
        let min = OLLAMA_MINIMUM_MEMORY.get();
        let first = block.first().copied().unwrap_or(0).saturating_add(kv_of(0));
        let mut alloc = vec![0u64; free.len()];
        let mut counts = vec![0u64; free.len()];
        let mut with_space: Vec<usize> = Vec::new();
        for (i, &f) in free.iter().enumerate() {
            if f >= graph_max
                .saturating_add(min)
                .saturating_add(first.saturating_mul(2))
            {
                with_space.push(i);
                alloc[i] = min.saturating_add(first);
            }
        }
        // A bare count's num_gpu is 0 or 1 (its one block as llama.cpp runs it): none, or all.
        let limit = match self.num_gpu {
            Some(n) if bare && n > 0 => Some(blocks as u64),
            n => n,
        };
        let mut count = 0u64;
        let mut overflow = 0u64;
        for i in (0..blocks).rev() {
            let layer = block[i].saturating_add(kv_of(i));
            if limit.is_some_and(|n| count >= n) {
                overflow = overflow.saturating_add(layer);
                continue;
            }
            let mut j = with_space.len();
            while j > 0 {
                let g = with_space[i % j];
                let used = alloc[g].saturating_add(graph_max);
                if free[g] > used.saturating_add(layer) {
                    alloc[g] = alloc[g].saturating_add(layer);
                    counts[g] += 1;
                    count += 1;
                    break;
                }
                with_space.remove(i % j);
                j -= 1;
            }
            if with_space.is_empty() {
                overflow = overflow.saturating_add(layer);
            }
        }
        let mut fully = count >= blocks as u64;
        let projector = self.ollama_projector();
        let last = output
            .saturating_add(projector.0)
            .saturating_add(projector.1);
        if last > 0 {
            if limit.is_none_or(|n| count < n) {
                let mut j = with_space.len();
                while j > 0 {
                    let g = with_space[count as usize % j];
                    let used = alloc[g].saturating_add(graph_max);
                    if free[g] > used.saturating_add(last) {
                        alloc[g] = alloc[g].saturating_add(last);
                        counts[g] += 1;
                        count += 1;
                        break;
                    }
                    j -= 1;
                }
            }
            if count < blocks as u64 + 1 {
                fully = false;
                overflow = overflow.saturating_add(last);
            }
        }
        let graph = if fully { full } else { partial };
        for (g, n) in counts.iter().enumerate() {
            if *n > 0 {
                alloc[g] = alloc[g].saturating_add(graph);
            }
        }
        let placed: u64 = alloc.iter().fold(0, |x, y| x.saturating_add(*y));
        Plan {
            layers: count,
            per_gpu: counts,
            allocations: alloc,
            vram: if count == 0 { 0 } else { placed },
            total: placed.saturating_add(overflow),
            kv: kv_total,
            graph,
            graph_partial: logged_partial,
            graph_full: logged_full,
            layer: first,
            repeating: block.iter().fold(0, |x, y| x.saturating_add(*y)),
            output,
            projector,
        }
    }
}
