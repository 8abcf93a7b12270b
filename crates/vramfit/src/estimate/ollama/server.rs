//! Ollama 0.30 and later (`version.rs`): upstream `llama-server` with the settings Ollama gives
//! it, sized as that llama.cpp build sizes a load. Ollama's own choices here are three: of
//! several GPUs, the one that holds its prediction alone (`selectLlamaServerPlacement`); its
//! automatic batch (`server/sched.go` `automaticGenerationBatch`, passed as `-b N -ub N`) and,
//! where `num_gpu` is set, `-ngl`; otherwise `llama-server`'s fit places the layers
//! (`llama_params_fit`: the layers that leave at least 1024 MiB free on each GPU, the default
//! `--fit-target`), and Ollama reads its printed buffers back (`memoryParsingWriter`).

use super::super::{OllamaLoad, Parts, Phase, Run, b, thousands};
use super::OLLAMA_BATCH;
use super::retry::next_lower_auto_num_ctx;
use crate::estimate::Kernel;
use crate::estimate::llamacpp::LLAMACPP_CONTEXT;
use crate::units::{Bytes, GIB, MIB};

/// `llama-server`'s default `--fit-target`: the memory its fit leaves free on each GPU
/// (`llama_params_fit_impl: will leave … >= 1024 MiB of free device memory`).
const FIT_TARGET: u64 = 1024 * MIB;

/// Ollama's batch for a generation model (`server/sched.go`, 0.30.0 to 0.32.15): 512, 1024
/// above 4,096 tokens of context, 2048 above 32,768, each only while its estimate stays under a
/// share of the free memory; 256 without flash attention on CUDA cards of 8 GiB or less above
/// 4,096 tokens.
const BATCH_MEDIUM: u64 = 1024;
const BATCH_LARGE: u64 = 2048;
const BATCH_CONSTRAINED: u64 = 256;

/// Ollama's automatic batch (`automaticGenerationBatch`): by the context llama-server gets
/// (`num_ctx × parallel`), lowered while Ollama's estimate (`predicted`: the file and an f16 KV
/// cache, `PredictServerVRAM`) is above 80 % of the free memory, or above 60 % (2048) or 75 %
/// (1024); without a free figure (no card) by the context alone (`generationBatchFits`).
pub(super) fn automatic_batch(
    context: u64,
    predicted: u64,
    free: u64,
    flash: bool,
    small: bool,
) -> u64 {
    if !flash {
        return if small && context > 4096 {
            BATCH_CONSTRAINED
        } else {
            OLLAMA_BATCH
        };
    }
    let fits = |batch: u64| {
        if predicted == 0 || free == 0 {
            return true;
        }
        let share = |percent: u64| free.saturating_mul(percent) / 100;
        predicted <= share(80)
            && match batch {
                BATCH_LARGE => predicted <= share(60),
                BATCH_MEDIUM => predicted <= share(75),
                _ => true,
            }
    };
    let mut batch = if context > 32_768 {
        BATCH_LARGE
    } else if context > 4096 {
        BATCH_MEDIUM
    } else {
        OLLAMA_BATCH
    };
    while batch > OLLAMA_BATCH && !fits(batch) {
        batch = if batch > BATCH_MEDIUM {
            BATCH_MEDIUM
        } else {
            OLLAMA_BATCH
        };
    }
    batch
}

/// One `llama-server` load as Ollama starts it: the GPUs, the batch and the layers.
struct ServerLoad {
    /// `num_ctx` of this load (one sequence's).
    num_ctx: u64,
    /// Ollama's prediction (`PredictServerVRAM`).
    predicted: u64,
    /// The one GPU of several Ollama chose, if any.
    single: Option<super::super::Device>,
    /// Its batch (`-b`, `-ub`).
    batch: u64,
    /// llama.cpp's layers: the blocks and the output.
    all: u64,
    /// The run with Ollama's settings, its layers not yet placed.
    base: super::super::Workload,
    /// The layers on the GPUs (`num_gpu`, else the fit's).
    layers: u64,
}

