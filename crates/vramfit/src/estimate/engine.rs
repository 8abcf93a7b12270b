//! Which program runs an estimate, and what each one decides.
//!
//! [`Runner::of`] maps the mode and the engine to the program that runs them; it is the one
//! place that mapping is made. [`Runner::rules`] is the one place a runner's decisions are
//! looked up: each engine's module states its own [`Rules`] (the KV-cache types it takes, what
//! reports its peak, how its fit is judged, what its context means to a solver, its flags), and
//! every other module asks the rules, never which engine it is. A new engine is a module with
//! its rules and its run shape, and an arm here.

use super::{Engine, Mode, Parts, PeakSource, Phase, Run};
use crate::precision::KvDtype;
use crate::throughput::Runtime;

/// The program that runs an estimate: training is PyTorch whatever the engine; llama.cpp and
/// Ollama serve or infer; vLLM serves (any engine without a serving mode of its own) or infers;
/// transformers infers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// PyTorch training (transformers, TRL, DeepSpeed …).
    Training,
    /// Hugging Face transformers inference.
    Transformers,
    /// vLLM.
    Vllm,
    /// SGLang.
    Sglang,
    /// llama.cpp (`llama-server`, `llama-cli`).
    Llamacpp,
    /// Ollama, which runs llama.cpp with its own context and offload decision.
    Ollama,
    /// TensorRT-LLM (`trtllm-serve`, the LLM API).
    Trtllm,
    /// mlx-lm on Apple silicon (`mlx_lm.generate`, `mlx_lm.server`).
    Mlx,
    /// Hugging Face Text Embeddings Inference (`text-embeddings-router`): pooling runs only.
    Tei,
}

/// How a runner runs an embedding or scoring model. Compared whole nowhere: the derived
/// equality would compare `check`'s function pointers, which mean nothing.
#[allow(unpredictable_function_pointer_comparisons)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pooling {
    /// The engine's words for it.
    pub(super) flag: &'static str,
    /// Whether a decoder's LM head is still built.
    pub(super) lm_head: bool,
    /// Whether an encoder (BERT, RoBERTa, XLM-RoBERTa) is modelled on it: an engine that
    /// sizes a token pool for it anyway is refused rather than shown without its pool.
    pub(super) encoders: bool,
    /// Whether `runner` left out pools a checkpoint that ships sentence-transformers' pooling
    /// config ([`crate::presets::Preset::pooling`]), as vLLM's `--runner auto` does; the others
    /// pool a decoder only when told (SGLang's `--is-embedding`).
    pub(super) auto: bool,
    /// Whether the engine runs pooling models alone (TEI): `runner` left out pools, and
    /// `generate` is refused.
    pub(super) only: bool,
    /// The engine's own checks on a pooling input, beyond the shared ones (TEI's one GPU and
    /// `--dtype`).
    pub(super) check:
        Option<fn(&super::EstimateInput, &crate::model::Architecture) -> crate::error::Result<()>>,
}

impl Runner {
    /// What runs `engine` in `mode`.
    pub const fn of(mode: Mode, engine: Engine) -> Runner {
        match (mode, engine) {
            (Mode::Training, _) => Runner::Training,
            (_, Engine::Llamacpp) => Runner::Llamacpp,
            (_, Engine::Ollama) => Runner::Ollama,
            (_, Engine::Sglang) => Runner::Sglang,
            (_, Engine::Trtllm) => Runner::Trtllm,
            (_, Engine::Mlx) => Runner::Mlx,
            (_, Engine::Tei) => Runner::Tei,
            (Mode::Serve, Engine::Hf) | (_, Engine::Vllm) => Runner::Vllm,
            (Mode::Inference, Engine::Hf) => Runner::Transformers,
        }
    }

