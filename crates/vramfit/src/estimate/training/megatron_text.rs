//! The formulas of Megatron-Core's own activations and cross-entropy, in English and Chinese
//! (built only when the run builds text; each language's words only under its feature).

use super::megatron::interleave_factor;
use super::megatron_acts::{LayerBytes, MegatronActs};
use crate::estimate::{Formula, RecomputeMethod, Run, b, thousands};
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

/// One language's words of the layers' term.
struct LayerWords {
    /// `{} B` what sits whole: norms and dropout masks.
    whole: &'static str,
    /// `{} B` what is split: attention and MLP.
    split: &'static str,
    layers: &'static str,
    moe_layers: &'static str,
    dense_layers: &'static str,
    /// Full recompute's term: `{}` chunk inputs of `{}` bytes, the method's name and
    /// `--recompute-num-layers`.
    inputs: fn(u64, &str, &str, u64) -> String,
    /// Block recompute's plain layers: `{}` layers of `{}` bytes.
    stored: fn(u64, &str) -> String,
    /// The interleaved schedule's factor: the term, then num, den and vp.
    interleaved: fn(&str, u64, u64, u64) -> String,
}

#[cfg(feature = "en")]
const EN: LayerWords = LayerWords {
    whole: "B norms and dropout masks",
    split: "B attention and MLP / tp",
    layers: "layers",
    moe_layers: "MoE layers",
    dense_layers: "dense layers",
    inputs: |n, bytes, method, layers| {
        format!(
            "{n} checkpointed inputs × {bytes} B (--recompute-granularity full --recompute-method {method} --recompute-num-layers {layers})"
        )
    },
    stored: |n, bytes| format!("{n} layers not recomputed × {bytes} B"),
    interleaved: |s, num, den, vp| format!("({s}) × {num}/{den} (interleaved, vp {vp})"),
};

#[cfg(feature = "zh")]
const ZH: LayerWords = LayerWords {
    whole: "B 归一化与随机失活掩码",
    split: "B 注意力与前馈网络 / tp",
    layers: "层",
    moe_layers: "混合专家层",
    dense_layers: "稠密层",
    inputs: |n, bytes, method, layers| {
        format!(
            "{n} 个检查点输入 × {bytes} B（--recompute-granularity full --recompute-method {method} --recompute-num-layers {layers}）"
        )
    },
    stored: |n, bytes| format!("{n} 个不重算的层 × {bytes} B"),
    interleaved: |s, num, den, vp| format!("({s}) × {num}/{den}（交错调度，vp {vp}）"),
};

/// The layers' term in one language, the same numbers in each: "L layers × (whole B norms and
/// dropout masks + split B …)".
#[cfg(any(feature = "en", feature = "zh"))]
fn layers_text(m: &MegatronActs, t: &LayerTerms, w: &LayerWords) -> String {
    let one = |n: u64, l: LayerBytes, what: &str| {
        format!(
            "{n} {what} × ({} {}{} + {} {} {})",
            thousands(l.whole),
            w.whole,
            t.div(),
            thousands(l.split),
            w.split,
            t.tp
        )
    };
    let s = if let Some((method, layers, plan)) = m.recompute {
        let name = match method {
            RecomputeMethod::Uniform => "uniform",
            RecomputeMethod::Block => "block",
        };
        let inputs = (w.inputs)(plan.inputs, &thousands(m.kept_per_token), name, layers);
        if plan.stored > 0 {
            let per = m
                .dense
                .on_gpu(m.whole_div, t.tp)
                .max(m.moe.on_gpu(m.whole_div, t.tp));
            format!("{inputs} + {}", (w.stored)(plan.stored, &thousands(per)))
        } else {
            inputs
        }
    } else if m.moe_layers == 0 {
        one(m.dense_layers, m.dense, w.layers)
    } else if m.dense_layers == 0 {
        one(m.moe_layers, m.moe, w.moe_layers)
    } else {
        format!(
            "{} + {}",
            one(m.dense_layers, m.dense, w.dense_layers),
            one(m.moe_layers, m.moe, w.moe_layers)
        )
    };
    if t.num != t.den {
        (w.interleaved)(&s, t.num, t.den, t.vp)
    } else {
        s
    }
}

/// "one layer", or "N layers" recomputed at once (uniform recompute of N layers a chunk).
#[cfg(any(feature = "en", feature = "zh"))]
fn recomputed_layers(m: &MegatronActs, one: &str, many: &str) -> String {
    match m.recompute {
        Some((_, _, p)) if p.recomputed > 1 => format!("{} {many}", p.recomputed),
        _ => String::from(one),
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
            let (tokens, edges, kept, rec, size) = (thousands(m.tokens), thousands(m.edges), b(size.saturating_sub(m.recomputed)), b(m.recomputed), b(size));
            let cp_text = if cp > 1 { format!(" / cp {cp}") } else { String::new() };
            [
                "Megatron-Core: {tokens} tokens (batch × seq{cp_text}) × ({} + {edges} B embedding dropout mask × pp {pp} and final norm) = {kept}{}",
                layers_text(m, &terms, &EN),
                if m.recomputed > 0 { format!(" + in backward {} recomputed {rec} (not alive with the loss's tensors) = {size}", recomputed_layers(m, "one layer", "layers")) } else { String::new() }
            ],
            [
                "Megatron 核心库：{tokens} token（批 × 序列长度{cp_text}）× ({} + {edges} B 嵌入随机失活掩码 × pp {pp} 与最终归一化) = {kept}{}",
                layers_text(m, &terms, &ZH),
                if m.recomputed > 0 { format!(" + 反向时重算{} {rec}（与损失的张量不同时驻留）= {size}", recomputed_layers(m, "一层", "层")) } else { String::new() }
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
