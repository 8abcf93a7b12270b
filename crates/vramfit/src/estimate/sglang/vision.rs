//! SGLang's cut of `mem_fraction_static` for a multimodal model, by release (issue 41: the pool
//! must never be promised larger than SGLang's). Read in each release's wheel on PyPI:
//!
//! - 0.4.0–0.4.4: `ModelRunner.__init__` (`srt/model_executor/model_runner.py`, v0.4.0 and
//!   v0.4.3.post3): `if self.is_multimodal: self.mem_fraction_static *= 0.95`, on the fraction
//!   the server holds, given or default;
//! - 0.4.5–0.4.8: the same line with `0.90` (v0.4.5, v0.4.8);
//! - 0.4.9: moved to `ServerArgs.__post_init__` (`srt/server_args.py`, v0.4.9): `× 0.90` only
//!   where `mem_fraction_static` was not given;
//! - 0.4.10–0.5.23: `ServerArgs.adjust_mem_fraction_for_vlm` (`srt/server_args.py`, v0.4.10 to
//!   v0.5.19; `srt/arg_groups/memory_hook.py` from v0.5.20 to v0.5.23), only where not given:
//!   `0.95 × clamp(1 − 0.1 × (layers × hidden² / (24 × 1024²) − 1), 0.8, 1.05)` of the vision
//!   tower, `layers` read as `getattr(vision_config, "num_hidden_layers", 24)`.
//!
//! The multimodal test is SGLang's `model_config.is_multimodal` (its architecture takes images):
//! here a model with a vision encoder's weights. Under transformers 4.x a Qwen tower's config
//! spells its blocks `depth`, which the `getattr` misses (24 is read); transformers 5 maps it.
//! vramfit reads the tower's own depth: for Qwen3-VL-8B's 27 blocks 0.910 where SGLang on
//! transformers 4.x takes 0.925: on an H100 at 0.5.23's default 0.829 a pool smaller than
//! SGLang's there by 0.829 × 0.015 = 1.2 % of the card (the safe side), the same on
//! transformers 5. A multimodal model whose tower is not
//! modelled is cut by the rule's floor, 0.95 × 0.8 = 0.76: no tower gives SGLang less.

use super::SglangVersion;
use crate::model::Architecture;
use crate::units::fixed;

/// Where a release cuts the fraction for a multimodal model, and by how much.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VisionCut {
    /// The factor the fraction is multiplied by.
    pub factor: f64,
    /// `ModelRunner` cuts it (0.4.0–0.4.8): the server's `mem_fraction_static`, given or default,
    /// is as printed and the pool takes `factor` of it. Otherwise `ServerArgs` cut a default
    /// fraction before it is printed, and a given one is left as it is.
    pub in_runner: bool,
}

/// `adjust_mem_fraction_for_vlm`'s factor for a tower of `layers` blocks of width `hidden`:
/// `0.95 × clamp(1 − 0.1 × (layers × hidden² / (24 × 1024²) − 1), 0.8, 1.05)`.
pub(in crate::estimate) fn tower_factor(layers: u64, hidden: u64) -> f64 {
    let ratio = layers as f64 * (hidden as f64) * (hidden as f64) / (24.0 * 1024.0 * 1024.0);
    0.95 * (1.0 - 0.1 * (ratio - 1.0)).clamp(0.8, 1.05)
}

impl SglangVersion {
    /// This release's cut for `arch` with the fraction `given` or not; `None` for a model
    /// without a vision encoder, or a given fraction from 0.4.9 on.
    pub(in crate::estimate) fn vision_cut(
        self,
        arch: &Architecture,
        given: bool,
    ) -> Option<VisionCut> {
        if arch.vision_params == 0 {
            return None;
        }
        let v = SglangVersion::new;
        let runner = |factor| {
            Some(VisionCut {
                factor,
                in_runner: true,
            })
        };
        let server = |factor| {
            (!given).then_some(VisionCut {
                factor,
                in_runner: false,
            })
        };
        match self {
            _ if self < v(4, 5) => runner(0.95),
            _ if self < v(4, 9) => runner(0.90),
            _ if self < v(4, 10) => server(0.90),
            _ => server(
                arch.vision_tower
                    .map_or(0.95 * 0.8, |t| tower_factor(t.layers, t.hidden)),
            ),
        }
    }
}

