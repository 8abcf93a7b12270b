//! The formulas of Megatron-Core's own activations and cross-entropy, in English and Chinese
//! (built only when the run builds text).

use super::megatron::interleave_factor;
use super::megatron_acts::{LayerBytes, MegatronActs};
use crate::estimate::{Formula, Run, b, thousands};
use alloc::format;
use alloc::string::String;

impl Run<'_> {
    /// Megatron's saved activations: the layers' bytes per token, the edges, the schedule.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn megatron_layer_text(&self, m: &MegatronActs, size: u64) -> Formula {
        let (tp, pp) = (self.tp.max(1), self.pp.max(1));
        let vp = self.sharding.megatron.map_or(1, |s| s.vp);
        let cp = self.sharding.megatron.map_or(1, |s| s.cp);
        let (num, den) = interleave_factor(pp, vp);
        let sp = m.whole_div > 1;
        // One kind of layer: "L layers × (whole B [/ tp] + split B / tp)".
        let layer = |n: u64, l: LayerBytes, en: &str, zh: &str| -> (String, String) {
            let div = if sp { format!(" / {tp}") } else { String::new() };
            (
                format!(
                    "{n} {en} × ({} B norms and dropout masks{div} + {} B attention and MLP / tp {tp})",
                    thousands(l.whole),
                    thousands(l.split)
                ),
                format!(
                    "{n} {zh} × ({} B 归一化与 dropout 掩码{div} + {} B 注意力与 MLP / tp {tp})",
                    thousands(l.whole),
                    thousands(l.split)
                ),
            )
        };
        let (mut layers_en, mut layers_zh) = if m.kept_per_token > 0 {
            let n = m.dense_layers + m.moe_layers;
            (
                format!(
                    "{n} layer inputs × {} B (--recompute-granularity full, uniform, 1 layer)",
                    m.kept_per_token
                ),
                format!(
                    "{n} 个层输入 × {} B（--recompute-granularity full，uniform，每次 1 层）",
                    m.kept_per_token
                ),
            )
        } else if m.moe_layers == 0 {
            layer(m.dense_layers, m.dense, "layers", "层")
        } else {
            let (de, dz) = layer(m.dense_layers, m.dense, "dense layers", "稠密层");
            let (me, mz) = layer(m.moe_layers, m.moe, "MoE layers", "MoE 层");
            if m.dense_layers == 0 {
                (me, mz)
            } else {
                (format!("{de} + {me}"), format!("{dz} + {mz}"))
            }
        };
        if num != den {
            layers_en = format!("({layers_en}) × {num}/{den} (interleaved, vp {vp})");
            layers_zh = format!("({layers_zh}) × {num}/{den}（交错调度，vp {vp}）");
        }
        let recomputed = if m.recomputed > 0 {
            let r = b(m.recomputed);
            (
                format!("; in backward one layer recomputed {r}"),
                format!("；反向时重算一层 {r}"),
            )
        } else {
            (String::new(), String::new())
        };
        formula!(self.text;
            let (tokens, edges, size) = (thousands(m.tokens), thousands(m.edges), b(size));
            let cp_en = if cp > 1 { format!(" / cp {cp}") } else { String::new() };
            [
                "Megatron-Core: {tokens} tokens (batch × seq{cp_en}) × ({layers_en} + {edges} B embedding dropout mask × pp {pp} and final norm) = {size}{}",
                recomputed.0
            ],
            [
                "Megatron-Core：{tokens} token（batch × seq{cp_en}）× ({layers_zh} + {edges} B 嵌入 dropout 掩码 × pp {pp} 与最终归一化) = {size}{}",
                recomputed.1
            ]
        )
    }

    /// Megatron's vocab-parallel cross-entropy.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn megatron_logits_text(&self, m: &MegatronActs, logits: u64) -> Formula {
        formula!(self.text;
            let (n, vocab, tp, size) = (thousands(m.tokens), self.arch.vocab_size, self.tp.max(1), b(logits));
            [
                "{n} tokens × {vocab} vocab × 6 B / tp {tp} (Megatron's vocab-parallel cross-entropy: the 16-bit logits and their fp32 softmax; in backward the fp32 gradient and its 16-bit cast) = {size}"
            ],
            [
                "{n} token × {vocab} 词表 × 6 B / tp {tp}（Megatron 的词表并行交叉熵：16 位 logits 及其 fp32 softmax；反向时 fp32 梯度及其 16 位副本）= {size}"
            ]
        )
    }
}
