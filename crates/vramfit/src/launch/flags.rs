//! Each engine's command-line flags that set what the estimate counts, as its own parser spells
//! them: the first name of a row is the one written, every name is read. Sources: vLLM's
//! `EngineArgs.add_cli_args` (`vllm/engine/arg_utils.py`), SGLang's `ServerArgs.add_cli_args`
//! (`python/sglang/srt/server_args.py`), `trtllm-serve`'s click options
//! (`tensorrt_llm/commands/serve.py`), llama.cpp's `common/arg.cpp`, at the versions the book's
//! launch chapter names.

/// SGLang's speculative flags (0.5.23, `arg_groups/fields/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpecFlag {
    /// `--speculative-algorithm`.
    Algorithm,
    /// `--speculative-draft-model-path`.
    DraftPath,
    /// `--speculative-num-steps`.
    Steps,
    /// `--speculative-eagle-topk`.
    Topk,
    /// `--speculative-num-draft-tokens`.
    DraftTokens,
}

/// What a flag sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Setting {
    /// The model (a flag where the engine takes it as one).
    Model,
    /// Tensor-parallel size.
    Tp,
    /// Pipeline-parallel size.
    Pp,
    /// Data-parallel size.
    Dp,
    /// Expert-parallel size (SGLang, TensorRT-LLM).
    Ep,
    /// SGLang's `--attn-dp-size`: the attention groups inside tp (DP attention).
    AttnDp,
    /// SGLang's deprecated `--enable-dp-attention`: its `--dp-size` is then the attention groups.
    DpAttention,
    /// vLLM's switch: experts over the tensor- and data-parallel GPUs.
    ExpertParallel,
    /// The context: `max_model_len`, `context_length`, `max_seq_len`, `-c`.
    Context,
    /// vLLM `gpu_memory_utilization`.
    Utilization,
    /// `max_num_seqs`, `max_running_requests`, `max_batch_size`.
    MaxSeqs,
    /// `max_num_batched_tokens`, `chunked_prefill_size`, `max_num_tokens`.
    BatchedTokens,
    /// The KV cache's type (llama.cpp: the keys').
    KvDtype,
    /// llama.cpp: the values' cache type.
    KvDtypeV,
    /// CUDA graphs off (`--enforce-eager`, SGLang's older `--disable-cuda-graph`).
    NoCudaGraphs,
    /// SGLang's decode CUDA-graph backend (`disabled`: no graphs).
    GraphBackendDecode,
    /// SGLang's prefill CUDA-graph backend.
    GraphBackendPrefill,
    /// The model's dtype.
    Dtype,
    /// Quantization on load.
    Quantization,
    /// SGLang `mem_fraction_static`.
    MemFraction,
    /// SGLang `cuda_graph_max_bs`.
    CudaGraphMaxBs,
    /// TensorRT-LLM `free_gpu_memory_fraction`.
    FreeFraction,
    /// TensorRT-LLM's YAML of LLM API options.
    ExtraOptions,
    /// llama.cpp `-ngl`.
    GpuLayers,
    /// llama.cpp `-ub`.
    Ubatch,
    /// llama.cpp `-np`: sequences served at once.
    Parallel,
    /// llama.cpp `-fa on|off|auto`.
    FlashAttn,
    /// llama.cpp `--n-cpu-moe N`: the first blocks' routed experts in CPU memory.
    NCpuMoe,
    /// llama.cpp `--cpu-moe`: every block's.
    CpuMoe,
    /// llama.cpp `--kv-unified`: one KV cache shared by the sequences.
    KvUnified,
    /// llama.cpp `--no-kv-unified`: a KV stream per sequence.
    NoKvUnified,
    /// llama.cpp `--kv-unified-per-slot N` (b10662 on): each slot's context capped at N, and
    /// without `-c` the KV pool sized to `-np × N`.
    KvPerSlot,
    /// llama.cpp `--tensor-split`: each GPU's share of the layers.
    TensorSplit,
    /// llama.cpp `--split-mode`: layer, row or none.
    SplitMode,
    /// llama.cpp `--main-gpu`.
    MainGpu,
    /// vLLM's and SGLang's `--enable-lora`.
    EnableLora,
    /// vLLM `--max-loras`, SGLang `--max-loras-per-batch`.
    MaxLoras,
    /// vLLM's and SGLang's `--max-lora-rank`.
    MaxLoraRank,
    /// vLLM `--max-cpu-loras`, SGLang `--max-loaded-loras`.
    MaxCpuLoras,
    /// SGLang `--lora-target-modules` (several values).
    LoraTargets,
    /// vLLM `--kv-offloading-size` (GiB).
    KvOffloadingSize,
    /// vLLM `--kv-offloading-backend`.
    KvOffloadingBackend,
    /// vLLM `--runner generate|pooling`, and its older `--task` and `--convert` (any value but
    /// `generate`, `auto` or `none` pools).
    Runner,
    /// SGLang `--is-embedding`; llama.cpp `--embedding` and `--reranking` (which implies it).
    IsEmbedding,
    /// llama.cpp `--pooling {none,mean,cls,last,rank}`: any but `none` pools.
    Pooling,
    /// The nodes the run spans (SGLang's and vLLM's `--nnodes`).
    Nodes,
    /// Where this node sits in the cluster (`--node-rank`, `--dist-init-addr`, vLLM's
    /// `--master-addr`, `--master-port`, `--distributed-executor-backend`): read, and the same
    /// for every node's estimate.
    NodePlace,
    /// vLLM `--headless`: a node that serves no API (read as [`Setting::NodePlace`]).
    Headless,
    /// vLLM `--data-parallel-size-local`: the data-parallel ranks on this node, whose GPUs
    /// (× tp × pp) are a node's.
    DpLocal,
    /// vLLM `--data-parallel-address`: the head node's address (read as
    /// [`Setting::NodePlace`]).
    DpAddress,
    /// vLLM `--data-parallel-rpc-port` (read as [`Setting::NodePlace`]).
    DpRpcPort,
    /// vLLM `--data-parallel-start-rank`: this node's first rank (read as
    /// [`Setting::NodePlace`]).
    DpStartRank,
    /// vLLM `--speculative-config` (JSON).
    SpeculativeConfig,
    /// One of SGLang's speculative flags.
    SglangSpeculative(SpecFlag),
    /// vLLM `--limit-mm-per-prompt` (JSON): images per prompt, or every modality at 0
    /// (`language_model_only`).
    MmLimit,
    /// vLLM `--language-model-only`: no encoder tower.
    LanguageModelOnly,
    /// SGLang `--disaggregation-mode`.
    DisaggregationMode,
    /// SGLang `--disaggregation-transfer-backend`.
    TransferBackend,
    /// SGLang `--num-reserved-decode-tokens`.
    ReservedDecodeTokens,
    /// vLLM `--kv-transfer-config`: the KV connector and its role, as JSON.
    KvTransferConfig,
    /// mlx-lm `--max-tokens`: the tokens generated.
    NewTokens,
    /// mlx-lm `--max-kv-size`.
    MaxKvSize,
    /// mlx-lm `--kv-bits`.
    KvBits,
    /// mlx-lm `--kv-group-size`.
    KvGroupSize,
    /// mlx-lm `--quantized-kv-start`.
    QuantizedKvStart,
    /// mlx-lm `--prompt`: what the command reads, not what the estimate counts.
    Prompt,
}

