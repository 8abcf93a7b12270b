//! The formulas of FSDP's, DeepSpeed's and Megatron's figures, in English and Chinese (built only
//! when the run builds text).

use super::figures::TrainingFigures;
use super::megatron::interleave_factor;
use super::sharding::BufferParts;
use crate::estimate::{Formula, FsdpVersion, Offload, Parts, Run, b, thousands};
use alloc::string::String;

impl Run<'_> {
    /// The sharding's name in a formula: `FSDP2 FULL_SHARD`, `FSDP1 SHARD_GRAD_OP`.
    fn fsdp_name(&self) -> Option<&'static str> {
        let fsdp = self.sharding.fsdp?;
        Some(match (fsdp.version, fsdp.reshard_after_forward) {
            (FsdpVersion::V1, true) => "FSDP1 FULL_SHARD",
            (FsdpVersion::V1, false) => "FSDP1 SHARD_GRAD_OP",
            (FsdpVersion::V2, true) => "FSDP2 reshard_after_forward=True",
            (FsdpVersion::V2, false) => "FSDP2 reshard_after_forward=False",
        })
    }

    /// FSDP's or Megatron's weights, gradients or optimizer states (`None`: DeepSpeed's or
    /// one GPU's, written by `render.rs`).
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn sharded_state_text(&self, f: &TrainingFigures, what: State) -> Option<Formula> {
        // The numbers are written inside `formula!`: an estimate without text formats none.
        let shard = f.basis.shard;
        let dp = self.dp;
        if let Some(name) = self.fsdp_name() {
            let offload = self.offload != Offload::None;
            let sb = f.basis.state_bytes;
            let (bytes, per) = match what {
                State::Weights => (f.weights.bytes, sb),
                State::Gradients => (f.gradients.bytes, sb),
                State::Optimizer => (f.optimizer.bytes, f.optimizer.per_param),
            };
            let (label_en, label_zh) = match what {
                State::Weights => ("params", "个参数"),
                State::Gradients => ("gradients", "个梯度"),
                State::Optimizer => ("trainable × optimizer states", "个可训练参数 × 优化器状态"),
            };
            let text = formula!(self.text;
                let (n, size) = (thousands(shard), b(bytes));
                [
                    "{n} {label_en} × {per} B / {dp} ranks, padded ({name}){}{} = {size}",
                    self.fsdp_frozen_text(f, what).0,
                    if offload { ", in CPU memory (CPU offload)" } else { "" }
                ],
                [
                    "{n} {label_zh} × {per} B / {dp} 个 rank，含填充 ({name}){}{} = {size}",
                    self.fsdp_frozen_text(f, what).1,
                    if offload { "，在 CPU 内存中 (CPU offload)" } else { "" }
                ]
            );
            return Some(self.quant_state_text(f, what, text));
        }
        let m = self.sharding.megatron?;
        if f.basis.lora {
            return None;
        }
        Some(match what {
            State::Weights => formula!(self.text;
                let (n, size) = (thousands(shard), b(f.weights.bytes));
                ["{n} params × 2 B (Megatron's 16-bit parameters) = {size}"],
                ["{n} 个参数 × 2 B（Megatron 的 16 位参数）= {size}"]
            ),
            State::Gradients => formula!(self.text;
                let (n, per, size) = (thousands(shard), f.gradients.bytes_per, b(f.gradients.bytes));
                ["{n} main gradients × {per} B (Megatron's gradient buffer) = {size}"],
                ["{n} 个主梯度 × {per} B（Megatron 的梯度缓冲区）= {size}"]
            ),
            State::Optimizer => formula!(self.text;
                let (n, size) = (thousands(shard), b(f.optimizer.bytes));
                let (split, split_zh) = if m.distributed_optimizer {
                    (alloc::format!(" / {dp} ranks (distributed optimizer)"), alloc::format!(" / {dp} 个 rank（分布式优化器）"))
                } else {
                    (alloc::string::String::new(), alloc::string::String::new())
                };
                let per = f.optimizer.per_param;
                [
                    "{n} trainable × ({per} B states{} ){split} = {size}",
                    if f.optimizer.master > 0 { " + 4 B fp32 master" } else { "" }
                ],
                [
                    "{n} 个可训练参数 × ({per} B 状态{} ){split_zh} = {size}",
                    if f.optimizer.master > 0 { " + 4 B fp32 主权重" } else { "" }
                ]
            ),
        })
    }

    /// The allocator reserve's formula with ZeRO-3's or FSDP's margin for the cache.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    /// With FSDP's CPU offload it adds the offload allowance (`allowance` bytes, a share of
    /// `params`, the parameter shards in CPU memory for this GPU).
    pub(in crate::estimate) fn sharded_cache_formula(
        &self,
        transient: u64,
        margin: u64,
        (allowance, params): (u64, u64),
        reserve: u64,
    ) -> Formula {
        let name = if self.sharding.fsdp.is_some() {
            "FSDP"
        } else {
            "ZeRO-3"
        };
        let (extra_en, extra_zh) = if allowance > 0 && self.text {
            let (a, c, pct) = (
                b(allowance),
                b(params),
                super::FSDP_OFFLOAD_ALLOWANCE_PERCENT,
            );
            (
                alloc::format!(
                    " + {pct} % of the {c} of parameter shards in CPU memory for FSDP's CPU offload ({a}: an allowance from two published runs, not a rule; its cause is unknown, so the fit keeps it)"
                ),
                alloc::format!(
                    " + {pct} % × CPU 内存中 {c} 的参数分片，为 FSDP 的 CPU 卸载预留 ({a}：按两个公开运行定的预留，并非规则；原因未知，故适配判断保留它)"
                ),
            )
        } else {
            (String::new(), String::new())
        };
        formula!(self.text;
            let (t, blocks, m, size) = (b(transient), self.arch.num_layers, b(margin), b(reserve));
            let pct = super::SHARDED_CACHE_PERCENT;
            [
                "5 % of transient tensors ({t}) + 1 MiB rounding × {blocks} blocks + {pct} % of the peak allocated for the cache under {name}'s per-layer gathers and releases ({m}: a safety margin sized on published runs, not a rule of the allocator; the allocator gives it back before an out-of-memory error, so the fit leaves it out){extra_en} = {size}"
            ],
            [
                "5 % 的临时张量 ({t}) + 1 MiB 取整 × {blocks} 块 + 峰值已分配的 {pct} %，留给 {name} 逐层收集与释放下的分配器缓存 ({m}：按公开运行记录定的安全余量，并非分配器的规则；分配器在内存不足报错前会归还它，故适配判断不计入){extra_zh} = {size}"
            ]
        )
    }

    /// The note of an FSDP run with CPU offload: its total holds an allowance sized on two
    /// published runs (`tests/data/fsdp-published.csv`: without it −29.6 % and −13.6 %, 3–6 GiB at
    /// 70B; with it +1.1 % and +1.9 %), not a rule.
    pub(super) fn sharding_notes(&self, p: &mut Parts) {
        if self.sharding.fsdp.is_none() || self.offload == Offload::None || self.rl.is_some() {
            return;
        }
        let pct = super::FSDP_OFFLOAD_ALLOWANCE_PERCENT;
        p.note(
            "fsdp_cpu_offload",
            en!("FSDP with CPU offload: two published runs (Llama-2-70B and Llama-3-70B QLoRA, PEFT's FSDP guide and Philipp Schmid's notebook) read 3–6 GiB a GPU more than vramfit counts, for a reason not found in FSDP's source; the total holds an allowance for it, {pct} % of the parameter shards in CPU memory (sized on those two runs, not a rule), and the fit keeps it."),
            zh!("FSDP 使用 CPU 卸载：两个公开运行（Llama-2-70B 与 Llama-3-70B QLoRA，PEFT 的 FSDP 指南与 Philipp Schmid 的 notebook）每卡读数比 vramfit 计的多 3–6 GiB，原因在 FSDP 源码中未找到；total 为此加了预留，即 CPU 内存中参数分片的 {pct} %（按这两个运行定，并非规则），适配判断也计入它。"),
        );
    }

    /// FSDP's frozen LoRA base beside the adapters' shards, in the weights' formula: its bytes
    /// as loaded, split over the ranks (empty for the gradients and the states, and without
    /// LoRA).
    fn fsdp_frozen_text(&self, f: &TrainingFigures, what: State) -> (String, String) {
        if !self.text || !f.basis.lora || !matches!(what, State::Weights) {
            return (String::new(), String::new());
        }
        let upcast = f.weights.upcast.as_ref().map_or(0, |u| u.bytes);
        let frozen = self
            .fsdp_frozen_base(f)
            .saturating_add(upcast)
            .saturating_sub(f.weights.quant_state);
        let (size, dp) = (b(frozen), self.dp);
        let widened = self.fsdp_frozen_base(f) != f.weights.base;
        (
            alloc::format!(
                " + frozen base {size}{} / {dp} ranks",
                if widened {
                    " (loaded in fp32: FSDP shards it as loaded)"
                } else {
                    ""
                }
            ),
            alloc::format!(
                " + 冻结的基座 {size}{} / {dp} 个 rank",
                if widened {
                    "（以 fp32 加载：FSDP 按加载的类型切分）"
                } else {
                    ""
                }
            ),
        )
    }

    /// bitsandbytes' quantization state, whole on every GPU, appended to the weights' formula
    /// under ZeRO-3 or FSDP (`text` unchanged for anything else).
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn quant_state_text(
        &self,
        f: &TrainingFigures,
        what: State,
        text: Formula,
    ) -> Formula {
        let qs = f.weights.quant_state;
        if qs == 0 || !matches!(what, State::Weights) {
            return text;
        }
        formula!(self.text;
            let size = b(qs);
            [
                "{}; + bitsandbytes quant_state (absmax) {size} whole on every GPU (a module attribute ZeRO-3 and FSDP do not shard; on the GPU under CPU offload too)",
                text.en
            ],
            [
                "{}；+ bitsandbytes quant_state (absmax) {size}，每张 GPU 上完整一份（模块属性，ZeRO-3 与 FSDP 不切分；CPU offload 时也在 GPU 上）",
                text.zh
            ]
        )
    }

    /// What Megatron does to the activations, appended to their formula.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn megatron_activations_text(&self, f: &TrainingFigures, text: Formula) -> Formula {
        let Some(m) = self.sharding.megatron else {
            return text;
        };
        if let Some(acts) = &f.megatron {
            return self.megatron_layer_text(acts, f.activations.bytes);
        }
        let (tp, pp) = (self.tp, self.pp);
        let (num, den) = interleave_factor(pp, m.vp);
        let sp = m.sequence_parallel && tp > 1;
        let size = b(f.activations.bytes);
        formula!(self.text;
            let vp = m.vp;
            let cp = m.cp;
            [
                "{}{}{}{} → {size}",
                text.en,
                if sp { alloc::format!(", all / tp {tp} (sequence parallel)") } else { alloc::string::String::new() },
                if cp > 1 { alloc::format!(", / cp {cp} (context parallel)") } else { alloc::string::String::new() },
                if num != den { alloc::format!(", × {num}/{den} (interleaved, vp {vp})") } else { alloc::string::String::new() }
            ],
            [
                "{}{}{}{} → {size}",
                text.zh,
                if sp { alloc::format!("，全部 / tp {tp}（序列并行）") } else { alloc::string::String::new() },
                if cp > 1 { alloc::format!("，/ cp {cp}（上下文并行）") } else { alloc::string::String::new() },
                if num != den { alloc::format!("，× {num}/{den}（交错调度，vp {vp}）") } else { alloc::string::String::new() }
            ]
        )
    }

    /// DeepSpeed's buffers or FSDP's gathered units.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn sharded_buffers_text(&self, f: &TrainingFigures) -> Formula {
        if !self.text {
            return Formula::default();
        }
        let (zero, size) = (self.zero, b(f.buckets.bytes));
        match &f.buckets.parts {
            BufferParts::Ddp => Formula::default(),
            BufferParts::Zero12 { bucket, copies } => formula!(self.text;
                let (bucket, ab) = (thousands(*bucket), f.basis.act_bytes);
                [
                    "ZeRO-{zero} reduce bucket reduce_bucket_size {bucket} × {ab} B × {copies}{} (allgather_bucket_size gathers in place) = {size}",
                    if *copies > 1 { " (overlap_comm)" } else { "" }
                ],
                [
                    "ZeRO-{zero} 归约桶 reduce_bucket_size {bucket} × {ab} B × {copies}{}（allgather_bucket_size 原地收集）= {size}",
                    if *copies > 1 { " (overlap_comm)" } else { "" }
                ]
            ),
            BufferParts::Zero3(z) => formula!(self.text;
                let (reduce, gathered, grad, persistent) = (b(z.reduce), b(z.gathered), b(z.grad), b(z.persistent));
                [
                    "ZeRO-3 reduce bucket {reduce} + largest module gathered with the prefetch bucket {gathered} + its full gradient {grad} + persistent small parameters {persistent} = {size}"
                ],
                [
                    "ZeRO-3 归约桶 {reduce} + 收集的最大模块与预取桶 {gathered} + 其完整梯度 {grad} + 常驻的小参数 {persistent} = {size}"
                ]
            ),
            BufferParts::Fsdp(u) => formula!(self.text;
                let name = self.fsdp_name().unwrap_or("FSDP");
                let (root, unit, layers, ug, rg) = (b(u.root), b(u.unit), b(u.layers), b(u.unit_grad), b(u.root_grad));
                let (held, held_zh) = if u.reshard {
                    (alloc::format!("2 layers gathered (this one and the prefetched) 2 × {unit}"), alloc::format!("2 个已收集的层（当前与预取）2 × {unit}"))
                } else {
                    (alloc::format!("every layer kept gathered {layers}"), alloc::format!("所有层保持收集 {layers}"))
                };
                let at_loss = f.buckets.bytes == u.forward && u.forward != u.backward;
                let (held, held_zh) = if at_loss && u.reshard {
                    (alloc::format!("the last layer gathered again for backward {unit}"), alloc::format!("为反向再次收集的最后一层 {unit}"))
                } else {
                    (held, held_zh)
                };
                let (rest, rest_zh) = if at_loss {
                    (alloc::string::String::new(), alloc::string::String::new())
                } else if self.sharding.fsdp.is_some_and(|f| f.version == FsdpVersion::V1) {
                    (
                        alloc::format!("; in backward + a layer's parameter gradients and their flat concatenation 2 × {ug}, or at its end (the first layer resharded) the root's 2 × {rg}"),
                        alloc::format!("；反向时另加一层的参数梯度及其展平拼接 2 × {ug}，或在反向末尾（第一层已重新切分）加根单元的 2 × {rg}"),
                    )
                } else {
                    (
                        alloc::format!("; in backward + a layer's gradient and its reduce-scatter copy 2 × {ug}, or at its end the root's gradient and its copy 2 × {rg}"),
                        alloc::format!("；反向时另加一层的梯度及其 reduce-scatter 副本 2 × {ug}，或在反向末尾加根单元梯度及其副本 2 × {rg}"),
                    )
                };
                [
                    "{name}: root unit (embedding, norm, head) gathered {root} + {held}{rest} = {size}"
                ],
                [
                    "{name}：根单元（嵌入、归一化、输出头）收集 {root} + {held_zh}{rest_zh} = {size}"
                ]
            ),
        }
    }
}

/// Which model state a formula is for.
#[derive(Clone, Copy)]
pub(super) enum State {
    Weights,
    Gradients,
    Optimizer,
}
