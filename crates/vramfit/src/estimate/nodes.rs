//! A run over several nodes: how its GPUs sit in servers of `gpus_per_node`, which of its
//! tensor groups and pipeline hand-overs cross the network between them, and the note that
//! says so. Memory is per GPU whatever the nodes (each rank holds what it holds on one node);
//! what the nodes change is the speed ([`super::speed`]) and whether the layout follows the
//! rule vLLM's and SGLang's users follow: tensor parallel inside a node, over NVLink; pipeline,
//! expert and data parallel across nodes, over InfiniBand or RoCE.
//!
//! Ranks are laid out as vLLM and SGLang number them: tensor-parallel ranks innermost, then the
//! pipeline stages, then the data-parallel replicas, filling node 0's GPUs first (vLLM's
//! `ParallelConfig` world of `dp × pp × tp`; SGLang's `--node-rank` blocks of GPUs).

use super::Run;
use alloc::string::String;

/// GPUs in a node where the input names none: an HGX or DGX server's eight.
pub const DEFAULT_GPUS_PER_NODE: u64 = 8;

/// The network between nodes per GPU, per direction, where the input names none: 400 Gb/s,
/// InfiniBand NDR with one adapter per GPU (DGX H100: eight ConnectX-7 at 400 Gb/s; AWS p5's
/// 3,200 Gbps EFA over eight GPUs), in bytes per second.
pub const DEFAULT_NODE_LINK_BYTES_PER_S: u64 = 50_000_000_000;

/// The nodes of a run: how many, of how many GPUs, and the network between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nodes {
    /// GPUs in one node.
    pub gpus_per_node: u64,
    /// Nodes the run's GPUs fill (1: one server).
    pub nodes: u64,
    /// The network between nodes, per GPU and per direction, bytes per second.
    pub link_bytes_per_s: u64,
    /// Whether the input gave the network (else [`DEFAULT_NODE_LINK_BYTES_PER_S`] is assumed).
    pub link_given: bool,
}

impl Nodes {
    /// One node of the default size: a run on one server.
    pub const ONE: Nodes = Nodes {
        gpus_per_node: DEFAULT_GPUS_PER_NODE,
        nodes: 1,
        link_bytes_per_s: DEFAULT_NODE_LINK_BYTES_PER_S,
        link_given: false,
    };

    /// Whether a tensor-parallel group of `tp` ranks spans two nodes: more GPUs than a node
    /// has, or groups that do not tile a node (`tp = 3` on 8-GPU nodes), on more than one node.
    pub fn tp_crosses(&self, tp: u64) -> bool {
        self.nodes > 1 && (tp > self.gpus_per_node || !self.gpus_per_node.is_multiple_of(tp))
    }

    /// The pipeline hand-overs of one forward pass that cross the network: of the `pp − 1`
    /// boundaries between stages (stage `s` on ranks `s·tp … (s+1)·tp − 1` of its replica),
    /// those whose two sides sit in different nodes, on the replica with the most of them (its
    /// pace is the slowest; the others' alike or fewer).
    pub fn pp_crossings(&self, tp: u64, pp: u64, dp: u64) -> u64 {
        if self.nodes <= 1 || pp <= 1 {
            return 0;
        }
        let g = self.gpus_per_node.max(1);
        let node = |rank: u64| rank / g;
        // Replicas' offsets repeat modulo the node's size: at most `g` of them differ.
        (0..dp.clamp(1, g))
            .map(|d| {
                let first = d * tp * pp;
                (1..pp)
                    .filter(|s| node(first + s * tp - 1) != node(first + s * tp))
                    .count() as u64
            })
            .max()
            .unwrap_or(0)
    }
}

/// Bytes one pipeline hand-over sends per token and per GPU: vLLM's `IntermediateTensors` of
/// the decoders (Llama's and DeepSeek-V2/V3's `make_empty_intermediate_tensors_factory(
/// ["hidden_states", "residual"], hidden_size)`), two tensors of `hidden` 16-bit values, each
/// tensor-parallel rank sending its `1/tp` share (`send_tensor_dict` with its all-gather group)
/// to its peer in the next stage, which gathers the rest over NVLink.
pub fn handover_bytes_per_token(hidden: u64, tp: u64) -> u64 {
    2 * hidden * 2 / tp.max(1)
}

