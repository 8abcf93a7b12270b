//! The formulas' text, written only when asked for: the same numbers in English and Chinese.
//!
//! Units: bytes in GB (10^9) where they are set against a bandwidth in GB/s, as vendors print
//! it; FLOPs in TFLOP and TFLOPS; times in µs, ms, s or h.

use alloc::format;
use alloc::string::{String, ToString};

use super::inference::Phase;
use super::{FormulaText, Inference, InferenceFigure, Training, TrainingFigure, efficiency};
use crate::units::fixed;

/// A [`FormulaText`] from one `format!` per language, each written only under its feature.
macro_rules! text {
    ([$($en:tt)*], [$($zh:tt)*]) => {
        FormulaText {
            en: if cfg!(feature = "en") { format!($($en)*) } else { String::new() },
            zh: if cfg!(feature = "zh") { format!($($zh)*) } else { String::new() },
        }
    };
}

mod collectives;

/// `x` with `places` decimals, trailing zeros dropped.
fn num(x: f64, places: u32) -> String {
    let mut s = fixed(x, places);
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    s
}

/// `n` with a comma every three digits.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn gb(bytes: f64) -> String {
    format!("{} GB", fixed(bytes / 1e9, 2))
}

/// A message's size: kB below a megabyte, MB above.
fn mb(bytes: f64) -> String {
    if bytes < 1e6 {
        format!("{} kB", fixed(bytes / 1e3, 2))
    } else {
        format!("{} MB", fixed(bytes / 1e6, 2))
    }
}

fn gb_s(bytes_per_s: f64) -> String {
    format!("{} GB/s", num(bytes_per_s / 1e9, 1))
}

fn tflop(flops: f64) -> String {
    if flops >= 1e11 {
        format!("{} TFLOP", fixed(flops / 1e12, 2))
    } else {
        format!("{} GFLOP", fixed(flops / 1e9, 2))
    }
}

fn tflops(flops_per_s: f64) -> String {
    format!("{} TFLOPS", num(flops_per_s / 1e12, 1))
}

/// A duration in the unit that reads best.
fn time(s: f64) -> String {
    if s < 1e-3 {
        format!("{} µs", num(s * 1e6, 1))
    } else if s < 1.0 {
        format!("{} ms", fixed(s * 1e3, 2))
    } else if s < 3600.0 {
        format!("{} s", fixed(s, 2))
    } else {
        format!("{} h", fixed(s / 3600.0, 2))
    }
}

/// A rate: whole numbers from 100 up, one decimal below.
pub(crate) fn rate(x: f64) -> String {
    if x >= 100.0 { fixed(x, 0) } else { fixed(x, 1) }
}

/// The memory term of a phase: its bytes over the bandwidth (per GPU, stage after stage).
fn memory(w: &super::inference::Working, p: &Phase) -> FormulaText {
    let i = &w.input;
    let pp = f64::from(i.pp);
    let weights = if i.experts > 0 {
        let dense = gb(i.dense_weight_bytes as f64);
        let experts = gb(i.expert_weight_bytes as f64);
        let share = num(p.experts_touched * 100.0, 1);
        text!(
            ["{dense} dense + {experts} of experts × {share} % touched"],
            ["{dense} 稠密 + {experts} 专家 × {share} % 被路由到"]
        )
    } else {
        let weights = gb(p.weight_bytes / pp);
        text!(["{weights} weights"], ["{weights} 权重"])
    };
    let kv = if p.kv_bytes > 0.0 {
        let kv = gb(p.kv_bytes / pp);
        text!([" + {kv} KV cache"], [" + {kv} KV 缓存"])
    } else {
        FormulaText::default()
    };
    let bw = gb_s(w.device.bandwidth_bytes_per_s);
    let mbu = num(w.efficiency.mbu, 2);
    let t = time(p.memory_s);
    if i.pp > 1 {
        let pp = i.pp;
        text!(
            [
                "{pp} pipeline stages one after another × ({}{}) / ({bw} × {mbu}) = {t}",
                weights.en,
                kv.en
            ],
            [
                "{pp} 个流水线阶段依次执行 ×（{}{}）/（{bw} × {mbu}）= {t}",
                weights.zh,
                kv.zh
            ]
        )
    } else {
        text!(
            ["({}{}) / ({bw} × {mbu}) = {t}", weights.en, kv.en],
            ["（{}{}）/（{bw} × {mbu}）= {t}", weights.zh, kv.zh]
        )
    }
}

/// The compute term of a phase: its FLOPs over the peak.
fn compute(w: &super::inference::Working, p: &Phase) -> FormulaText {
    let params = thousands(w.input.active_params);
    let tokens = num(p.tokens, 0);
    let tokens_word = if p.tokens == 1.0 { "token" } else { "tokens" };
    let attention = tflop(p.attention_flops);
    let total = tflop(p.weight_flops + p.attention_flops);
    let peak = tflops(w.peak);
    let mfu = num(w.efficiency.mfu, 2);
    let tp = w.input.tp;
    let split = if tp > 1 {
        format!("{tp} × ")
    } else {
        String::new()
    };
    let t = time(p.compute_s);
    text!(
        [
            "(2 × {params} params × {tokens} {tokens_word} + {attention} attention = {total}) / ({split}{peak} × {mfu}) = {t}"
        ],
        [
            "（2 × {params} 个参数 × {tokens} 个 token + 注意力 {attention} = {total}）/（{split}{peak} × {mfu}）= {t}"
        ]
    )
}

