//! The collectives of a training step on their links: the data-parallel gradient all-reduce
//! (DDP), ZeRO-1/2's and the distributed optimizer's reduce-scatter and all-gather, FSDP's and
//! ZeRO-3's parameter all-gathers and gradient reduce-scatter, Megatron's tensor-parallel
//! all-reduces (or reduce-scatters and all-gathers with sequence parallel), the pipeline's
//! hand-overs and context parallel's ring of keys and values.
//!
//! Each collective's time is NCCL's bus-bandwidth rule (nccl-tests `doc/PERFORMANCE.md`,
//! NVIDIA/nccl-tests at 03a204a1f38aaea17f1a777885bb2d9600ba7eff): an all-reduce of `S` bytes over `n` ranks moves
//! `S × 2(n − 1)/n` bytes through each rank's busiest link, a reduce-scatter or an all-gather
//! (of the whole `S`) `S × (n − 1)/n`; the time is that over the bus bandwidth. The bus bandwidth
//! of a group inside one node is NVLink's; of a group over several nodes, holding `l` ranks in
//! each, it is `min(NVLink, l × node_link)`: NCCL runs one ring per channel, each crossing
//! between nodes through its own GPU's adapter, so `l` adapters carry the crossing in parallel
//! and the slower of the two links bounds the ring. Both at
//! [`efficiency::LINK_EFFICIENCY`] of their datasheet figure.
//!
//! Ranks are numbered as Megatron-Core numbers them (`tp-cp-ep-dp-pp`: tensor parallel
//! innermost, then context, then data, then pipeline), filling node 0 first; FSDP and DeepSpeed
//! (tp = pp = cp = 1) have one data-parallel group of every GPU.

use super::efficiency;

/// How the data-parallel replicas keep gradients and parameters in step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum DataSync {
    /// DDP, ZeRO-0, Megatron without the distributed optimizer: one all-reduce of the gradients
    /// per step, bucketed under the last micro-batch's backward.
    #[default]
    AllReduce,
    /// ZeRO-1/2, Megatron's `--use-distributed-optimizer`: the gradients reduce-scattered under
    /// the last backward, the updated parameters all-gathered after the optimizer's step.
    ShardedOptimizer,
    /// FSDP and ZeRO-3: each micro-batch all-gathers the parameters for its forward (and again
    /// for its backward when they are resharded after the forward: FSDP's FULL_SHARD, ZeRO-3)
    /// and reduce-scatters the gradients, prefetched under the neighbouring layer's compute.
    ShardedParams {
        /// Parameters freed after the forward and gathered again for the backward.
        reshard_after_forward: bool,
    },
}

/// A training run's parallel layout and what its collectives move.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct Comm {
    /// Tensor-parallel ranks.
    pub tp: u32,
    /// Context-parallel ranks (each holds `seq / cp` of every sequence).
    pub cp: u32,
    /// Virtual pipeline stages per GPU (Megatron's interleaved schedule); 1 without.
    pub vp: u32,
    /// Megatron's sequence parallel: each all-reduce a reduce-scatter and an all-gather.
    pub sequence_parallel: bool,
    /// How the data-parallel replicas sync.
    pub sync: DataSync,
    /// Hidden size.
    pub hidden: u32,
    /// Keys' and values' width per token per layer (KV heads × head dimension).
    pub kv_width: u32,
    /// Bytes of the 16-bit parameters one data-parallel group gathers or updates: a model
    /// replica's share of one GPU's pipeline stage and tensor slice.
    pub param_bytes: u64,
    /// Bytes of the gradients one data-parallel group reduces (fp32 where the stack reduces in
    /// fp32: Megatron's main gradients, torchtitan's `mixed_precision_reduce`).
    pub grad_bytes: u64,
    /// GPUs in one node.
    pub gpus_per_node: u32,
    /// The network between nodes per GPU per direction, bytes per second.
    pub node_link_bytes_per_s: f64,
}

/// A group of `n` ranks, `stride` apart, over nodes of `g` GPUs: the ranks it holds in each
/// node (`l`) and the nodes it spans.
pub(super) fn group_span(n: u64, stride: u64, g: u64) -> (u64, u64) {
    let (n, stride, g) = (n.max(1), stride.max(1), g.max(1));
    if n * stride <= g {
        (n, 1)
    } else if stride >= g {
        // Every rank in a node of its own.
        (1, n)
    } else {
        let l = (g / stride).max(1).min(n);
        (l, n.div_ceil(l))
    }
}

/// The bus bandwidth of a group of `n` ranks `stride` apart: NVLink's inside a node;
/// `min(NVLink, l × node_link)` over nodes with `l` ranks each; each at the link efficiency.
pub(super) fn bus_bandwidth(n: u64, stride: u64, g: u64, nvlink: f64, node_link: f64) -> f64 {
    let (l, nodes) = group_span(n, stride, g);
    let inside = nvlink * efficiency::LINK_EFFICIENCY;
    if nodes <= 1 {
        inside
    } else {
        inside.min(l as f64 * node_link * efficiency::LINK_EFFICIENCY)
    }
}