    /// Whether this build estimates it: TensorRT-LLM's, mlx-lm's, TEI's and training's run shapes are
    /// features of their own, left out of the site's first load.
    pub const fn built(self) -> bool {
        let left_out = (matches!(self, Runner::Trtllm) && !cfg!(feature = "trtllm"))
            || (matches!(self, Runner::Mlx) && !cfg!(feature = "mlx"))
            || (matches!(self, Runner::Tei) && !cfg!(feature = "tei"))
            || (matches!(self, Runner::Training) && !cfg!(feature = "training"));
        !left_out
    }

    /// Its decisions.
    pub const fn rules(self) -> &'static Rules {
        match self {
            Runner::Training => &super::training::RULES,
            Runner::Transformers => &super::hf::RULES,
            Runner::Vllm => &super::vllm::RULES,
            Runner::Sglang => &super::sglang::RULES,
            Runner::Llamacpp => &super::llamacpp::RULES,
            Runner::Ollama => &super::ollama::RULES,
            Runner::Trtllm => &super::trtllm::RULES,
            Runner::Mlx => &super::mlx::RULES,
            Runner::Tei => &super::tei::RULES,
        }
    }

    /// The context a run gets when `max_model_len` is not given: llama.cpp's `-c` holds every
    /// sequence (`per_sequence × batch`); Ollama's `num_ctx` follows the card's memory
    /// (`vram`: every GPU's together) and the model's trained context (`trained`, 0 when
    /// unknown); the others take `fallback` (the trained context, else the sequence).
    pub(super) fn default_context(
        self,
        per_sequence: u64,
        batch: u64,
        vram: Option<u64>,
        trained: u64,
        fallback: u64,
    ) -> u64 {
        match self {
            Runner::Llamacpp => per_sequence.saturating_mul(batch),
            Runner::Ollama => super::ollama::default_num_ctx(vram, trained),
            _ => fallback,
        }
    }

    /// The tokens one engine step takes when `max_num_batched_tokens` is not given: SGLang's
    /// `chunked_prefill_size` (`sglang_default`), TensorRT-LLM's `max_num_tokens` 8,192, vLLM's
    /// 8,192 on a large card and 2,048 on others.
    pub(super) fn default_batched_tokens(self, big: bool, sglang_default: u64) -> u64 {
        match self {
            Runner::Sglang => sglang_default,
            Runner::Trtllm => super::trtllm::TRTLLM_MAX_NUM_TOKENS,
            Runner::Mlx => super::mlx::MLX_PREFILL_STEP_SIZE,
            Runner::Tei => super::tei::TEI_MAX_BATCH_TOKENS,
            _ if big => 8192,
            _ => 2048,
        }
    }

    /// How this runner runs an embedding or scoring model (`runner: pooling`); `None` where it
    /// runs none (TensorRT-LLM, mlx-lm and training are not modelled).
    pub(super) const fn pooling(self) -> Option<Pooling> {
        match self {
            // `--runner pooling`: the pooling adapter builds the model without its LM head and
            // logits processor (`_create_pooling_model_cls`, `no_init_weights(... targets=
            // (LogitsProcessor, ParallelLMHead))`, vllm/model_executor/models/adapters.py
            // lines 145-152 at 0.33.0).
            Runner::Vllm => Some(Pooling {
                flag: "--runner pooling",
                lm_head: false,
                encoders: true,
                auto: true,
                only: false,
                check: None,
            }),
            // `--is-embedding`: Qwen2/Qwen3ForCausalLM build `lm_head` and the pooler beside it
            // (sglang/srt/models/qwen3.py lines 580-594 at 0.5.23).
            // An encoder still gets its token pool from `mem_fraction_static`, which its
            // attention backend only leaves unwritten (sglang/srt/layers/attention/
            // flashinfer_backend.py line 1457 at 0.5.23): not modelled, so refused.
            Runner::Sglang => Some(Pooling {
                flag: "--is-embedding",
                lm_head: true,
                encoders: false,
                auto: false,
                only: false,
                check: None,
            }),
            // sentence-transformers loads `AutoModel`: the base model, no LM head.
            Runner::Transformers => Some(Pooling {
                flag: "AutoModel (sentence-transformers)",
                lm_head: false,
                encoders: true,
                auto: false,
                only: false,
                check: None,
            }),
            // `llama-server --embedding` (`--pooling …`, `--reranking`): the GGUF as converted
            // (an output matrix where it has one), no KV cache for an encoder
            // (`llamacpp_pooling.rs`); the model's pooling type decides nothing else.
            Runner::Llamacpp => Some(Pooling {
                flag: "--embedding",
                lm_head: true,
                encoders: true,
                auto: false,
                only: false,
                check: None,
            }),
            // Ollama's `/api/embed`: a GGUF that names `{arch}.pooling_type` is an embedding
            // model, which Ollama runs as llama-server `--embedding` (`llm/llama_server.go` at
            // v0.33.0-rc2), so a checkpoint that ships a pooling config pools unasked.
            Runner::Ollama => Some(Pooling {
                flag: "/api/embed",
                lm_head: true,
                encoders: true,
                auto: true,
                only: false,
                check: None,
            }),
            // `text-embeddings-router`: an embedding, reranking or classification model alone
            // (`ModelType::Embedding` / `Classifier`, backends/src/lib.rs at v1.9.3); its candle
            // models build no LM head.
            Runner::Tei => Some(Pooling {
                flag: "text-embeddings-router",
                lm_head: false,
                encoders: true,
                auto: true,
                only: true,
                check: Some(super::tei::check_input),
            }),
            _ => None,
        }
    }

    /// Whether this runner reads `engine_version`: vLLM's rules change by release.
    pub(super) const fn reads_engine_version(self) -> bool {
        matches!(self, Runner::Vllm)
    }

    /// Whether this runner reads `engine_version` as a transformers release (its MLA cache
    /// changed in 5.15): transformers inference and training.
    pub(super) const fn reads_transformers_version(self) -> bool {
        matches!(self, Runner::Transformers | Runner::Training)
    }

    /// Whether this runner reads `engine_version` as a llama.cpp build (its output layer's
    /// placement and its logits reserve changed by build): llama.cpp.
    pub(super) const fn reads_llamacpp_build(self) -> bool {
        matches!(self, Runner::Llamacpp)
    }

    /// How this runner allocates LoRA adapter slots (`enable_lora`): vLLM's
    /// `LoRAModelManager` and SGLang's `LoRAMemoryPool`; `None` for the others (not modelled).
    pub(super) const fn lora_rules(self) -> Option<&'static super::LoraRules> {
        match self {
            Runner::Vllm => Some(&super::vllm::LORA),
            Runner::Sglang => Some(&super::sglang::LORA),
            _ => None,
        }
    }

    /// Whether this runner serves speculative decoding as vramfit models it (vLLM's
    /// `--speculative-config`, SGLang's `--speculative-algorithm`: the drafter beside the
    /// target, its layers in the one pool).
    pub(super) const fn serves_speculative(self) -> bool {
        matches!(self, Runner::Vllm | Runner::Sglang)
    }

    /// Whether this runner offloads evicted KV blocks to CPU memory (`kv_offloading_size`):
    /// vLLM's `--kv-offloading-size`.
    pub(super) const fn offloads_kv(self) -> bool {
        matches!(self, Runner::Vllm)
    }

    /// Whether this runner serves one side of disaggregated prefill and decode
    /// (`disaggregation_mode`): SGLang's `--disaggregation-mode`, vLLM's KV connectors.
    pub(super) const fn disaggregates(self) -> bool {
        matches!(self, Runner::Vllm | Runner::Sglang)
    }

    /// Whether this runner's P/D sides size their memory differently (SGLang: its defaults and
    /// graphs by side); vLLM's connectors leave both sides a plain server's memory.
    pub(super) const fn sizes_by_side(self) -> bool {
        matches!(self, Runner::Sglang)
    }

    /// The sequences one engine runs at once when `max_num_seqs` is not given: TensorRT-LLM's
    /// `max_batch_size` 2,048; vLLM's 1,024 on a large card and 256 on others (SGLang sizes its
    /// own from its pool).
    pub(super) fn default_max_seqs(self, big: bool) -> u64 {
        match self {
            Runner::Trtllm => super::trtllm::TRTLLM_MAX_BATCH_SIZE,
            _ if big => 1024,
            _ => 256,
        }
    }

    /// Its run shape: the parts it adds, and the peak's phase, the trainable parameters and the
    /// bytes kept in CPU memory.
    pub(super) fn run(self, r: &Run<'_>, p: &mut Parts) -> (Phase, u64, u64) {
        match self {
            #[cfg(feature = "training")]
            Runner::Training => match &r.rl {
                Some(rl) => r.rl(rl, p),
                None => r.training(p),
            },
            // A build without training refuses its inputs (`Runner::built`).
            #[cfg(not(feature = "training"))]
            Runner::Training => (Phase::ForwardLoss, 0, 0),
            Runner::Transformers => r.hf_inference(p),
            Runner::Vllm => r.vllm(p),
            Runner::Sglang => r.sglang(p),
            Runner::Llamacpp => {
                r.llamacpp_vision_note(p);
                r.llamacpp(p)
            }
            Runner::Ollama => r.ollama(p),
            #[cfg(feature = "tei")]
            Runner::Tei => r.tei(p),
            // A build without TEI refuses its inputs (`Runner::built`): no workload reaches here.
            #[cfg(not(feature = "tei"))]
            Runner::Tei => (Phase::Prefill, 0, 0),
            #[cfg(feature = "mlx")]
            Runner::Mlx => r.mlx(p),
            // A build without mlx-lm refuses its inputs (`Runner::built`): no workload reaches
            // here.
            #[cfg(not(feature = "mlx"))]
            Runner::Mlx => (Phase::Prefill, 0, 0),
            #[cfg(feature = "trtllm")]
            Runner::Trtllm => r.trtllm(p),
            // A build without TensorRT-LLM refuses its inputs (`Runner::built`): no workload
            // reaches here.
            #[cfg(not(feature = "trtllm"))]
            Runner::Trtllm => (Phase::Serving, 0, 0),
        }
    }
}