impl Run<'_> {
    /// Ollama's `llama-server` run: the context, its batch, flash attention (`auto`, on unless
    /// asked off), and the layers `num_gpu` gives or the fit leaves. A load that fails out of
    /// memory at Ollama's automatic `num_ctx` is retried once at a lower one
    /// ([`next_lower_auto_num_ctx`]); a `num_ctx` the user set is not lowered.
    pub(super) fn ollama_server(
        &self,
        p: &mut Parts,
        num_ctx: u64,
        parallel: u64,
    ) -> (Phase, u64, u64) {
        let mut load = self.ollama_server_load(num_ctx, parallel);
        if self.ollama_load_fails(&load) {
            let lower = next_lower_auto_num_ctx(num_ctx).filter(|_| self.auto_context);
            if let Some(lower) = lower {
                let retry = self.ollama_server_load(lower, parallel);
                let fails = self.ollama_load_fails(&retry);
                if self.text {
                    self.ollama_retry_note(p, num_ctx, lower, fails);
                }
                load = retry;
            } else if self.text {
                self.ollama_no_retry_note(p, num_ctx);
            }
        }
        self.ollama_server_emit(p, load, parallel)
    }

    /// Ollama's settings for a load at `num_ctx`: the GPUs (of several, the one that holds its
    /// prediction alone, its batch then sized by that GPU's free memory:
    /// `availableMemoryForPlacement` of the GPUs chosen), the batch, and the layers.
    fn ollama_server_load(&self, num_ctx: u64, parallel: u64) -> ServerLoad {
        let context = num_ctx.saturating_mul(parallel);
        let flash = self.kernel == Kernel::Flash;
        let predicted = self.ollama_predicted(context);
        let single = self.ollama_single_gpu(predicted);
        let gpus = if single.is_some() {
            1
        } else {
            (self.dp * self.pp).max(1)
        };
        // An embedding model's -b = -ub = min(2048, num_ctx) (`llm/llama_server.go`, v0.33.0);
        // a user's batch other than Ollama's default 512 is its `num_batch` (not automatic).
        let batch = if self.pooling {
            super::ollama_embedding_batch(context)
        } else if self.ubatch == OLLAMA_BATCH {
            // `constrainedCUDAWithoutFlashAttention`: a card with 8 GiB or less free.
            let small = self
                .device
                .as_ref()
                .is_some_and(|d| d.free().get() <= 8 * GIB);
            let free = single
                .as_ref()
                .map_or_else(|| self.ollama_free(), |d| d.free().get());
            automatic_batch(context, predicted, free, flash, small)
        } else {
            self.ubatch
        };
        // Layers as llama.cpp counts them: the blocks and the output, or a bare count's
        // assumed blocks (one block on the GPU with any -ngl, `llamacpp_figures`).
        let all = if self.cache_assumed() {
            self.cache_arch().num_layers
        } else {
            self.arch.num_layers + 1
        };
        let mut base = super::super::Workload {
            max_model_len: context,
            dp: gpus,
            pp: 1,
            ubatch: batch.min(context.max(1)),
            ..self.w.clone()
        };
        // The chosen card alone (of alike ones, one of them: `dp` 1 above).
        if let Some(d) = single.as_ref().filter(|_| !self.cards.is_empty()) {
            base.cards = alloc::vec![d.clone()];
            base.device = Some(d.clone());
            base.tensor_split = alloc::vec::Vec::new();
        }
        let layers = match self.num_gpu {
            Some(n) if self.cache_assumed() && n > 0 => all,
            Some(n) => n.min(all),
            None => self.ollama_fit(&base, all),
        };
        ServerLoad {
            num_ctx,
            predicted,
            single,
            batch,
            all,
            base,
            layers,
        }
    }

    /// Whether llama-server's load runs out of GPU memory: a GPU's buffers and CUDA context at
    /// the layers placed above its free memory (`num_gpu` more layers than fit, which the fit
    /// does not change: "n_gpu_layers already set by user", or a fit that leaves none). Never
    /// without a card.
    fn ollama_load_fails(&self, load: &ServerLoad) -> bool {
        let base = &load.base;
        let free = |g: usize| match base.cards.get(g) {
            Some(d) => Some(d.free().get()),
            None => base.device.as_ref().map(|d| d.free().get()),
        };
        if free(0).is_none() {
            return false;
        }
        let w = super::super::Workload {
            gpu_layers: load.layers,
            ..base.clone()
        };
        let f = Run::new(&w, false).llamacpp_figures();
        f.per_gpu
            .iter()
            .enumerate()
            .any(|(g, x)| free(g).is_some_and(|m| x.used() > m))
    }

    /// The estimate of one load: llama.cpp's buffers, what Ollama reads back, its notes.
    fn ollama_server_emit(
        &self,
        p: &mut Parts,
        load: ServerLoad,
        parallel: u64,
    ) -> (Phase, u64, u64) {
        let ServerLoad {
            num_ctx,
            predicted,
            single,
            batch,
            all,
            base,
            layers,
        } = load;
        let context = num_ctx.saturating_mul(parallel);
        p.theory = Some(self.ollama_server_theory(&base, all));
        let run = super::super::Workload {
            gpu_layers: layers,
            ..base
        };
        let out = Run::new(&run, self.text).llamacpp(p);
        let figures = Run::new(&run, false).llamacpp_figures();
        // What Ollama reads back: the GPU buffers llama-server prints (not the CUDA context,
        // which it does not print), and every layer on the GPU reads as 100% GPU
        // (`llamaServerRunner.MemorySize`).
        let vram = figures.per_gpu.iter().fold(0u64, |s, g| {
            s.saturating_add(g.used().saturating_sub(LLAMACPP_CONTEXT.get()))
        });
        let kv = figures
            .per_gpu
            .iter()
            .fold(0u64, |s, g| s.saturating_add(g.kv).saturating_add(g.state));
        let graph = figures
            .per_gpu
            .iter()
            .fold(0u64, |s, g| s.saturating_add(g.compute));
        let total = if layers >= all {
            vram
        } else {
            vram.saturating_add(figures.cpu)
        };
        let cpu_percent = if total == 0 || total == vram {
            0
        } else {
            libm::round((total - vram) as f64 / total as f64 * 100.0) as u8
        };
        if self.text {
            self.ollama_server_note(p, num_ctx, parallel, batch, layers, all, cpu_percent);
            self.ollama_system_memory_note(p, total - vram, true);
            if let Some(d) = &single {
                self.ollama_single_gpu_note(p, d, predicted);
            }
        }
        p.ollama = Some(OllamaLoad {
            gpu_layers: layers,
            requested_layers: self.num_gpu.unwrap_or(all),
            model_layers: all,
            vram_bytes: Bytes::new(vram),
            total_bytes: Bytes::new(total),
            cpu_percent,
            kv_bytes: Bytes::new(kv),
            graph_bytes: Bytes::new(graph),
            context,
            loaded_on: single.as_ref().map(|d| alloc::string::String::from(d.id)),
        });
        out
    }

    /// What the GPUs must have free for every layer asked for (`num_gpu`, else all of them) to
    /// go there: each GPU's buffers and CUDA context with them all placed, and without
    /// `num_gpu` the fit's [`FIT_TARGET`] on each, which it keeps free (`M_theory`).
    fn ollama_server_theory(&self, base: &super::super::Workload, all: u64) -> u64 {
        let (wanted, target) = match self.num_gpu {
            Some(n) if self.cache_assumed() && n > 0 => (all, 0),
            Some(n) => (n.min(all), 0),
            None => (all, FIT_TARGET),
        };
        let w = super::super::Workload {
            gpu_layers: wanted,
            ..base.clone()
        };
        let f = Run::new(&w, false).llamacpp_figures();
        f.per_gpu.iter().fold(0u64, |s, g| {
            s.saturating_add(g.used()).saturating_add(target)
        })
    }

    /// `PredictServerVRAM`: the GGUF file's size and an f16 KV cache of `2 × layers × KV heads
    /// × (hidden / heads) × context × 2 B`, the estimate Ollama's batch choice compares with the
    /// free memory.
    fn ollama_predicted(&self, context: u64) -> u64 {
        let a = &self.arch;
        let file = if a.is_detailed() {
            a.tensors()
                .iter()
                .fold(0u64, |s, t| s.saturating_add(self.gguf_tensor_bytes(t)))
        } else {
            self.opaque_weights()
        };
        let head = a.hidden_size / a.num_heads.max(1);
        let kv = 4u64
            .saturating_mul(a.num_layers)
            .saturating_mul(a.num_kv_heads.max(1))
            .saturating_mul(head)
            .saturating_mul(context);
        file.saturating_add(kv)
    }

    /// The free memory of the GPUs Ollama places the model on (their sum), 0 without a card.
    fn ollama_free(&self) -> u64 {
        if self.cards.is_empty() {
            let n = (self.dp * self.pp).max(1);
            self.device
                .as_ref()
                .map_or(0, |d| d.free().get().saturating_mul(n))
        } else {
            self.cards
                .iter()
                .fold(0u64, |s, d| s.saturating_add(d.free().get()))
        }
    }

    /// Ollama's GPU of several for a model that fits one (0.30 on: `server/sched.go`
    /// `selectLlamaServerPlacement` → `bestSingleGPUFit`, ollama/ollama fb3076099): the GPU with
    /// the most free memory (`availableMemoryForGPU`, a discrete card's `FreeMemory`; the first
    /// of equals) among those whose free memory's 80 % holds its prediction
    /// (`PredictServerVRAM`), handed to llama-server alone with `--main-gpu 0`. `None` with one
    /// GPU, `num_gpu` 0, or where no GPU holds it: llama-server then gets every GPU.
    /// (`OLLAMA_SCHED_SPREAD` and Ollama's own `main_gpu`, which skip this, are not inputs.)
    fn ollama_single_gpu(&self, predicted: u64) -> Option<super::super::Device> {
        if self.num_gpu == Some(0) || predicted == 0 {
            return None;
        }
        let alike = (self.dp * self.pp).max(1);
        let cards: alloc::vec::Vec<super::super::Device> = if self.cards.is_empty() {
            match &self.device {
                Some(d) if alike > 1 => alloc::vec![d.clone()],
                _ => return None,
            }
        } else if self.cards.len() > 1 {
            self.cards.clone()
        } else {
            return None;
        };
        let mut best: Option<super::super::Device> = None;
        for d in cards {
            let free = d.free().get();
            if predicted > free.saturating_mul(80) / 100 {
                continue;
            }
            if best.as_ref().is_none_or(|b| free > b.free().get()) {
                best = Some(d);
            }
        }
        best
    }

    /// The note of the one GPU Ollama chose.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    fn ollama_single_gpu_note(&self, p: &mut Parts, d: &super::super::Device, predicted: u64) {
        let asked = if self.cards.is_empty() {
            (self.dp * self.pp).max(1) as usize
        } else {
            self.cards.len()
        };
        let (card, predicted, free) = (d.id, b(predicted), b(d.free().get()));
        p.note(
            "ollama_gpus",
            en!(
                "Ollama loads it on one GPU ({card}) of the {asked}: its prediction, {predicted} (the file and an f16 KV cache, PredictServerVRAM), is within 80 % of that GPU's {free} free, the most of the GPUs it fits (server/sched.go selectLlamaServerPlacement, bestSingleGPUFit), and llama-server gets that GPU alone with --main-gpu 0; OLLAMA_SCHED_SPREAD=1 gives it every GPU."
            ),
            zh!(
                "Ollama 只把它加载到 {asked} 块 GPU 中的一块（{card}）：其预估 {predicted}（文件加 f16 KV 缓存，PredictServerVRAM）不超过该 GPU 空闲显存 {free} 的 80 %，且该 GPU 在能容纳它的 GPU 中空闲最多（server/sched.go selectLlamaServerPlacement、bestSingleGPUFit），llama-server 只拿到这一块 GPU，并带 --main-gpu 0；设置 OLLAMA_SCHED_SPREAD=1 则交给它全部 GPU。"
            ),
        );
    }

    /// `llama-server`'s fit (`-ngl` unset, `--fit on`): every layer where each GPU keeps
    /// [`FIT_TARGET`] free, else the most layers that do; every layer without a card.
    fn ollama_fit(&self, base: &super::super::Workload, all: u64) -> u64 {
        let free = |g: usize| match base.cards.get(g) {
            Some(d) => Some(d.free().get()),
            None => base.device.as_ref().map(|d| d.free().get()),
        };
        if free(0).is_none() {
            return all;
        }
        (0..=all)
            .rev()
            .find(|&n| {
                let w = super::super::Workload {
                    gpu_layers: n,
                    ..base.clone()
                };
                let f = Run::new(&w, false).llamacpp_figures();
                f.per_gpu
                    .iter()
                    .enumerate()
                    .all(|(g, x)| free(g).is_some_and(|m| x.used().saturating_add(FIT_TARGET) <= m))
            })
            .unwrap_or(0)
    }

    /// What Ollama runs and how it placed it.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    #[allow(clippy::too_many_arguments)]
    fn ollama_server_note(
        &self,
        p: &mut Parts,
        num_ctx: u64,
        parallel: u64,
        batch: u64,
        layers: u64,
        all: u64,
        cpu_percent: u8,
    ) {
        let build = self.llamacpp_build.text();
        let ctx = thousands(num_ctx.saturating_mul(parallel));
        let fa = if self.kernel == Kernel::Flash {
            "auto"
        } else {
            "off"
        };
        let split = match cpu_percent {
            0 => alloc::string::String::from("100% GPU"),
            100 => alloc::string::String::from("100% CPU"),
            c => alloc::format!("{c}%/{}% CPU/GPU", 100 - c),
        };
        // Each language's words only in its own build (the calculator is one language).
        let fit = b(FIT_TARGET);
        let (placed_en, placed_zh) = match self.num_gpu {
            Some(n) => (en!("-ngl {n} (num_gpu)"), zh!("-ngl {n}（num_gpu）")),
            None => (
                en!(
                    "no -ngl: llama-server's fit puts {layers} of {all} layers on the GPU, leaving at least {fit} free"
                ),
                zh!(
                    "不传 -ngl：llama-server 的 fit 把 {all} 层中的 {layers} 层放到 GPU，并至少留出 {fit} 空闲"
                ),
            ),
        };
        p.note(
            "ollama_server",
            en!(
                "Ollama 0.30 and later start llama-server (llama.cpp {build}, its LLAMA_CPP_VERSION): -c {ctx} -np {parallel} (num_ctx {num_ctx} × {parallel} parallel), -b {batch} -ub {batch} (its automatic batch: 1024 above 4,096 tokens and 2048 above 32,768 while its estimate leaves room), --flash-attn {fa}, {placed_en}; ollama ps shows {split}."
            ),
            zh!(
                "Ollama 0.30 及以后启动 llama-server（llama.cpp {build}，即其 LLAMA_CPP_VERSION）：-c {ctx} -np {parallel}（num_ctx {num_ctx} × 并行 {parallel}），-b {batch} -ub {batch}（其自动批大小：上下文超过 4,096 个 token 为 1024，超过 32,768 为 2048，前提是其估算仍有余量），--flash-attn {fa}，{placed_zh}；ollama ps 显示 {split}。"
            ),
        );
        if self.device.is_none() && self.cards.is_empty() {
            p.note(
                "ollama_no_device",
                alloc::string::String::from(en_str!("No GPU given: shown with every layer on the GPU; llama-server's fit places the layers by the card's free memory.")),
                alloc::string::String::from(zh_str!("未指定显卡：按全部层都在 GPU 上显示；llama-server 的 fit 按显卡的空闲显存放置各层。")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ollama's batch by hand, from `server/sched.go`: 4,096 tokens or fewer, 512; 8,192, 1024
    /// while the estimate is at most 75 % of the free memory; 65,536, 2048 at most 60 %, else
    /// 1024 at most 75 %, else 512 (at most 80 %, and above it still 512, the smallest).
    #[test]
    fn ollamas_batch_follows_the_context_and_the_room() {
        let free = 10 * GIB;
        assert_eq!(automatic_batch(4096, GIB, free, true, false), 512);
        assert_eq!(automatic_batch(8192, 7 * GIB, free, true, false), 1024);
        assert_eq!(automatic_batch(8192, 8 * GIB, free, true, false), 512);
        assert_eq!(automatic_batch(65_536, 6 * GIB, free, true, false), 2048);
        assert_eq!(automatic_batch(65_536, 7 * GIB, free, true, false), 1024);
        assert_eq!(automatic_batch(65_536, 9 * GIB, free, true, false), 512);
        // No card: by the context alone.
        assert_eq!(automatic_batch(65_536, 9 * GIB, 0, true, false), 2048);
        // Flash attention off: 512, or 256 above 4,096 tokens on a card of 8 GiB or less.
        assert_eq!(automatic_batch(65_536, GIB, free, false, false), 512);
        assert_eq!(automatic_batch(8192, GIB, free, false, true), 256);
        assert_eq!(automatic_batch(4096, GIB, free, false, true), 512);
    }

    /// Ollama 0.30.11 (llama.cpp b9781) on a published load (find_string id 61471163053, a
    /// user's notes of 2026-06-28 quoting Ollama's log; its repository is not identified; see
    /// tests/data/llamacpp-buffers.notes.md): Hermes 3 Llama 3.1 8B Q4_0 at num_ctx 32768 on an
    /// RTX 2060 that CUDA reports as 5738 MiB with 5141 MiB free. Ollama passed `-c 32768 -np 1
    /// --flash-attn auto -b 512 -ub 512` and no `-ngl`: its estimate (the 4.33 GiB file + an f16
    /// KV of 2 × 32 × 8 × 128 × 32,768 × 2 B = 4 GiB) is above 80 % of the 4.6 GiB it saw
    /// available, so the batch stays 512. llama-server's fit then printed 15 layers (the output
    /// layer and 14 blocks: 2049 + 1792 + 248 = 4089 MiB, leaving 1052 ≥ 1024 MiB free) where
    /// 16 would leave 807 MiB. vramfit, with the 300 MiB CUDA context in what the card holds
    /// (5738 − 5141 − 300 = 297 MiB taken as other programs'), places the same 15 layers: the
    /// model buffer 2,049.43 MiB and KV 14 × 32,768 × 4 KiB = 1,792 MiB as printed, and its
    /// compute buffer 265.03 MiB, 17.03 MiB over the 248.00 printed (the block copy of
    /// `llamacpp_tests.rs`), which does not change the layers.
    #[test]
    fn the_fit_places_the_published_ollama_load() {
        use crate::estimate::{
            ComponentKind, Engine, EstimateInput, HardwareInput, ModelInput, RunInput,
            ServingInput, estimate,
        };
        use crate::precision::{GgufFileType, Quantization};
        let load = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                quantization: Quantization::Gguf {
                    file_type: GgufFileType::Q4_0,
                },
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Ollama,
                engine_version: Some("0.30.11".into()),
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(32768.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu_memory: Some("5738MiB".into()),
                memory_in_use: Some("297MiB".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let e = estimate(&load).unwrap();
        let o = e.ollama.as_ref().unwrap();
        assert_eq!((o.gpu_layers, o.model_layers, o.context), (15, 33, 32768));
        let part = |k: ComponentKind| {
            e.components
                .iter()
                .find(|c| c.key == k)
                .map_or(0, |c| c.bytes.get()) as f64
                / MIB as f64
        };
        assert!((part(ComponentKind::Weights) - 2049.43).abs() < 0.005);
        assert!((part(ComponentKind::KvCache) - 1792.0).abs() < 0.005);
        assert!((part(ComponentKind::ComputeBuffer) - 265.03).abs() < 0.005);
        let note = e.notes.iter().find(|n| n.key == "ollama_server").unwrap();
        assert!(note.en.contains("llama.cpp b9781"), "{}", note.en);
        assert!(note.en.contains("-b 512 -ub 512"), "{}", note.en);
        assert!(note.en.contains("15 of 33 layers"), "{}", note.en);
        // The same load by the Go runner (0.24) keeps flash attention off and plans its own
        // layers: another figure, the reason a release is an input.
        let old = estimate(&EstimateInput {
            run: RunInput {
                engine_version: Some("0.24.0".into()),
                ..load.run
            },
            ..load
        })
        .unwrap();
        assert!(old.notes.iter().any(|n| n.key == "ollama_offload"));
        assert_ne!(old.ollama.unwrap().gpu_layers, 15);
    }

    /// `OLLAMA_KV_CACHE_TYPE=q8_0` takes flash attention: from 0.30 it is `auto`, so a q8_0
    /// cache is taken unless attention is asked eager (`OLLAMA_FLASH_ATTENTION=0`); up to 0.24
    /// only with flash attention asked for. Refused, naming `kv_dtype`, where Ollama would
    /// fall back to f16.
    #[test]
    fn a_quantized_cache_follows_the_releases_flash_attention() {
        use crate::estimate::{
            AttentionImpl, Engine, EstimateInput, ModelInput, RunInput, estimate,
        };
        use crate::precision::KvDtype;
        let run = |version: &str, attention: AttentionImpl| {
            estimate(&EstimateInput {
                model: ModelInput {
                    model: Some("llama3.1:8b".into()),
                    ..Default::default()
                },
                run: RunInput {
                    engine: Engine::Ollama,
                    engine_version: Some(version.into()),
                    kv_dtype: KvDtype::Q8_0,
                    attention,
                    ..Default::default()
                },
                ..Default::default()
            })
        };
        assert!(run("0.32.15", AttentionImpl::default()).is_ok());
        assert!(run("0.24.0", AttentionImpl::Flash).is_ok());
        for (v, a) in [
            ("0.32.15", AttentionImpl::Eager),
            ("0.24.0", AttentionImpl::default()),
        ] {
            let e = run(v, a).unwrap_err();
            assert_eq!(e.field, "kv_dtype", "{v}");
        }
    }
}
