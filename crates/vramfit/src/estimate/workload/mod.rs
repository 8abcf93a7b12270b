//! Validation: [`EstimateInput::resolve`] checks every field once into a [`Workload`], naming
//! the field and the accepted range on failure, so that the arithmetic after it cannot fail.
//!
//! [`EstimateInput::resolve_with`] takes the steps in the order the fields are checked (the first
//! error found is the one reported): the model (`model.rs`), the run's shape, the formats the
//! model is loaded in (`model.rs`), ZeRO, the GPUs and the card (`gpus.rs`), the serving
//! engine's and llama.cpp's settings (`serving.rs`); the checks they share are in `checks.rs`.

mod cards;
mod checks;
mod disaggregation;
mod dp_attention;
mod gpus;
mod host;
mod in_use;
mod kv_offload;
mod lora;
mod mlx;
mod model;
mod nodes;
mod pooling;
mod regimes;
mod serving;
mod sharding;
mod speculative;
mod speculative_sglang;
mod text_only;
mod vision;

pub use cards::{MAX_CARDS, card_count, split_card_list};
pub use checks::lora_mask;
pub use disaggregation::{Disaggregation, SGLANG_RESERVED_DECODE_TOKENS};
pub use kv_offload::KvOffload;
pub use lora::{LoraRules, LoraSlots, LoraTargets, VLLM_LORA_FROM, VLLM_LORA_RANKS};
pub use mlx::{MACOS_RESERVE, MLX_KV_GROUP_SIZE, MLX_QUANTIZED_KV_START, MlxSettings};
pub use regimes::{FromStack, Regimes};
pub use sharding::{
    DEEPSPEED_DEFAULTS, DeepSpeedAuto, Fsdp, FsdpVersion, Megatron, Sharding, ZeroBucketSizes,
};
pub use speculative::{MAX_ACCEPTANCE, MAX_SPECULATIVE_TOKENS, Speculative};
pub use vision::{DEFAULT_IMAGE_SIDE, Images, MAX_IMAGE_SIDE, MAX_IMAGES};

use super::{
    Checkpointing, Device, Engine, EstimateInput, Kernel, Logits, Mode, Offload, Optimizer,
    Precision, VllmVersion,
};
use crate::error::{ErrorKind, Result};
use crate::model::Architecture;
use crate::precision::{Dtype, GgufFileType, KvDtype, Quantization};
use alloc::format;
use alloc::string::String;

/// A GPU lookup for [`EstimateInput::resolve_with`]: id to device.
pub type GpuLookup<'a> = &'a dyn Fn(&str) -> Option<Device>;

/// A preset lookup: id to (dtype, architecture, the format its weights ship in).
pub type ModelLookup<'a> = &'a dyn Fn(&str) -> Option<(Dtype, Architecture, Quantization)>;