impl super::EstimateInput {
    /// What runs this input ([`Runner::of`] its mode and engine).
    pub const fn runner(&self) -> Runner {
        Runner::of(self.run.mode, self.run.engine)
    }

    /// The engine its workload names: transformers asked to serve is vLLM serving
    /// ([`Runner::of`]).
    pub(super) const fn workload_engine(&self) -> Engine {
        match (self.run.mode, self.run.engine) {
            (Mode::Serve, Engine::Hf) => Engine::Vllm,
            (_, engine) => engine,
        }
    }
}

impl Engine {
    /// The engine's own program, whatever the mode: what it is named by (the model names it
    /// takes) holds when it trains too, although PyTorch then runs the training.
    pub(super) const fn program(self) -> Runner {
        Runner::of(Mode::Inference, self)
    }
}

impl super::Workload {
    /// What runs this workload ([`Runner::of`] its mode and engine).
    pub const fn runner(&self) -> Runner {
        Runner::of(self.mode, self.engine)
    }

    /// Its runner's decisions.
    pub const fn rules(&self) -> &'static Rules {
        self.runner().rules()
    }
}

/// How an engine's dtype `auto` runs a checkpoint whose config says float32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fp32Auto {
    /// In float32, as the checkpoint says (transformers, the GGUF and MLX runners, training).
    Keeps,
    /// vLLM's `_resolve_auto_dtype`: the platform's first dtype, bf16 where the card computes in
    /// it, fp16 for a pooling (encoder-only) model.
    Vllm,
    /// SGLang's `_get_and_verify_dtype` (0.5.23 `configs/model_config.py`): fp16 ("following the
    /// common practice"), bf16 for Gemma; 2 bytes a weight either way.
    Sglang,
    /// TEI's candle build on CUDA: float16 whatever the checkpoint, `--dtype` not given
    /// (`DType::default`, backends/src/dtype.rs at v1.9.3).
    Fp16Always,
}