/// A flag: its names, what it sets, whether a value follows it, whether several do (argparse's
/// `nargs="*"`: the words up to the next flag).
pub(crate) struct Flag {
    pub(crate) names: &'static [&'static str],
    pub(crate) setting: Setting,
    pub(crate) takes_value: bool,
    pub(crate) many: bool,
}

const fn v(names: &'static [&'static str], setting: Setting) -> Flag {
    Flag {
        names,
        setting,
        takes_value: true,
        many: false,
    }
}

const fn many(names: &'static [&'static str], setting: Setting) -> Flag {
    Flag {
        names,
        setting,
        takes_value: true,
        many: true,
    }
}

const fn switch(names: &'static [&'static str], setting: Setting) -> Flag {
    Flag {
        names,
        setting,
        takes_value: false,
        many: false,
    }
}

/// `vllm serve MODEL` (and `python -m vllm.entrypoints.openai.api_server --model MODEL`).
pub(crate) const VLLM: &[Flag] = &[
    v(&["--model"], Setting::Model),
    v(&["--tensor-parallel-size", "-tp"], Setting::Tp),
    v(&["--pipeline-parallel-size", "-pp"], Setting::Pp),
    v(&["--data-parallel-size", "-dp"], Setting::Dp),
    switch(&["--enable-expert-parallel"], Setting::ExpertParallel),
    v(&["--max-model-len"], Setting::Context),
    v(&["--gpu-memory-utilization"], Setting::Utilization),
    v(&["--max-num-seqs"], Setting::MaxSeqs),
    v(&["--max-num-batched-tokens"], Setting::BatchedTokens),
    v(&["--kv-cache-dtype"], Setting::KvDtype),
    switch(&["--enforce-eager"], Setting::NoCudaGraphs),
    v(&["--dtype"], Setting::Dtype),
    v(&["--quantization", "-q"], Setting::Quantization),
    switch(&["--enable-lora"], Setting::EnableLora),
    v(&["--max-loras"], Setting::MaxLoras),
    v(&["--max-lora-rank"], Setting::MaxLoraRank),
    v(&["--max-cpu-loras"], Setting::MaxCpuLoras),
    v(&["--kv-offloading-size"], Setting::KvOffloadingSize),
    v(&["--kv-offloading-backend"], Setting::KvOffloadingBackend),
    v(&["--runner", "--task", "--convert"], Setting::Runner),
    // Over several nodes: Ray's executor (the cluster `ray start` made), or vLLM's own
    // multi-node launcher (`ParallelConfig.nnodes`, `node_rank`, `master_addr`,
    // `master_port`; `--headless` on the nodes that serve no API).
    v(&["--distributed-executor-backend"], Setting::NodePlace),
    v(&["--nnodes"], Setting::Nodes),
    v(&["--node-rank"], Setting::NodePlace),
    v(&["--master-addr"], Setting::NodePlace),
    v(&["--master-port"], Setting::NodePlace),
    switch(&["--headless"], Setting::Headless),
    // Data parallel over several nodes, vLLM's own launcher: the same command on each node with
    // its ranks (`ParallelConfig.data_parallel_size_local`, `data_parallel_address`,
    // `data_parallel_rpc_port`, `data_parallel_rank_local`'s `--data-parallel-start-rank`).
    v(&["--data-parallel-size-local", "-dpl"], Setting::DpLocal),
    v(&["--data-parallel-address", "-dpa"], Setting::DpAddress),
    v(&["--data-parallel-rpc-port", "-dpp"], Setting::DpRpcPort),
    v(
        &["--data-parallel-start-rank", "-dpr"],
        Setting::DpStartRank,
    ),
    v(&["--speculative-config"], Setting::SpeculativeConfig),
    v(&["--limit-mm-per-prompt"], Setting::MmLimit),
    switch(&["--language-model-only"], Setting::LanguageModelOnly),
    // Disaggregated prefill and decode (`KVTransferConfig`, `config/kv_transfer.py`).
    v(&["--kv-transfer-config"], Setting::KvTransferConfig),
];