/// A validated workload: every number in range, the model resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// The model's name as given.
    pub model_name: String,
    /// The architecture (opaque in quick mode).
    pub arch: Architecture,
    /// The run.
    pub mode: Mode,
    /// The engine.
    pub engine: Engine,
    /// Batch: one copy's share of the requests where copies of a server share them
    /// ([`crate::estimate::engine::Rules::copies_share_requests`]).
    pub batch: u64,
    /// The concurrent requests asked for over every copy of the server: `batch` as given,
    /// which `copies` share. Elsewhere `batch`, and `copies` 1.
    pub requests: u64,
    /// The copies of the server that share `requests`, each holding `batch` = ceil(requests /
    /// copies) (1: none).
    pub copies: u64,
    /// Prompt / training sequence length.
    pub seq_len: u64,
    /// Generated tokens (0 in a pooling run).
    pub new_tokens: u64,
    /// An embedding, reranking or classification run (`runner: pooling`, or an encoder): one
    /// forward and a pooler, no sampler over the vocabulary.
    pub pooling: bool,
    /// Model dtype.
    pub dtype: Dtype,
    /// Weight format.
    pub quantization: Quantization,
    /// KV dtype.
    pub kv_dtype: KvDtype,
    /// Attention kernel.
    pub kernel: Kernel,
    /// Logits kept.
    pub logits: Logits,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// Fused step.
    pub fused_optimizer: bool,
    /// Precision regime.
    pub precision: Precision,
    /// Checkpointing.
    pub checkpointing: Checkpointing,
    /// LoRA rank (0: full).
    pub lora_rank: u64,
    /// LoRA targets as role bits.
    pub lora_mask: u32,
    /// QLoRA.
    pub qlora: bool,
    /// ZeRO stage.
    pub zero: u8,
    /// Offload.
    pub offload: Offload,
    /// Data-parallel size (`gpus / (tp × pp)`).
    pub dp: u64,
    /// Micro-batches per optimizer step per replica (`grad_accum`, default 1).
    pub grad_accum: u64,
    /// Tensor parallel.
    pub tp: u64,
    /// Pipeline parallel.
    pub pp: u64,
    /// The device, if one was named (of cards that are not alike, the first).
    pub device: Option<Device>,
    /// The sizes `memory_in_use` gave: none, one (in use on every GPU), or one per GPU, whose
    /// largest is set on `device`.
    pub in_use_sizes: usize,
    /// Cards that are not alike, in device order (empty: `device` × `dp × tp × pp`).
    pub cards: alloc::vec::Vec<Device>,
    /// llama.cpp `--tensor-split`, one share per GPU (empty: by each card's free memory).
    pub tensor_split: alloc::vec::Vec<f32>,
    /// llama.cpp `--split-mode`.
    pub split_mode: super::SplitMode,
    /// llama.cpp `--main-gpu`.
    pub main_gpu: u64,
    /// vLLM utilisation.
    pub gpu_memory_utilization: f64,
    /// vLLM max_model_len / llama.cpp context.
    pub max_model_len: u64,
    /// vLLM max_num_seqs.
    pub max_num_seqs: u64,
    /// vLLM max_num_batched_tokens.
    pub max_num_batched_tokens: u64,
    /// vLLM CUDA graphs.
    pub cuda_graphs: bool,
    /// llama.cpp layers on GPU (`num_layers + 1` means the output layer too).
    pub gpu_layers: u64,
    /// A GGUF file type that PyTorch (transformers, training) dequantizes on load: the weights
    /// are counted in `dtype` and the estimate says so.
    pub gguf_dequantized: Option<GgufFileType>,
    /// vLLM runs this fp32 checkpoint in `dtype` (its dtype "auto").
    pub vllm_downcast: bool,
    /// llama.cpp ubatch.
    pub ubatch: u64,
    /// llama.cpp `--n-cpu-moe`: the blocks (from the first) whose routed experts stay in CPU
    /// memory.
    pub n_cpu_moe: u64,
    /// llama.cpp `--kv-unified` as given (`llamacpp.rs`: the streams of its KV cache).
    pub kv_unified: Option<bool>,
    /// llama-server `--kv-unified-per-slot` as given (its pool is `max_model_len`).
    pub kv_unified_per_slot: Option<u64>,
    /// The host memory llama.cpp and Ollama read CPU-resident layers and experts from
    /// (`host_memory`, `host_bandwidth`, or the stated default): the speed under offload, so
    /// read only with the `speed` feature.
    #[cfg(feature = "speed")]
    pub host: crate::host::HostChoice,
    /// The checkpoint ships its routed experts in MXFP4 (gpt-oss): every GGUF file made from it
    /// keeps them so, whatever its file type.
    pub mxfp4_experts: bool,
    /// SGLang `mem_fraction_static`, given or as SGLang picks it (a default after its cut for a
    /// multimodal model from 0.4.9).
    pub mem_fraction_static: f64,
    /// SGLang's cut of the fraction for a multimodal model (`None`: none applies).
    pub sglang_vision_cut: Option<crate::estimate::sglang::VisionCut>,
    /// TensorRT-LLM `free_gpu_memory_fraction`, given or its 0.9.
    pub free_gpu_memory_fraction: f64,
    /// SGLang `cuda_graph_max_bs`, given or as SGLang picks it.
    pub cuda_graph_max_bs: u64,
    /// SGLang's prefill CUDA graphs, as SGLang picks them.
    pub prefill_graphs: super::PrefillGraphs,
    /// SGLang `max_running_requests` as given; `None`: SGLang derives it from its pool.
    pub max_running_requests: Option<u64>,
    /// Expert parallel size (1: none).
    pub ep: u64,
    /// SGLang's DP attention: the attention groups inside the tensor-parallel group (1: none;
    /// `--attn-dp-size`, once `--dp-size` with `--enable-dp-attention`).
    pub dp_attention: u64,
    /// The nodes the GPUs fill and the network between them.
    pub nodes: crate::estimate::Nodes,
    /// Ollama: the GGUF architecture of the library model (`llama` when the model is no library
    /// name), which picks Ollama's graph estimate.
    pub ollama_arch: &'static str,
    /// Ollama: the library tag a preset given by its id runs as (`qwen3:32b`), its default
    /// tag; `None` when the model was given as a library name or for another engine.
    pub ollama_tag: Option<String>,
    /// Ollama `num_gpu` as given; `None`: Ollama's own offload decision.
    pub num_gpu: Option<u64>,
    /// `max_model_len` was not given: the context is the runner's default (Ollama's automatic
    /// `num_ctx`, the one it lowers when a load fails out of memory).
    pub auto_context: bool,
    /// The vLLM release whose rules size the pool (the latest when not given).
    pub vllm_version: VllmVersion,
    /// The transformers release of transformers' runners (the latest when not given): its MLA
    /// cache is the compressed latent from 5.15 on.
    pub transformers_version: super::TransformersVersion,
    /// The llama.cpp build whose rules place the output layer and reserve the logits (the
    /// latest when not given; Ollama's vendored one for an Ollama run).
    pub llamacpp_build: super::LlamacppBuild,
    /// The SGLang release whose defaults (fraction, chunk, graphs) and flags the run takes (the
    /// latest when not given).
    pub sglang_version: super::SglangVersion,
    /// vLLM's or SGLang's LoRA adapter slots (`enable_lora`); `None` without them.
    pub lora: Option<LoraSlots>,
    /// vLLM's KV offloading to CPU memory (`kv_offloading_size`); `None` without it.
    pub kv_offload: Option<KvOffload>,
    /// The side of disaggregated prefill and decode this instance serves; `None`: one server
    /// does both.
    pub disaggregation: Option<Disaggregation>,
    /// Speculative decoding (vLLM `--speculative-config`); `None` without it.
    pub speculative: Option<Speculative>,
    /// The images of each request (`images`), whose tokens `seq_len` already holds; `None`
    /// without images.
    pub images: Option<Images>,
    /// vLLM without its encoder towers (`language_model_only`): the tower parameters left out
    /// of `arch.vision_params`; `None` where the towers load.
    pub text_only_towers: Option<u64>,
    /// Training regimes (part `regimes`): the loss, the step, activation offload, packing, the
    /// upcast, as given or as the stack picks them.
    pub regimes: Regimes,
    /// RL post-training (part `rl`): the models beside the policy and the rollout; `batch` and
    /// `seq_len` are then the training micro-batch's sequences and their whole length.
    pub rl: Option<super::RlRun>,
    /// Training's sharding: FSDP, DeepSpeed's buffers, Megatron's settings.
    pub sharding: Sharding,
    /// mlx-lm's settings and the wired limit given.
    pub mlx: MlxSettings,
}

