//! The engine's settings: the memory budget (vLLM's utilisation, SGLang's and TensorRT-LLM's
//! fractions), the context, the sequences and tokens one step takes, SGLang's CUDA graphs, and
//! llama.cpp's layers on the GPUs, its ubatch and attention kernel.

use super::checks::{check_kv_on_card, free_fraction};
use super::gpus::Parallel;
use super::{MAX_SEQ, Shape, int};
use crate::error::Result;
use crate::estimate::engine::Runner;
use crate::estimate::ollama::OllamaVersion;
use crate::estimate::{
    AttentionImpl, Context, Device, EstimateInput, Kernel, LlamacppBuild, TransformersVersion,
    VllmVersion,
};
use crate::model::Architecture;
use crate::units::{GIB, MIB};
use alloc::format;
use alloc::string::String;

/// A serving engine's settings, given or as the engine picks them.
pub(super) struct Serving {
    /// vLLM `gpu_memory_utilization`.
    pub(super) gpu_memory_utilization: f64,
    /// TensorRT-LLM `free_gpu_memory_fraction`.
    pub(super) free_gpu_memory_fraction: f64,
    /// The context (`max_model_len`, llama.cpp's `-c`, Ollama's `num_ctx`).
    pub(super) max_model_len: u64,
    /// `max_num_seqs`.
    pub(super) max_num_seqs: u64,
    /// `max_num_seqs` as given (SGLang's `max_running_requests`).
    pub(super) max_running_requests: Option<u64>,
    /// `max_num_batched_tokens`.
    pub(super) max_num_batched_tokens: u64,
    /// SGLang `cuda_graph_max_bs`.
    pub(super) cuda_graph_max_bs: u64,
    /// SGLang's prefill CUDA graphs.
    pub(super) prefill_graphs: crate::estimate::PrefillGraphs,
    /// SGLang `mem_fraction_static` as its server holds it (a default after its vision cut).
    pub(super) mem_fraction_static: f64,
    /// SGLang's cut of the fraction for a multimodal model ([`crate::estimate::sglang::VisionCut`]).
    pub(super) sglang_vision_cut: Option<crate::estimate::sglang::VisionCut>,
    /// The other P/D side's `mem_fraction_static` (this one's without disaggregation).
    pub(super) other_mem_fraction_static: f64,
    /// The vLLM release, given or the latest.
    pub(super) vllm_version: VllmVersion,
    /// transformers' release, given or the latest.
    pub(super) transformers_version: crate::estimate::TransformersVersion,
    /// llama.cpp's build, given or the latest.
    pub(super) llamacpp_build: crate::estimate::LlamacppBuild,
    /// SGLang's release, given or the latest.
    pub(super) sglang_version: crate::estimate::SglangVersion,
    /// llama-server `--kv-unified-per-slot`: each slot's cap (its pool without `-c`).
    pub(super) kv_unified_per_slot: Option<u64>,
}

/// llama.cpp's and Ollama's settings.
pub(super) struct Llamacpp {
    /// Ollama `num_gpu` as given.
    pub(super) num_gpu: Option<u64>,
    /// Layers on the GPUs (`num_layers + 1`: the output layer too).
    pub(super) gpu_layers: u64,
    /// ubatch.
    pub(super) ubatch: u64,
    /// `--n-cpu-moe`: blocks whose routed experts stay in CPU memory.
    pub(super) n_cpu_moe: u64,
}