/// `python -m sglang.launch_server --model-path MODEL`: SGLang 0.5.23's spellings first
/// (`arg_groups/fields/`: `--cuda-graph-max-bs-decode`, `--cuda-graph-backend-decode`), then
/// the older ones it or its predecessors took (`--tp`, `--cuda-graph-max-bs`,
/// `--disable-cuda-graph`, `--dp-size N --enable-dp-attention`), read as well.
pub(crate) const SGLANG: &[Flag] = &[
    v(&["--model-path", "--model"], Setting::Model),
    v(
        &["--tp-size", "--tensor-parallel-size", "--tp"],
        Setting::Tp,
    ),
    v(
        &["--pp-size", "--pipeline-parallel-size", "--pp"],
        Setting::Pp,
    ),
    v(&["--dp-size", "--data-parallel-size", "--dp"], Setting::Dp),
    v(
        &["--ep-size", "--expert-parallel-size", "--ep"],
        Setting::Ep,
    ),
    v(
        &["--attn-dp-size", "--attention-data-parallel-size"],
        Setting::AttnDp,
    ),
    // Deprecated in 0.5.23 for `--attn-dp-size` (removed after 2026-12-31): read, not written.
    switch(&["--enable-dp-attention"], Setting::DpAttention),
    v(&["--context-length"], Setting::Context),
    v(&["--mem-fraction-static"], Setting::MemFraction),
    v(&["--max-running-requests"], Setting::MaxSeqs),
    v(&["--chunked-prefill-size"], Setting::BatchedTokens),
    v(
        &["--cuda-graph-max-bs-decode", "--cuda-graph-max-bs"],
        Setting::CudaGraphMaxBs,
    ),
    v(
        &["--cuda-graph-backend-decode"],
        Setting::GraphBackendDecode,
    ),
    v(
        &["--cuda-graph-backend-prefill"],
        Setting::GraphBackendPrefill,
    ),
    switch(&["--disable-cuda-graph"], Setting::NoCudaGraphs),
    v(&["--kv-cache-dtype"], Setting::KvDtype),
    v(&["--dtype"], Setting::Dtype),
    v(&["--quantization"], Setting::Quantization),
    // LoRA (`arg_groups/fields/lora.py`).
    switch(&["--is-embedding"], Setting::IsEmbedding),
    switch(&["--enable-lora"], Setting::EnableLora),
    v(&["--max-loras-per-batch"], Setting::MaxLoras),
    v(&["--max-lora-rank"], Setting::MaxLoraRank),
    many(&["--lora-target-modules"], Setting::LoraTargets),
    v(&["--max-loaded-loras"], Setting::MaxCpuLoras),
    // Over several nodes (`ServerArgs.nnodes`, `node_rank`, `dist_init_addr`).
    v(&["--nnodes"], Setting::Nodes),
    v(&["--node-rank"], Setting::NodePlace),
    v(
        &["--dist-init-addr", "--nccl-init-addr"],
        Setting::NodePlace,
    ),
    // Disaggregated prefill and decode (`arg_groups/fields/disagg.py`).
    v(&["--disaggregation-mode"], Setting::DisaggregationMode),
    v(
        &["--disaggregation-transfer-backend"],
        Setting::TransferBackend,
    ),
    v(
        &["--num-reserved-decode-tokens"],
        Setting::ReservedDecodeTokens,
    ),
    // Speculative decoding (`arg_groups/fields/`; NEXTN and the others are refused by value).
    v(
        &["--speculative-algorithm"],
        Setting::SglangSpeculative(SpecFlag::Algorithm),
    ),
    v(
        &[
            "--speculative-draft-model-path",
            "--speculative-draft-model",
        ],
        Setting::SglangSpeculative(SpecFlag::DraftPath),
    ),
    v(
        &["--speculative-num-steps"],
        Setting::SglangSpeculative(SpecFlag::Steps),
    ),
    v(
        &["--speculative-eagle-topk"],
        Setting::SglangSpeculative(SpecFlag::Topk),
    ),
    v(
        &["--speculative-num-draft-tokens"],
        Setting::SglangSpeculative(SpecFlag::DraftTokens),
    ),
];

