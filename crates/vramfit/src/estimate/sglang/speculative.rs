//! SGLang's speculative decoding (`--speculative-algorithm EAGLE|EAGLE3|STANDALONE|NEXTN`): the
//! draft's weights loaded before the token pool is sized, and the draft's KV in every cell of
//! the one pool. NEXTN (`arg_groups/speculative_hook.py`: resolved to EAGLE by
//! `_resolve_speculative_algorithm_alias`, the draft path the model's own by
//! `_handle_eagle_family`) drafts with the checkpoint's MTP layers ([`NextnWeights`]).
//!
//! Read in the sglang 0.5.23 wheel:
//! - `mem_cache/kv_cache_configurator.py`, `KVCacheConfigurator._profile_available_bytes`: the
//!   pool's budget is the free memory less `pre × (1 − mem_fraction_static)`, measured after the
//!   draft worker has loaded ("If using speculative decoding, draft weights are now counted"),
//!   so the draft's weights come out of the same static budget as the target's. The draft's
//!   own embedding (and an EAGLE head's LM head) is replaced by the target's only afterwards
//!   (`speculative/eagle_worker_v2.py`, `alloc_memory_pool` then `init_lm_head`), so at the
//!   profile the draft holds them: `models/llama_eagle3.py` builds `embed_tokens` over the
//!   config's `vocab_size` and its LM head over `draft_vocab_size` (counted here over the
//!   target's vocabulary, the safe side), `models/llama_eagle.py` both over `vocab_size` (one
//!   tensor when tied: the safe side again).
//! - `model_executor/pool_configurator.py`, `DefaultPoolConfigurator.__init__`: for EAGLE and
//!   STANDALONE the cell is `cell + int(cell × draft layers / target layers)`, the draft assumed
//!   to have the target's per-layer KV size.
//! - `model_executor/model_runner_components/spec_aux_hidden_state.py`,
//!   `_resolve_eagle_aux_hidden_state`: the draft's layers are its config's
//!   `num_nextn_predict_layers` when set, else `max(num_hidden_layers, num_attention_layers)`
//!   of the draft checkpoint (1 for an EAGLE or EAGLE-3 head).
//! - `arg_groups/speculative_hook.py`, `_handle_eagle_family`: `max_running_requests` defaults
//!   to 48.

use super::super::{ComponentKind, Parts, Run, SpecMethod, Speculative, b, thousands};
use super::figures::SglangFigures;
use alloc::string::String;

/// SGLang's `max_running_requests` under EAGLE, EAGLE-3 or STANDALONE when none is given
/// (`arg_groups/speculative_hook.py`, `_handle_eagle_family`).
pub(super) const SPECULATIVE_RUNNING_REQUESTS: u64 = 48;

/// The draft on one GPU as SGLang sizes its pool.
#[derive(Clone, Copy)]
pub(in crate::estimate) struct SglangDraft {
    /// The method (EAGLE, EAGLE3, STANDALONE).
    pub(in crate::estimate) method: SpecMethod,
    /// Its parameters on this GPU at the pool's profile.
    pub(in crate::estimate) params: u64,
    /// Their bytes.
    pub(in crate::estimate) weights: u64,
    /// The draft's layers (`eagle_draft_num_layers`).
    pub(in crate::estimate) layers: u64,
    /// The target's layers in the cell (`num_effective_layers`).
    pub(in crate::estimate) target_layers: u64,
    /// The target's cell in bytes per token.
    pub(in crate::estimate) target_cell: u64,
    /// What the draft adds to each cell: `int(target_cell × layers / target_layers)`.
    pub(in crate::estimate) cell: u64,
    /// NEXTN's parts (`mtp`), whose layer is held as the target's checkpoint holds it.
    pub(in crate::estimate) nextn: Option<NextnWeights>,
}

