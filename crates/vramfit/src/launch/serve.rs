//! The launches of the serving engines that load a Hugging Face checkpoint by its id: vLLM,
//! SGLang and TensorRT-LLM.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::flags::{self, Flag, Setting};
use super::{Builder, no_model_name};
use crate::error::Result;
use crate::estimate::Workload;
use crate::precision::{Dtype, KvDtype, Quantization};
use crate::units::short;

/// A command's words as they are written.
pub(super) struct Args<'t> {
    table: &'t [Flag],
    words: Vec<String>,
}

impl<'t> Args<'t> {
    pub(super) fn new(table: &'t [Flag], program: &[&str]) -> Self {
        Args {
            table,
            words: program.iter().map(|w| w.to_string()).collect(),
        }
    }
    /// `setting`'s flag and its value.
    pub(super) fn set(&mut self, setting: Setting, value: impl ToString) {
        self.words
            .push(flags::name(self.table, setting).to_string());
        self.words.push(value.to_string());
    }
    /// `setting`'s flag and its value, when the value is not `default`.
    pub(super) fn set_unless(&mut self, setting: Setting, value: u64, default: u64) {
        if value != default {
            self.set(setting, value);
        }
    }
    /// `setting`'s flag and its values, one word each (argparse's `nargs="*"`).
    pub(super) fn set_many(&mut self, setting: Setting, values: &[&str]) {
        self.switch(setting);
        self.words.extend(values.iter().map(|v| v.to_string()));
    }
    /// `flag` as written, with its value: a release's own spelling of a setting that the table
    /// reads under its newest name.
    pub(super) fn spelled(&mut self, flag: &str, value: impl ToString) {
        self.words.push(flag.to_string());
        self.words.push(value.to_string());
    }
    /// `setting`'s switch.
    pub(super) fn switch(&mut self, setting: Setting) {
        self.words
            .push(flags::name(self.table, setting).to_string());
    }
    pub(super) fn done(self) -> Vec<String> {
        self.words
    }
}

/// The Hugging Face id of the run's preset.
pub(super) fn checkpoint(w: &Workload) -> Result<&'static crate::presets::Preset> {
    crate::presets::find(&w.model_name).ok_or_else(|| no_model_name(w))
}

/// The engines' `--dtype` word for the model's dtype.
fn dtype_word(d: Dtype) -> Option<&'static str> {
    match d {
        Dtype::Bf16 => Some("bfloat16"),
        Dtype::Fp16 => Some("float16"),
        Dtype::Fp32 => Some("float32"),
        Dtype::Fp8 | Dtype::Int8 | Dtype::Int4 => None,
    }
}

/// What the engine's `--quantization` loads a 16-bit checkpoint as, when the estimate counts a
/// format the checkpoint does not ship in: `Some(word)` where the engine quantizes on load
/// (`on_load`: vLLM and SGLang take fp8 and bitsandbytes), `None` (and a note) where the user
/// needs a checkpoint in that format.
pub(super) fn online_quantization(
    w: &Workload,
    shipped: Quantization,
    on_load: bool,
    l: &mut Builder,
) -> Option<&'static str> {
    if w.quantization == shipped {
        return None;
    }
    match w.quantization {
        Quantization::Fp8 if on_load => Some("fp8"),
        Quantization::BnbNf4 { .. } if on_load => Some("bitsandbytes"),
        q => {
            let f = q.name();
            l.note(
                alloc::format!(
                    "The estimate counts the weights in {f}: point the command at a checkpoint in that format."
                ),
                alloc::format!("估算按 {f} 格式计权重：请让命令指向该格式的检查点。"),
            );
            None
        }
    }
}