/// The serving engine's settings, resolved together (`resolve_engine_parts`).
struct EngineParts {
    serving: serving::Serving,
    lora: Option<LoraSlots>,
    kv_offload: Option<KvOffload>,
    disaggregation: Option<Disaggregation>,
    speculative: Option<Speculative>,
    llamacpp: serving::Llamacpp,
}

/// The run's shape: batch, prompt (or training sequence) and generated tokens.
pub(super) struct Shape {
    /// Batch.
    pub(super) batch: u64,
    /// Prompt / training sequence length.
    pub(super) seq_len: u64,
    /// Generated tokens.
    pub(super) new_tokens: u64,
}

/// Checks that `v` is a finite integer in `lo..=hi`. Inlined, with the error built out of line:
/// every estimate checks its numbers.
#[inline]
pub(super) fn int(field: &str, v: f64, lo: u64, hi: u64) -> Result<u64> {
    // In the range, `v as u64` is `v`'s integer part, exactly (the largest, 2^64, saturates to
    // `u64::MAX`, which reads back as 2^64): equal to `v` when `v` is whole, without `trunc`.
    if v.is_finite() && v >= lo as f64 && v <= hi as f64 && (v as u64) as f64 == v {
        Ok(v as u64)
    } else {
        Err(not_int(field, v, lo, hi))
    }
}