impl EstimateInput {
    /// The serving settings, in the order they are checked: the memory budget, the card's KV
    /// formats, the context, then the step's sequences and tokens and SGLang's settings.
    pub(super) fn resolve_serving(
        &self,
        arch: &Architecture,
        shape: &Shape,
        par: &Parallel,
        device: Option<&Device>,
    ) -> Result<Serving> {
        let runner = self.runner();
        let rules = runner.rules();
        let (tp, pp) = (par.tp, par.pp);
        let util = self.serving.gpu_memory_utilization;
        if !(util.is_finite() && (0.01..=1.0).contains(&util)) {
            return Err(input_error!(
                OutOfRange,
                "gpu_memory_utilization",
                ["{} is out of range", crate::units::number_text(util)],
                ["{} 超出范围", crate::units::number_text(util)],
                "a fraction from 0.01 to 1, e.g. 0.9",
                "0.01 到 1 的比例，如 0.9",
            ));
        }
        let free_gpu_memory_fraction = free_fraction(self.serving.free_gpu_memory_fraction)?;
        check_kv_on_card(rules, self.run.kv_dtype, device)?;
        let big = device.is_some_and(|d| d.memory.get() >= 70 * GIB && !d.a100);
        let (vllm_version, transformers_version, llamacpp_build) = self.resolve_engine_version()?;
        let per_slot = self.resolve_kv_unified_per_slot(shape.seq_len + shape.new_tokens)?;
        let max_model_len = self.resolve_context(arch, shape, par, device, per_slot)?;
        let given_seqs = self
            .serving
            .max_num_seqs
            .map(|v| int("max_num_seqs", v, 1, 65_536))
            .transpose()?;
        let vllm = runner.reads_engine_version();
        let max_num_seqs = given_seqs.unwrap_or(
            vllm_version
                .v0_max_seqs()
                .filter(|_| vllm)
                .unwrap_or(runner.default_max_seqs(big)),
        );
        let gpu_mib = device.map(|d| d.memory.get() / MIB);
        let sglang_version = self.resolve_sglang_version(par)?;
        let sglang = sglang_version.defaults(gpu_mib, tp);
        let max_num_batched_tokens = match self.serving.max_num_batched_tokens {
            Some(v) => int("max_num_batched_tokens", v, 1, MAX_SEQ)?,
            // An encoder pools with bidirectional attention, which vLLM cannot chunk
            // (`is_chunked_prefill_supported`, vllm/config/model.py lines 2196-2203 at 0.33.0):
            // without chunked prefill a step takes at least a whole max_model_len
            // (`_set_default_max_num_seqs_and_batched_tokens_args`, vllm/engine/arg_utils.py
            // lines 3194-3199).
            None if vllm && (arch.family == crate::model::Family::Bert || arch.bidirectional) => {
                runner
                    .default_batched_tokens(big, sglang.chunked_prefill_size)
                    .max(max_model_len)
            }
            None => vllm_version
                .v0_batched_tokens(max_model_len)
                .filter(|_| vllm)
                .unwrap_or(runner.default_batched_tokens(big, sglang.chunked_prefill_size)),
        };
        let cuda_graph_max_bs = match self.serving.cuda_graph_max_bs {
            Some(v) => int("cuda_graph_max_bs", v, 1, 4096)?,
            None => sglang.cuda_graph_max_bs,
        };
        // Prefill graphs by default from SGLang 0.5.10 (`SglangVersion::prefill_graphs_by_default`).
        let prefill_graphs = if sglang_version.prefill_graphs_by_default() {
            self.sglang_prefill_graphs(arch, pp, device, max_num_batched_tokens)
        } else {
            crate::estimate::PrefillGraphs::OFF
        };
        let reserve = crate::estimate::sglang::Reserve {
            gpu_mib,
            chunked_prefill_size: max_num_batched_tokens,
            cuda_graph_max_bs,
            decode_graphs: self.serving.cuda_graphs,
            prefill_graphs,
            tp_pp: tp * pp,
            dp_attention: par.dp_attention,
            max_running_requests: given_seqs,
        };
        let side = self
            .serving
            .disaggregation_mode
            .filter(|_| runner.sizes_by_side());
        let mem_fraction_static = match self.serving.mem_fraction_static {
            Some(f) if f.is_finite() && (0.01..=0.99).contains(&f) => f,
            Some(f) => {
                return Err(input_error!(
                    OutOfRange,
                    "mem_fraction_static",
                    ["{} is out of range", crate::units::number_text(f)],
                    ["{} 超出范围", crate::units::number_text(f)],
                    "a fraction from 0.01 to 0.99, e.g. 0.85",
                    "0.01 到 0.99 的比例，如 0.85",
                ));
            }
            None => sglang_version.default_fraction(&reserve, side),
        };
        // A multimodal model's cut (`sglang/vision.rs`): from 0.4.9 `ServerArgs` cuts a default
        // fraction before it is printed; before, `ModelRunner` cuts whatever the server holds.
        let sglang_vision_cut =
            sglang_version.vision_cut(arch, self.serving.mem_fraction_static.is_some());
        let server_cut = sglang_vision_cut
            .filter(|c| !c.in_runner)
            .map_or(1.0, |c| c.factor);
        let mem_fraction_static = mem_fraction_static * server_cut;
        // The other P/D side's own default (the same fraction when it is given).
        let other_mem_fraction_static = match (self.serving.mem_fraction_static, side) {
            (None, Some(mode)) => {
                sglang_version.default_fraction(&reserve, Some(mode.other())) * server_cut
            }
            _ => mem_fraction_static,
        };
        // SGLang's DP attention then divides the prefill chunk among its groups
        // (`_handle_data_parallelism`: `chunked_prefill_size // dp_size`), given or not.
        let max_num_batched_tokens = (max_num_batched_tokens / par.dp_attention.max(1)).max(1);
        Ok(Serving {
            kv_unified_per_slot: per_slot,
            gpu_memory_utilization: util,
            free_gpu_memory_fraction,
            max_model_len,
            max_num_seqs,
            max_running_requests: given_seqs,
            max_num_batched_tokens,
            cuda_graph_max_bs,
            prefill_graphs,
            mem_fraction_static,
            sglang_vision_cut,
            other_mem_fraction_static,
            vllm_version,
            transformers_version,
            llamacpp_build,
            sglang_version,
        })
    }