/// The all-reduce and fixed terms of a phase.
fn rest(w: &super::inference::Working, p: &Phase) -> FormulaText {
    let i = &w.input;
    let layers = i.layers;
    let per_layer = time(w.efficiency.layer_s);
    let mut fixed_en = format!(" + {layers} layers × {per_layer}");
    let mut fixed_zh = format!(" + {layers} 层 × {per_layer}");
    if w.efficiency.step_s > 0.0 {
        let step = time(w.efficiency.step_s);
        fixed_en.push_str(&format!(" + {step} per step"));
        fixed_zh.push_str(&format!(" + 每步 {step}"));
    }
    let handover = handover(w, p);
    fixed_en.insert_str(0, &handover.en);
    fixed_zh.insert_str(0, &handover.zh);
    if i.tp > 1 {
        let latency = time(efficiency::ALLREDUCE_LATENCY_S);
        let bytes = mb(p.allreduce_bytes);
        let link = gb_s(p.allreduce_link);
        let eff = num(efficiency::LINK_EFFICIENCY, 2);
        let t = time(p.allreduce_s);
        let assumed = if i.tp_across_nodes {
            text!(
                [" (between nodes: tp spans them)"],
                ["（节点间：tp 跨越节点）"]
            )
        } else if w.link_assumed {
            text!(
                [" (link unknown: PCIe 4.0 x16)"],
                ["（互联未知：按 PCIe 4.0 x16）"]
            )
        } else {
            FormulaText::default()
        };
        return text!(
            [
                " + all-reduce 2 × {layers} layers × ({latency} + {bytes} / ({link}{} × {eff})) = {t}{fixed_en}",
                assumed.en
            ],
            [
                " + all-reduce 2 × {layers} 层 ×（{latency} + {bytes} /（{link}{} × {eff}））= {t}{fixed_zh}",
                assumed.zh
            ]
        );
    }
    FormulaText {
        en: if cfg!(feature = "en") {
            fixed_en
        } else {
            String::new()
        },
        zh: if cfg!(feature = "zh") {
            fixed_zh
        } else {
            String::new()
        },
    }
}

/// The pipeline hand-overs that cross the network between nodes (empty on one node).
fn handover(w: &super::inference::Working, p: &Phase) -> FormulaText {
    let n = w.input.pp_node_crossings;
    if n == 0 {
        return FormulaText::default();
    }
    let latency = time(efficiency::ALLREDUCE_LATENCY_S);
    let bytes = mb(p.handover_bytes);
    let link = gb_s(w.input.node_link_bytes_per_s as f64);
    let eff = num(efficiency::LINK_EFFICIENCY, 2);
    let t = time(p.handover_s);
    text!(
        [
            " + {n} pipeline hand-over(s) between nodes × ({latency} + {bytes} / ({link} × {eff})) = {t}"
        ],
        [" + {n} 次节点间流水线交接 ×（{latency} + {bytes} /（{link} × {eff}））= {t}"]
    )
}

/// A phase's time: the slower of memory and compute, then the rest.
fn phase(w: &super::inference::Working, p: &Phase) -> FormulaText {
    let m = memory(w, p);
    let c = compute(w, p);
    let mut r = rest(w, p);
    let o = super::offload::text(&w.input, &p.offload);
    r.en.push_str(&o.en);
    r.zh.push_str(&o.zh);
    let t = time(p.total_s);
    let (bound_en, bound_zh) = if p.memory_s > p.compute_s {
        ("memory-bound", "受显存带宽限制")
    } else {
        ("compute-bound", "受算力限制")
    };
    text!(
        [
            "max(memory: {}, compute: {}){} = {t} ({bound_en})",
            m.en,
            c.en,
            r.en
        ],
        [
            "max(显存读取：{}，计算：{}){} = {t}（{bound_zh}）",
            m.zh,
            c.zh,
            r.zh
        ]
    )
}