#[cold]
fn not_int(field: &str, v: f64, lo: u64, hi: u64) -> crate::error::InputError {
    // 0: not finite; 1: a fraction within the range; 2: out of it.
    let why = if !v.is_finite() {
        0
    } else if v != libm::trunc(v) && v >= lo as f64 && v <= hi as f64 {
        1
    } else {
        2
    };
    let n = || crate::units::number_text(v);
    input_error!(
        [= if why == 2 { ErrorKind::OutOfRange } else { ErrorKind::NotANumber }],
        field,
        [= match why {
            0 => String::from("not a finite number"),
            1 => format!("{} is not a whole number", n()),
            _ => format!("{} is out of range", n()),
        }],
        [= match why {
            0 => String::from("不是有限的数"),
            1 => format!("{} 不是整数", n()),
            _ => format!("{} 超出范围", n()),
        }],
        ["an integer from {lo} to {hi}"],
        ["整数，从 {lo} 到 {hi}"],
    )
}

/// Largest batch accepted.
pub const MAX_BATCH: u64 = 1 << 20;
/// Largest sequence accepted: 16 M tokens.
pub const MAX_SEQ: u64 = 1 << 24;

impl EstimateInput {
    /// Validates with the built-in catalogs.
    pub fn resolve(&self) -> Result<Workload> {
        self.resolve_with(&crate::catalog::find_model, &crate::catalog::find_device)
    }

    /// Validates with the given model and GPU lookups (a site with user-edited catalogs passes its own).
    pub fn resolve_with(&self, models: ModelLookup<'_>, gpus: GpuLookup<'_>) -> Result<Workload> {
        if !self.hardware.cards.is_empty() {
            return self.resolve_cards(models, gpus);
        }
        // A workload is large to copy: without llama.cpp's split settings (the usual run) it is
        // returned as resolved, straight into the caller's result; with them it is split in
        // place, in the result returned.
        if !self.split_given() {
            return self.resolve_alike(models, gpus);
        }
        let mut resolved = self.resolve_alike(models, gpus);
        if let Ok(w) = &mut resolved {
            self.resolve_split(w)?;
        }
        resolved
    }