/// What one runner decides, stated once in its own module.
#[derive(Debug)]
pub struct Rules {
    /// Its name as its users write it: `vLLM`, `llama.cpp`.
    pub name: &'static str,
    /// What reports its peak: PyTorch's allocator (which keeps a reserve beyond it), or the
    /// engine's own buffers.
    pub peak: PeakSource,
    /// The KV-cache types it takes (`None`: it keeps no KV cache of its own kind, training).
    pub kv_dtypes: Option<&'static [KvDtype]>,
    /// What the card must hold for the run to count as fitting.
    pub required: Required,
    /// What its context is, for the solvers and for the trained-context check.
    pub context: Context,
    /// What it does with a context past the model's trained one.
    pub past_trained: PastTrained,
    /// How it places layers on the CPU.
    pub offload: LayerOffload,
    /// Whether the first of the layers it puts on the GPUs is the output layer, then the last
    /// blocks (llama.cpp's `-ngl` since PR #18148, December 2025); otherwise the blocks come
    /// first and the output layer last (Ollama's planning).
    pub output_layer_first: bool,
    /// Whether a GGUF checkpoint is dequantized on load (PyTorch).
    pub dequantizes_gguf: bool,
    /// Whether it keeps an MLA model's cache decompressed as transformers did before 5.15
    /// (transformers' runners, whose `engine_version` then decides: [`Run::mla_decompressed`]).
    pub decompressed_mla: bool,
    /// How it keeps DeepSeek Sparse Attention's indexer keys (and, in fp8, the MLA latent
    /// beside them).
    pub indexer_keys: IndexerKeys,
    /// Whether it builds Gated DeltaNet layers beside plain (ungated) attention, OLMo Hybrid's
    /// stack (vLLM's and SGLang's `OlmoHybridForCausalLM`, transformers'); llama.cpp builds
    /// Gated DeltaNet only in Qwen3-Next's and Qwen3.5's graphs, whose attention is gated
    /// (`src/llama-arch.cpp` at 00395eb names no OLMo Hybrid), and Ollama runs its models.
    pub delta_net_with_plain_attention: bool,
    /// Whether it builds Gemma 4's text stack (full-attention layers of `global_head_dim`,
    /// per-layer embeddings, KV shared across the last layers); where it does not, such a model
    /// is refused by the engine (`workload/checks.rs`).
    pub gemma4_layers: bool,
    /// Whether it builds Step 3.5's stack (`Step3p5ForCausalLM`: sliding layers with their own
    /// query heads, a gate per head, experts with a shared expert), as transformers 5.24, vLLM
    /// (`model_executor/models/step3p5.py` at 01b50b9), SGLang (`is_hybrid_swa_model` names
    /// `Step3p5ForCausalLM`) and llama.cpp (`src/models/step35.cpp` at 08b8861, an iSWA cache)
    /// do; where it does not, or vramfit has not checked how it holds them, such a model is
    /// refused by the engine (`workload/checks.rs`).
    pub step3p5_layers: bool,
    /// Whether it runs GLM-5-Next (`glm5_next`: Kimi Delta Attention beside NoPE MLA with a
    /// pooled indexer, hyper-connections) as vramfit has checked: transformers 5.24, and SGLang,
    /// which registers `Glm5NextForConditionalGeneration` (sgl-project/sglang@0096f824
    /// `python/sglang/srt/models/glm5_next.py`) and keeps its KDA states in the MambaPool
    /// (`KimiLinearCacheParams` in `configs/glm5_next.py`). Where it does not, such a model is
    /// refused by the engine (`workload/checks.rs`): vLLM registers no GLM-5-Next
    /// (vllm-project/vllm@bf8e7624 `model_executor/models/registry.py`), and neither does any
    /// other engine vramfit models; the training stacks' activations of the streams are not
    /// modelled.
    pub pooled_indexer: bool,
    /// How it keeps DeepSeek-V4's compressed attention, if it runs it (`estimate/compressed.rs`);
    /// where it does not, such a model is refused by the engine (`workload/checks.rs`).
    pub compressed_cache: CompressedCache,
    /// Whether it allocates every Gemma 4 layer's k and v projections, those of the KV-shared
    /// layers and the value slot of a layer whose keys are its values too (vLLM's
    /// `Gemma4Attention` builds one `QKVParallelLinear` per layer and loads the keys into both
    /// slots), where transformers builds only the projections used.
    pub gemma4_full_qkv: bool,
    /// Whether it loads every Gemma 3n layer's k and v projections and k norm, the KV-shared
    /// layers' too: vLLM (as for Gemma 4) and llama.cpp, whose `src/models/gemma3n.cpp` at
    /// 3688fa8 creates them for every layer as required tensors (the GGUF keeps them), where
    /// transformers builds only the projections used.
    pub gemma3n_full_qkv: bool,
    /// How it spreads a MoE model's experts over the GPUs, if it does.
    pub expert_parallel: ExpertParallel,
    /// How its dtype `auto` runs an fp32 checkpoint.
    pub fp32_auto: Fp32Auto,
    /// Whether its fp8 KV cache needs a card that computes in FP8 (TensorRT-LLM; vLLM and
    /// SGLang store fp8 on older cards too).
    pub native_kv_formats: bool,
    /// Whether it runs flash attention only when asked (Ollama's `OLLAMA_FLASH_ATTENTION=1`),
    /// holding the attention scores otherwise.
    pub flash_only_when_asked: bool,
    /// Whether it keeps the routed experts of the first blocks in CPU memory when asked
    /// (llama.cpp's `--n-cpu-moe N`, `--cpu-moe`).
    pub expert_offload: bool,
    /// What it does with GPUs that are not alike (`cards`), and so whether it takes llama.cpp's
    /// `tensor_split`, `split_mode` and `main_gpu`.
    pub unlike_cards: UnlikeCards,
    /// Whether it takes its own library's model names (Ollama's `llama3.1:8b`): a name that
    /// picks a preset and a GGUF file type.
    pub library_names: bool,
    /// Whether it runs attention in data parallel within the tensor-parallel group (SGLang's
    /// `--attn-dp-size`).
    pub dp_attention: bool,
    /// Whether its copies of a server (`gpus = tp × pp × copies`) share the concurrent
    /// requests asked for (`batch`), each holding ceil(batch / copies): a serving engine's
    /// data parallel. Elsewhere `batch` is each copy's.
    pub copies_share_requests: bool,
    /// The speed model's class of efficiency.
    pub runtime: Runtime,
    /// The weight formats people run with it, most precise first ("which models fit").
    pub formats: Formats,
    /// Which of a card's traits its estimate reads besides the memory: cards alike in these
    /// give the same estimate ("which models fit" estimates one card of each class).
    pub reads: CardTraits,
}

