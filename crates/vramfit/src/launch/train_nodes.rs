//! A training launch over several nodes: the same command on every node, each told the node
//! count, its own rank and the head's address, in the words of the launcher the stack runs
//! under. `accelerate launch`'s `--num_machines`, `--machine_rank`, `--main_process_ip`,
//! `--main_process_port` (TRL hands the words it does not know to it; axolotl those after
//! `--`); LLaMA-Factory's `NNODES`, `NODE_RANK`, `MASTER_ADDR`, `MASTER_PORT`, which its
//! launcher (0.9.5 `launcher.py`) turns into `torchrun --nnodes … --node_rank …`.
//! `HEAD_IP` is the address the user puts in, as in the serving launches.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
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