    /// [`EstimateInput::resolve_with`] for `gpu` × `gpus`, the cards alike (`cards.rs` turns a
    /// list of cards into it).
    fn resolve_alike(&self, models: ModelLookup<'_>, gpus: GpuLookup<'_>) -> Result<Workload> {
        if !self.runner().built() {
            let name = self.runner().rules().name;
            return Err(input_error!(
                Unsupported,
                "engine",
                ["{name} is not in this build of vramfit"],
                ["这个 vramfit 版本不含 {name}"],
                "an engine of this build; the CLI, the npm package and the site's full build have every engine",
                "这个版本中的引擎；命令行、npm 包与网站的完整版本包含全部引擎",
            ));
        }
        let mut model = self.resolve_model(models)?;
        checks::engine_builds(self.runner().rules(), &model.arch)?;
        // vLLM builds every Gemma 4 layer's fused qkv_proj whole, shared or not; llama.cpp loads
        // every Gemma 3n layer's k and v (AltUp marks Gemma 3n).
        if let Some(s) = model.arch.layer_shapes.as_mut() {
            let rules = self.runner().rules();
            s.full_qkv = rules.gemma4_full_qkv || (s.altup_inputs > 0 && rules.gemma3n_full_qkv);
        }
        let mut shape = self.resolve_shape()?;
        let pooling = self.resolve_pooling(&mut model.arch)?;
        if pooling {
            // A pooling run generates nothing: one forward over each input.
            shape.new_tokens = 0;
        }
        let images = self.resolve_images(&model.arch, &model.name, &mut shape)?;
        let text_only_towers = self.resolve_text_only(&mut model.arch, images.is_some())?;
        let loaded = self.resolve_formats(&model)?;
        // Training's own settings (RL, sharding, the stacks' regimes) are read only where
        // training runs: a build without it refuses a training run, and holds none of them.
        #[cfg(feature = "training")]
        let (mut shape, rl) = self.resolve_rl(shape, loaded.lora_rank > 0 || loaded.qlora)?;
        #[cfg(not(feature = "training"))]
        let rl = None;
        let arch = &model.arch;
        let par = self.resolve_parallel(arch)?;
        let zero = self.resolve_training(&par)?;
        // A serving engine's copies share the requests asked for: each copy's run, its pool,
        // batch and speed, holds its share.
        let (requests, copies) = (shape.batch, self.request_copies(par.dp));
        shape.batch = requests.div_ceil(copies);
        let nodes = self.resolve_nodes(par.tp * par.pp * par.dp)?;
        #[cfg(feature = "training")]
        let sharding = self.resolve_sharding(arch, zero, &par)?;
        #[cfg(not(feature = "training"))]
        let sharding = Sharding::none(zero);
        let (device, mlx) = self.resolve_mlx(self.resolve_device(gpus)?)?;
        let (device, in_use_sizes) = self.resolve_in_use(device, par.tp * par.pp * par.dp)?;
        let (dtype, vllm_downcast) = self.run_dtype(loaded.dtype, arch, device.as_ref());
        let EngineParts {
            serving,
            lora,
            kv_offload,
            disaggregation,
            speculative,
            llamacpp,
        } = self.resolve_engine_parts(arch, &shape, &par, device.as_ref(), pooling, models)?;
        #[cfg(feature = "speed")]
        let host = self.resolve_host()?;
        #[cfg(not(feature = "speed"))]
        self.resolve_host()?;
        let lora_mask = self.training_lora_mask(lora.is_some_and(|l| l.targets_given))?;
        let regimes = self.regimes_in_build()?;
        let (lora_rank, qlora) = (loaded.lora_rank, loaded.qlora);
        Ok(Workload {
            model_name: model.name,
            arch: model.arch,
            mode: self.run.mode,
            engine: self.workload_engine(),
            batch: shape.batch,
            requests,
            copies,
            seq_len: shape.seq_len,
            new_tokens: shape.new_tokens,
            pooling,
            dtype,
            quantization: loaded.quantization,
            kv_dtype: self.run.kv_dtype,
            gguf_dequantized: loaded.gguf_dequantized,
            vllm_downcast,
            kernel: self.kernel(),
            logits: self.run.logits,
            optimizer: self.training.optimizer,
            fused_optimizer: self.training.fused_optimizer,
            precision: self.training.precision,
            checkpointing: self.training.grad_checkpointing,
            lora_rank: if qlora { lora_rank.max(1) } else { lora_rank },
            lora_mask,
            qlora,
            zero,
            offload: self.placement.offload,
            dp: par.dp,
            tp: par.tp,
            pp: par.pp,
            device,
            in_use_sizes,
            cards: alloc::vec::Vec::new(),
            tensor_split: alloc::vec::Vec::new(),
            split_mode: super::SplitMode::Layer,
            main_gpu: 0,
            gpu_memory_utilization: serving.gpu_memory_utilization,
            max_model_len: serving.max_model_len,
            max_num_seqs: serving.max_num_seqs,
            max_num_batched_tokens: serving.max_num_batched_tokens,
            cuda_graphs: self.serving.cuda_graphs,
            gpu_layers: llamacpp.gpu_layers,
            mxfp4_experts: model.shipped == Quantization::Mxfp4,
            ubatch: llamacpp.ubatch,
            n_cpu_moe: llamacpp.n_cpu_moe,
            kv_unified: self.serving.kv_unified,
            kv_unified_per_slot: serving.kv_unified_per_slot,
            #[cfg(feature = "speed")]
            host,
            mem_fraction_static: serving.mem_fraction_static,
            sglang_vision_cut: serving.sglang_vision_cut,
            free_gpu_memory_fraction: serving.free_gpu_memory_fraction,
            cuda_graph_max_bs: serving.cuda_graph_max_bs,
            prefill_graphs: serving.prefill_graphs,
            max_running_requests: serving.max_running_requests,
            ep: par.ep,
            dp_attention: par.dp_attention,
            nodes,
            grad_accum: self
                .training
                .grad_accum
                .map_or(Ok(1), |g| int("grad_accum", g, 1, 65_536))?,
            ollama_arch: model.ollama_arch,
            ollama_tag: model.ollama_tag,
            num_gpu: llamacpp.num_gpu,
            auto_context: self.serving.max_model_len.is_none(),
            vllm_version: serving.vllm_version,
            transformers_version: serving.transformers_version,
            llamacpp_build: serving.llamacpp_build,
            sglang_version: serving.sglang_version,
            lora,
            kv_offload,
            disaggregation,
            speculative,
            images,
            text_only_towers,
            regimes,
            rl,
            sharding,
            mlx,
        })
    }