/// What an engine does with GPUs that are not alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnlikeCards {
    /// It gives each GPU whole layers by a tensor split of its own (llama.cpp's `-ts`, by each
    /// card's free memory when not given), each with its KV cache and compute buffer.
    SplitsLayers,
    /// Tensor (and data) parallelism gives every rank an equal shard and the engine sizes its
    /// pool from each rank's profile: the smallest card decides for all of them.
    EqualShards,
    /// It spreads layers by a plan of its own (Ollama: the GPUs by free memory, the freest alone
    /// when it holds the whole model, else each by its estimate, then llama.cpp with that split).
    OwnPlan,
    /// It does not run over several unlike cards as vramfit models it (MLX: one Apple GPU).
    NotFollowed,
}

/// How an engine keeps DeepSeek Sparse Attention's indexer keys: one key of `index_head_dim`
/// per token in each layer with an indexer, beside the MLA latent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexerKeys {
    /// In the activation dtype, the latent compressed beside it (transformers 5.24
    /// `DynamicIndexedLayer`: `indexer_keys` `[batch, tokens, index_head_dim]`, the MLA latent
    /// and rotary key as the layer's keys and values).
    ActivationDtype,
    /// At the KV cache's type, like the latent (llama.cpp's `llama_kv_cache_dsa`: the indexer
    /// cache is a `llama_kv_cache` of `type_k` with one head of `indexer_head_size`).
    KvType,
    /// FP8 with an fp32 scale per 128 (vLLM's `DeepseekV32IndexerCache`, SGLang's
    /// `NSATokenToKVPool`: `index_head_dim + index_head_dim / 128 × 4` bytes), and an fp8
    /// latent in FlashMLA's 656-byte layout (512 fp8, 4 fp32 scales, 64 bf16 rotary: vLLM's
    /// `FlashMLASparseBackend`, `fp8_ds_mla`).
    Fp8Blocks,
    /// Not documented: the wider of the two layouts, keys in the activation dtype and an fp8
    /// latent in the 656-byte layout.
    Widest,
}