/// Seconds of an all-reduce of `bytes` over `n` ranks at `bus` B/s: `S × 2(n − 1)/n / bus`.
pub(super) fn all_reduce_s(bytes: f64, n: u64, bus: f64) -> f64 {
    if n <= 1 {
        return 0.0;
    }
    let n = n as f64;
    bytes * 2.0 * (n - 1.0) / n / bus
}

/// Seconds of a reduce-scatter or an all-gather of `bytes` (the whole buffer) over `n` ranks:
/// `S × (n − 1)/n / bus`.
pub(super) fn gather_s(bytes: f64, n: u64, bus: f64) -> f64 {
    all_reduce_s(bytes, n, bus) / 2.0
}

/// The collectives of one step, in seconds, before any overlap with compute.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct CommTimes {
    /// Data-parallel size (GPUs / (tp × cp × pp)).
    pub dp: u64,
    /// The data-parallel group's bus bandwidth, B/s.
    pub dp_bus: f64,
    /// Parameter all-gather for one micro-batch's forward (FSDP, ZeRO-3).
    pub gather_forward_s: f64,
    /// Parameter all-gather for one micro-batch's backward (resharded after the forward).
    pub gather_backward_s: f64,
    /// Gradient reduce-scatter (FSDP, ZeRO, the distributed optimizer) or all-reduce (DDP).
    pub reduce_s: f64,
    /// Parameter all-gather after the optimizer's step (ZeRO-1/2, distributed optimizer).
    pub gather_after_step_s: f64,
    /// Tensor-parallel collectives of one micro-batch on one pipeline stage.
    pub tp_s: f64,
    /// Context parallel's ring of keys and values for one micro-batch on one stage.
    pub cp_s: f64,
    /// One micro-batch's pipeline hand-overs (forward and backward) on the busiest stage.
    pub pp_s: f64,
}