/// `trtllm-serve MODEL`.
pub(crate) const TRTLLM: &[Flag] = &[
    v(&["--tp_size"], Setting::Tp),
    v(&["--pp_size"], Setting::Pp),
    v(&["--ep_size"], Setting::Ep),
    v(&["--max_batch_size"], Setting::MaxSeqs),
    v(&["--max_num_tokens"], Setting::BatchedTokens),
    v(&["--max_seq_len"], Setting::Context),
    v(
        &["--kv_cache_free_gpu_memory_fraction"],
        Setting::FreeFraction,
    ),
    v(&["--extra_llm_api_options"], Setting::ExtraOptions),
];

/// `llama-server -m FILE`.
pub(crate) const LLAMA_SERVER: &[Flag] = &[
    v(&["-m", "--model"], Setting::Model),
    v(&["-c", "--ctx-size"], Setting::Context),
    v(
        &["-ngl", "--gpu-layers", "--n-gpu-layers"],
        Setting::GpuLayers,
    ),
    v(&["-np", "--parallel"], Setting::Parallel),
    v(&["-ub", "--ubatch-size"], Setting::Ubatch),
    switch(&["--embedding", "--embeddings"], Setting::IsEmbedding),
    switch(&["--reranking", "--rerank"], Setting::IsEmbedding),
    v(&["--pooling"], Setting::Pooling),
    v(&["-ctk", "--cache-type-k"], Setting::KvDtype),
    v(&["-ctv", "--cache-type-v"], Setting::KvDtypeV),
    v(&["-fa", "--flash-attn"], Setting::FlashAttn),
    v(&["--n-cpu-moe", "-ncmoe"], Setting::NCpuMoe),
    switch(&["--cpu-moe", "-cmoe"], Setting::CpuMoe),
    switch(&["--kv-unified", "-kvu"], Setting::KvUnified),
    switch(&["--no-kv-unified", "-no-kvu"], Setting::NoKvUnified),
    v(&["--kv-unified-per-slot"], Setting::KvPerSlot),
    v(&["-ts", "--tensor-split"], Setting::TensorSplit),
    v(&["-sm", "--split-mode"], Setting::SplitMode),
    v(&["-mg", "--main-gpu"], Setting::MainGpu),
];