/// How an engine keeps DeepSeek-V4's compressed attention (`estimate/compressed.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompressedCache {
    /// Not run, or not modelled: refused by name with the engine.
    Refused,
    /// transformers 5.24's `DeepseekV4CSACache` / `DeepseekV4HCACache`: the window a slice of
    /// the prompt's keys until the first decode step (keys and values apart in the window-only
    /// layers' `DynamicSlidingWindowLayer`), the compressors' remainders slices of the prompt's
    /// projections likewise, the entries grown by concatenation (checked with real tensors in
    /// `tests/reference/compressed-reference.csv`).
    Transformers,
    /// A paged pool (vLLM's `DeepseekV4SWACache` and compressed pages, SGLang's): one key-value
    /// row per window token and per entry, counted at the activation width even where the
    /// engine stores fp8 (the safe side), and the compressors' unfinished windows per request
    /// in fp32.
    Paged,
}

/// How a serving engine spreads a MoE model's experts over its GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpertParallel {
    /// It does not: `ep` is 1.
    None,
    /// Over the whole tensor × data parallel group (vLLM's `--enable-expert-parallel`).
    WholeGroup,
    /// Over a divisor of the tensor × data parallel group (SGLang's `--ep-size`).
    DividesGroup,
}

/// What the card must hold for a run to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Required {
    /// What `nvidia-smi` shows at the peak.
    Total,
    /// The memory whose budget holds the run as asked (a serving engine's pool for the wanted
    /// sequences; Ollama: the whole model on the GPUs).
    Theory,
}

