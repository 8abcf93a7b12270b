//! A training launch over several nodes: the same command on every node, each told the node
//! count, its own rank and the head's address, in the words of the launcher the stack runs
//! under. `accelerate launch`'s `--num_machines`, `--machine_rank`, `--main_process_ip`,
//! `--main_process_port` (TRL hands the words it does not know to it; axolotl those after
//! `--`); LLaMA-Factory's `NNODES`, `NODE_RANK`, `MASTER_ADDR`, `MASTER_PORT`, which its
//! launcher (0.9.5 `launcher.py`) turns into `torchrun --nnodes … --node_rank …`.
//! DeepSpeed's own launcher (`deepspeed --hostfile hostfile`, one line per node with its
//! `slots`, run once on the head, which starts the other nodes over ssh: DeepSpeed 0.19.8
//! `launcher/runner.py`). `HEAD_IP` is the address the user puts in, as in the serving launches.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use crate::error::Result;
use crate::estimate::Workload;

/// The head's port for the processes to meet: torchrun's and accelerate's default
/// (`--master_port`, `--main_process_port` 29500).
pub(super) const MAIN_PORT: &str = "29500";

/// The nodes of `w` and the GPUs each runs.
pub(super) fn layout(w: &Workload) -> (u64, u64) {
    let gpus = super::train::gpus(w);
    let nodes = w.nodes.nodes.max(1);
    (nodes, gpus / nodes)
}

/// `accelerate launch`'s words for node `rank` of `nodes`.
pub(super) fn accelerate_args(rank: u64, nodes: u64) -> Vec<String> {
    [
        "--num_machines",
        &nodes.to_string(),
        "--machine_rank",
        &rank.to_string(),
        "--main_process_ip",
        "HEAD_IP",
        "--main_process_port",
        MAIN_PORT,
    ]
    .map(String::from)
    .to_vec()
}

/// `argv` on every node, each followed by that node's `accelerate launch` words (after `sep`
/// when the stack wants them apart), and the note naming the head; one command on one node.
pub(super) fn accelerate_on_nodes(w: &Workload, l: &mut Builder, argv: &[&str], sep: &[&str]) {
    let (nodes, per_node) = layout(w);
    let base: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    if nodes <= 1 {
        l.command(base);
        return;
    }
    for rank in 0..nodes {
        let mut a = base.clone();
        a.extend(sep.iter().map(|s| s.to_string()));
        a.extend(accelerate_args(rank, nodes));
        l.command_on(rank, nodes, a);
    }
    super::serve::head_note(l, nodes, per_node);
}

/// LLaMA-Factory's `llamafactory-cli train train.yaml` on every node, under `env` with the
/// node's `NNODES`, `NODE_RANK`, `MASTER_ADDR` and `MASTER_PORT`; one plain command on one
/// node.
pub(super) fn llamafactory_on_nodes(w: &Workload, l: &mut Builder) {
    let (nodes, per_node) = layout(w);
    let cli = ["llamafactory-cli", "train", "train.yaml"].map(String::from);
    if nodes <= 1 {
        l.command(cli.to_vec());
        return;
    }
    for rank in 0..nodes {
        let mut a = Vec::from([
            String::from("env"),
            format!("NNODES={nodes}"),
            format!("NODE_RANK={rank}"),
            String::from("MASTER_ADDR=HEAD_IP"),
            format!("MASTER_PORT={MAIN_PORT}"),
        ]);
        a.extend(cli.iter().cloned());
        l.command_on(rank, nodes, a);
    }
    super::serve::head_note(l, nodes, per_node);
}

/// The `deepspeed` stack: TRL's `command` script (`trl.scripts.sft`, …) as a module under
/// `deepspeed`: `--num_gpus G` on one node; over several, `--hostfile hostfile` (a line
/// `nodeR slots=G` per node, the names the user's) with the head's `--master_addr` and
/// `--master_port`, run on the head alone. ZeRO is the point of it: without it (or with FSDP,
/// which is accelerate's) refused by field.
pub(super) fn deepspeed_launch(w: &Workload, l: &mut Builder, command: &str) -> Result<()> {
    if w.zero == 0 || w.sharding.fsdp.is_some() {
        return Err(super::train::refused(
            "zero",
            "DeepSpeed's launcher runs ZeRO (zero 1 to 3); FSDP runs under accelerate (no stack, or trl)",
            "DeepSpeed 的启动器运行 ZeRO（zero 1 到 3）；FSDP 在 accelerate 下运行（不设 stack 或 trl）",
        ));
    }
    let module = format!("trl.scripts.{command}");
    deepspeed_module(
        w,
        l,
        &module,
        ["--config", "train.yaml"].map(String::from).to_vec(),
    );
    Ok(())
}

/// `deepspeed … --module MODULE WORDS…`: over several nodes the hostfile and the head's address,
/// on one its GPUs; the note on how DeepSpeed starts the nodes.
pub(super) fn deepspeed_module(w: &Workload, l: &mut Builder, module: &str, words: Vec<String>) {
    let (nodes, per_node) = layout(w);
    let mut argv: Vec<String> = Vec::from([String::from("deepspeed")]);
    if nodes > 1 {
        let lines: String = (0..nodes)
            .map(|n| format!("node{n} slots={per_node}\n"))
            .collect();
        l.file("hostfile", lines);
        argv.extend(
            [
                "--hostfile",
                "hostfile",
                "--master_addr",
                "HEAD_IP",
                "--master_port",
                MAIN_PORT,
            ]
            .map(String::from),
        );
    } else {
        argv.extend([String::from("--num_gpus"), per_node.to_string()]);
    }
    argv.extend([String::from("--module"), String::from(module)]);
    argv.extend(words);
    l.command(argv);
    if nodes > 1 {
        l.note(
            format!("Run on the head node alone: DeepSpeed starts the {nodes} nodes of the hostfile over ssh (passwordless, the same paths on each). node0 … node{} are names for you to replace with your nodes' hostnames; HEAD_IP is node0's address on the network between the nodes.", nodes - 1),
            format!("只在头节点运行：DeepSpeed 通过 ssh（免密，各节点路径相同）启动 hostfile 中的 {nodes} 个节点。node0 … node{} 是占位名，请换成你的节点主机名；HEAD_IP 是 node0 在节点间网络上的地址。", nodes - 1),
        );
    }
}