/// `text-embeddings-router` (TEI's image runs it): its clap `Args` in `router/src/main.rs` at
/// huggingface/text-embeddings-inference v1.9.3, the flags that decide its memory.
/// `--max-batch-requests` (fewer warmup requests: never more memory) and `--pooling` are not
/// read, so a command that gives them lists them.
pub(crate) const TEI: &[Flag] = &[
    v(&["--model-id"], Setting::Model),
    v(&["--dtype"], Setting::Dtype),
    v(&["--max-batch-tokens"], Setting::BatchedTokens),
];

/// `mlx_lm.generate --model MODEL` (mlx-lm's `generate.py` at d78bf58).
pub(crate) const MLX_GENERATE: &[Flag] = &[
    v(&["--model"], Setting::Model),
    v(&["--prompt", "-p"], Setting::Prompt),
    v(&["--max-tokens", "-m"], Setting::NewTokens),
    v(&["--prefill-step-size"], Setting::BatchedTokens),
    v(&["--max-kv-size"], Setting::MaxKvSize),
    v(&["--kv-bits"], Setting::KvBits),
    v(&["--kv-group-size"], Setting::KvGroupSize),
    v(&["--quantized-kv-start"], Setting::QuantizedKvStart),
];

/// `mlx_lm.server --model MODEL` (mlx-lm's `server.py` at d78bf58): it takes no KV-cache
/// flags of `mlx_lm.generate`'s.
pub(crate) const MLX_SERVER: &[Flag] = &[
    v(&["--model"], Setting::Model),
    v(&["--prefill-step-size"], Setting::BatchedTokens),
    v(&["--decode-concurrency"], Setting::Parallel),
];

/// The name written for `setting` in `table`.
pub(crate) fn name(table: &[Flag], setting: Setting) -> &'static str {
    table
        .iter()
        .find(|f| f.setting == setting)
        .map_or("", |f| f.names[0])
}

/// The row of `table` one of whose names is `word`.
pub(crate) fn find<'t>(table: &'t [Flag], word: &str) -> Option<&'t Flag> {
    table.iter().find(|f| f.names.contains(&word))
}