/// `vllm serve MODEL …`: every number the estimate assumed, explicitly.
pub(super) fn vllm(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = checkpoint(w)?;
    let mut a = Args::new(flags::VLLM, &["vllm", "serve", p.id]);
    a.set_unless(Setting::Tp, w.tp, 1);
    a.set_unless(Setting::Pp, w.pp, 1);
    a.set_unless(Setting::Dp, w.dp, 1);
    if w.ep > 1 {
        a.switch(Setting::ExpertParallel);
    }
    a.set(Setting::Context, w.max_model_len);
    a.set(Setting::Utilization, short(w.gpu_memory_utilization));
    a.set(Setting::MaxSeqs, w.max_num_seqs);
    a.set(Setting::BatchedTokens, w.max_num_batched_tokens);
    if w.kv_dtype == KvDtype::Fp8 {
        a.set(Setting::KvDtype, "fp8");
    }
    if !w.cuda_graphs {
        a.switch(Setting::NoCudaGraphs);
    }
    if let Some(d) = dtype_word(w.dtype) {
        a.set(Setting::Dtype, d);
    }
    if let Some(q) = online_quantization(w, p.quantization, true, l) {
        a.set(Setting::Quantization, q);
    }
    if let Some(lora) = w.lora {
        a.switch(Setting::EnableLora);
        a.set(Setting::MaxLoras, lora.max_loras);
        a.set(Setting::MaxLoraRank, lora.max_lora_rank);
        a.set(Setting::MaxCpuLoras, lora.max_cpu_loras);
    }
    if let Some(o) = w.kv_offload {
        a.set(Setting::KvOffloadingSize, short(o.gib));
        if o.backend != crate::estimate::KvOffloadingBackend::Native {
            a.set(Setting::KvOffloadingBackend, o.backend.name());
        }
    }
    if let Some(s) = &w.speculative {
        a.set(
            Setting::SpeculativeConfig,
            super::speculative::config_json(s)?,
        );
    }
    if let Some(images) = &w.images() {
        a.set(Setting::MmLimit, super::multimodal::limit_json(images));
    }
    if w.text_only_towers.is_some() {
        a.set(Setting::MmLimit, super::multimodal::TEXT_ONLY_JSON);
    }
    if let Some(d) = w.disaggregation() {
        return super::disaggregation::vllm(w, d, a.done(), l);
    }
    let nodes = w.nodes.nodes;
    if nodes > 1 && w.dp > 1 && w.dp.is_multiple_of(nodes) {
        vllm_data_parallel_nodes(w, a.done(), l);
        return Ok(());
    }
    if nodes > 1 {
        // Ray's cluster over the nodes, then `vllm serve` on the head with Ray's executor,
        // which places the tp × pp workers on every node's GPUs (vLLM's distributed serving
        // guide; `ray start --head`, `ray start --address` as Ray's CLI spells them).
        a.set(Setting::NodePlace, "ray");
        l.command_on(
            0,
            nodes,
            words(&["ray", "start", "--head", "--port", RAY_PORT]),
        );
        let head = alloc::format!("HEAD_IP:{RAY_PORT}");
        for node in 1..nodes {
            l.command_on(node, nodes, words(&["ray", "start", "--address", &head]));
        }
        l.command_on(0, nodes, a.done());
        head_note(l, nodes, w.nodes.gpus_per_node);
        return Ok(());
    }
    l.command(a.done());
    Ok(())
}

/// vLLM's port for its data-parallel ranks to meet on the head node (its data-parallel
/// deployment guide's example).
const VLLM_DP_RPC_PORT: &str = "13345";

/// `vllm serve` over several nodes with data parallel across them, vLLM's own launcher (its
/// data-parallel deployment guide): on each node the same command with the ranks it holds
/// (`--data-parallel-size-local`), the head's address and port; the head serves the API, the
/// others run `--headless` from their first rank (`--data-parallel-start-rank`).
fn vllm_data_parallel_nodes(w: &Workload, one: Vec<String>, l: &mut Builder) {
    let nodes = w.nodes.nodes;
    let local = w.dp / nodes;
    for node in 0..nodes {
        let mut a = Args {
            table: flags::VLLM,
            words: one.clone(),
        };
        if node > 0 {
            a.switch(Setting::Headless);
        }
        a.set(Setting::DpLocal, local);
        if node > 0 {
            a.set(Setting::DpStartRank, node * local);
        }
        a.set(Setting::DpAddress, "HEAD_IP");
        a.set(Setting::DpRpcPort, VLLM_DP_RPC_PORT);
        l.command_on(node, nodes, a.done());
    }
    head_note(l, nodes, w.nodes.gpus_per_node);
}

/// SGLang's `--lora-target-modules` words for the slots: `all`, or the modules by name.
fn sglang_modules(t: crate::estimate::LoraTargets) -> Vec<&'static str> {
    if t == crate::estimate::LoraTargets::ALL {
        return alloc::vec!["all"];
    }
    [
        (t.qkv, &["q_proj", "k_proj", "v_proj"][..]),
        (t.o, &["o_proj"]),
        (t.gate_up, &["gate_proj", "up_proj"]),
        (t.down, &["down_proj"]),
        (t.embed, &["embed_tokens"]),
        (t.lm_head, &["lm_head"]),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .flat_map(|(_, names)| names.iter().copied())
    .collect()
}