/// What a runner's context is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Training: the sequence (`seq_len`).
    Sequence,
    /// Inference: the prompt, to which the generated tokens are added.
    Prompt,
    /// The engine's own per-sequence context (vramfit's `max_model_len`): `max_model_len`
    /// (vLLM), `context_length` (SGLang), `num_ctx` (Ollama).
    PerSequence {
        /// Its setting, as the engine spells it.
        setting: &'static str,
    },
    /// llama.cpp's context (vramfit's `max_model_len`), which every sequence shares.
    Shared {
        /// Its flag.
        setting: &'static str,
    },
}

/// What a runner does with a context past the model's `max_position_embeddings`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PastTrained {
    /// Runs it: learned position embeddings (GPT-2, BERT) fail there, rotary ones run
    /// untrained that far (PyTorch).
    Runs,
    /// Says nothing that vramfit notes: llama.cpp only warns; Ollama clamps `num_ctx` and its
    /// own note says so.
    Unnoted,
    /// Refuses to start unless `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` (or a `rope_scaling` that
    /// extends the context).
    RefusedUnlessVllmAllowLong,
    /// Refuses to start unless `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1`.
    RefusedUnlessSglangOverwrite,
}

/// How a runner places a model's layers between the GPUs and the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerOffload {
    /// Every layer on the GPUs (PyTorch, the serving engines).
    None,
    /// The layers the user gives to the GPUs (llama.cpp's `-ngl`), the rest on the CPU: whole
    /// layers of a GGUF file split over the GPUs and the CPU.
    GpuLayers,
    /// As [`LayerOffload::GpuLayers`], the number decided by the engine from the free memory
    /// (Ollama), unless the user gives it (`num_gpu`).
    EngineDecides,
}