    /// SGLang's release (`engine_version` when the engine is SGLang), the latest when not
    /// given, checked against what the run asks of it ([`crate::estimate::SglangVersion::check`]).
    fn resolve_sglang_version(&self, par: &Parallel) -> Result<crate::estimate::SglangVersion> {
        let latest = crate::estimate::SglangVersion::LATEST;
        let v = match (&self.run.engine_version, self.runner()) {
            (Some(text), Runner::Sglang) => {
                crate::estimate::SglangVersion::parse("engine_version", text)?
            }
            _ => return Ok(latest),
        };
        let parallelism = crate::estimate::sglang::Parallelism {
            ep: par.ep,
            pp: par.pp,
            dp_attention: par.dp_attention,
        };
        v.check(
            parallelism,
            self.serving.enable_lora,
            self.serving.disaggregation_mode.is_some(),
        )?;
        Ok(v)
    }

    /// SGLang's prefill CUDA graphs ([`crate::estimate::PrefillGraphs`]): captured on an NVIDIA
    /// card (or a memory size alone, the safe side) with CUDA graphs on and no pipeline
    /// parallel, up to the prefill chunk as given or picked, before DP attention divides it.
    fn sglang_prefill_graphs(
        &self,
        arch: &Architecture,
        pp: u64,
        device: Option<&Device>,
        chunked_prefill_size: u64,
    ) -> crate::estimate::PrefillGraphs {
        let cuda = device
            .and_then(|d| d.gpu)
            .is_none_or(|g| g.generation().vendor() == "NVIDIA");
        let llama2_path = self.model.model.as_deref().is_some_and(|m| {
            // "llama-2" in any ASCII case, without a lower-cased copy of the name.
            m.as_bytes()
                .windows(7)
                .any(|w| w.eq_ignore_ascii_case(b"llama-2"))
        });
        crate::estimate::PrefillGraphs::of(
            chunked_prefill_size,
            cuda && self.serving.cuda_graphs && pp == 1,
            arch.mla.is_some(),
            llama2_path,
        )
    }