/// The NEXTN draft on one GPU as SGLang 0.5.23 builds it (`models/deepseek_nextn.py`
/// `DeepseekModelNextN`, `models/glm4_moe_nextn.py`): its decoder layer(s), in the target's
/// format, and in the model dtype its own embedding and LM head (replaced by the target's only
/// after the pool is sized, `EAGLEWorkerV2.init_lm_head`), `eh_proj` (2 × hidden → hidden, an
/// `nn.Linear` on every GPU) and three norms (`enorm`, `hnorm`, `shared_head.norm`).
#[derive(Clone, Copy)]
pub(in crate::estimate) struct NextnWeights {
    /// One routed-expert decoder layer's bytes on this GPU.
    pub(in crate::estimate) layer: u64,
    /// The embedding's and the LM head's parameters on this GPU (the embedding whole under DP
    /// attention, as the target's).
    pub(in crate::estimate) embedding: u64,
    pub(in crate::estimate) head: u64,
    /// `eh_proj` and the three norms, on every GPU.
    pub(in crate::estimate) eh_proj: u64,
    pub(in crate::estimate) norms: u64,
}

impl NextnWeights {
    /// The parameters held in the model dtype.
    pub(in crate::estimate) fn plain_params(&self) -> u64 {
        self.embedding + self.head + self.eh_proj + self.norms
    }
}

/// SGLang's name of the method (`--speculative-algorithm`).
pub(crate) const fn algorithm(method: SpecMethod) -> Option<&'static str> {
    match method {
        SpecMethod::Eagle => Some("EAGLE"),
        SpecMethod::Eagle3 => Some("EAGLE3"),
        SpecMethod::DraftModel => Some("STANDALONE"),
        SpecMethod::Mtp => Some("NEXTN"),
        SpecMethod::Ngram => None,
    }
}

/// The draft's bytes per token beside a target cell of `target_cell` bytes over
/// `target_layers` layers: `int(target_cell × draft_layers / target_layers)`
/// (`DefaultPoolConfigurator.__init__`).
pub(super) fn draft_cell(target_cell: u64, draft_layers: u64, target_layers: u64) -> u64 {
    if target_layers == 0 {
        return 0;
    }
    (u128::from(target_cell) * u128::from(draft_layers) / u128::from(target_layers)) as u64
}