impl LayerOffload {
    /// Whether it splits whole layers over the GPUs and the CPU (a GGUF runner).
    pub const fn splits_layers(self) -> bool {
        !matches!(self, LayerOffload::None)
    }
}

impl Context {
    /// Whether the context is the engine's own setting (`max_model_len` in the input), not the
    /// sequence.
    pub const fn is_engine_setting(self) -> bool {
        matches!(self, Context::PerSequence { .. } | Context::Shared { .. })
    }
}

/// The weight formats a runner is tried in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formats {
    /// The checkpoint as released (training).
    Checkpoint,
    /// The checkpoint, bitsandbytes int8 and NF4 (transformers).
    Bitsandbytes,
    /// The checkpoint, FP8 and AWQ (serving engines).
    Serving,
    /// GGUF files, F16 to Q3_K_M (llama.cpp, Ollama).
    Gguf,
    /// The checkpoint and MLX's 8-bit and 4-bit conversions (mlx-lm).
    Mlx,
}

/// The traits of a card, besides its memory, that a runner's estimate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardTraits {
    /// Its generation's cuBLAS workspace (PyTorch's).
    pub workspace: bool,
    /// vLLM's per-card defaults: bf16 for `dtype auto`, the A100's and the big cards' batch
    /// defaults.
    pub vllm_defaults: bool,
    /// Defaults that follow the memory size itself (SGLang's, Ollama's context).
    pub memory: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_of_each_mode_and_engine() {
        use Engine as E;
        let cases = [
            (Mode::Training, E::Vllm, Runner::Training),
            (Mode::Training, E::Llamacpp, Runner::Training),
            (Mode::Inference, E::Hf, Runner::Transformers),
            (Mode::Serve, E::Hf, Runner::Vllm),
            (Mode::Inference, E::Vllm, Runner::Vllm),
            (Mode::Serve, E::Sglang, Runner::Sglang),
            (Mode::Inference, E::Ollama, Runner::Ollama),
            (Mode::Serve, E::Llamacpp, Runner::Llamacpp),
            (Mode::Serve, E::Trtllm, Runner::Trtllm),
            (Mode::Inference, E::Trtllm, Runner::Trtllm),
            (Mode::Training, E::Trtllm, Runner::Training),
            (Mode::Inference, E::Mlx, Runner::Mlx),
            (Mode::Serve, E::Mlx, Runner::Mlx),
            (Mode::Training, E::Mlx, Runner::Training),
            (Mode::Serve, E::Tei, Runner::Tei),
            (Mode::Inference, E::Tei, Runner::Tei),
            (Mode::Training, E::Tei, Runner::Training),
        ];
        for (mode, engine, runner) in cases {
            assert_eq!(Runner::of(mode, engine), runner, "{mode:?} {engine:?}");
        }
    }

    /// Every runner's rules hold together: one that splits layers over the CPU reports
    /// llama.cpp's buffers and runs GGUF files as they are; one whose peak is PyTorch's never
    /// splits layers.
    #[test]
    fn each_runners_rules_are_consistent() {
        let all = [
            Runner::Training,
            Runner::Transformers,
            Runner::Vllm,
            Runner::Sglang,
            Runner::Llamacpp,
            Runner::Ollama,
            Runner::Trtllm,
            Runner::Mlx,
            Runner::Tei,
        ];
        for r in all {
            let rules = r.rules();
            let splits = rules.offload.splits_layers();
            assert_eq!(splits, rules.peak == PeakSource::Llamacpp, "{r:?}");
            assert_eq!(splits, rules.formats == Formats::Gguf, "{r:?}");
            assert!(!(splits && rules.dequantizes_gguf), "{r:?}");
            assert_eq!(rules.kv_dtypes.is_none(), r == Runner::Training, "{r:?}");
            assert!(!rules.name.is_empty());
            assert_eq!(rules.library_names, r == Runner::Ollama, "{r:?}");
        }
    }
}