    /// `engine_version`: a vLLM release for vLLM (and an RL run's colocated rollout), a
    /// transformers release for transformers' runners, a llama.cpp build for llama.cpp; another
    /// engine refuses it rather than drop it. The latest of each when not given.
    fn resolve_engine_version(&self) -> Result<(VllmVersion, TransformersVersion, LlamacppBuild)> {
        let latest = (
            VllmVersion::LATEST,
            TransformersVersion::LATEST,
            LlamacppBuild::LATEST,
        );
        // Ollama's release sets the llama.cpp build it sizes by (`ollama/version.rs`): from 0.30
        // its pinned `llama-server`, before it its Go runner's vendored llama.cpp.
        if self.runner() == Runner::Ollama {
            let v = match &self.run.engine_version {
                Some(text) => OllamaVersion::parse("engine_version", text)?,
                None => OllamaVersion::LATEST,
            };
            return Ok((latest.0, latest.1, v.llamacpp_build()));
        }
        let Some(text) = &self.run.engine_version else {
            return Ok(latest);
        };
        // An RL run's colocated rollout is vLLM too (`estimate/rl/`).
        let colocated = self.training.rl.is_some()
            && self.training.rollout == Some(super::super::Rollout::Colocate);
        let runner = self.runner();
        if runner.reads_engine_version() || colocated {
            return Ok((
                VllmVersion::parse("engine_version", text)?,
                latest.1,
                latest.2,
            ));
        }
        if runner.reads_transformers_version() {
            let v = TransformersVersion::parse("engine_version", text)?;
            return Ok((latest.0, v, latest.2));
        }
        if runner.reads_llamacpp_build() {
            let b = LlamacppBuild::parse("engine_version", text)?;
            return Ok((latest.0, latest.1, b));
        }
        // SGLang's release is read apart (`resolve_sglang_version`).
        if runner == Runner::Sglang {
            return Ok(latest);
        }
        Err(input_error!(
            Unsupported,
            "engine_version",
            [
                "{} is read for vLLM, SGLang, transformers, llama.cpp and Ollama only",
                crate::units::quoted(text)
            ],
            [
                "{} 仅用于 vLLM、SGLang、transformers、llama.cpp 与 Ollama",
                crate::units::quoted(text)
            ],
            "no engine_version for this engine; engine vllm (or an RL run's colocated rollout), sglang, hf, llamacpp or ollama",
            "此引擎不设 engine_version；可用于 vllm 引擎（或 RL 的同卡 rollout）、sglang、hf、llamacpp 或 ollama",
        ))
    }