impl Run<'_> {
    /// What the draft adds to a cell of `target_cell` bytes over `target_layers` layers (0
    /// without one).
    pub(in crate::estimate) fn sglang_draft_cell(
        &self,
        target_cell: u64,
        target_layers: u64,
    ) -> u64 {
        self.sglang_draft(target_cell, target_layers)
            .map_or(0, |d| d.cell)
    }

    /// The draft as SGLang loads it and sizes the pool with it, `None` without speculative
    /// decoding; `target_cell` is the target's cell over `target_layers` layers.
    pub(in crate::estimate) fn sglang_draft(
        &self,
        target_cell: u64,
        target_layers: u64,
    ) -> Option<SglangDraft> {
        if !cfg!(feature = "speculative") {
            return None;
        }
        let s: &Speculative = self.speculative.as_ref()?;
        let tp = self.tp.max(1);
        if s.method == SpecMethod::Mtp {
            return Some(self.sglang_nextn_draft(target_cell, target_layers));
        }
        let (params, layers, _, _) = self.drafter_shape(s, tp)?;
        // At the profile the draft still holds its own embedding (EAGLE, EAGLE-3) and an EAGLE
        // head its own LM head too: vocabulary × hidden each, over tp. The EAGLE-3 LM head is
        // in `drafter_shape` already, over the target's vocabulary (the safe side).
        let table = self
            .arch
            .vocab_size
            .saturating_mul(self.arch.hidden_size)
            .div_ceil(tp);
        let params = match s.method {
            SpecMethod::Eagle => params.saturating_add(2 * table),
            SpecMethod::Eagle3 => params.saturating_add(table),
            SpecMethod::DraftModel | SpecMethod::Ngram | SpecMethod::Mtp => params,
        };
        Some(SglangDraft {
            method: s.method,
            params,
            weights: params.saturating_mul(self.act_bytes()),
            layers,
            target_layers,
            target_cell,
            cell: draft_cell(target_cell, layers, target_layers),
            nextn: None,
        })
    }

    /// NEXTN's draft: `Architecture::mtp_layers` decoder layers (SGLang's NextN models build
    /// one; each counted: the safe side where a config lists more), each the bytes of one
    /// routed-expert layer of the target as its checkpoint holds it on this GPU (a model of two
    /// such layers less one of one), and the parts in the model dtype ([`NextnWeights`]). Its
    /// layers in the cell are `num_nextn_predict_layers` (`_resolve_eagle_aux_hidden_state`).
    fn sglang_nextn_draft(&self, target_cell: u64, target_layers: u64) -> SglangDraft {
        let a = &self.arch;
        let (h, tp) = (a.hidden_size, self.tp.max(1));
        let layers = a.mtp_layers;
        let moe_layers = |n: u64| {
            let mut one = *a;
            one.num_layers = n;
            if let Some(m) = one.moe.as_mut() {
                m.first_dense_layers = 0;
            }
            super::super::weights::per_gpu_weight_bytes_ep(
                &one,
                self.dtype,
                &self.quantization,
                (self.tp_split(), 1),
                self.ep,
                self.tp * self.dp,
            )
        };
        let layer = moe_layers(2).saturating_sub(moe_layers(1));
        let table = a.vocab_size.saturating_mul(h);
        let embedding_tp = if self.dp_attention > 1 { 1 } else { tp };
        let n = NextnWeights {
            layer,
            embedding: table.div_ceil(embedding_tp),
            head: table.div_ceil(tp),
            eh_proj: 2 * h * h,
            norms: 3 * h,
        };
        SglangDraft {
            method: SpecMethod::Mtp,
            params: 0,
            weights: layers
                .saturating_mul(layer)
                .saturating_add(n.plain_params().saturating_mul(self.act_bytes())),
            layers,
            target_layers,
            target_cell,
            cell: draft_cell(target_cell, layers, target_layers),
            nextn: Some(n),
        }
    }
}

/// The pool's cell as the formula writes it: the target's bytes per token, and with a draft
/// `(target + draft)`.
pub(super) fn cell_text(cell: u64, draft: Option<SglangDraft>) -> String {
    match draft {
        Some(d) => alloc::format!("({} + {})", thousands(d.target_cell), thousands(d.cell)),
        None => thousands(cell),
    }
}