/// Ray's port on the head node (Ray's default).
const RAY_PORT: &str = "6379";

/// SGLang's address for its processes to meet on the head node (its docs' example port).
const SGLANG_INIT_PORT: &str = "5000";

pub(super) fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|w| w.to_string()).collect()
}

/// The note of a launch over several nodes: the head's address the user puts in.
pub(super) fn head_note(l: &mut Builder, nodes: u64, per_node: u64) {
    l.note(
        alloc::format!(
            "Over {nodes} nodes of {per_node} GPUs: run each command on the node its comment names, the head's first; HEAD_IP is the head node's address on the network between the nodes (InfiniBand or RoCE), which you put in."
        ),
        alloc::format!(
            "跨 {nodes} 个节点、每节点 {per_node} 个 GPU：每条命令在其注释指明的节点上运行，头节点先运行；HEAD_IP 是头节点在节点间网络（InfiniBand 或 RoCE）上的地址，由你填入。"
        ),
    );
}

/// `python -m sglang.launch_server --model-path MODEL …`; both sides and SGLang's router for a
/// P/D side (`disaggregation.rs`).
pub(super) fn sglang(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = checkpoint(w)?;
    let q = online_quantization(w, p.quantization, true, l);
    if let Some(d) = w.disaggregation() {
        return super::disaggregation::sglang(w, d, l, |fraction| sglang_args(w, p, fraction, q));
    }
    let a = sglang_args(w, p, w.mem_fraction_static, q)?;
    sglang_nodes(w, a, l);
    Ok(())
}

/// One SGLang server's words at `fraction` (`mem_fraction_static`), `q` its `--quantization`.
fn sglang_args(
    w: &Workload,
    p: &crate::presets::Preset,
    fraction: f64,
    q: Option<&str>,
) -> Result<Args<'static>> {
    let mut a = Args::new(flags::SGLANG, &["python", "-m", "sglang.launch_server"]);
    // The chosen release's spellings (`SglangVersion`): `--attn-dp-size` from 0.5.22,
    // `--cuda-graph-max-bs-decode` and the graph backends from 0.5.14.
    let v = w.sglang_version;
    a.set(Setting::Model, p.id);
    a.set_unless(Setting::Tp, w.tp, 1);
    a.set_unless(Setting::Pp, w.pp, 1);
    if w.dp_attention > 1 {
        dp_attention(w)?;
        if v.spells_attn_dp_size() {
            a.set(Setting::AttnDp, w.dp_attention);
        } else {
            a.set(Setting::Dp, w.dp_attention);
            a.switch(Setting::DpAttention);
        }
    } else {
        a.set_unless(Setting::Dp, w.dp, 1);
    }
    a.set_unless(Setting::Ep, w.ep, 1);
    a.set(Setting::Context, w.max_model_len);
    a.set(Setting::MemFraction, short(fraction));
    if let Some(lora) = w.lora {
        // Without `--lora-paths` SGLang needs both the rank and the modules.
        a.switch(Setting::EnableLora);
        a.set(Setting::MaxLoras, lora.max_loras);
        a.set(Setting::MaxLoraRank, lora.max_lora_rank);
        a.set_many(Setting::LoraTargets, &sglang_modules(lora.targets));
        a.set_unless(Setting::MaxCpuLoras, lora.max_cpu_loras, lora.max_loras);
    }
    if let Some(n) = w.max_running_requests {
        a.set(Setting::MaxSeqs, n);
    }
    // SGLang divides the chunk it is given among DP attention's groups: given whole.
    a.set(
        Setting::BatchedTokens,
        w.max_num_batched_tokens * w.dp_attention.max(1),
    );
    match (w.cuda_graphs, v.spells_graph_backends()) {
        (true, true) => a.set(Setting::CudaGraphMaxBs, w.cuda_graph_max_bs),
        (true, false) => a.spelled("--cuda-graph-max-bs", w.cuda_graph_max_bs),
        (false, true) => {
            a.set(Setting::GraphBackendDecode, "disabled");
            a.set(Setting::GraphBackendPrefill, "disabled");
        }
        (false, false) => a.switch(Setting::NoCudaGraphs),
    }
    if w.kv_dtype == KvDtype::Fp8 {
        a.set(Setting::KvDtype, "fp8_e4m3");
    }
    if let Some(d) = dtype_word(w.dtype) {
        a.set(Setting::Dtype, d);
    }
    if let Some(q) = q {
        a.set(Setting::Quantization, q);
    }
    if let Some(s) = &w.speculative {
        super::sglang_speculative::write(s, &mut a)?;
    }
    Ok(a)
}