    /// The serving engine's settings, in the order they are checked: its memory budget,
    /// context and batch (`serving`), then its adapter slots, KV offloading, disaggregation,
    /// speculation and llama.cpp's layers, and a llama.cpp pooling run's one-ubatch rule.
    fn resolve_engine_parts(
        &self,
        arch: &Architecture,
        shape: &Shape,
        par: &gpus::Parallel,
        device: Option<&Device>,
        pooling: bool,
        models: ModelLookup<'_>,
    ) -> Result<EngineParts> {
        let serving = self.resolve_serving(arch, shape, par, device)?;
        let lora = self.resolve_lora(arch, serving.vllm_version)?;
        let kv_offload = self.resolve_kv_offload(serving.vllm_version)?;
        let disaggregation = self.resolve_disaggregation(
            serving.vllm_version,
            par.dp_attention,
            serving.max_running_requests,
            serving.other_mem_fraction_static,
        )?;
        let speculative = self.resolve_speculative(arch, models, serving.sglang_version)?;
        let llamacpp = self.resolve_llamacpp(arch)?;
        self.check_llamacpp_pooling(
            pooling,
            arch,
            shape.seq_len,
            llamacpp.ubatch,
            serving.max_model_len,
        )?;
        Ok(EngineParts {
            serving,
            lora,
            kv_offload,
            disaggregation,
            speculative,
            llamacpp,
        })
    }

    /// The batch, the prompt (or training sequence) and the generated tokens.
    /// The LoRA targets a training run adapts: none where `lora_targets` named a serving
    /// engine's adapter slots instead (SGLang's `--lora-target-modules`, `slots_named`).
    fn training_lora_mask(&self, slots_named: bool) -> Result<u32> {
        if slots_named {
            lora_mask("lora_targets", &[])
        } else {
            lora_mask("lora_targets", &self.training.lora_targets)
        }
    }

    /// The copies of the server that share the requests: `dp` where the runner's copies share
    /// them, else 1.
    fn request_copies(&self, dp: u64) -> u64 {
        if self.runner().rules().copies_share_requests {
            dp.max(1)
        } else {
            1
        }
    }

    fn resolve_shape(&self) -> Result<Shape> {
        Ok(Shape {
            batch: int("batch", self.run.batch, 1, MAX_BATCH)?,
            seq_len: int("seq_len", self.run.seq_len, 1, MAX_SEQ)?,
            new_tokens: int("new_tokens", self.run.new_tokens, 0, MAX_SEQ)?,
        })
    }
}

#[cfg(test)]
mod tests {
    /// [`super::int`] accepts what the check with `libm::trunc` accepted, with the same value,
    /// at the ends of its ranges and around them.
    #[test]
    fn int_is_the_trunc_check() {
        let by_trunc = |v: f64, lo: u64, hi: u64| {
            (v.is_finite() && v == libm::trunc(v) && v >= lo as f64 && v <= hi as f64)
                .then_some(v as u64)
        };
        let ranges = [(0, 0), (0, 1), (1, 1 << 20), (1, 1 << 24), (0, u64::MAX)];
        let mut vs = alloc::vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            1.5,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            1.0 - f64::EPSILON,
            (1u64 << 52) as f64 + 0.5,
            (1u64 << 53) as f64,
            (1u64 << 63) as f64,
            u64::MAX as f64,
            u64::MAX as f64 * 2.0,
            f64::MAX,
        ];
        for (_, hi) in ranges {
            let h = hi as f64;
            vs.extend([h, h - 0.5, h + 0.5, h + 1.0, h - 1.0]);
        }
        for (lo, hi) in ranges {
            for &v in &vs {
                assert_eq!(
                    super::int("f", v, lo, hi).ok(),
                    by_trunc(v, lo, hi),
                    "{v} {lo} {hi}"
                );
            }
        }
    }
}
