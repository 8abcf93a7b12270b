//! The formula of a training step's collectives: each on its link, by NCCL's bus-bandwidth
//! rule, and what the compute does not hide.

use alloc::format;
use alloc::string::String;

use super::{FormulaText, gb, gb_s, time};
use crate::throughput::Training;
use crate::throughput::collectives::DataSync;

/// The collectives of `tr`'s step, or an empty text when the run has none modelled.
pub(super) fn text(tr: &Training) -> FormulaText {
    let (Some(c), Some(t)) = (tr.work.input.comm, tr.work.comm) else {
        return FormulaText::default();
    };
    let n = t.dp;
    let bus = gb_s(t.dp_bus);
    let (p, g) = (gb(c.param_bytes as f64), gb(c.grad_bytes as f64));
    let share = format!("{} / {n}", n.saturating_sub(1));
    // Each language's words only in the build that has it (`text!`).
    let sync = match c.sync {
        DataSync::AllReduce => {
            let r = time(t.reduce_s);
            text!(
                ["gradient all-reduce 2 × {g} × {share} / {bus} = {r}"],
                ["梯度 all-reduce 2 × {g} × {share} / {bus} = {r}"]
            )
        }
        DataSync::ShardedOptimizer => {
            let (r, a) = (time(t.reduce_s), time(t.gather_after_step_s));
            text!(
                [
                    "gradient reduce-scatter {g} × {share} / {bus} = {r}, parameter all-gather after the step {p} × {share} / {bus} = {a}"
                ],
                [
                    "梯度 reduce-scatter {g} × {share} / {bus} = {r}，优化器步后参数 all-gather {p} × {share} / {bus} = {a}"
                ]
            )
        }
        DataSync::ShardedParams {
            reshard_after_forward,
        } => {
            let k = if reshard_after_forward { 2 } else { 1 };
            let (a, r) = (time(t.gather_forward_s), time(t.reduce_s));
            text!(
                [
                    "parameter all-gather {k} × ({p} × {share} / {bus} = {a}) and gradient reduce-scatter {g} × {share} / {bus} = {r} per micro-batch"
                ],
                [
                    "每个微批次参数 all-gather {k} ×（{p} × {share} / {bus} = {a}）与梯度 reduce-scatter {g} × {share} / {bus} = {r}"
                ]
            )
        }
    };
    let (mut en, mut zh) = (sync.en, sync.zh);
    let (tp, cp) = (c.tp, c.cp);
    let (tp_s, cp_s, pp_s) = (time(t.tp_s), time(t.cp_s), time(t.pp_s));
    let parts = [
        (
            t.tp_s,
            text!(
                ["; tensor parallel {tp}: all-reduces of each layer {tp_s} per micro-batch"],
                ["；张量并行 {tp}：每层的 all-reduce 每个微批次 {tp_s}"]
            ),
        ),
        (
            t.cp_s,
            text!(
                ["; context parallel {cp}: keys and values round the ring {cp_s} per micro-batch"],
                ["；上下文并行 {cp}：键值沿环传递 每个微批次 {cp_s}"]
            ),
        ),
        (
            t.pp_s,
            text!(
                ["; pipeline hand-overs {pp_s} per micro-batch"],
                ["；流水线交接 每个微批次 {pp_s}"]
            ),
        ),
    ];
    for (secs, part) in parts {
        if secs > 0.0 {
            en.push_str(&part.en);
            zh.push_str(&part.zh);
        }
    }
    let e = time(tr.exposed_comm_s);
    let k = super::num(crate::throughput::efficiency::OVERLAP_COST, 2);
    text!(
        [
            "data parallel over {n} GPUs, bus bandwidth min(NVLink, GPUs a node × node link) × 0.8 = {bus}: {en}; added to the step: {e} (what no compute hides + {k} × what it hides)"
        ],
        [
            "数据并行 {n} 张 GPU，总线带宽 min(NVLink, 每节点 GPU 数 × 节点间网络) × 0.8 = {bus}：{zh}；计入每步：{e}（未被计算掩盖的部分 + {k} × 被掩盖的部分）"
        ]
    )
}
