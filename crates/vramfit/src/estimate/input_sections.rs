//! The sections of [`super::EstimateInput`]: what is run (`model`), how (`run`), training's and
//! the serving engines' own choices (`training`, `serving`), on what (`hardware`) and laid out
//! how (`placement`). Each is plain data with its defaults; on the wire their fields are the
//! input's own flat keys. Declared once, through `input_wire.rs`'s `input_sections!`
//! (`super::input_wire::input_sections`), which also writes the flat wire form from the same
//! lists.

use super::input_choices::{
    AttentionImpl, Checkpointing, Engine, KvOffloadingBackend, Logits, Mode, Offload, Optimizer,
    Precision, RecomputeMethod, RlAlgorithm, Rollout, RunnerType, SpecMethod, SplitMode,
};
use super::input_disaggregation::{DisaggregationMode, TransferBackend};
use super::input_regimes::{Loss, Stack};
use crate::model::Architecture;
use crate::precision::{Dtype, KvDtype, Quantization};
use alloc::string::String;
use alloc::vec::Vec;

// One list per section: each field's doc, name, type and default; `input_wire.rs`'s macro writes
// the structs, their `Default`, and the flat wire form the input is read through.
super::input_wire::input_sections! {
    /// What is run: the model, by preset, bare parameter count or architecture, and the form its
    /// weights are stored in.
    model => pub struct ModelInput {
        /// A preset, by Hugging Face id (case-insensitive); with engine `ollama`, also an Ollama
        /// library name (`llama3.1:8b`, `qwen3:32b-q4_K_M`), which names a preset and a GGUF file type.
        pub model: Option<String> = None,
        /// A bare parameter count (`7B`, `7e9`, `340M`): the guide's quick mode.
        pub params: Option<String> = None,
        /// An architecture, e.g. from [`crate::config::parse_config`].
        pub arch: Option<Architecture> = None,
        /// The checkpoint's own dtype, for a model given as `arch`: its config.json's `torch_dtype`
        /// (or `dtype`), or its safetensors header's element type. Not a choice of the run: `dtype`
        /// left absent resolves from it by the engine's rule (vLLM's `auto` serves an fp32
        /// checkpoint in bf16 or fp16, transformers loads it as stored), as it does from a preset's.
        pub checkpoint_dtype: Option<Dtype> = None,
        /// Weight format: an object tagged by `format` (`{"format": "gptq", "bits": 4,
        /// "group_size": 128}`) or the CLI's spelling (`"gptq"`, `"gguf-q4_k_m"`).
        pub quantization: Quantization = Quantization::None,
    }

    /// How it is run: the mode, the engine and its release, the shape of the work (sequences,
    /// prompt and generated tokens, images) and the dtypes and kernels it runs with.
    run => pub struct RunInput {
        /// Inference, serve or training.
        pub mode: Mode = Mode::Inference,
        /// Inference engine.
        pub engine: Engine = Engine::Hf,
        /// The engine's release. vLLM's: `0.6` to `0.33`, or with its patch (`0.8.5`); it picks
        /// the rules of that line: V0 or V1, the profile run's defaults, whether the CUDA graphs are
        /// taken out of the pool's budget (from 0.21). Default: the latest, 0.33. SGLang's: `0.4.0`
        /// to `0.5.23` as SGLang tags them (`0.4.3.post3`, `0.5.2rc1`); it picks that release's
        /// default `mem_fraction_static` (fixed by tp up to 0.4.6, a reserve by card from 0.4.7, by
        /// the prefill chunk and CUDA graphs from 0.5.3), `chunked_prefill_size`,
        /// `cuda_graph_max_bs`, its prefill CUDA graphs (from 0.5.10) and the launch's flags.
        /// Default: 0.5.23. transformers' (the
        /// `hf` engine): `4.0` to `5.25`; an MLA model (DeepSeek) caches every head's keys and values
        /// before 5.15, its compressed latent from 5.15. Default: 5.25. llama.cpp's build (its
        /// release tag `b4500`, or the number its log prints after `build:`): `b2000` to `b10615`;
        /// from b7438 `-ngl` gives its first layer to the output layer (PR #18148), before it the
        /// last N blocks; from b9509 the compute buffer is reserved for one output per sequence
        /// (PR #23861), before it for every token of the ubatch. Default: the latest, b10615.
        /// Ollama's release (`0.30.5`): `0.1` to `0.32.15`; up to 0.24 its Go runner with its own
        /// layer plan, from 0.30 `llama-server` of the llama.cpp build it pins, flash attention
        /// auto, its automatic batch and `llama-server`'s fit of the layers. Default: 0.32.15.
        pub engine_version: Option<String> = None,
        /// Sequences per batch (training: micro-batch per GPU); serving: the concurrent requests
        /// wanted (vLLM, SGLang); Ollama: `OLLAMA_NUM_PARALLEL`, each with a context of its own.
        pub batch: f64 = 1.0,
        /// Prompt tokens (training: sequence length).
        pub seq_len: f64 = 2048.0,
        /// Generated tokens per sequence (inference).
        pub new_tokens: f64 = 256.0,
        /// Model dtype, as the engine's `--dtype` sets it; absent, the engine's `auto` resolves it
        /// from the checkpoint's own dtype (the preset's, else `checkpoint_dtype`, else bf16).
        pub dtype: Option<Dtype> = None,
        /// KV-cache dtype.
        pub kv_dtype: KvDtype = KvDtype::Auto,
        /// Attention implementation.
        pub attention: AttentionImpl = AttentionImpl::Sdpa,
        /// Logits kept.
        pub logits: Logits = Logits::Last,
        /// vLLM `--runner`: `generate` or `pooling` (embedding, reranking and classification
        /// models: vLLM's older `--task embed|score|classify` and `--convert embed|classify`,
        /// SGLang `--is-embedding`, llama.cpp `--embedding` (`--reranking`, `--pooling`), Ollama's
        /// `/api/embed`, transformers' forward of the base model as sentence-transformers runs it).
        /// A pooling run generates no tokens (`new_tokens` is taken as 0) and has no sampler: vLLM
        /// and transformers build no LM head, SGLang and llama.cpp keep it; llama.cpp keeps no KV
        /// cache for an encoder and needs its input in one ubatch. vLLM, SGLang, llama.cpp, Ollama
        /// and transformers inference. Default: `pooling` for an encoder (BERT, RoBERTa,
        /// XLM-RoBERTa) on those engines and, with vLLM and Ollama, for a preset that ships
        /// sentence-transformers' pooling config (Qwen3-Embedding), as vLLM's `--runner auto` and
        /// Ollama's embedding models do; else `generate`.
        pub runner: Option<RunnerType> = None,
        /// Images per request (vLLM `--limit-mm-per-prompt '{"image": N}'`, the most a prompt
        /// holds), 0 to 1024; each adds its tokens by the model's own rule to the prompt (Gemma 3's
        /// fixed 256, Qwen-VL's dynamic resolution, InternVL's tiles of 448, Pixtral's rows), so the
        /// KV cache and activations of every engine grow by them. A model without such a rule is
        /// refused by name. Default 0.
        pub images: f64 = 0.0,
        /// Each image's width in pixels, 1 to 32768. Default 1024. With `images` only.
        pub image_width: Option<f64> = None,
        /// Each image's height in pixels, 1 to 32768. Default 1024. With `images` only.
        pub image_height: Option<f64> = None,
        /// vLLM loads and profiles no encoder tower: `--language-model-only`, or
        /// `--limit-mm-per-prompt` with every modality at 0 (`{"image": 0, "video": 0, "audio":
        /// 0}`; from vLLM 0.10.1, PR #22299, `SupportsMultiModal._mark_tower_model`). The model's
        /// vision and audio towers and their projectors are left out of the weights. vLLM only,
        /// without `images`. Default false (vLLM's default: every tower loaded).
        pub language_model_only: bool = false,
    }

    /// Training's own choices: the optimizer and precision regime, LoRA, the fine-tuning stack and
    /// its memory savers, RL post-training, DeepSpeed's buffers and Megatron's recomputation.
    training => pub struct TrainingInput {
        /// Optimizer.
        pub optimizer: Optimizer = Optimizer::Adamw,
        /// Fused optimizer step (`fused=True`): no foreach temporaries.
        pub fused_optimizer: bool = false,
        /// Training precision regime.
        pub precision: Precision = Precision::AmpBf16,
        /// Gradient checkpointing.
        pub grad_checkpointing: Checkpointing = Checkpointing::None,
        /// LoRA rank; 0 is full fine-tuning.
        pub lora_rank: f64 = 0.0,
        /// LoRA target modules (`q_proj`, `k_proj`, `v_proj`, `o_proj`, `gate_proj`, `up_proj`,
        /// `down_proj`, or `all-linear`); default `q_proj,v_proj` (PEFT's default for Llama). Serving
        /// with SGLang and `enable_lora`: its `--lora-target-modules` (those names, `embed_tokens`,
        /// `lm_head`, or `all`); default `all`.
        pub lora_targets: Vec<String> = Vec::new(),
        /// LoRA dropout's probability (PEFT's and TRL's `lora_dropout`, torchtune's
        /// `model.lora_dropout`, axolotl's and LLaMA-Factory's `lora_dropout`): from 0 to under 1.
        /// Above 0 every adapted module keeps the dropout's bool mask and `lora_A`'s own copy of its
        /// input for backward. Absent: the stack's default (TRL's `ModelConfig` 0.05, the others 0).
        pub lora_dropout: Option<f64> = None,
        /// QLoRA: base weights in NF4 with double quantization, LoRA adapters on top.
        pub qlora: bool = false,
        /// The fine-tuning stack (`trl`, `unsloth`, `torchtune`, `llamafactory`, `axolotl`,
        /// `deepspeed`, `fsdp`, `megatron`, `verl`, `openrlhf`), whose defaults pick `loss`,
        /// `loss_chunks`, `activation_offload`, `kbit_upcast` when they are not given. Absent:
        /// transformers' `Trainer`, every default as before.
        pub stack: Option<Stack> = None,
        /// The loss's form: `full`, `chunked` (torchtune), `fused` (Liger, Unsloth, Cut
        /// Cross-Entropy). Default: the stack's, else `full`.
        pub loss: Option<Loss> = None,
        /// `chunked` loss: torchtune's `num_output_chunks`, 1 to 1024. Default 8.
        pub loss_chunks: Option<f64> = None,
        /// torch.optim's `foreach` step (one state-sized temporary list); false is the per-tensor
        /// loop. Default true (PyTorch's default on CUDA). `fused_optimizer` has neither.
        pub foreach: bool = true,
        /// The step runs per parameter inside backward, each gradient freed after it (torchtune
        /// `optimizer_in_bwd`). Default false.
        pub optimizer_in_backward: bool = false,
        /// Saved activations (with checkpointing, the block inputs) in CPU memory (torchtune
        /// `enable_activation_offloading`; Unsloth `use_gradient_checkpointing="unsloth"`).
        /// Default: the stack's (Unsloth's on), else off.
        pub activation_offload: Option<bool> = None,
        /// Sequences packed into rows of `seq_len` (TRL `packing`/`padding_free`, torchtune
        /// `dataset.packed`, LLaMA-Factory `packing`/`neat_packing`, axolotl `sample_packing`).
        /// Default false.
        pub packing: bool = false,
        /// Whether the stack casts a quantized base's unquantized parameters (embeddings, head,
        /// norms) to fp32, as PEFT's `prepare_model_for_kbit_training` does. Default: the stack's,
        /// else true.
        pub kbit_upcast: Option<bool> = None,
        /// The model and its loss under `torch.compile` (torchtune `compile`, transformers
        /// `torch_compile`, axolotl `torch_compile`): the loss saves the logits in the compute dtype
        /// and no fp32 copy of them; a torchao NF4 or HQQ base dequantizes in one fused kernel. What
        /// compile changes in the blocks' saved activations is not counted (the safe side). Default
        /// false.
        pub compile: bool = false,
        /// RL post-training: `grpo`, `ppo` or `dpo` (training only). `batch` is then the prompts
        /// (DPO: the pairs) per GPU per step and `seq_len` the prompt's length.
        pub rl: Option<RlAlgorithm> = None,
        /// The KL coefficient: GRPO and PPO load a reference model only when it is above 0.
        /// Default the stack's: TRL `GRPOConfig.beta` 0.0, `PPOConfig.kl_coef` 0.05; verl 0 (no
        /// `use_kl_loss`); OpenRLHF `--algo.kl.init_coef` 0.01. 0 to 1000.
        pub rl_beta: Option<f64> = None,
        /// Whether a frozen reference model is on the card, overriding the algorithm's rule (`false`
        /// for DPO's `precompute_ref_log_probs`; `true` for a separate copy beside a LoRA policy).
        pub ref_model: Option<bool> = None,
        /// Completions per prompt: GRPO's group size (TRL `num_generations`, default 8; verl
        /// `actor_rollout_ref.rollout.n`, 1; OpenRLHF `--rollout.n_samples_per_prompt`, 1). TRL's
        /// PPO: 1. 1 to 1024.
        pub num_generations: Option<f64> = None,
        /// Generated tokens per completion; every sequence is `seq_len` + this. Default the stack's:
        /// TRL GRPO `max_completion_length` 512, PPO `response_length` 53, DPO `max_length` 1024
        /// less the prompt; verl `data.max_response_length` 512; OpenRLHF `--data.max_len` 2048 less
        /// the prompt. 1 to 16 M.
        pub max_completion_length: Option<f64> = None,
        /// Where the completions are generated: `colocate`, `server` or `hf`. Default the stack's:
        /// TRL `hf` (`use_vllm=False`), verl `colocate` (its hybrid engine), OpenRLHF `server`
        /// (without `--train.colocate_all`).
        pub rollout: Option<Rollout> = None,
        /// The colocated vLLM's `gpu_memory_utilization`. Default the stack's: TRL
        /// `vllm_gpu_memory_utilization` 0.3, verl `actor_rollout_ref.rollout.gpu_memory_utilization`
        /// 0.5, OpenRLHF `--vllm.gpu_memory_utilization` 0.95. 0.01 to 1.
        pub rollout_memory_utilization: Option<f64> = None,
        /// vLLM's sleep mode while the policy trains: the engine's weights and KV pool leave the GPU.
        /// Colocated rollouts only. Default the stack's: TRL `vllm_enable_sleep_mode` false, verl
        /// `free_cache_engine` true, OpenRLHF `--vllm.enable_sleep` false.
        pub sleep_mode: Option<bool> = None,
        /// DeepSpeed `reduce_bucket_size` (elements). Default 5e8 (DeepSpeed 0.19.6
        /// `runtime/zero/config.py`); transformers' `"auto"` is hidden_size².
        pub reduce_bucket_size: Option<f64> = None,
        /// DeepSpeed `allgather_bucket_size` (elements). Default 5e8; it allocates nothing (the
        /// partitions are gathered in place).
        pub allgather_bucket_size: Option<f64> = None,
        /// DeepSpeed `stage3_prefetch_bucket_size` (elements). Default 5e7; `"auto"` is
        /// 0.9 × hidden_size².
        pub stage3_prefetch_bucket_size: Option<f64> = None,
        /// DeepSpeed `stage3_max_live_parameters` (elements). Default 1e9.
        pub stage3_max_live_parameters: Option<f64> = None,
        /// DeepSpeed `stage3_param_persistence_threshold` (elements). Default 1e5; `"auto"` is
        /// 10 × hidden_size.
        pub stage3_param_persistence_threshold: Option<f64> = None,
        /// DeepSpeed `overlap_comm`: a second reduce bucket under ZeRO-1/2. Default as DeepSpeed's:
        /// true under ZeRO-3, false below.
        pub overlap_comm: Option<bool> = None,
        /// Megatron `--recompute-method` with `--recompute-granularity full` (`grad_checkpointing`
        /// full): `uniform` (chunks of `recompute_num_layers` layers, each keeping its input) or
        /// `block` (the first `recompute_num_layers` layers of each model chunk recomputed, the
        /// others keeping every activation). Absent: uniform.
        pub recompute_method: Option<RecomputeMethod> = None,
        /// Megatron `--recompute-num-layers` with `--recompute-granularity full`: an integer from 1
        /// to the layers per pipeline stage. Absent: 1.
        pub recompute_num_layers: Option<f64> = None,
        /// GaLore's projection rank (transformers `optim_args="rank=…"`, galore-torch's `rank`), with
        /// the `galore-adamw` optimizers only: an integer from 1 to 65,536. Absent: 128, transformers
        /// 5.25's default (`trainer_optimizer.py` `_get_galore_optimizer`).
        pub galore_rank: Option<f64> = None,
        /// Micro-batches per optimizer step in each data-parallel replica: transformers' and TRL's,
        /// DeepSpeed's and torchtune's `gradient_accumulation_steps`; Megatron's
        /// `--global-batch-size` / (`--micro-batch-size` × dp), its pipeline's micro-batches. An
        /// integer from 1 to 65,536. Default 1. The speed's alone: the step's tokens and the
        /// pipeline's bubble `(pp − 1) / (grad_accum × vp)`; memory per GPU is unchanged (a pipeline
        /// holds at most `pp` micro-batches' activations, which the estimate counts already).
        pub grad_accum: Option<f64> = None,
    }

    /// The serving engines' knobs (vLLM, SGLang, TensorRT-LLM, llama.cpp, Ollama, mlx-lm, TEI):
    /// memory shares, context and batch limits, CUDA graphs, KV offloading and quantization,
    /// disaggregated prefill and decode, LoRA adapters and speculative decoding.
    serving => pub struct ServingInput {
        /// vLLM `gpu_memory_utilization`.
        pub gpu_memory_utilization: f64 = 0.9,
        /// vLLM `max_model_len`; SGLang `context_length`; TensorRT-LLM `max_seq_len`; llama.cpp context (`-c`, shared by the
        /// batch); Ollama `num_ctx` (per sequence). Default: the model's `max_position_embeddings`
        /// (vLLM, SGLang), `(seq_len + new_tokens) × batch` (llama.cpp), Ollama's by the GPUs' memory
        /// (4096 below 24 GiB, 32768 below 48 GiB, else 262144; at most the model's trained context).
        pub max_model_len: Option<f64> = None,
        /// vLLM `max_num_seqs`; SGLang `max_running_requests`; TensorRT-LLM `max_batch_size`. Default
        /// as vLLM picks it: 1024 on cards of 70 GiB or more other than A100, else 256; SGLang's
        /// from its pool (2048 to 4096); TensorRT-LLM's 2048.
        pub max_num_seqs: Option<f64> = None,
        /// vLLM `max_num_batched_tokens`; SGLang `chunked_prefill_size`; TensorRT-LLM
        /// `max_num_tokens` (default 8192). Default (vLLM) 8192 on
        /// cards of 70 GiB or more other than A100, else 2048; (SGLang) by the card's memory: 2048
        /// below 35 GiB, 4096 below 60 GiB, 8192 below 160 GiB, else 16384. mlx-lm
        /// `--prefill-step-size` (default 2048): the prompt's tokens one forward takes. Text
        /// Embeddings Inference `--max-batch-tokens` (default 16384): its largest batch, which its
        /// warmup runs at start.
        pub max_num_batched_tokens: Option<f64> = None,
        /// vLLM, SGLang and TensorRT-LLM CUDA graphs (off is vLLM's `enforce_eager`, SGLang's
        /// `disable_cuda_graph`, TensorRT-LLM's `cuda_graph_config: null`).
        pub cuda_graphs: bool = true,
        /// llama.cpp `-ub` (physical batch).
        pub ubatch: f64 = 512.0,
        /// llama.cpp `--kv-unified` (`-kvu`): one KV cache shared by the sequences (true) or one
        /// stream per sequence, each with its share of the context and its own sliding window
        /// (false). Default: llama-server's with `-np` given, a stream per sequence from build
        /// b5913 (one shared cache before). Ollama from 0.30 passes `-np` without it: its runs
        /// split; this field is read for llama.cpp alone.
        pub kv_unified: Option<bool> = None,
        /// llama-server `--kv-unified-per-slot N` (ggml-org/llama.cpp#24124, from build b10662):
        /// each slot's context capped at `N` tokens; without `max_model_len` (`-c`) the shared KV
        /// pool is `N` × the slots (`batch`, `-np`), with it only a cap that holds no memory. An
        /// integer from 1, at least one sequence's `seq_len + new_tokens`; llama.cpp alone.
        pub kv_unified_per_slot: Option<f64> = None,
        /// SGLang `mem_fraction_static` (0.01 to 0.99): weights and KV pool over the memory free at
        /// start. Default as SGLang picks it from the card's memory, `chunked_prefill_size` and
        /// `cuda_graph_max_bs`; 0.88 without a card.
        pub mem_fraction_static: Option<f64> = None,
        /// SGLang `cuda_graph_max_bs`. Default by the card's memory and tp (8 below 20 GiB; 24, 32 or
        /// 256 at tp < 4 and 80, 160 or 512 at tp ≥ 4 up to 160 GiB; 512 above).
        pub cuda_graph_max_bs: Option<f64> = None,
        /// vLLM `--kv-offloading-size`: GiB of CPU memory for the KV blocks evicted from the GPU
        /// (all the tensor- and pipeline-parallel ranks of a server together), which a later
        /// request with the same prefix loads back instead of recomputing; 0.01 to 16,384. The
        /// GPU's pool, and so the requests it holds at once, do not change. vLLM 0.14 or later.
        /// Default: none, no offloading.
        pub kv_offloading_size: Option<f64> = None,
        /// vLLM `--kv-offloading-backend`: `native` (default) or `lmcache`, whose own server sizes
        /// its memory. With `kv_offloading_size` only.
        pub kv_offloading_backend: Option<KvOffloadingBackend> = None,
        /// Disaggregated prefill and decode: the side this instance serves, `prefill` or `decode`
        /// (SGLang `--disaggregation-mode`, default `null`: one server does both; vLLM
        /// `--kv-transfer-config`'s `kv_role`, `kv_producer` or `kv_consumer`). The estimate is
        /// this side's, with the other side's pool in a note. SGLang and vLLM serving only.
        pub disaggregation_mode: Option<DisaggregationMode> = None,
        /// How the KV cache crosses from the prefill side to the decode side: `mooncake` (SGLang's
        /// default; vLLM `MooncakeConnector`) or `nixl` (vLLM's default here, `NixlConnector`)
        /// (SGLang `--disaggregation-transfer-backend`, vLLM `kv_connector`). Both register the KV
        /// pool already allocated: no memory of their own. With `disaggregation_mode` only.
        pub disaggregation_transfer_backend: Option<TransferBackend> = None,
        /// SGLang `--num-reserved-decode-tokens` (default 512, 0 to 1,048,576): the decode side keeps
        /// this many tokens free for each running request's next steps before it admits another,
        /// so a request of context_length takes context_length + this many of its pool. SGLang's
        /// decode side only.
        pub num_reserved_decode_tokens: Option<f64> = None,
        /// TensorRT-LLM `kv_cache_config.free_gpu_memory_fraction` (`trtllm-serve
        /// --kv_cache_free_gpu_memory_fraction`, 0.01 to 1): the share of the memory left after its
        /// start-up profile that becomes the KV cache. Default 0.9.
        pub free_gpu_memory_fraction: Option<f64> = None,
        /// mlx-lm `--max-kv-size` (`mlx_lm.generate`): a `RotatingKVCache` of at most this many
        /// tokens per layer (its first 4 kept), 1 to 16,777,216. Default: none, the whole context.
        pub max_kv_size: Option<f64> = None,
        /// mlx-lm `--kv-bits`: the KV cache quantized to 2, 3, 4, 5, 6 or 8 bits once
        /// `quantized_kv_start` tokens are cached (`QuantizedKVCache`). Default: none, the model's
        /// dtype.
        pub kv_bits: Option<f64> = None,
        /// mlx-lm `--kv-group-size`: values per scale and bias of the quantized KV cache, 32, 64
        /// or 128. Default 64. With `kv_bits` only.
        pub kv_group_size: Option<f64> = None,
        /// mlx-lm `--quantized-kv-start`: the cached tokens at which the KV cache is quantized, 0
        /// to 16,777,216. Default 5000 (`mlx_lm.generate`'s). With `kv_bits` only.
        pub quantized_kv_start: Option<f64> = None,
        /// vLLM's and SGLang's `--enable-lora`: serve LoRA adapters. vLLM allocates `max_loras`
        /// slots of `max_lora_rank` on every linear layer, the embedding and the LM head at start-up
        /// (vLLM 0.12 to 0.33); SGLang its LoRA pool on the `lora_targets` modules of every layer
        /// before sizing its token pool (SGLang 0.5). Dense decoders. Default false.
        pub enable_lora: bool = false,
        /// vLLM `--max-loras`, SGLang `--max-loras-per-batch`: adapters in one batch, each a slot on
        /// the GPU; 1 to 1024. Default 1 (vLLM), 8 (SGLang). With `enable_lora` only.
        pub max_loras: Option<f64> = None,
        /// vLLM's and SGLang's `--max-lora-rank`: the rank every slot is allocated at; vLLM one of
        /// 1, 8, 16, 32, 64, 128, 256, 320, 512 (default 16), SGLang 1 to 1024 (no default: SGLang
        /// takes the largest rank of `--lora-paths`' adapters, which vramfit does not read). With
        /// `enable_lora` only.
        pub max_lora_rank: Option<f64> = None,
        /// vLLM `--max-cpu-loras`, SGLang `--max-loaded-loras`: adapters cached in CPU memory, at
        /// least `max_loras` (host memory, no GPU bytes). Default `max_loras`. With `enable_lora`
        /// only.
        pub max_cpu_loras: Option<f64> = None,
        /// vLLM `--speculative-config`'s `method`: speculative decoding (`ngram`, `draft_model`,
        /// `eagle`, `eagle3`); SGLang's `--speculative-algorithm` `EAGLE` (`eagle`), `EAGLE3`
        /// (`eagle3`) or `STANDALONE` (`draft_model`). Absent: none.
        pub speculative_method: Option<SpecMethod> = None,
        /// `--speculative-config`'s `model`: for `draft_model` the draft's preset id (the same
        /// vocabulary as the target), required; for `eagle` and `eagle3` the head's repository
        /// (e.g. `yuhuili/EAGLE-LLaMA3.1-Instruct-8B`), which the command names (the head's shape
        /// is the target's); none for `ngram`.
        pub draft_model: Option<String> = None,
        /// `--speculative-config`'s `num_speculative_tokens` (SGLang `--speculative-num-steps`, at
        /// `--speculative-eagle-topk 1`): tokens drafted per step, 1 to 16. Required with
        /// `speculative_method`.
        pub num_speculative_tokens: Option<f64> = None,
        /// The chance that the target accepts one drafted token, 0 to 0.99 (measured on your own
        /// traffic: vLLM logs it as the draft acceptance rate). Only the speed reads it; without it
        /// the speed is given without speculation.
        pub acceptance_rate: Option<f64> = None,
    }

    /// What it runs on: the card (or unlike cards), the memory it reports and what is already in
    /// use on it, the host's memory and the network between nodes.
    hardware => pub struct HardwareInput {
        /// A GPU from the catalog: its id (`h200-sxm-141gb`), its name, or words that name it alone
        /// (`h200`, `4090`; see [`crate::gpu::match_gpus`]).
        pub gpu: Option<String> = None,
        /// GPU memory as the CUDA runtime reports it, with its unit (`79.19GiB`, `80GB`).
        pub gpu_memory: Option<String> = None,
        /// Memory already in use on each GPU before the run starts — the desktop, a display, other
        /// programs (what `nvidia-smi` shows as used with nothing of the run loaded) — with its
        /// unit (`1.2GiB`, `900MiB`), from 0 to the card's memory (or its working set or
        /// `wired_limit_mb` on an Apple card). Every fit is then said against what is free; vLLM
        /// (from 0.9.1) refuses to start when the free memory is below `gpu_memory_utilization` of
        /// the card's; SGLang's `mem_fraction_static`, TensorRT-LLM's `free_gpu_memory_fraction`
        /// and Ollama's layer decision read the free memory. Or one size per GPU, comma-separated
        /// in order (`1.2GiB,0GiB`): over cards that are not alike each card's own, llama.cpp's
        /// split by each card's free memory with it; over alike cards the busiest decides for every
        /// rank. Default: 0.
        pub memory_in_use: Option<String> = None,
        /// Cards that are not alike, in the engine's device order (CUDA0 first): each a catalog
        /// card as `gpu` takes it, or a count of one (`2x4090`). Empty: `gpu` × `gpus`, as before. A
        /// list of one card alone (`["2x4090"]`) is that card × its count. Only llama.cpp splits a
        /// run over unlike cards; every other engine refuses them, naming the card that limits.
        pub cards: Vec<String> = Vec::new(),
        /// The host memory llama.cpp and Ollama read the layers and experts they keep in CPU memory
        /// from, for the speed under offload: a catalog id or its words (`ddr5-6000-2ch`,
        /// `epyc-genoa-12ch`, `m4 max`, `strix halo`; an unknown name's error lists them). Default: a desktop
        /// with dual-channel DDR5-5600 (89.6 GB/s), said in a note. Not with `host_bandwidth`.
        pub host_memory: Option<String> = None,
        /// The host memory's peak bandwidth as a rate with its unit (`80GB/s`, `1.2TB/s`), 1 GB/s to
        /// 10 TB/s: channels × 8 B × MT/s for DDR, read at the lowest host class's share of it
        /// (`host_memory` names the platform and its own). Not with `host_memory`.
        pub host_bandwidth: Option<String> = None,
        /// The network between nodes, per GPU and per direction, as a rate with its unit
        /// (`400Gb/s`, `50GB/s`), 1 Gb/s to 8 Tb/s. Default 400 Gb/s: InfiniBand NDR, one 400 Gb/s
        /// adapter per GPU (8 × 400 Gb/s per node, as DGX H100 and the clouds' H100 clusters).
        pub node_link: Option<String> = None,
        /// macOS `iogpu.wired_limit_mb` (`sudo sysctl iogpu.wired_limit_mb=N`): the unified memory
        /// the GPU may wire, in MiB, in place of Metal's `recommendedMaxWorkingSetSize`; on an
        /// Apple card of the catalog only, up to its RAM less 4 GiB for macOS. Default: the card's
        /// working set.
        pub wired_limit_mb: Option<f64> = None,
    }

    /// How the model is laid out over the GPUs: their count, tensor, pipeline, expert, context
    /// and virtual-pipeline parallel sizes, nodes, ZeRO and FSDP sharding and offload, Megatron's
    /// sharded optimizer, llama.cpp's split and layer offload, SGLang's data-parallel attention.
    placement => pub struct PlacementInput {
        /// GPUs in total (data × tensor × pipeline parallel); default `tp × pp`, one model copy.
        pub gpus: Option<f64> = None,
        /// Tensor-parallel size.
        pub tp: f64 = 1.0,
        /// Pipeline-parallel size.
        pub pp: f64 = 1.0,
        /// Expert parallel size (vLLM `--enable-expert-parallel`, which spans tp × data parallel;
        /// SGLang `--ep-size`; TensorRT-LLM `--ep_size`): the routed experts divided over `ep` GPUs.
        /// 1 for none.
        pub ep: f64 = 1.0,
        /// Megatron `--context-parallel-size`: the sequence split over `cp` GPUs (`gpus` = tp × pp ×
        /// cp × dp). Absent: 1.
        pub cp: Option<f64> = None,
        /// Megatron `--virtual-pipeline-model-parallel-size`: model chunks per pipeline stage
        /// (the interleaved schedule). Absent: the plain 1F1B schedule.
        pub vp: Option<f64> = None,
        /// GPUs in one node (server), 1 to 64: a layout of `gpus` over more than one node is
        /// `gpus / gpus_per_node` nodes of this many, tensor parallel inside a node (NVLink) and
        /// pipeline, expert and data parallel across nodes (the network). Memory is per GPU either
        /// way; the speed counts the hand-overs and all-reduces that cross the network. Default 8
        /// (an HGX or DGX server's eight).
        pub gpus_per_node: Option<f64> = None,
        /// DeepSpeed ZeRO stage 0–3 (FSDP full shard is stage 3).
        pub zero: f64 = 0.0,
        /// ZeRO offload target.
        pub offload: Offload = Offload::None,
        /// PyTorch FSDP: 1 (`FullyShardedDataParallel`, flat parameters) or 2 (`fully_shard`,
        /// per-parameter DTensors). Absent: DeepSpeed ZeRO's semantics of `zero`. With it, `zero` 3
        /// is `FULL_SHARD` and 2 `SHARD_GRAD_OP`; `offload` cpu is FSDP's CPU offload.
        pub fsdp_version: Option<f64> = None,
        /// FSDP2 `reshard_after_forward`: free the gathered parameters after forward. Default true
        /// with `zero` 3 (FULL_SHARD), false with `zero` 2.
        pub reshard_after_forward: Option<bool> = None,
        /// FSDP's mixed-precision `reduce_dtype` (FSDP2 `MixedPrecisionPolicy`, FSDP1
        /// `MixedPrecision`): the dtype a unit's gradient is reduce-scattered in. Absent: the
        /// compute dtype (FSDP's default, `param_dtype`). verl's actor sets fp32.
        pub reduce_dtype: Option<crate::precision::Dtype> = None,
        /// Megatron `--sequence-parallel`: the activations outside the tensor-parallel region are
        /// split over `tp` too.
        pub sequence_parallel: bool = false,
        /// Megatron `--use-distributed-optimizer`: fp32 master weights and optimizer states sharded
        /// over the data-parallel GPUs.
        pub distributed_optimizer: bool = false,
        /// llama.cpp `--tensor-split` (`-ts`): each GPU's share of the layers, in device order
        /// (`[3, 1]`); fewer than the GPUs leaves the rest at 0. Empty (or all 0): by each card's
        /// free memory, taken as its memory less llama.cpp's CUDA context.
        pub tensor_split: Vec<f64> = Vec::new(),
        /// llama.cpp `--split-mode` (`-sm`): `layer` (default), `row` or `none`.
        pub split_mode: SplitMode = SplitMode::Layer,
        /// llama.cpp `--main-gpu` (`-mg`): the GPU that holds the whole model with `split_mode`
        /// `none`, from 0. Default 0.
        pub main_gpu: f64 = 0.0,
        /// llama.cpp `-ngl`, Ollama `num_gpu`: layers on the GPU, the output layer counting as one.
        /// llama.cpp places the output layer first, then the last `ngl − 1` blocks; Ollama the blocks
        /// first. Default: all of them (llama.cpp), Ollama's own offload decision (Ollama).
        pub gpu_layers: Option<f64> = None,
        /// llama.cpp `--n-cpu-moe N` (`-ncmoe`): the routed experts of the first `N` blocks kept
        /// in CPU memory, every other tensor of those blocks where `-ngl` puts it; `--cpu-moe` is
        /// every block. A MoE model only, 0 to its blocks. Default 0.
        pub n_cpu_moe: Option<f64> = None,
        /// SGLang `--attn-dp-size` (0.5.23; before it `--dp-size N --enable-dp-attention`):
        /// attention in data parallel over `dp_size` groups of the
        /// `tp` GPUs (an MLA model: DeepSeek, Kimi K2, GLM-5). Each group holds the attention
        /// weights split over `tp / dp_size` GPUs and the embedding whole, and each GPU's token pool
        /// serves its own group's requests; the MoE layers stay split over all `tp`. Default false.
        pub enable_dp_attention: bool = false,
        /// SGLang `--attn-dp-size` with `enable_dp_attention`: the attention groups, 2 to `tp`, dividing
        /// `tp`. (Data-parallel copies of a whole model are `gpus = tp × pp × copies`.)
        pub dp_size: Option<f64> = None,
    }
}