impl Run<'_> {
    /// The draft's component and the note on what SGLang's speculative decoding adds.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn sglang_draft_component(&self, f: &SglangFigures, p: &mut Parts) {
        let (Some(d), Some(s)) = (f.draft, self.speculative.as_ref()) else {
            return;
        };
        let algorithm = algorithm(d.method).unwrap_or_default();
        let (params, db) = (thousands(d.params), self.act_bytes());
        let formula = match d.nextn {
            Some(n) => {
                let (layers, layer) = (d.layers, b(n.layer));
                let (plain, size) = (thousands(n.plain_params()), b(d.weights));
                let (emb, head, eh, norms) = (
                    thousands(n.embedding),
                    thousands(n.head),
                    thousands(n.eh_proj),
                    thousands(n.norms),
                );
                formula!(self.text;
                    ["NEXTN: {layers} × decoder layer {layer} (a routed-expert layer of the target, as its checkpoint holds it) + (embedding {emb} + LM head {head} + eh_proj {eh} + 3 norms {norms} = {plain} parameters) × {db} B = {size}"],
                    ["NEXTN：{layers} × 解码层 {layer}（目标模型的一个路由专家层，按其检查点格式）+ (嵌入 {emb} + 输出层 {head} + eh_proj {eh} + 3 个归一化层 {norms} = {plain} 个参数) × {db} B = {size}"]
                )
            }
            None => formula!(self.text;
                let size = b(d.weights);
                ["{algorithm}: {params} parameters × {db} B = {size}"],
                ["{algorithm}：{params} 个参数 × {db} B = {size}"]
            ),
        };
        p.add(
            ComponentKind::Drafter,
            d.weights,
            true,
            formula,
            en_str!("The speculative draft's weights (--speculative-algorithm), loaded before SGLang sizes its token pool, so they come out of the static fraction."),
            zh_str!("投机解码草稿模型的权重（--speculative-algorithm），在 SGLang 确定 token 池大小之前加载，因此从静态比例中扣除。"),
        );
        let (k, draft_tokens) = (s.tokens, s.tokens + 1);
        let (target, extra, layers, target_layers) = (
            thousands(d.target_cell),
            thousands(d.cell),
            d.layers,
            d.target_layers,
        );
        let requests = f.requests;
        let (heads, heads_zh) = if d.nextn.is_some() {
            (
                en!(
                    "NEXTN drafts with the checkpoint's own multi-token-prediction layer(s) (num_nextn_predict_layers {layers}), which SGLang loads from the target's path (it sets --speculative-draft-model-path to the model's for DeepSeek-V3/R1 and GLM-4.5) with their own embedding and LM head, held when the pool is sized and given up for the target's after; its defaults for these models are 3 steps, top-k 1 and 4 draft tokens."
                ),
                zh!(
                    "NEXTN 用检查点自带的多 token 预测层草拟（num_nextn_predict_layers {layers}），SGLang 从目标模型的路径加载它们（对 DeepSeek-V3/R1 与 GLM-4.5 会把 --speculative-draft-model-path 设为模型路径），带自己的嵌入层与输出层，确定池大小时它们仍在，之后换成目标模型的；这些模型的默认值为 3 步、top-k 1、4 个草稿 token。"
                ),
            )
        } else {
            (
                en!(
                    "An EAGLE or EAGLE-3 head is counted with its own embedding (an EAGLE head with its own LM head too), which it holds when the pool is sized and gives up for the target's after; an EAGLE-3 head's LM head over the target's whole vocabulary: the safe side."
                ),
                zh!(
                    "EAGLE 或 EAGLE-3 头按自带的嵌入层计入（EAGLE 头还有自带的输出层），确定池大小时它们仍在，之后才换成目标模型的；EAGLE-3 头的输出层按目标模型的完整词表计入：偏安全的一侧。"
                ),
            )
        };
        p.note(
            "sglang_speculative",
            en!("Speculative decoding ({algorithm}, --speculative-num-steps {k}, --speculative-eagle-topk 1, --speculative-num-draft-tokens {draft_tokens}): SGLang loads the draft before it sizes the pool, so its weights come out of mem_fraction_static, and every token of the pool holds the draft's KV beside the target's: int({target} B × {layers} draft layer(s) / {target_layers} target layers) = {extra} B more per token. {heads} Without --max-running-requests SGLang runs at most 48 requests ({requests} here). The draft's CUDA graphs and the verify step's buffers are not counted."),
            zh!("投机解码（{algorithm}，--speculative-num-steps {k}，--speculative-eagle-topk 1，--speculative-num-draft-tokens {draft_tokens}）：SGLang 在确定 token 池大小之前加载草稿模型，其权重从 mem_fraction_static 中扣除；池中每个 token 除目标模型的 KV 外还存草稿模型的 KV：int({target} B × {layers} 个草稿层 / {target_layers} 个目标层) = 每 token 多 {extra} B。{heads_zh}未给 --max-running-requests 时 SGLang 至多运行 48 个请求（此处 {requests} 个）。草稿模型的 CUDA 图与验证步骤的缓冲未计入。"),
        );
    }
}

#[cfg(all(test, feature = "speculative"))]
#[path = "speculative_tests.rs"]
mod tests;