/// The formula of one inference figure.
pub(super) fn inference(inf: &Inference, figure: InferenceFigure) -> FormulaText {
    let w = &inf.work;
    let batch = w.input.batch;
    match figure {
        InferenceFigure::TimeToFirstToken => phase(w, &w.prefill),
        InferenceFigure::DecodeStep => phase(w, &w.decode),
        InferenceFigure::PrefillTokensPerS => {
            let t = time(w.prefill.total_s);
            let r = rate(inf.prefill_tokens_per_s);
            text!(
                [
                    "{batch} × {} prompt tokens / {t} = {r} tokens/s",
                    num(w.prompt, 0)
                ],
                [
                    "{batch} × {} 个提示 token / {t} = {r} token/s",
                    num(w.prompt, 0)
                ]
            )
        }
        InferenceFigure::DecodeTokensPerSPerSequence => {
            let t = time(w.decode.total_s);
            let r = rate(inf.decode_tokens_per_s_per_sequence);
            let c = num(w.context, 0);
            text!(
                ["1 token / {t} per step at {c} tokens of context = {r} tokens/s"],
                ["1 个 token / 每步 {t}（上下文 {c} 个 token）= {r} token/s"]
            )
        }
        InferenceFigure::DecodeTokensPerS => {
            let t = time(w.decode.total_s);
            let r = rate(inf.decode_tokens_per_s);
            text!(
                [
                    "{batch} {} × 1 token / {t} per step = {r} tokens/s",
                    if batch == 1 { "sequence" } else { "sequences" }
                ],
                ["{batch} 条序列 × 1 个 token / 每步 {t} = {r} token/s"]
            )
        }
        InferenceFigure::Total => {
            let ttft = time(inf.time_to_first_token_s);
            let steps = w.input.output_tokens.saturating_sub(1);
            let step = time(inf.decode_step_s);
            let total = time(inf.total_s);
            text!(
                ["first token {ttft} + {steps} steps × {step} = {total}"],
                ["首个 token {ttft} + {steps} 步 × {step} = {total}"]
            )
        }
    }
}

/// The formula of one training figure.
pub(super) fn training(tr: &Training, figure: TrainingFigure) -> FormulaText {
    let w = &tr.work;
    let i = &w.input;
    match figure {
        TrainingFigure::FlopsPerToken => {
            let n = thousands(i.active_params);
            let t = thousands(w.trainable as u64);
            let attention = tflop(w.attention_fwd);
            let total = tflop(tr.flops_per_token);
            let (re_en, re_zh) = match i.recompute {
                super::Recompute::None => (String::new(), String::new()),
                super::Recompute::Selective => (
                    format!(" + recomputed attention {attention}"),
                    format!(" + 重算注意力 {attention}"),
                ),
                super::Recompute::Full => (
                    format!(" + recomputed forward 2 × {n} + {attention}"),
                    format!(" + 重算前向 2 × {n} + {attention}"),
                ),
            };
            text!(
                [
                    "forward 2 × {n} params + backward 2 × {n} (activation gradients) + 2 × {t} trainable (weight gradients) + attention 3 × {attention}{re_en} = {total} per token"
                ],
                [
                    "前向 2 × {n} 个参数 + 反向 2 × {n}（激活梯度）+ 2 × {t} 个可训练参数（权重梯度）+ 注意力 3 × {attention}{re_zh} = 每 token {total}"
                ]
            )
        }
        TrainingFigure::StepTime => {
            let tokens = thousands(i.tokens_per_step);
            let f = tflop(tr.flops_per_token);
            let gpus = i.gpus;
            let peak = tflops(w.peak);
            let u = num(w.utilisation, 2);
            let bubble = if i.pp > 1 {
                let b = num(tr.bubble, 3);
                let (pp, m) = (i.pp, i.microbatches);
                // The interleaved schedule's virtual stages divide the bubble.
                let vp = i.comm.map_or(1, |c| c.vp.max(1));
                let over = if vp > 1 {
                    format!("({m} × {vp})")
                } else {
                    m.to_string()
                };
                text!(
                    [" × (1 + ({pp} − 1) / {over} bubble = {b})"],
                    ["×（1 + 流水线气泡 ({pp} − 1) / {over} = {b}）"]
                )
            } else {
                FormulaText::default()
            };
            let t = time(tr.step_time_s);
            let comm = if w.comm.is_some() {
                let c = time(w.compute_s * (1.0 + tr.bubble));
                let e = time(tr.exposed_comm_s);
                text!([" = {c} + {e} collectives"], [" = {c} + 集合通信 {e}"])
            } else {
                FormulaText::default()
            };
            let (comm_en, comm_zh) = (comm.en, comm.zh);
            text!(
                [
                    "{tokens} tokens × {f} / ({gpus} GPUs × {peak} × {u}){}{comm_en} = {t}",
                    bubble.en
                ],
                [
                    "{tokens} 个 token × {f} /（{gpus} 张 GPU × {peak} × {u}）{}{comm_zh} = {t}",
                    bubble.zh
                ]
            )
        }
        TrainingFigure::Collectives => collectives::text(tr),
        TrainingFigure::TokensPerS => {
            let tokens = thousands(i.tokens_per_step);
            let t = time(tr.step_time_s);
            let r = rate(tr.tokens_per_s);
            text!(
                ["{tokens} tokens / {t} per step = {r} tokens/s"],
                ["{tokens} 个 token / 每步 {t} = {r} token/s"]
            )
        }
        TrainingFigure::HoursPerEpoch { dataset_tokens } => {
            let d = thousands(dataset_tokens);
            let r = rate(tr.tokens_per_s);
            let h = fixed(tr.hours_per_epoch(dataset_tokens), 2);
            text!(
                ["{d} tokens / {r} tokens/s / 3600 s = {h} h"],
                ["{d} 个 token / {r} token/s / 3600 s = {h} 小时"]
            )
        }
    }
}