impl crate::estimate::Workload {
    /// The fraction SGLang's token pool is sized by: `mem_fraction_static`, and before 0.4.9 for
    /// a multimodal model `ModelRunner`'s cut of it.
    pub(in crate::estimate) fn sglang_pool_fraction(&self) -> f64 {
        match self.sglang_vision_cut {
            Some(c) if c.in_runner => self.mem_fraction_static * c.factor,
            _ => self.mem_fraction_static,
        }
    }
}

impl crate::estimate::Run<'_> {
    /// The note that says the cut: what it multiplied, by how much, and where SGLang does it.
    pub(super) fn sglang_vision_note(&self, p: &mut crate::estimate::Parts) {
        let Some(c) = self.sglang_vision_cut.filter(|_| self.text) else {
            return;
        };
        let (v, factor) = (self.sglang_version, fixed(c.factor, 3));
        let (pool, server) = (
            fixed(self.sglang_pool_fraction(), 3),
            fixed(self.mem_fraction_static, 3),
        );
        let (en, zh) = match (c.in_runner, self.arch.vision_tower) {
            (true, _) => (
                en!(
                    "A multimodal model: SGLang {v}'s ModelRunner sizes the pool by mem_fraction_static {server} × {factor} = {pool} (0.4.0–0.4.4 × 0.95, 0.4.5–0.4.8 × 0.90, a given fraction as the default)."
                ),
                zh!(
                    "多模态模型：SGLang {v} 的 ModelRunner 按 mem_fraction_static {server} × {factor} = {pool} 确定池的大小（0.4.0–0.4.4 乘 0.95，0.4.5–0.4.8 乘 0.90，给定的比例与默认值一样）。"
                ),
            ),
            (false, Some(t)) if v >= SglangVersion::new(4, 10) => {
                let (layers, hidden) = (t.layers, t.hidden);
                (
                    en!(
                        "A multimodal model: SGLang {v} lowers its default mem_fraction_static by × {factor} to {server} for the vision tower's {layers} blocks of width {hidden} (adjust_mem_fraction_for_vlm: 0.95 × clamp(1 − 0.1 × (layers × width² / (24 × 1024²) − 1), 0.8, 1.05)); a given fraction is not lowered."
                    ),
                    zh!(
                        "多模态模型：SGLang {v} 按视觉塔的 {layers} 层、宽 {hidden}，把默认的 mem_fraction_static 乘 {factor} 降到 {server}（adjust_mem_fraction_for_vlm：0.95 × clamp(1 − 0.1 × (层数 × 宽度² / (24 × 1024²) − 1), 0.8, 1.05)）；给定的比例不下调。"
                    ),
                )
            }
            (false, _) => (
                en!(
                    "A multimodal model: SGLang {v} lowers its default mem_fraction_static by × {factor} to {server} (0.4.9: × 0.90; from 0.4.10 by the vision tower, whose shape is not modelled here: the rule's floor 0.95 × 0.8); a given fraction is not lowered."
                ),
                zh!(
                    "多模态模型：SGLang {v} 把默认的 mem_fraction_static 乘 {factor} 降到 {server}（0.4.9：乘 0.90；0.4.10 起按视觉塔下调，此处未建模其形状，取规则的下限 0.95 × 0.8）；给定的比例不下调。"
                ),
            ),
        };
        p.note("sglang_vision_fraction", en, zh);
    }
}

#[cfg(test)]
#[path = "vision_tests.rs"]
mod tests;
