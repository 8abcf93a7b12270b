//! `vramfit estimate`'s flags: the run as a person describes it on the command line, with the
//! engines' own spellings as aliases (`EstimateFlags`, shared by `estimate`, `recommend`, `fits`
//! and `launch`) and the value enums clap reads them with. `estimate.rs` turns them into the
//! estimator's input.

use clap::{Args, ValueEnum};
use vramfit::estimate::{
    AttentionImpl, Checkpointing, DisaggregationMode, Engine, KvOffloadingBackend, Loss, Mode,
    Offload, Optimizer, Precision, RecomputeMethod, RlAlgorithm, Rollout, RunnerType, SpecMethod,
    SplitMode, Stack, TransferBackend,
};
use vramfit::precision::Dtype;

/// The flags that describe a run; shared by `estimate` and `recommend`.
#[derive(Args, Clone, Debug)]
pub struct EstimateFlags {
    /// A preset (Hugging Face id, case-insensitive), a path to a config.json, with --hub any
    /// repo OWNER/NAME, with --hub ollama a registry tag (its GGUF header read), or with --engine
    /// ollama an Ollama library name (llama3.1:8b, qwen3:32b-q4_K_M); or the address of a GGUF
    /// file (https://…/x.gguf, a Hugging Face file link: its header read by HTTP Range).
    #[arg(long, conflicts_with = "params")]
    pub model: Option<String>,
    /// Look --model up on a hub: hf (Hugging Face, or the mirror $HF_ENDPOINT names; the
    /// default), modelscope ($MODELSCOPE_DOMAIN) or ollama (registry.ollama.ai: a tag's
    /// manifest, then its model's GGUF header). Reads the file list, config.json and the
    /// weights' headers by HTTP Range, never the weights; cached once read.
    #[arg(long, num_args = 0..=1, default_missing_value = "hf", value_name = "HUB", requires = "model")]
    pub hub: Option<String>,
    /// The hub's address, e.g. https://hf-mirror.com (default: $HF_ENDPOINT or
    /// https://huggingface.co; for modelscope https://$MODELSCOPE_DOMAIN or https://www.modelscope.cn).
    #[arg(long, value_name = "URL", requires = "hub")]
    pub hub_endpoint: Option<String>,
    /// In a repo of several GGUF files, the one to read: its name or a part of it (Q8_0); default Q4_K_M.
    #[arg(long, value_name = "NAME", requires = "hub")]
    pub hub_file: Option<String>,
    /// Look the model up again rather than read it from the cache.
    #[arg(long, requires = "hub")]
    pub hub_refresh: bool,
    /// Seconds to wait for each answer of the hub.
    #[arg(long, value_name = "SECONDS", default_value_t = vramfit::hub::TIMEOUT_SECS)]
    pub hub_timeout: u64,
    /// A bare parameter count, e.g. 7B, 7e9, 340M (the guide's quick mode).
    #[arg(long)]
    pub params: Option<String>,
    /// inference, serve or training.
    #[arg(long, value_enum, default_value = "inference")]
    pub mode: ModeArg,
    /// hf, vllm, llamacpp, sglang, ollama, trtllm, mlx (mlx-lm on Apple silicon) or tei (Text Embeddings Inference: embedding and reranker models) (default: hf;
    /// llamacpp for a GGUF model looked up with --hub).
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    /// Sequences per batch (training: micro-batch per GPU; serving: concurrent requests wanted; Ollama: OLLAMA_NUM_PARALLEL, alias --num-parallel), 1 to 1,048,576.
    #[arg(
        long,
        alias = "num-parallel",
        allow_negative_numbers = true,
        default_value_t = 1.0
    )]
    pub batch: f64,
    /// Prompt tokens (training: sequence length).
    #[arg(long, allow_negative_numbers = true, default_value_t = 2048.0)]
    pub seq_len: f64,
    /// Generated tokens per sequence.
    #[arg(long, allow_negative_numbers = true, default_value_t = 256.0)]
    pub new_tokens: f64,
    /// fp32, fp16 or bf16 (default: the checkpoint's dtype).
    #[arg(long)]
    pub dtype: Option<String>,
    /// none, fp8, w8a8, w4a16, gptq, awq, bnb-int8, bnb-nf4, bnb-nf4-dq (double quantization), mxfp4, torchao-nf4 (torchtune's QLoRA), hqq (4-bit, groups of 64), hqq-<bits>bit (1, 2, 3, 5, 6, 8), gguf-<type> (e.g. gguf-q4_k_m).
    #[arg(long, default_value = "none")]
    pub quantization: String,
    /// auto, fp16, bf16, fp8 (vLLM, SGLang), q8_0, q4_0 (llama.cpp; Ollama's OLLAMA_KV_CACHE_TYPE, with --attention flash).
    #[arg(long, default_value = "auto")]
    pub kv_dtype: String,
    /// sdpa, flash or eager (Ollama: flash is OLLAMA_FLASH_ATTENTION=1; sdpa and eager leave it off).
    #[arg(long, value_enum, default_value = "sdpa")]
    pub attention: AttentionArg,
    /// Keep logits for all positions (default: the last).
    #[arg(long)]
    pub all_logits: bool,
    /// adamw, adamw-8bit, sgd, sgd-momentum, adafactor, lion, paged-adamw-8bit, paged-adamw,
    /// adamw-4bit, ademamix, ademamix-8bit, muon, galore-adamw, galore-adamw-8bit,
    /// schedule-free-adamw.
    #[arg(long, value_enum, default_value = "adamw")]
    pub optimizer: OptimizerArg,
    /// Fused optimizer step (no foreach temporaries).
    #[arg(long)]
    pub fused_optimizer: bool,
    /// fp32, fp16, bf16, amp-fp16, amp-bf16.
    #[arg(long, value_enum, default_value = "amp-bf16")]
    pub precision: PrecisionArg,
    /// Full gradient checkpointing (see --checkpointing for selective).
    #[arg(long)]
    pub grad_checkpointing: bool,
    /// none, full or selective (Megatron's spelling --recompute-granularity full|selective is the same flag).
    #[arg(long, value_enum, alias = "recompute-granularity")]
    pub checkpointing: Option<CheckpointingArg>,
    /// LoRA rank (0: full fine-tuning).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0)]
    pub lora_rank: f64,
    /// LoRA target modules, comma-separated (q_proj,v_proj by default; all-linear for every projection); SGLang --lora-target-modules (alias) when serving with --enable-lora: those names, embed_tokens, lm_head or all [default: all].
    #[arg(long, value_delimiter = ',', visible_alias = "lora-target-modules")]
    pub lora_targets: Vec<String>,
    /// LoRA dropout probability (PEFT's lora_dropout), 0 to under 1: above 0 each adapted module keeps a mask and its own input copy [default: the stack's: TRL 0.05, others 0].
    #[arg(long, allow_negative_numbers = true)]
    pub lora_dropout: Option<f64>,
    /// QLoRA: NF4 base with LoRA adapters.
    #[arg(long)]
    pub qlora: bool,
    /// ZeRO stage 0–3.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0)]
    pub zero: f64,
    /// none, cpu, nvme (ZeRO-3: the parameters too), optimizer-cpu or optimizer-nvme (DeepSpeed's offload_optimizer alone: under ZeRO-3 the parameters stay on the GPUs). With --zero 0 and --stack torchtune on one GPU: torchao's CPUOffloadOptimizer (optimizer-cpu; cpu with offload_gradients).
    #[arg(long, value_enum, default_value = "none")]
    pub offload: OffloadArg,
    /// GPUs in total [default: tp × pp, one model copy; with --nodes, nodes × --gpus-per-node].
    #[arg(long, allow_negative_numbers = true, conflicts_with = "nodes")]
    pub gpus: Option<f64>,
    /// Nodes (servers) the run spans, 1 to 1024: --gpus is nodes × --gpus-per-node. Tensor parallel inside a node, pipeline (expert, data) parallel across.
    #[arg(long, allow_negative_numbers = true)]
    pub nodes: Option<f64>,
    /// GPUs in one node, 1 to 64 [default: 8, an HGX or DGX server].
    #[arg(long, allow_negative_numbers = true)]
    pub gpus_per_node: Option<f64>,
    /// The network between nodes per GPU and per direction, with its unit, bits or bytes (400Gb/s, 200Gbps, 50GB/s), 1Gb/s to 8Tb/s [default: 400Gb/s, InfiniBand NDR with one adapter per GPU].
    #[arg(long)]
    pub node_link: Option<String>,
    /// Tensor-parallel size.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    pub tp: f64,
    /// Pipeline-parallel size.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    pub pp: f64,
    /// A GPU from the catalog (see `vramfit gpus`): its id, or words that name it alone (h200, 4090); several, not alike, separated by commas in device order (rtx-3090,rtx-3060), or a count of one (2x4090), as --cards takes them.
    #[arg(long, conflicts_with = "gpu_memory")]
    pub gpu: Option<String>,
    /// Cards that are not alike, in device order (CUDA0 first), separated by commas: rtx-3090,rtx-3060 or 2x4090 (only llama.cpp splits a run over unlike cards; the other engines refuse them, naming the card that limits).
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["gpu", "gpu_memory"])]
    pub cards: Vec<String>,
    /// llama.cpp --tensor-split (-ts): each GPU's share of the layers, in device order, separated by commas (3,1) [default: each card's free memory].
    #[arg(
        long,
        visible_alias = "ts",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    pub tensor_split: Vec<f64>,
    /// llama.cpp --split-mode (-sm): layer (whole blocks to each GPU), none (the main GPU alone) or row (refused: not modelled).
    #[arg(long, visible_alias = "sm", value_enum, default_value = "layer")]
    pub split_mode: SplitModeArg,
    /// llama.cpp --main-gpu (-mg): the GPU that holds the model with --split-mode none, from 0 [default: 0].
    #[arg(
        long,
        visible_alias = "mg",
        allow_negative_numbers = true,
        default_value_t = 0.0
    )]
    pub main_gpu: f64,
    /// GPU memory with its unit, e.g. 79.19GiB or 80GB.
    #[arg(long)]
    pub gpu_memory: Option<String>,
    /// Memory already in use on each GPU before the run (the desktop, a display, other programs; what nvidia-smi shows used with nothing of the run loaded), with its unit, e.g. 1.2GiB or 900MiB; 0 to the card's memory. The fit is said against what is free; vLLM (0.9.1 on) refuses to start below gpu_memory_utilization of the card, SGLang, TensorRT-LLM and Ollama size from the free memory. Or one size per GPU, comma-separated in order (1.2GiB,0GiB): each unlike card's own, the busiest of alike ones deciding [default: 0].
    #[arg(long, visible_alias = "in-use")]
    pub memory_in_use: Option<String>,
    /// vLLM gpu_memory_utilization.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.9)]
    pub gpu_memory_utilization: f64,
    /// vLLM max_model_len, SGLang context_length (alias --context-length), TensorRT-LLM max_seq_len (alias --max-seq-len), llama.cpp -c, Ollama num_ctx per sequence (alias --num-ctx); 1 to 16,777,216.
    #[arg(long, visible_aliases = ["context-length", "max-seq-len", "num-ctx"], allow_negative_numbers = true)]
    pub max_model_len: Option<f64>,
    /// vLLM max_num_seqs, SGLang max_running_requests (alias), TensorRT-LLM max_batch_size (alias); 1 to 65,536.
    #[arg(
        long,
        visible_aliases = ["max-running-requests", "max-batch-size"],
        allow_negative_numbers = true
    )]
    pub max_num_seqs: Option<f64>,
    /// vLLM max_num_batched_tokens, SGLang chunked_prefill_size (alias), TensorRT-LLM max_num_tokens (alias), mlx-lm --prefill-step-size (alias), TEI --max-batch-tokens (alias); 1 to 16,777,216 [default: mlx-lm 2048, TEI 16384].
    #[arg(
        long,
        visible_aliases = ["chunked-prefill-size", "max-num-tokens", "prefill-step-size", "max-batch-tokens"],
        allow_negative_numbers = true
    )]
    pub max_num_batched_tokens: Option<f64>,
    /// vLLM enforce_eager, SGLang disable_cuda_graph (alias): no CUDA graphs.
    #[arg(long, visible_alias = "disable-cuda-graph")]
    pub enforce_eager: bool,
    /// llama.cpp -ngl, Ollama num_gpu (alias): layers on the GPU, 0 to the model's layers + 1, the output layer counting as one (llama.cpp puts it first, then the last ngl − 1 blocks; Ollama the blocks first) [default: all (llama.cpp), Ollama's own decision (Ollama)].
    #[arg(long, visible_alias = "num-gpu", allow_negative_numbers = true)]
    pub gpu_layers: Option<f64>,
    /// SGLang mem_fraction_static, 0.01 to 0.99 [default: as SGLang picks it from the card's memory].
    #[arg(long, allow_negative_numbers = true)]
    pub mem_fraction_static: Option<f64>,
    /// TensorRT-LLM kv_cache_config.free_gpu_memory_fraction (alias --kv-cache-free-gpu-memory-fraction), 0.01 to 1: the share of the memory left after its start-up profile that becomes the KV cache [default: 0.9].
    #[arg(
        long,
        visible_alias = "kv-cache-free-gpu-memory-fraction",
        allow_negative_numbers = true
    )]
    pub free_gpu_memory_fraction: Option<f64>,
    /// mlx-lm --max-kv-size (mlx_lm.generate): a rotating KV cache of at most this many tokens per layer, 1 to 16,777,216 [default: the whole context].
    #[arg(long, allow_negative_numbers = true)]
    pub max_kv_size: Option<f64>,
    /// mlx-lm --kv-bits: the KV cache quantized to 2, 3, 4, 5, 6 or 8 bits from --quantized-kv-start tokens on [default: the model's dtype].
    #[arg(long, allow_negative_numbers = true)]
    pub kv_bits: Option<f64>,
    /// mlx-lm --kv-group-size: values per scale and bias of the quantized KV cache, 32, 64 or 128 (with --kv-bits) [default: 64].
    #[arg(long, allow_negative_numbers = true)]
    pub kv_group_size: Option<f64>,
    /// mlx-lm --quantized-kv-start: the cached tokens at which the KV cache is quantized (with --kv-bits), 0 to 16,777,216 [default: 5000].
    #[arg(long, allow_negative_numbers = true)]
    pub quantized_kv_start: Option<f64>,
    /// macOS iogpu.wired_limit_mb (sudo sysctl iogpu.wired_limit_mb=N): the unified memory the GPU may wire, in MiB, in place of Metal's recommendedMaxWorkingSetSize; an Apple card only, 256 to its RAM less 4 GiB [default: the card's working set].
    #[arg(long, allow_negative_numbers = true)]
    pub wired_limit_mb: Option<f64>,
    /// The engine's release: vLLM's, whose rules size the pool, 0.6 to 0.33 (e.g. 0.19, 0.8.5: V0 before 0.8, the CUDA graphs inside the pool's budget from 0.21) [default: 0.33, the latest]; SGLang's, 0.4.0 to 0.5.23 as SGLang tags them (e.g. 0.4.3.post3, 0.5.2rc1: its default mem_fraction_static, chunked prefill and CUDA graphs by release, prefill graphs from 0.5.10; the launch in that release's flags) [default: 0.5.23]; transformers', 4.0 to 5.25 (e.g. 4.57: an MLA model caches every head before 5.15, the compressed latent from 5.15) [default: 5.25]; llama.cpp's build, b2000 to b10615 (e.g. b4500: before b7438 -ngl N keeps N blocks and the output layer on the CPU; before b9509 the compute buffer holds a ubatch of logits, from it one output per sequence) [default: b10615]; Ollama's, 0.1 to 0.32.15 (e.g. 0.24.0: its Go runner and its own layer plan; from 0.30 llama-server of its pinned llama.cpp build, flash attention auto, its automatic batch, llama-server's fit of the layers) [default: 0.32.15].
    #[arg(long)]
    pub engine_version: Option<String>,
    /// vLLM and SGLang --enable-lora: serve LoRA adapters; vLLM's max_loras slots of max_lora_rank on every linear layer, the embedding and the LM head, allocated at start-up out of the KV pool's budget (vLLM 0.12 to 0.33), SGLang's LoRA pool on the --lora-target-modules of every layer, out of the static fraction (SGLang 0.5); dense decoders.
    #[arg(long)]
    pub enable_lora: bool,
    /// vLLM --max-loras, SGLang --max-loras-per-batch (alias): adapters in one batch, each a GPU slot, 1 to 1024 [default: vLLM 1, SGLang 8]. With --enable-lora.
    #[arg(
        long,
        visible_alias = "max-loras-per-batch",
        allow_negative_numbers = true
    )]
    pub max_loras: Option<f64>,
    /// vLLM and SGLang --max-lora-rank: the rank every slot is allocated at; vLLM one of 1, 8, 16, 32, 64, 128, 256, 320, 512 [default: 16], SGLang 1 to 1024 (required: SGLang reads it from the adapters of --lora-paths). With --enable-lora.
    #[arg(long, allow_negative_numbers = true)]
    pub max_lora_rank: Option<f64>,
    /// vLLM --max-cpu-loras, SGLang --max-loaded-loras (alias): adapters cached in CPU memory, at least --max-loras; host memory, no GPU bytes [default: max_loras]. With --enable-lora.
    #[arg(
        long,
        visible_alias = "max-loaded-loras",
        allow_negative_numbers = true
    )]
    pub max_cpu_loras: Option<f64>,
    /// vLLM --kv-offloading-size: GiB of CPU memory (the server's ranks together) for the KV blocks evicted from the GPU, loaded back on a prefix hit; 0.01 to 16384 (vLLM 0.14 or later). Host memory: the GPU's pool does not change.
    #[arg(long, allow_negative_numbers = true)]
    pub kv_offloading_size: Option<f64>,
    /// vLLM --kv-offloading-backend: native (vLLM's own, the default) or lmcache (LMCache's server sizes its own memory). With --kv-offloading-size.
    #[arg(long, value_enum)]
    pub kv_offloading_backend: Option<KvOffloadingBackendArg>,
    /// vLLM --runner: generate or pooling (an embedding, reranking or classification model; vLLM's older --task embed|score|classify and --convert embed|classify taken as aliases of pooling). A pooling run generates no tokens and has no sampler; vLLM and transformers build no LM head, SGLang and llama.cpp keep it; llama.cpp (--embedding) keeps no KV cache for an encoder and takes each input in one --ubatch; Ollama (/api/embed) runs one sequence with a batch of min(2048, num_ctx). vLLM, SGLang, llama.cpp, Ollama and transformers inference [default: pooling for an encoder (BERT, RoBERTa, XLM-RoBERTa) and, with vLLM and Ollama, for a preset that ships a sentence-transformers pooling config (Qwen3-Embedding), else generate].
    #[arg(long, value_enum)]
    pub runner: Option<RunnerArg>,
    /// SGLang --is-embedding: the same as --runner pooling.
    #[arg(long)]
    pub is_embedding: bool,
    /// vLLM --speculative-config's method: speculative decoding with ngram, draft_model, eagle or eagle3 (vLLM serving); SGLang --speculative-algorithm: eagle (EAGLE), eagle3 (EAGLE3), draft_model (STANDALONE) or mtp (NEXTN: the model's own multi-token-prediction layers, num_nextn_predict_layers, as in DeepSeek-V3/R1; SGLang only). The drafter's weights come out of the KV pool's budget and its attention layers share the pool.
    #[arg(long)]
    pub speculative_method: Option<SpecMethodArg>,
    /// --speculative-config's model (SGLang --speculative-draft-model-path): the draft's preset id for draft_model (same vocabulary as the target, e.g. meta-llama/Llama-3.2-1B-Instruct); an EAGLE head's repository for eagle/eagle3, named in the launch command (its shape is the target's); none for mtp, whose draft is the target's own checkpoint.
    #[arg(long)]
    pub draft_model: Option<String>,
    /// --speculative-config's num_speculative_tokens (SGLang --speculative-num-steps, at top-k 1): tokens drafted per step, 1 to 16. Required with --speculative-method.
    #[arg(long, allow_negative_numbers = true)]
    pub num_speculative_tokens: Option<f64>,
    /// The chance the target accepts one drafted token, 0 to 0.99 (vLLM logs it as the draft acceptance rate): the speed with drafting, (1 - a^(k+1))/(1 - a) tokens per step.
    #[arg(long, allow_negative_numbers = true)]
    pub acceptance_rate: Option<f64>,
    /// Images per request (vLLM --limit-mm-per-prompt '{"image": N}'), 0 to 1024: each adds its tokens to the prompt by the model's own rule (Gemma 3 256, Gemma 4 up to 280, Qwen-VL by its size, InternVL tiles of 448, Pixtral rows); models without one are refused. With 0 a multimodal model on vLLM still has its encoder profiled at start-up on dummy images of the largest size (vLLM's default limit, 999 a modality), out of the KV pool, unless --language-model-only [default: 0].
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0)]
    pub images: f64,
    /// Each image's width in pixels, 1 to 32768 [default: 1024]. With --images.
    #[arg(long, allow_negative_numbers = true)]
    pub image_width: Option<f64>,
    /// Each image's height in pixels, 1 to 32768 [default: 1024]. With --images.
    #[arg(long, allow_negative_numbers = true)]
    pub image_height: Option<f64>,
    /// vLLM --language-model-only (or --limit-mm-per-prompt with every modality at 0; '{"image": 0}' alone for Gemma 3 and Pixtral, whose towers serve images only): no vision or audio tower loaded or profiled, their weights left out; vLLM only, without --images.
    #[arg(long)]
    pub language_model_only: bool,
    /// vLLM's own --speculative-config JSON, e.g. '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}': sets --speculative-method, --draft-model and --num-speculative-tokens (those flags, if given too, win).
    #[arg(long)]
    pub speculative_config: Option<String>,
    /// SGLang cuda_graph_max_bs, 1 to 4096 [default: by the card's memory and tp].
    #[arg(long, allow_negative_numbers = true)]
    pub cuda_graph_max_bs: Option<f64>,
    /// Expert parallel size for MoE models (vLLM --enable-expert-parallel: tp × data parallel; SGLang --ep-size: divides tp × dp), dividing the experts; 1 is none.
    #[arg(
        long,
        alias = "ep-size",
        allow_negative_numbers = true,
        default_value_t = 1.0
    )]
    pub ep: f64,
    /// SGLang --attn-dp-size N (0.5.23): attention in data parallel over N groups of the tp GPUs (an MLA model), 2 to tp, dividing tp, each group's token pool its own. The same as the deprecated --enable-dp-attention --dp-size N.
    #[arg(long, visible_alias = "attention-data-parallel-size", allow_negative_numbers = true, conflicts_with_all = ["enable_dp_attention", "dp_size"])]
    pub attn_dp_size: Option<f64>,
    /// SGLang's deprecated spelling of --attn-dp-size: attention in data parallel over --dp-size groups of the tp GPUs.
    #[arg(long)]
    pub enable_dp_attention: bool,
    /// SGLang --dp-size with --enable-dp-attention (deprecated): the attention groups, 2 to tp, dividing tp.
    #[arg(long, alias = "dp", allow_negative_numbers = true)]
    pub dp_size: Option<f64>,
    /// Disaggregated prefill and decode: the side this instance serves, prefill or decode (SGLang --disaggregation-mode; vLLM's kv_role in --kv-transfer-config, kv_producer or kv_consumer, taken as --kv-role). SGLang and vLLM serving; the estimate is this side's, the other side's pool in a note.
    #[arg(long, visible_alias = "kv-role", value_enum)]
    pub disaggregation_mode: Option<DisaggregationModeArg>,
    /// How the KV cache crosses between the sides: mooncake or nixl (SGLang --disaggregation-transfer-backend, default mooncake; vLLM's kv_connector MooncakeConnector or NixlConnector, default NixlConnector, taken as --kv-connector). Both register the existing pool: no memory of their own. With --disaggregation-mode.
    #[arg(long, visible_alias = "kv-connector", value_enum)]
    pub disaggregation_transfer_backend: Option<TransferBackendArg>,
    /// SGLang --num-reserved-decode-tokens, 0 to 1048576 [default: 512]: tokens the decode side keeps free for each running request before it admits another (a request of the context takes this many more). With --disaggregation-mode.
    #[arg(long, allow_negative_numbers = true)]
    pub num_reserved_decode_tokens: Option<f64>,
    /// llama.cpp -ub.
    #[arg(long, allow_negative_numbers = true, default_value_t = 512.0)]
    pub ubatch: f64,
    /// llama.cpp --n-cpu-moe (-ncmoe): the routed experts of the first N blocks kept in CPU memory, 0 to the model's blocks (a MoE model) [default: 0].
    #[arg(long, allow_negative_numbers = true, conflicts_with = "cpu_moe")]
    pub n_cpu_moe: Option<f64>,
    /// llama.cpp --cpu-moe (-cmoe): every block's routed experts in CPU memory.
    #[arg(long)]
    pub cpu_moe: bool,
    /// llama.cpp --kv-unified (-kvu): one KV cache shared by the sequences; `--kv-unified false` one stream per sequence, each with its share of the context and its own sliding window [default: llama-server's with -np given: a stream per sequence from build b5913, one cache before; Ollama 0.30+ splits it].
    #[arg(long, num_args = 0..=1, default_missing_value = "true", require_equals = false)]
    pub kv_unified: Option<bool>,
    /// llama-server --kv-unified-per-slot N (build b10662 on, ggml-org/llama.cpp#24124): each slot's context capped at N tokens, an integer from 1 and from --seq-len + --new-tokens; without --max-model-len the shared KV pool is N × the slots (--batch), with it only a cap that holds no memory. llama.cpp only.
    #[arg(long, allow_negative_numbers = true)]
    pub kv_unified_per_slot: Option<f64>,
    /// The host memory llama.cpp and Ollama read CPU-resident layers and experts from, for the speed under offload: a catalog id or its words (ddr4-3200-2ch, ddr5-6000-2ch, threadripper-pro-7000-8ch, epyc-genoa-12ch, apple-m4-max, strix-halo, dgx-spark, …) [default: ddr5-5600-2ch, said in a note].
    #[arg(long, conflicts_with = "host_bandwidth")]
    pub host_memory: Option<String>,
    /// The host memory's peak bandwidth with its unit (80GB/s), 1GB/s to 10TB/s: channels × 8 B × MT/s for DDR; read at the lowest host class's share of it (--host-memory names the platform and its own share).
    #[arg(long)]
    pub host_bandwidth: Option<String>,
    /// The fine-tuning stack whose defaults fill the regimes not given: trl, unsloth, torchtune, llamafactory, axolotl, deepspeed, fsdp, megatron, verl, openrlhf.
    #[arg(long, value_enum)]
    pub stack: Option<StackArg>,
    /// The loss: full (transformers), chunked (torchtune), fused (Liger, Unsloth, Cut Cross-Entropy). Default: the stack's, else full.
    #[arg(long, value_enum)]
    pub loss: Option<LossArg>,
    /// Chunked loss: torchtune's num_output_chunks (default 8).
    #[arg(long, allow_negative_numbers = true)]
    pub loss_chunks: Option<f64>,
    /// The optimizer's per-tensor loop instead of torch.optim's foreach step (foreach=False).
    #[arg(long)]
    pub no_foreach: bool,
    /// torchtune's optimizer_in_bwd: each parameter steps in backward and its gradient is freed.
    #[arg(long)]
    pub optimizer_in_backward: bool,
    /// true or false: saved activations offloaded to CPU memory (torchtune enable_activation_offloading; Unsloth's "unsloth" checkpointing). Default: the stack's (Unsloth's on), else off.
    #[arg(long, num_args = 0..=1, default_missing_value = "true")]
    pub activation_offload: Option<bool>,
    /// Sequences packed into rows of --seq-len (TRL packing, torchtune dataset.packed, axolotl sample_packing).
    #[arg(long)]
    pub packing: bool,
    /// true or false: a quantized base's unquantized parameters cast to fp32 (PEFT's prepare_model_for_kbit_training). Default: the stack's, else true.
    #[arg(long)]
    pub kbit_upcast: Option<bool>,
    /// The model and its loss under torch.compile (torchtune compile, transformers torch_compile): the loss keeps no fp32 copy of the logits, and a torchao-nf4 or hqq base dequantizes in one fused kernel.
    #[arg(long)]
    pub compile: bool,
    /// RL post-training (with --mode training): grpo, ppo or dpo, the models on the card beside the policy; --batch is then the prompts (DPO: pairs) per GPU and --seq-len the prompt.
    #[arg(long, value_enum)]
    pub rl: Option<RlArg>,
    /// The KL coefficient (TRL beta, kl_coef): GRPO and PPO load a reference model only above 0, 0 to 1000 [default: the stack's: TRL GRPO 0.0, PPO 0.05; verl 0; OpenRLHF 0.01].
    #[arg(long, visible_alias = "beta", allow_negative_numbers = true)]
    pub rl_beta: Option<f64>,
    /// A frozen reference model on the card, true or false, overriding the algorithm's rule (false: DPO's precompute_ref_log_probs) [default: GRPO and PPO with beta > 0, DPO; none beside a LoRA policy].
    #[arg(long)]
    pub ref_model: Option<bool>,
    /// Completions per prompt (TRL num_generations, verl rollout.n, OpenRLHF n_samples_per_prompt), 1 to 1024 [default: the stack's: TRL GRPO 8, PPO 1; verl 1; OpenRLHF 1].
    #[arg(long, allow_negative_numbers = true)]
    pub num_generations: Option<f64>,
    /// Generated tokens per completion (TRL max_completion_length, verl max_response_length) [default: the stack's: TRL GRPO 512, PPO 53, DPO 1024 less the prompt; verl 512; OpenRLHF 2048 less the prompt].
    #[arg(
        long,
        visible_alias = "max-response-length",
        allow_negative_numbers = true
    )]
    pub max_completion_length: Option<f64>,
    /// Where completions are generated: colocate (vLLM on this GPU), server (other GPUs), hf (the policy's generate) [default: the stack's: TRL hf, verl colocate, OpenRLHF server].
    #[arg(long, value_enum)]
    pub rollout: Option<RolloutArg>,
    /// The colocated vLLM's gpu_memory_utilization (TRL vllm_gpu_memory_utilization), 0.01 to 1 [default: the stack's: TRL 0.3, verl 0.5, OpenRLHF 0.95].
    #[arg(
        long,
        visible_alias = "vllm-gpu-memory-utilization",
        allow_negative_numbers = true
    )]
    pub rollout_memory_utilization: Option<f64>,
    /// vLLM sleep mode while the policy trains, true or false (TRL vllm_enable_sleep_mode, verl free_cache_engine) [default: the stack's: TRL false, verl true, OpenRLHF false].
    #[arg(long, visible_alias = "vllm-enable-sleep-mode")]
    pub sleep_mode: Option<bool>,
    // --- Sharding (FSDP, DeepSpeed's buffers, Megatron) ---
    /// PyTorch FSDP 1 or 2 (training): --zero 3 is FULL_SHARD, 2 SHARD_GRAD_OP; --offload cpu its CPU offload [default: DeepSpeed's ZeRO].
    #[arg(long, allow_negative_numbers = true)]
    pub fsdp_version: Option<f64>,
    /// FSDP2 reshard_after_forward, true or false [default: true with --zero 3, false with 2].
    #[arg(long)]
    pub reshard_after_forward: Option<bool>,
    /// FSDP's mixed-precision reduce_dtype: fp32, bf16 or fp16 (verl's actor: fp32) [default: the compute dtype].
    #[arg(long, value_enum)]
    pub reduce_dtype: Option<ReduceDtypeArg>,
    /// DeepSpeed reduce_bucket_size in elements (transformers' "auto": hidden_size²) [default: 5e8].
    #[arg(long, allow_negative_numbers = true)]
    pub reduce_bucket_size: Option<f64>,
    /// DeepSpeed allgather_bucket_size in elements; it allocates nothing (gathered in place) [default: 5e8].
    #[arg(long, allow_negative_numbers = true)]
    pub allgather_bucket_size: Option<f64>,
    /// DeepSpeed stage3_prefetch_bucket_size in elements ("auto": 0.9 × hidden_size²) [default: 5e7].
    #[arg(long, allow_negative_numbers = true)]
    pub stage3_prefetch_bucket_size: Option<f64>,
    /// DeepSpeed stage3_max_live_parameters in elements [default: 1e9].
    #[arg(long, allow_negative_numbers = true)]
    pub stage3_max_live_parameters: Option<f64>,
    /// DeepSpeed stage3_param_persistence_threshold in elements ("auto": 10 × hidden_size) [default: 1e5].
    #[arg(long, allow_negative_numbers = true)]
    pub stage3_param_persistence_threshold: Option<f64>,
    /// DeepSpeed overlap_comm, true or false: a second reduce bucket under ZeRO-1/2 [default: true under ZeRO-3 only].
    #[arg(long)]
    pub overlap_comm: Option<bool>,
    /// Megatron --virtual-pipeline-model-parallel-size: model chunks per pipeline stage (interleaved schedule) [default: none].
    #[arg(long, allow_negative_numbers = true)]
    pub vp: Option<f64>,
    /// Megatron --sequence-parallel: activations outside the tensor-parallel region split over tp too.
    #[arg(long)]
    pub sequence_parallel: bool,
    /// Megatron --context-parallel-size: the sequence split over cp GPUs (gpus = tp × pp × cp × dp) [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub cp: Option<f64>,
    /// Megatron --use-distributed-optimizer: fp32 masters and optimizer states sharded over data parallel.
    #[arg(long)]
    pub distributed_optimizer: bool,
    /// Megatron --recompute-method with --recompute-granularity full: uniform (chunks of --recompute-num-layers layers, each keeping its input) or block (the first --recompute-num-layers layers of each model chunk recomputed, the rest keeping every activation) [default: uniform].
    #[arg(long, value_enum)]
    pub recompute_method: Option<RecomputeMethodArg>,
    /// Megatron --recompute-num-layers with --recompute-granularity full, 1 to the layers per pipeline stage [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    pub recompute_num_layers: Option<f64>,
    /// GaLore's rank (transformers optim_args="rank=…"), with --optimizer galore-adamw or galore-adamw-8bit, 1 to 65536 [default: 128].
    #[arg(long, allow_negative_numbers = true)]
    pub galore_rank: Option<f64>,
    /// Micro-batches per optimizer step per replica (gradient_accumulation_steps; Megatron's global batch / (micro-batch × dp)), 1 to 65536 [default: 1]: the step's tokens and the pipeline's bubble.
    #[arg(long, allow_negative_numbers = true)]
    pub grad_accum: Option<f64>,
}

