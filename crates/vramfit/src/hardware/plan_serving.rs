//! The serving fleet's layouts the planner tries beside tensor and pipeline parallel:
//! data-parallel replicas that share a concurrency target, and expert parallel for a
//! mixture-of-experts model, on one server and over several; and the rule that orders layouts
//! of one price by speed.

use alloc::vec::Vec;

use super::plan::{Layout, ParallelKind, PlanOptions};

impl Layout {
    /// `dp` replicas of `tp` GPUs each over `nodes` servers (vLLM `--data-parallel-size dp
    /// --tensor-parallel-size tp`, SGLang `--dp-size dp --tp tp`).
    pub fn data(dp: u32, tp: u32, nodes: u32) -> Layout {
        Layout {
            gpus: dp * tp,
            tp,
            pp: 1,
            zero_stage: 0,
            kind: ParallelKind::Data,
            nodes,
            dp,
            ep: 1,
        }
    }

    /// The routed experts over all `tp × dp` GPUs, the attention in `dp` groups of `tp` over
    /// `nodes` servers (vLLM `--tensor-parallel-size tp --data-parallel-size dp
    /// --enable-expert-parallel`; SGLang `--tp tp×dp --ep-size tp×dp`, with
    /// `--attn-dp-size dp` where `dp > 1`).
    pub fn expert(tp: u32, dp: u32, nodes: u32) -> Layout {
        Layout {
            gpus: dp * tp,
            tp,
            pp: 1,
            zero_stage: 0,
            kind: ParallelKind::Expert,
            nodes,
            dp,
            ep: dp * tp,
        }
    }

    /// The serving layouts on `n` GPUs of one server that `options` asks for, in the order the
    /// planner keeps the first that fits of each kind: replicas of 1, 2, 4, … GPUs (the most
    /// replicas first: each holds the least and no replica talks to another), then tensor
    /// parallel with the experts over the same GPUs, then DP attention with the experts over
    /// all of them. None on one GPU.
    pub fn serving_candidates(n: u32, options: &PlanOptions) -> Vec<Layout> {
        let mut v = Vec::new();
        if n < 2 {
            return v;
        }
        if options.data_parallel {
            let mut tp = 1;
            while tp < n {
                if n.is_multiple_of(tp) {
                    v.push(Layout::data(n / tp, tp, 1));
                }
                tp *= 2;
            }
        }
        if options.expert_parallel {
            v.push(Layout::expert(n, 1, 1));
            v.push(Layout::expert(1, n, 1));
        }
        v
    }

    /// The serving layouts over `nodes` servers of `per_node` GPUs that `options` asks for:
    /// replicas of 1, 2, 4, … up to a server's GPUs (a replica never spans servers), then the
    /// experts over every GPU with tensor parallel inside each server and DP attention across
    /// (vLLM's and SGLang's multi-node expert parallel), then wide expert parallel with DP
    /// attention over every GPU (a DeepSeek-class MoE on 2 to 4 servers).
    pub fn serving_across_nodes(nodes: u32, per_node: u32, options: &PlanOptions) -> Vec<Layout> {
        let mut v = Vec::new();
        if options.data_parallel {
            let mut tp = 1;
            while tp <= per_node {
                if per_node.is_multiple_of(tp) {
                    v.push(Layout::data(nodes * per_node / tp, tp, nodes));
                }
                tp *= 2;
            }
        }
        if options.expert_parallel {
            v.push(Layout::expert(per_node, nodes, nodes));
            v.push(Layout::expert(1, nodes * per_node, nodes));
        }
        v
    }

    /// What the planner keeps one of per offer, the first that fits with the fewest GPUs: the
    /// kind, and for expert parallel whether it is wide (DP attention over every GPU, no tensor
    /// parallel), so that the wide layout is listed beside tensor parallel with the experts.
    pub(super) fn family(&self) -> (ParallelKind, bool) {
        let wide = self.kind == ParallelKind::Expert && self.tp == 1 && self.dp > 1;
        (self.kind, wide)
    }

    /// How the planner orders layouts of one price and GPU count, faster first: fewer
    /// servers (every token then crosses the network less), then fewer pipeline stages
    /// (tensor parallel over one server's NVLink serves each token in one pass where pipeline
    /// parallel hands it through `pp` stages one after another, each token's decode step
    /// taking as long as the stages together). A stated rule, not a timing: the planner's
    /// per-GPU function answers memory only.
    pub fn speed_rank(&self) -> (u32, u32) {
        (self.nodes, self.pp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serving() -> PlanOptions {
        PlanOptions {
            data_parallel: true,
            expert_parallel: true,
            ..PlanOptions::default()
        }
    }

    #[test]
    fn serving_layouts_are_tried_only_where_asked() {
        for n in [1, 2, 4, 8] {
            assert!(Layout::serving_candidates(n, &PlanOptions::default()).is_empty());
            assert!(Layout::serving_across_nodes(2, n, &PlanOptions::default()).is_empty());
        }
        assert!(Layout::serving_candidates(1, &serving()).is_empty());
        let words: Vec<_> = Layout::serving_candidates(8, &serving())
            .iter()
            .map(Layout::describe)
            .collect();
        assert_eq!(
            words,
            [
                "DP=8",
                "DP=4 × TP=2",
                "DP=2 × TP=4",
                "TP=8 + EP=8",
                "DP=8 + EP=8"
            ]
        );
        let words: Vec<_> = Layout::serving_across_nodes(2, 8, &serving())
            .iter()
            .map(Layout::describe)
            .collect();
        assert_eq!(
            words,
            [
                "2 nodes × 8 GPUs: DP=16",
                "2 nodes × 8 GPUs: DP=8 × TP=2",
                "2 nodes × 8 GPUs: DP=4 × TP=4",
                "2 nodes × 8 GPUs: DP=2 × TP=8",
                "2 nodes × 8 GPUs: DP=2 × TP=8 + EP=16",
                "2 nodes × 8 GPUs: DP=16 + EP=16"
            ]
        );
        // Every layout's GPUs are its replicas (or groups) times their tensor parallel, and
        // the experts span them all.
        for l in Layout::serving_across_nodes(4, 8, &serving()) {
            assert_eq!(l.gpus, 32);
            assert_eq!(l.dp * l.tp, 32);
            if l.kind == ParallelKind::Expert {
                assert_eq!(l.ep, 32);
            }
        }
    }

    #[test]
    fn at_one_price_tensor_parallel_in_a_server_ranks_before_pipeline() {
        let c = Layout::candidates(4);
        let (tp, pp) = (c[0], c[1]);
        assert_eq!(
            (tp.kind, pp.kind),
            (ParallelKind::Tensor, ParallelKind::Pipeline)
        );
        assert!(tp.speed_rank() < pp.speed_rank());
        // One server before two, whatever the stages.
        assert!(pp.speed_rank() < Layout::across_nodes(2, 2).speed_rank());
        assert!(Layout::data(2, 4, 1).speed_rank() < pp.speed_rank());
    }
}