/// What moves in one step of `c`'s layout over `gpus` GPUs in `pp` stages of `layers` layers,
/// with micro-batches of `mb_tokens` tokens per replica, on NVLink of `nvlink` B/s.
pub(super) fn comm_times(
    c: &Comm,
    gpus: u64,
    pp: u64,
    layers: u64,
    mb_tokens: f64,
    full_recompute: bool,
    nvlink: f64,
) -> CommTimes {
    let g = u64::from(c.gpus_per_node.max(1));
    let (tp, cp) = (u64::from(c.tp.max(1)), u64::from(c.cp.max(1)));
    let dp = (gpus / (tp * cp * pp.max(1))).max(1);
    let net = c.node_link_bytes_per_s;
    let dp_bus = bus_bandwidth(dp, tp * cp, g, nvlink, net);
    let (params, grads) = (c.param_bytes as f64, c.grad_bytes as f64);
    let mut t = CommTimes {
        dp,
        dp_bus,
        ..CommTimes::default()
    };
    match c.sync {
        DataSync::AllReduce => t.reduce_s = all_reduce_s(grads, dp, dp_bus),
        DataSync::ShardedOptimizer => {
            t.reduce_s = gather_s(grads, dp, dp_bus);
            t.gather_after_step_s = gather_s(params, dp, dp_bus);
        }
        DataSync::ShardedParams {
            reshard_after_forward,
        } => {
            t.gather_forward_s = gather_s(params, dp, dp_bus);
            if reshard_after_forward {
                t.gather_backward_s = t.gather_forward_s;
            }
            t.reduce_s = gather_s(grads, dp, dp_bus);
        }
    }
    let stage_layers = layers.div_ceil(pp.max(1)) as f64;
    // Tensor parallel: two all-reduces of the micro-batch's hidden states (2 B each value) per
    // layer forward, two backward, two more when the forward is recomputed; the sequence is
    // split over cp. Sequence parallel's reduce-scatter + all-gather move the same bytes.
    let tokens = mb_tokens / cp as f64;
    if tp > 1 {
        let bus = bus_bandwidth(tp, 1, g, nvlink, net);
        let per = if full_recompute { 6.0 } else { 4.0 };
        let bytes = tokens * f64::from(c.hidden) * 2.0;
        t.tp_s = stage_layers * per * all_reduce_s(bytes, tp, bus);
    }
    // Context parallel (ring attention): each layer passes its keys and values round the ring,
    // cp − 1 hops forward, twice that backward (keys, values and their gradients), each hop a
    // rank's share of the sequence; the hops between nodes bound the ring.
    if cp > 1 {
        let bus = bus_bandwidth(cp, tp, g, nvlink, net);
        let hop = tokens * f64::from(c.kv_width) * 2.0 * 2.0 / tp as f64;
        t.cp_s = stage_layers * 3.0 * (cp - 1) as f64 * hop / bus;
    }
    // Pipeline: a micro-batch's hidden states (2 B each) go forward and their gradients back
    // at each boundary of the busiest stage, over the network where the stage's neighbour sits
    // in another node; sequence parallel sends each tensor rank's 1/tp share.
    if pp > 1 {
        let stage = tp * cp * dp;
        let crosses = stage >= g || !g.is_multiple_of(stage);
        let link = if crosses { net.min(nvlink) } else { nvlink } * efficiency::LINK_EFFICIENCY;
        let split = if c.sequence_parallel { tp as f64 } else { 1.0 };
        let bytes = tokens * f64::from(c.hidden) * 2.0 / split;
        t.pp_s = 2.0 * f64::from(c.vp.max(1)) * bytes / link;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_on_nodes() {
        // 64 GPUs of FSDP on nodes of 8: 8 ranks a node over 8 nodes.
        assert_eq!(group_span(64, 1, 8), (8, 8));
        // Megatron dp 8 at tp 8: one rank a node, 8 nodes.
        assert_eq!(group_span(8, 8, 8), (1, 8));
        // dp 4 at tp 2 on one node of 8.
        assert_eq!(group_span(4, 2, 8), (4, 1));
        // dp 16 at tp 2: 4 ranks a node, 4 nodes.
        assert_eq!(group_span(16, 2, 8), (4, 4));
    }

    #[test]
    fn bus_bandwidth_by_hand() {
        // H100 SXM: NVLink 4 900 GB/s both ways = 450e9 per direction; × 0.8 = 360e9 inside.
        // 64 ranks over 8 nodes, 8 a node, at 400 Gb/s (50e9) each: 8 × 50e9 × 0.8 = 320e9,
        // below NVLink's 360e9: the network bounds the ring.
        let (nv, ib) = (450e9, 50e9);
        assert!((bus_bandwidth(64, 1, 8, nv, ib) - 320e9).abs() < 1.0);
        // One rank a node (Megatron's dp at tp 8): one adapter, 50e9 × 0.8 = 40e9.
        assert!((bus_bandwidth(8, 8, 8, nv, ib) - 40e9).abs() < 1.0);
        // Inside a node: NVLink's 360e9.
        assert!((bus_bandwidth(8, 1, 8, nv, ib) - 360e9).abs() < 1.0);
        // An all-reduce of 16 GB over 64 ranks at 320e9: 16e9 × 2 × 63/64 / 320e9 = 98.4 ms;
        // a reduce-scatter half of it.
        assert!((all_reduce_s(16e9, 64, 320e9) - 0.0984375).abs() < 1e-9);
        assert!((gather_s(16e9, 64, 320e9) - 0.04921875).abs() < 1e-9);
        assert_eq!(all_reduce_s(16e9, 1, 320e9), 0.0);
    }

    #[test]
    fn megatron_tp_and_pp_by_hand() {
        // Llama 3 70B (hidden 8192, 80 layers, KV 8 × 128) at tp 8, pp 4, dp 2 on 8-GPU
        // nodes of H100, micro-batch of one 8192-token sequence, sequence parallel.
        let c = Comm {
            tp: 8,
            cp: 1,
            vp: 1,
            sequence_parallel: true,
            sync: DataSync::ShardedOptimizer,
            hidden: 8192,
            kv_width: 1024,
            param_bytes: 1_000_000_000,
            grad_bytes: 2_000_000_000,
            gpus_per_node: 8,
            node_link_bytes_per_s: 50e9,
        };
        let t = comm_times(&c, 64, 4, 80, 8192.0, false, 450e9);
        assert_eq!(t.dp, 2);
        // Tensor parallel: 20 layers × 4 all-reduces × 8192 × 8192 × 2 B = 134.2 MB each,
        // × 2 × 7/8 / 360e9 = 652.4 µs each: 52.19 ms.
        let ar = 8192.0 * 8192.0 * 2.0 * 2.0 * 7.0 / 8.0 / 360e9;
        assert!((t.tp_s - 80.0 * ar).abs() < 1e-9, "{}", t.tp_s);
        assert!((t.tp_s - 0.052_19).abs() < 1e-4);
        // Pipeline: stages of tp × dp = 16 GPUs cross nodes; 2 × 134.2 MB / 8 over the 40e9
        // network: 8.39 ms.
        assert!((t.pp_s - 2.0 * 8192.0 * 8192.0 * 2.0 / 8.0 / 40e9).abs() < 1e-9);
        // dp 2 at stride 8: one rank a node over 2 nodes, 40e9; reduce-scatter of 2 GB
        // × 1/2 / 40e9 = 25 ms; all-gather of 1 GB 12.5 ms.
        assert!((t.reduce_s - 0.025).abs() < 1e-9);
        assert!((t.gather_after_step_s - 0.0125).abs() < 1e-9);
    }
}
