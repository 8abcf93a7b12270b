//! The guide's model-size tiers and their recommended cards (§3.2).
//!
//! The thresholds are the guide's: < 100 M, 100 M – 1 B, 1 B – 10 B, ≥ 10 B parameters. The
//! guide itself lists GPT-NeoX 20B and Falcon 40B as examples of its 1 B – 10 B tier, which
//! contradicts its own thresholds; we keep the thresholds (so a 20 B model lands in the ≥ 10 B
//! tier) and keep the examples where the guide printed them, with this note.

/// One tier of §3.2.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Tier {
    /// Short name.
    pub name: &'static str,
    /// Chinese name as in the guide.
    pub name_zh: &'static str,
    /// Smallest parameter count of the tier (inclusive).
    pub min_params: u64,
    /// Bound above (exclusive); `None` for the last tier.
    pub max_params: Option<u64>,
    /// The guide's example models.
    pub examples: &'static [&'static str],
    /// The guide's inference memory advice.
    pub inference: &'static str,
    /// The same advice in Chinese, with the same numbers (the guide's own wording).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub inference_zh: &'static str,
    /// Catalog ids of the cards it names (or that match its range) for inference.
    pub inference_gpus: &'static [&'static str],
    /// The guide's training memory advice.
    pub training: &'static str,
    /// The same advice in Chinese, with the same numbers.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub training_zh: &'static str,
    /// Catalog ids for training.
    pub training_gpus: &'static [&'static str],
    /// Caveats.
    pub note: &'static str,
    /// The caveats in Chinese.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub note_zh: &'static str,
}

/// 10^8, the guide's 1 亿.
pub const HUNDRED_MILLION: u64 = 100_000_000;

/// The four tiers, in order.
pub static TIERS: [Tier; 4] = [
    Tier {
        name: "light (< 100M)",
        name_zh: "轻量级模型（参数量 < 1 亿）",
        min_params: 0,
        max_params: Some(HUNDRED_MILLION),
        examples: &["ResNet-50", "BERT-base", "YOLOv5"],
        inference: "16 GB (e.g. NVIDIA T4)",
        inference_zh: "16 GB（如 NVIDIA T4）",
        inference_gpus: &["t4"],
        training: "24 GB (e.g. RTX 3090 or A10G)",
        training_zh: "24 GB（如 RTX 3090 或 A10G）",
        training_gpus: &["rtx-3090", "a10g"],
        note: "memory is rarely the constraint; pick the cheapest instance",
        note_zh: "显存很少成为约束；可优先选择性价比最高的实例",
    },
    Tier {
        name: "medium (100M – 1B)",
        name_zh: "中型模型（1 亿 ≤ 参数量 < 10 亿）",
        min_params: HUNDRED_MILLION,
        max_params: Some(10 * HUNDRED_MILLION),
        examples: &["BERT-large", "ViT-Large", "Whisper-tiny"],
        inference: "24–32 GB",
        inference_zh: "24–32 GB",
        inference_gpus: &[
            "a10g",
            "a10",
            "l4",
            "rtx-3090",
            "rtx-4090",
            "rtx-5090",
            "v100-sxm2-32gb",
        ],
        training: "40 GB (e.g. V100 32GB or A100 40GB)",
        training_zh: "40 GB（如 V100 32GB 或 A100 40GB）",
        training_gpus: &["v100-sxm2-32gb", "a100-pcie-40gb", "a100-sxm4-40gb"],
        note: "with a large training batch, 32 GB can be tight",
        note_zh: "训练时若批大小较大，32 GB 可能捉襟见肘",
    },
    Tier {
        name: "large (1B – 10B)",
        name_zh: "大型模型（10 亿 ≤ 参数量 < 100 亿）",
        min_params: 10 * HUNDRED_MILLION,
        max_params: Some(100 * HUNDRED_MILLION),
        examples: &["LLaMA 7B/13B", "GPT-NeoX 20B", "Falcon 40B"],
        inference: "40–80 GB",
        inference_zh: "40–80 GB",
        inference_gpus: &[
            "a100-pcie-40gb",
            "a100-sxm4-40gb",
            "l40s",
            "a100-sxm4-80gb",
            "h100-sxm5-80gb",
        ],
        training: "multi-GPU parallel or ZeRO-3 offload; one 80 GB card is the minimum",
        training_zh: "必须采用多卡并行或 ZeRO-3 卸载；单卡 80 GB 为最低门槛",
        training_gpus: &["a100-sxm4-80gb", "h100-sxm5-80gb", "h800-sxm5-80gb"],
        note: "the guide lists 13B, 20B and 40B models here although its bounds stop at 10B; \
               vramfit keeps the bounds, so those models fall in the next tier",
        note_zh: "指南在此档列出 13B、20B 和 40B 模型，但其上限为 10B；vramfit 保留上限，因此这些模型归入下一档",
    },
    Tier {
        name: "very large (≥ 10B)",
        name_zh: "超大模型（参数量 ≥ 100 亿）",
        min_params: 100 * HUNDRED_MILLION,
        max_params: None,
        examples: &[],
        inference: "multi-GPU parallel",
        inference_zh: "多卡并行",
        inference_gpus: &["h100-sxm5-80gb", "h200-sxm-141gb", "a100-sxm4-80gb"],
        training: "large clusters; distributed strategy matters more than the card",
        training_zh: "依赖大规模集群；分布式策略比单卡显存选型更重要",
        training_gpus: &["h100-sxm5-80gb", "h200-sxm-141gb", "b200-180gb"],
        note: "size the parallel layout with the planner",
        note_zh: "用规划器确定并行布局",
    },
];

/// The tier of a model with `params` parameters.
pub fn tier_for(params: u64) -> &'static Tier {
    TIERS
        .iter()
        .find(|t| params >= t.min_params && t.max_params.is_none_or(|m| params < m))
        .unwrap_or(&TIERS[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every number of a tier's English advice appears in its Chinese advice, and no more.
    #[test]
    fn chinese_advice_has_the_same_numbers() {
        fn numbers(s: &str) -> alloc::vec::Vec<&str> {
            s.split(|c: char| !c.is_ascii_digit())
                .filter(|x| !x.is_empty())
                .collect()
        }
        for t in &TIERS {
            for (en, zh) in [
                (t.inference, t.inference_zh),
                (t.training, t.training_zh),
                (t.note, t.note_zh),
            ] {
                assert!(
                    !zh.is_empty() && zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
                        || zh == en,
                    "{}: {zh}",
                    t.name
                );
                assert_eq!(numbers(en), numbers(zh), "{}: {en} / {zh}", t.name);
            }
        }
        assert_eq!(
            tier_for(7_000_000_000).training_zh,
            "必须采用多卡并行或 ZeRO-3 卸载；单卡 80 GB 为最低门槛"
        );
    }
}