/// One SGLang server's command, or over several nodes one per node.
fn sglang_nodes(w: &Workload, mut a: Args<'_>, l: &mut Builder) {
    let nodes = w.nodes.nodes;
    if nodes > 1 {
        // The same command on every node but its rank (SGLang's multi-node guide: `--nnodes`,
        // `--node-rank`, `--dist-init-addr` the head's address).
        a.set(Setting::Nodes, nodes);
        let one = a.done();
        let init = alloc::format!("HEAD_IP:{SGLANG_INIT_PORT}");
        for node in 0..nodes {
            let mut argv = one.clone();
            argv.extend([
                String::from("--node-rank"),
                node.to_string(),
                String::from("--dist-init-addr"),
                init.clone(),
            ]);
            l.command_on(node, nodes, argv);
        }
        head_note(l, nodes, w.nodes.gpus_per_node);
        return;
    }
    l.command(a.done());
}

/// SGLang 0.5.23 refuses `--dp-size` (copies of the server) beside `--attn-dp-size`
/// (`arg_groups/parallel_hook.py`: "data-parallel replicas combined with attention data
/// parallelism are not supported"): such copies are its router's, not one command, refused.
fn dp_attention(w: &Workload) -> Result<()> {
    if w.dp <= 1 {
        return Ok(());
    }
    let copies = w.dp;
    Err(crate::input_error!(
        Unsupported,
        "gpus",
        [
            "no launch written for {copies} copies of a server with DP attention: SGLang refuses --dp-size beside --attn-dp-size, and its router starts the copies"
        ],
        [
            "不为 {copies} 份开启 DP attention 的服务写启动命令：SGLang 不接受 --dp-size 与 --attn-dp-size 同用，副本由 SGLang 的 router 启动"
        ],
        "gpus = tp × pp (one server) for a written launch",
        "要写出启动命令，gpus = tp × pp（一个服务）",
    ))
}

/// The file of LLM API options `trtllm-serve` reads for what it has no flag for.
pub(super) const TRTLLM_OPTIONS: &str = "extra-llm-api-options.yaml";

/// `trtllm-serve MODEL …`, with a YAML of LLM API options for the KV cache's type and CUDA
/// graphs off, which have no flag of their own.
pub(super) fn trtllm(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = checkpoint(w)?;
    let nodes = w.nodes.nodes;
    if nodes > 1 {
        // TensorRT-LLM spans nodes under MPI or Slurm (`mpirun` / `srun` with one rank per
        // GPU and `trtllm-llmapi-launch`), a cluster's own launcher, not a line of its own.
        return Err(crate::input_error!(
            Unsupported,
            "gpus",
            [
                "no launch written for trtllm-serve over {nodes} nodes: it starts under MPI or Slurm with one rank per GPU"
            ],
            [
                "不为跨 {nodes} 个节点的 trtllm-serve 写启动命令：它在 MPI 或 Slurm 下以每 GPU 一个进程启动"
            ],
            "the GPUs of one node (gpus up to gpus_per_node) for a written launch",
            "要写出启动命令，GPU 数不超过一个节点（gpus 不超过 gpus_per_node）",
        ));
    }
    let mut a = Args::new(flags::TRTLLM, &["trtllm-serve", p.id]);
    a.set_unless(Setting::Tp, w.tp, 1);
    a.set_unless(Setting::Pp, w.pp, 1);
    a.set_unless(Setting::Ep, w.ep, 1);
    a.set(Setting::MaxSeqs, w.max_num_seqs);
    a.set(Setting::BatchedTokens, w.max_num_batched_tokens);
    a.set(Setting::Context, w.max_model_len);
    a.set(Setting::FreeFraction, short(w.free_gpu_memory_fraction));
    let mut yaml = String::new();
    match w.kv_dtype {
        KvDtype::Fp8 => yaml += "kv_cache_config:\n  dtype: fp8\n",
        KvDtype::Nvfp4 => yaml += "kv_cache_config:\n  dtype: nvfp4\n",
        _ => {}
    }
    if !w.cuda_graphs {
        yaml += "cuda_graph_config: null\n";
    }
    if !yaml.is_empty() {
        l.file(TRTLLM_OPTIONS, yaml);
        a.set(Setting::ExtraOptions, TRTLLM_OPTIONS);
    }
    let _ = online_quantization(w, p.quantization, false, l);
    l.command(a.done());
    Ok(())
}
