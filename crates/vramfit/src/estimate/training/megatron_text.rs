//! The formulas of Megatron-Core's own activations and cross-entropy, in English and Chinese
//! (built only when the run builds text; each language's words only under its feature).

use super::megatron::interleave_factor;
use super::megatron_acts::{LayerBytes, MegatronActs};
use crate::estimate::{Formula, Run, b, thousands};
use alloc::format;
use alloc::string::String;

/// The numbers both languages' layer terms show.
struct LayerTerms {
    tp: u64,
    sp: bool,
    num: u64,
    den: u64,
    vp: u64,
}

impl LayerTerms {
    fn div(&self) -> String {
        if self.sp {
            format!(" / {}", self.tp)
        } else {
            String::new()
        }
    }
}

/// The layers' term in English: "L layers × (whole B norms and dropout masks + split B …)".
#[cfg(feature = "en")]
fn layers_en(m: &MegatronActs, t: &LayerTerms) -> String {
    let one = |n: u64, l: LayerBytes, what: &str| {
        format!(
            "{n} {what} × ({} B norms and dropout masks{} + {} B attention and MLP / tp {})",
            thousands(l.whole),
            t.div(),
            thousands(l.split),
            t.tp
        )
    };
    let s = if m.kept_per_token > 0 {
        format!(
            "{} layer inputs × {} B (--recompute-granularity full, uniform, 1 layer)",
            m.dense_layers + m.moe_layers,
            m.kept_per_token
        )
    } else if m.moe_layers == 0 {
        one(m.dense_layers, m.dense, "layers")
    } else if m.dense_layers == 0 {
        one(m.moe_layers, m.moe, "MoE layers")
    } else {
        format!(
            "{} + {}",
            one(m.dense_layers, m.dense, "dense layers"),
            one(m.moe_layers, m.moe, "MoE layers")
        )
    };
    if t.num != t.den {
        format!("({s}) × {}/{} (interleaved, vp {})", t.num, t.den, t.vp)
    } else {
        s
    }
}

/// The layers' term in Chinese, with the English term's numbers.
#[cfg(feature = "zh")]
fn layers_zh(m: &MegatronActs, t: &LayerTerms) -> String {
    let one = |n: u64, l: LayerBytes, what: &str| {
        format!(
            "{n} {what} × ({} B 归一化与随机失活掩码{} + {} B 注意力与前馈网络 / tp {})",
            thousands(l.whole),
            t.div(),
            thousands(l.split),
            t.tp
        )
    };
    let s = if m.kept_per_token > 0 {
        format!(
            "{} 个层输入 × {} B（--recompute-granularity full，uniform，每次 1 层）",
            m.dense_layers + m.moe_layers,
            m.kept_per_token
        )
    } else if m.moe_layers == 0 {
        one(m.dense_layers, m.dense, "层")
    } else if m.dense_layers == 0 {
        one(m.moe_layers, m.moe, "混合专家层")
    } else {
        format!(
            "{} + {}",
            one(m.dense_layers, m.dense, "稠密层"),
            one(m.moe_layers, m.moe, "混合专家层")
        )
    };
    if t.num != t.den {
        format!("({s}) × {}/{}（交错调度，vp {}）", t.num, t.den, t.vp)
    } else {
        s
    }
}

impl Run<'_> {
    /// Megatron's saved activations: the layers' bytes per token, the edges, the schedule.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn megatron_layer_text(&self, m: &MegatronActs, size: u64) -> Formula {
        let (tp, pp) = (self.tp.max(1), self.pp.max(1));
        let vp = self.sharding.megatron.map_or(1, |s| s.vp);
        let cp = self.sharding.megatron.map_or(1, |s| s.cp);
        let (num, den) = interleave_factor(pp, vp);
        let terms = LayerTerms {
            tp,
            sp: m.whole_div > 1,
            num,
            den,
            vp,
        };
        formula!(self.text;
            let (tokens, edges, size, rec) = (thousands(m.tokens), thousands(m.edges), b(size), b(m.recomputed));
            let cp_text = if cp > 1 { format!(" / cp {cp}") } else { String::new() };
            [
                "Megatron-Core: {tokens} tokens (batch × seq{cp_text}) × ({} + {edges} B embedding dropout mask × pp {pp} and final norm) = {size}{}",
                layers_en(m, &terms),
                if m.recomputed > 0 { format!("; in backward one layer recomputed {rec}") } else { String::new() }
            ],
            [
                "Megatron 核心库：{tokens} token（批 × 序列长度{cp_text}）× ({} + {edges} B 嵌入随机失活掩码 × pp {pp} 与最终归一化) = {size}{}",
                layers_zh(m, &terms),
                if m.recomputed > 0 { format!("；反向时重算一层 {rec}") } else { String::new() }
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