    /// The context, given or the runner's default, which must hold one sequence where every
    /// sequence's context is llama.cpp's.
    fn resolve_context(
        &self,
        arch: &Architecture,
        shape: &Shape,
        par: &Parallel,
        device: Option<&Device>,
        per_slot: Option<u64>,
    ) -> Result<u64> {
        let runner = self.runner();
        let rules = runner.rules();
        let (batch, seq_len, new_tokens) = (shape.batch, shape.seq_len, shape.new_tokens);
        let (dp, pp) = (par.dp, par.pp);
        let default_len = if arch.max_position_embeddings > 0 {
            arch.max_position_embeddings
        } else {
            seq_len + new_tokens
        };
        let max_model_len = match (self.serving.max_model_len, per_slot) {
            (Some(v), _) => int("max_model_len", v, 1, MAX_SEQ)?,
            // `--kv-unified-per-slot N` without `-c`: "the shared KV pool is sized to
            // n_parallel*N" (its help in `common/arg.cpp`, ggml-org/llama.cpp#24124).
            (None, Some(n)) => {
                let pool = n.saturating_mul(batch);
                if pool > MAX_SEQ {
                    return Err(input_error!(
                        OutOfRange,
                        "kv_unified_per_slot",
                        ["{batch} slots of {n} tokens are a pool over {MAX_SEQ} tokens"],
                        ["{batch} 个槽位各 {n} 个 token，共享池超过 {MAX_SEQ} 个 token"],
                        ["an integer to {} with {batch} slots", MAX_SEQ / batch],
                        ["{batch} 个槽位时不超过 {} 的整数", MAX_SEQ / batch],
                    ));
                }
                pool
            }
            (None, None) => {
                let vram = device
                    .as_ref()
                    .map(|d| d.memory.get().saturating_mul(dp * pp));
                runner.default_context(
                    seq_len + new_tokens,
                    batch,
                    vram,
                    arch.max_position_embeddings,
                    default_len,
                )
            }
        };
        // llama.cpp's context holds every sequence's prompt and output (Ollama's num_ctx, each
        // sequence's own): one must fit in it.
        let per_sequence = seq_len.saturating_add(new_tokens);
        if rules.offload.splits_layers() && max_model_len < per_sequence {
            return Err(input_error!(
                Conflict,
                "max_model_len",
                [
                    "a context of {max_model_len} tokens holds no sequence of {seq_len} prompt + {new_tokens} generated tokens"
                ],
                [
                    "{max_model_len} 个 token 的上下文放不下一条 {seq_len} 提示 + {new_tokens} 生成 token 的序列"
                ],
                [
                    "with {}, an integer from {per_sequence} (seq_len + new_tokens) to {MAX_SEQ}",
                    match rules.context {
                        Context::PerSequence { setting } => format!("{} ({setting})", rules.name),
                        _ => String::from(rules.name),
                    }
                ],
                [
                    "{} 下为 {per_sequence}（seq_len + new_tokens）到 {MAX_SEQ} 的整数",
                    match rules.context {
                        Context::PerSequence { setting } => format!("{}（{setting}）", rules.name),
                        _ => String::from(rules.name),
                    }
                ],
            ));
        }
        Ok(max_model_len)
    }

    /// llama.cpp's layers on the GPUs and its ubatch.
    pub(super) fn resolve_llamacpp(&self, arch: &Architecture) -> Result<Llamacpp> {
        let num_gpu = self
            .placement
            .gpu_layers
            .map(|v| int("gpu_layers", v, 0, arch.num_layers + 1))
            .transpose()?;
        let gpu_layers = num_gpu.unwrap_or(arch.num_layers + 1);
        let ubatch = int("ubatch", self.serving.ubatch, 1, 65_536)?;
        let n_cpu_moe = match self.placement.n_cpu_moe {
            None => 0,
            Some(v) => self.resolve_n_cpu_moe(arch, v)?,
        };
        // `--kv-unified` is llama-server's flag: Ollama passes `-np` without it, and no other
        // engine has it.
        if self.serving.kv_unified.is_some() && self.runner() != Runner::Llamacpp {
            let name = self.runner().rules().name;
            return Err(input_error!(
                Unsupported,
                "kv_unified",
                ["{name} has no --kv-unified"],
                ["{name} 没有 --kv-unified"],
                "unset, or engine llamacpp (llama-server's --kv-unified)",
                "不设置，或使用 llamacpp 引擎（llama-server 的 --kv-unified）",
            ));
        }
        Ok(Llamacpp {
            num_gpu,
            gpu_layers,
            ubatch,
            n_cpu_moe,
        })
    }