macro_rules! value_enum {
    ($name:ident => $target:ident { $($v:ident = $s:literal => $t:expr),* $(,)? }) => {
        #[derive(Clone, Copy, Debug, ValueEnum)]
        #[allow(missing_docs)]
        pub enum $name { $(#[value(name = $s)] $v),* }
        impl From<$name> for $target {
            fn from(v: $name) -> $target {
                match v { $($name::$v => $t),* }
            }
        }
    };
}

value_enum!(ModeArg => Mode { Inference = "inference" => Mode::Inference, Serve = "serve" => Mode::Serve, Training = "training" => Mode::Training });
value_enum!(EngineArg => Engine {
    Hf = "hf" => Engine::Hf, Vllm = "vllm" => Engine::Vllm, Llamacpp = "llamacpp" => Engine::Llamacpp,
    Sglang = "sglang" => Engine::Sglang, Ollama = "ollama" => Engine::Ollama, Trtllm = "trtllm" => Engine::Trtllm,
    Mlx = "mlx" => Engine::Mlx, Tei = "tei" => Engine::Tei,
});
value_enum!(AttentionArg => AttentionImpl { Sdpa = "sdpa" => AttentionImpl::Sdpa, Flash = "flash" => AttentionImpl::Flash, Eager = "eager" => AttentionImpl::Eager });
value_enum!(OptimizerArg => Optimizer {
    Adamw = "adamw" => Optimizer::Adamw, Adamw8bit = "adamw-8bit" => Optimizer::Adamw8bit, Sgd = "sgd" => Optimizer::Sgd,
    SgdMomentum = "sgd-momentum" => Optimizer::SgdMomentum, Adafactor = "adafactor" => Optimizer::Adafactor, Lion = "lion" => Optimizer::Lion,
    PagedAdamw8bit = "paged-adamw-8bit" => Optimizer::PagedAdamw8bit, PagedAdamw = "paged-adamw" => Optimizer::PagedAdamw,
    Adamw4bit = "adamw-4bit" => Optimizer::Adamw4bit, Ademamix = "ademamix" => Optimizer::Ademamix,
    Ademamix8bit = "ademamix-8bit" => Optimizer::Ademamix8bit, Muon = "muon" => Optimizer::Muon,
    GaloreAdamw = "galore-adamw" => Optimizer::GaloreAdamw, GaloreAdamw8bit = "galore-adamw-8bit" => Optimizer::GaloreAdamw8bit,
    ScheduleFreeAdamw = "schedule-free-adamw" => Optimizer::ScheduleFreeAdamw,
});
value_enum!(PrecisionArg => Precision {
    Fp32 = "fp32" => Precision::Fp32, Fp16 = "fp16" => Precision::Fp16, Bf16 = "bf16" => Precision::Bf16,
    AmpFp16 = "amp-fp16" => Precision::AmpFp16, AmpBf16 = "amp-bf16" => Precision::AmpBf16,
});
value_enum!(CheckpointingArg => Checkpointing { None = "none" => Checkpointing::None, Full = "full" => Checkpointing::Full, Selective = "selective" => Checkpointing::Selective });
value_enum!(LossArg => Loss { Full = "full" => Loss::Full, Chunked = "chunked" => Loss::Chunked, Fused = "fused" => Loss::Fused });
value_enum!(StackArg => Stack {
    Trl = "trl" => Stack::Trl, Unsloth = "unsloth" => Stack::Unsloth, Torchtune = "torchtune" => Stack::Torchtune,
    Llamafactory = "llamafactory" => Stack::Llamafactory, Axolotl = "axolotl" => Stack::Axolotl,
    Deepspeed = "deepspeed" => Stack::Deepspeed, Fsdp = "fsdp" => Stack::Fsdp, Megatron = "megatron" => Stack::Megatron,
    Verl = "verl" => Stack::Verl, Openrlhf = "openrlhf" => Stack::Openrlhf,
});
value_enum!(RlArg => RlAlgorithm { Grpo = "grpo" => RlAlgorithm::Grpo, Ppo = "ppo" => RlAlgorithm::Ppo, Dpo = "dpo" => RlAlgorithm::Dpo });
value_enum!(RecomputeMethodArg => RecomputeMethod { Uniform = "uniform" => RecomputeMethod::Uniform, Block = "block" => RecomputeMethod::Block });
value_enum!(RolloutArg => Rollout { Colocate = "colocate" => Rollout::Colocate, Server = "server" => Rollout::Server, Hf = "hf" => Rollout::Hf });
value_enum!(SpecMethodArg => SpecMethod {
    Ngram = "ngram" => SpecMethod::Ngram, DraftModel = "draft_model" => SpecMethod::DraftModel,
    Eagle = "eagle" => SpecMethod::Eagle, Eagle3 = "eagle3" => SpecMethod::Eagle3,
    Mtp = "mtp" => SpecMethod::Mtp,
});
/// `--runner`: vLLM's words, its older `--task` and `--convert` values as aliases of pooling.
#[derive(Clone, Copy, Debug, ValueEnum)]
#[allow(missing_docs)]
pub enum RunnerArg {
    #[value(name = "generate")]
    Generate,
    #[value(name = "pooling", aliases = ["embed", "score", "classify", "reward"])]
    Pooling,
}

impl From<RunnerArg> for RunnerType {
    fn from(r: RunnerArg) -> Self {
        match r {
            RunnerArg::Generate => RunnerType::Generate,
            RunnerArg::Pooling => RunnerType::Pooling,
        }
    }
}

value_enum!(KvOffloadingBackendArg => KvOffloadingBackend { Native = "native" => KvOffloadingBackend::Native, Lmcache = "lmcache" => KvOffloadingBackend::Lmcache });
/// `--disaggregation-mode`: SGLang's words, vLLM's kv_role as aliases.
#[derive(Clone, Copy, Debug, ValueEnum)]
#[allow(missing_docs)]
pub enum DisaggregationModeArg {
    #[value(name = "prefill", alias = "kv_producer")]
    Prefill,
    #[value(name = "decode", alias = "kv_consumer")]
    Decode,
}
impl From<DisaggregationModeArg> for DisaggregationMode {
    fn from(v: DisaggregationModeArg) -> DisaggregationMode {
        match v {
            DisaggregationModeArg::Prefill => DisaggregationMode::Prefill,
            DisaggregationModeArg::Decode => DisaggregationMode::Decode,
        }
    }
}
/// `--disaggregation-transfer-backend`: SGLang's words, vLLM's connectors as aliases.
#[derive(Clone, Copy, Debug, ValueEnum)]
#[allow(missing_docs)]
pub enum TransferBackendArg {
    #[value(name = "mooncake", alias = "MooncakeConnector")]
    Mooncake,
    #[value(name = "nixl", alias = "NixlConnector")]
    Nixl,
}
impl From<TransferBackendArg> for TransferBackend {
    fn from(v: TransferBackendArg) -> TransferBackend {
        match v {
            TransferBackendArg::Mooncake => TransferBackend::Mooncake,
            TransferBackendArg::Nixl => TransferBackend::Nixl,
        }
    }
}
value_enum!(SplitModeArg => SplitMode { Layer = "layer" => SplitMode::Layer, None = "none" => SplitMode::None, Row = "row" => SplitMode::Row });
value_enum!(ReduceDtypeArg => Dtype { Fp32 = "fp32" => Dtype::Fp32, Bf16 = "bf16" => Dtype::Bf16, Fp16 = "fp16" => Dtype::Fp16 });
value_enum!(OffloadArg => Offload { None = "none" => Offload::None, Cpu = "cpu" => Offload::Cpu, Nvme = "nvme" => Offload::Nvme, OptimizerCpu = "optimizer-cpu" => Offload::OptimizerCpu, OptimizerNvme = "optimizer-nvme" => Offload::OptimizerNvme });
