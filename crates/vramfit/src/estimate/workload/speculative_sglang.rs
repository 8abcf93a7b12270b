//! What of speculative decoding vramfit takes for SGLang: EAGLE, EAGLE-3 and STANDALONE
//! (`--speculative-algorithm`) at the 0.5.23 line whose rules it read, beside a target whose
//! pool SGLang sizes with its default configurator.

use crate::error::Result;
use crate::estimate::{SglangVersion, SpecMethod};
use crate::model::Architecture;

/// SGLang's speculative `method` beside the target `arch` at `version`, `disaggregated` when
/// the run serves one P/D side: refused where vramfit does not follow SGLang's sizing.
pub(super) fn check(
    method: SpecMethod,
    arch: &Architecture,
    version: SglangVersion,
    disaggregated: bool,
) -> Result<()> {
    if crate::estimate::sglang::speculative_algorithm(method).is_none() {
        let name = method.name();
        return Err(input_error!(
            Unsupported,
            "speculative_method",
            [
                "SGLang's speculative decoding is modelled for eagle (EAGLE), eagle3 (EAGLE3), draft_model (STANDALONE) and mtp (NEXTN), not {name}"
            ],
            [
                "SGLang 的投机解码仅对 eagle（EAGLE）、eagle3（EAGLE3）、draft_model（STANDALONE）和 mtp（NEXTN）建模，不含 {name}"
            ],
            "eagle, eagle3, draft_model or mtp",
            "eagle、eagle3、draft_model 或 mtp",
        ));
    }
    // Each earlier line reserved its own share of the fraction for drafting (+ 2 GiB at
    // 0.4.9, + 6 / + 2 GiB at 0.5.2, after a 10 GiB floor at 0.5.10): read, not modelled.
    if version != SglangVersion::LATEST {
        let (v, latest) = (version, SglangVersion::LATEST);
        return Err(input_error!(
            Unsupported,
            "speculative_method",
            [
                "SGLang's speculative decoding is modelled at {latest}, not {v}, whose default mem_fraction_static keeps its own reserve for drafting"
            ],
            [
                "SGLang 的投机解码仅按 {latest} 建模，不含 {v}：该版本的默认 mem_fraction_static 为草拟另有预留"
            ],
            ["engine_version {latest}, or no speculative_method"],
            ["engine_version {latest}，或不设 speculative_method"],
        ));
    }
    if disaggregated {
        return Err(input_error!(
            Unsupported,
            "speculative_method",
            "SGLang's speculative decoding on a P/D side is not modelled (the decode side's default mem_fraction_static reserves max(running requests × speculative_num_draft_tokens, 2048) activation tokens)",
            "未对 P/D 分离一端的 SGLang 投机解码建模（解码端默认 mem_fraction_static 预留 max(运行请求数 × speculative_num_draft_tokens, 2048) 个激活 token）",
            "no disaggregation_mode, or no speculative_method",
            "不设 disaggregation_mode，或不设 speculative_method",
        ));
    }
    // The sliding-window, hybrid and compressed pools have their own configurators, whose
    // draft rows vramfit does not follow; DSA's cell adds the draft's indexer.
    if arch.sliding_window > 0
        || arch.hybrid.is_some()
        || arch.indexer.is_some()
        || arch.compressed.is_some()
    {
        return Err(input_error!(
            Unsupported,
            "speculative_method",
            "SGLang's speculative decoding is modelled beside a target whose every layer caches the whole context in one pool: this model has sliding windows, state layers, a sparse-attention indexer or a compressed cache",
            "SGLang 的投机解码仅对每层都在同一个池中缓存整个上下文的目标模型建模：此模型含滑动窗口、状态层、稀疏注意力索引器或压缩缓存",
            "a model with full attention in every layer, or no speculative_method",
            "每层全注意力的模型，或不设 speculative_method",
        ));
    }
    Ok(())
}