impl Run<'_> {
    /// The note on a run over several nodes: its layout as nodes × GPUs, the hand-overs that
    /// cross the network and the network assumed; and, when a tensor group spans nodes, that
    /// it runs slowly and the layout the engines' users choose instead.
    // The wording of the language not built is unused.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn nodes_note(&self, parts: &mut super::Parts) {
        let n = self.nodes;
        // A build without the `nodes` feature refuses a run over several nodes: no note.
        if !cfg!(feature = "nodes") || !self.text || n.nodes <= 1 {
            return;
        }
        let (nodes, g, tp, pp, dp) = (n.nodes, n.gpus_per_node, self.tp, self.pp, self.dp);
        let crossings = n.pp_crossings(tp, pp, dp);
        let link = crate::units::fixed(n.link_bytes_per_s as f64 * 8.0 / 1e9, 0);
        // Each language's words only in the build that has the language.
        let (given_en, given_zh) = if n.link_given {
            (en_str!("node_link"), zh_str!("node_link"))
        } else {
            (
                en_str!(
                    "assumed: InfiniBand NDR, one adapter per GPU; set node_link for yours (RoCE at 200 Gb/s per GPU is half as fast)"
                ),
                zh_str!(
                    "假定值：InfiniBand NDR，每 GPU 一块网卡；请用 node_link 设定你的网络（每 GPU 200 Gb/s 的 RoCE 只有一半的速度）"
                ),
            )
        };
        let per_token = handover_bytes_per_token(self.arch.hidden_size, tp);
        let (cross_en, cross_zh) = if crossings > 0 {
            (
                en!(
                    " {crossings} pipeline hand-over(s) per pass cross the network between nodes ({link} Gb/s per GPU, {given_en}), {per_token} B per token per GPU (hidden states and residual, 2 × hidden × 2 B / tp)."
                ),
                zh!(
                    "每次前向有 {crossings} 次流水线交接跨过节点间网络（每 GPU {link} Gb/s，{given_zh}），每个 token 每个 GPU {per_token} B（隐藏状态与残差，2 × hidden × 2 B / tp）。"
                ),
            )
        } else {
            (String::new(), String::new())
        };
        parts.note(
            "nodes",
            en!("{nodes} nodes × {g} GPUs (tp = {tp}, pp = {pp}, dp = {dp}): memory is per GPU as on one node.{cross_en}"),
            zh!("{nodes} 个节点 × {g} 个 GPU（tp = {tp}，pp = {pp}，dp = {dp}）：显存按每个 GPU 计，与单节点相同。{cross_zh}"),
        );
        if n.tp_crosses(tp) {
            parts.note(
                "tp_across_nodes",
                en!("tp = {tp} spans nodes of {g} GPUs: each layer's two all-reduces go over the network between nodes ({link} Gb/s per GPU) instead of NVLink. It runs, slowly; vLLM's and SGLang's users keep tp within a node (tp = {g} or a divisor of it) and put pp (or ep and dp) across nodes."),
                zh!("tp = {tp} 跨越了每节点 {g} 个 GPU 的节点：每层的两次 all-reduce 走节点间网络（每 GPU {link} Gb/s）而不是 NVLink。能运行，但很慢；vLLM 与 SGLang 的用户把 tp 限制在节点内（tp = {g} 或其约数），让 pp（或 ep、dp）跨节点。"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(nodes: u64, g: u64) -> Nodes {
        Nodes {
            gpus_per_node: g,
            nodes,
            ..Nodes::ONE
        }
    }

    #[test]
    fn tensor_groups_inside_a_node_and_the_hand_overs_that_cross() {
        // 2 nodes of 8: tp 8 × pp 2 puts stage 0 on ranks 0–7 (node 0) and stage 1 on 8–15
        // (node 1): the one boundary crosses; tp 4 × pp 4: stages on 0–3, 4–7 | 8–11, 12–15,
        // boundaries at ranks 4, 8 and 12, of which the one at 8 crosses.
        let two = on(2, 8);
        assert_eq!(two.pp_crossings(8, 2, 1), 1);
        assert_eq!(two.pp_crossings(4, 4, 1), 1);
        assert!(!two.tp_crosses(8) && !two.tp_crosses(4));
        // tp 16 over two nodes, and tp 3 (not a divisor of 8) cross.
        assert!(two.tp_crosses(16) && two.tp_crosses(3));
        // 4 nodes, tp 8 × pp 4: every boundary (ranks 8, 16, 24) crosses.
        assert_eq!(on(4, 8).pp_crossings(8, 4, 1), 3);
        // dp 2 of tp 4 × pp 2 on 2 nodes: each replica inside its node, no crossing.
        assert_eq!(two.pp_crossings(4, 2, 2), 0);
        // One node: nothing crosses.
        assert_eq!(Nodes::ONE.pp_crossings(8, 2, 1), 0);
        assert!(!Nodes::ONE.tp_crosses(16));
    }

    #[test]
    fn a_hand_over_is_hidden_states_and_residual_in_16_bits_split_over_tp() {
        // DeepSeek-V3 (hidden_size 7168, its config.json) at tp 8: 2 tensors × 7168 × 2 B =
        // 28,672 B per token, 3,584 B per GPU.
        assert_eq!(handover_bytes_per_token(7168, 1), 28_672);
        assert_eq!(handover_bytes_per_token(7168, 8), 3_584);
    }

    /// DeepSeek-V3 (fp8, as released) served by vLLM at tp 8 × pp 2 on H100 80 GB.
    fn deepseek(gpus_per_node: Option<f64>, tp: f64, pp: f64) -> crate::estimate::EstimateInput {
        crate::estimate::EstimateInput {
            model: crate::estimate::ModelInput {
                model: Some("deepseek-ai/DeepSeek-V3".into()),
                ..Default::default()
            },
            run: crate::estimate::RunInput {
                engine: crate::estimate::Engine::Vllm,
                mode: crate::estimate::Mode::Serve,
                ..Default::default()
            },
            hardware: crate::estimate::HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            placement: crate::estimate::PlacementInput {
                tp,
                pp,
                gpus_per_node,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn deepseek_v3_fp8_on_two_nodes_of_h100_by_hand() {
        use crate::estimate::estimate;
        let e = estimate(&deepseek(None, 8.0, 2.0)).unwrap();
        assert_eq!((e.gpus, e.nodes), (16, 2));
        // Weights per GPU by hand, from DeepSeek-V3's config.json (hidden 7168, 61 layers, the
        // first 3 dense of intermediate 18,432, then 256 routed experts of 2,048 and one shared,
        // MLA with q_lora 1,536, kv_lora 512 + rope 64, 128 heads of 192 (q) and 128 + 128
        // (k nope, v)). vLLM splits 61 layers over 2 stages as 31 + 30 (`get_pp_indices`: the
        // extra layer to the earlier stage); stage 1 holds 30 MoE layers and the LM head.
        // Per GPU at tp 8, fp8 at 1 B (replicated: q_a, kv_a; split by 8: q_b, kv_b, o, every
        // expert's and the shared expert's three matrices); bf16 at 2 B: the router (replicated)
        // and the norms; the LM head split over 8 in bf16.
        let attention: u64 =
            7168 * 1536 + 7168 * 576 + (1536 * 128 * 192 + 512 * 128 * 256 + 128 * 128 * 7168) / 8;
        let experts: u64 = (256 + 1) * 3 * 7168 * 2048 / 8;
        let bf16: u64 = 2 * (256 * 7168 + 2 * 7168 + 1536 + 512);
        let layer = attention + experts + bf16;
        assert_eq!(layer, 1_455_128_576);
        let stage1 = 30 * layer + 2 * 129_280 * 7168 / 8 + 2 * 7168;
        // 43,885,541,376 B = 40.87 GiB; fp8's block scales (one fp32 per 128 × 128 block, 4 /
        // 16,384 of the fp8 bytes) and the estimator's per-tensor rounding add the rest: within
        // 0.2 %, never below the hand figure.
        assert_eq!(stage1, 43_885_541_376);
        let w = e.weights_bytes.get();
        assert!(
            w >= stage1 && (w - stage1) as f64 <= 0.002 * stage1 as f64,
            "{w} vs {stage1}"
        );
        // Fits an H100 80 GB per GPU, as one node of 16 would give: memory is per rank.
        assert!(e.fit.as_ref().is_some_and(|f| f.fits));
        let one_node = estimate(&deepseek(Some(16.0), 8.0, 2.0)).unwrap();
        assert_eq!(one_node.nodes, 1);
        assert_eq!(one_node.total_bytes, e.total_bytes);
        assert_eq!(one_node.required_bytes, e.required_bytes);
        // One node of 8 holds 671 B fp8 parameters at 80 GB per GPU not: tp 8 alone needs
        // twice the weights per GPU.
        let eight = estimate(&deepseek(None, 8.0, 1.0)).unwrap();
        assert!(eight.fit.as_ref().is_some_and(|f| !f.fits));
        // The note says the layout and the hand-over; the speed pays it.
        assert!(e.notes.iter().any(|n| n.key == "nodes"));
        assert!(!e.notes.iter().any(|n| n.key == "tp_across_nodes"));
        #[cfg(all(feature = "speed", feature = "en"))]
        {
            let note = e.notes.iter().find(|n| n.key == "nodes").unwrap();
            assert!(note.en.contains("2 nodes × 8 GPUs"), "{}", note.en);
            assert!(
                note.en.contains("1 pipeline hand-over(s) per pass cross"),
                "{}",
                note.en
            );
            assert!(note.en.contains("3584 B per token per GPU"), "{}", note.en);
            let t = e.throughput.as_ref().unwrap();
            let t1 = one_node.throughput.as_ref().unwrap();
            assert!(t.decode_tokens_per_s < t1.decode_tokens_per_s);
        }
    }

    #[test]
    fn tp_across_nodes_runs_slowly_and_says_so() {
        use crate::estimate::estimate;
        let e = estimate(&deepseek(None, 16.0, 1.0)).unwrap();
        assert_eq!(e.nodes, 2);
        assert!(e.notes.iter().any(|n| n.key == "tp_across_nodes"));
        #[cfg(feature = "speed")]
        {
            let inside = estimate(&deepseek(Some(16.0), 16.0, 1.0)).unwrap();
            let (a, b) = (e.throughput.unwrap(), inside.throughput.unwrap());
            assert!(a.decode_tokens_per_s.unwrap() < b.decode_tokens_per_s.unwrap());
        }
    }
}