    /// llama-server's `--kv-unified-per-slot N` as given: llama.cpp's alone, an integer from
    /// `per_sequence` (one sequence's prompt and output, which a slot capped at `N` must hold;
    /// llama-server refuses a longer request) and at least 1. It leaves `kv_unified` as given:
    /// llama-server unifies the cache only where it picks the slots (`tools/server/server.cpp`,
    /// `n_parallel < 0`), the flag only sizing the pool (`ctx_pool_auto_sized`; builds b10662 to
    /// b10734 read; test `kv_unified_per_slot_leaves_the_split_as_given`).
    fn resolve_kv_unified_per_slot(&self, per_sequence: u64) -> Result<Option<u64>> {
        let Some(v) = self.serving.kv_unified_per_slot else {
            return Ok(None);
        };
        if self.runner() != Runner::Llamacpp {
            let name = self.runner().rules().name;
            return Err(input_error!(
                Unsupported,
                "kv_unified_per_slot",
                ["{name} has no --kv-unified-per-slot"],
                ["{name} 没有 --kv-unified-per-slot"],
                "unset, or engine llamacpp (llama-server's --kv-unified-per-slot, build b10662 on)",
                "不设置，或使用 llamacpp 引擎（llama-server 的 --kv-unified-per-slot，b10662 起）",
            ));
        }
        let n = int("kv_unified_per_slot", v, 1, MAX_SEQ)?;
        if n < per_sequence {
            return Err(input_error!(
                Conflict,
                "kv_unified_per_slot",
                [
                    "a slot capped at {n} tokens holds no sequence of {per_sequence} (seq_len + new_tokens)"
                ],
                [
                    "上限为 {n} 个 token 的槽位放不下一条 {per_sequence} 个 token（seq_len + new_tokens）的序列"
                ],
                ["an integer from {per_sequence} (seq_len + new_tokens) to {MAX_SEQ}"],
                ["{per_sequence}（seq_len + new_tokens）到 {MAX_SEQ} 的整数"],
            ));
        }
        Ok(Some(n))
    }

    /// `n_cpu_moe` as given: llama.cpp's, for a model with routed experts, 0 to its blocks.
    fn resolve_n_cpu_moe(&self, arch: &Architecture, v: f64) -> Result<u64> {
        let rules = self.runner().rules();
        if !rules.expert_offload && v != 0.0 {
            let name = rules.name;
            return Err(input_error!(
                Unsupported,
                "n_cpu_moe",
                ["{name} keeps no experts in CPU memory by count of blocks"],
                ["{name} 不能按块数把专家权重留在 CPU 内存"],
                "0, or engine llamacpp (llama.cpp's --n-cpu-moe)",
                "0，或使用 llamacpp 引擎（llama.cpp 的 --n-cpu-moe）",
            ));
        }
        if arch.moe.is_none() && v != 0.0 {
            return Err(input_error!(
                Unsupported,
                "n_cpu_moe",
                "the model has no routed experts",
                "该模型没有路由专家",
                "0 for a dense model; a mixture-of-experts model for more",
                "稠密模型为 0；大于 0 需混合专家模型",
            ));
        }
        int("n_cpu_moe", v, 0, arch.num_layers)
    }

    /// Whether the run is Ollama's `llama-server` (0.30 and later, `ollama/version.rs`).
    pub(super) fn ollama_llama_server(&self) -> bool {
        self.runner() == Runner::Ollama
            && self
                .resolve_engine_version()
                .is_ok_and(|(_, _, b)| crate::estimate::ollama::runs_llama_server(b))
    }

    /// The attention kernel.
    pub(super) fn kernel(&self) -> Kernel {
        let rules = self.runner().rules();
        // Ollama up to 0.24 runs flash attention only when asked (OLLAMA_FLASH_ATTENTION=1):
        // without it llama.cpp's graph holds the KQ scores. From 0.30 it passes `--flash-attn
        // auto` to llama-server, on unless asked off (`ollama/version.rs`).
        let eager = if rules.flash_only_when_asked && !self.ollama_llama_server() {
            self.run.attention != AttentionImpl::Flash
        } else {
            self.run.attention == AttentionImpl::Eager
        };
        if eager { Kernel::Eager } else { Kernel::Flash }
    }
}
