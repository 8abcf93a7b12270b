//! DeepSeek Sparse Attention's cache beside the MLA latent: the lightning indexer's key per token
//! in each layer with an indexer, and the fp8 latent's own layout in the engines that store it
//! so. How each engine keeps them is its [`IndexerKeys`] rule.

use super::engine::IndexerKeys;
use super::{Formula, Run, b};
use crate::precision::KvDtype;

impl Run<'_> {
    /// Bytes one token keeps in one MLA layer when the engine stores a DSA model's latent in
    /// FlashMLA's fp8 layout: the latent in fp8 with an fp32 scale per 128, the rotary key in
    /// bf16 (512 + 16 + 128 = 656 for DeepSeek-V3.2). `None` where the plain count stands.
    pub(super) fn dsa_fp8_latent(&self, decompressed: bool) -> Option<u64> {
        let a = self.cache_arch();
        let (Some(m), Some(_)) = (a.mla, a.indexer) else {
            return None;
        };
        let fp8_layout = matches!(
            self.rules().indexer_keys,
            IndexerKeys::Fp8Blocks | IndexerKeys::Widest
        );
        (fp8_layout && !decompressed && self.kv_dtype == KvDtype::Fp8)
            .then(|| m.kv_lora_rank + m.kv_lora_rank.div_ceil(128) * 4 + 2 * m.qk_rope_head_dim)
    }

    /// Bytes of one indexer key (one token, one layer) as the engine keeps it. transformers
    /// keeps a pooled indexer's (GLM-5-Next's) key, gate score and validity flag per token,
    /// `2 × index_head_dim + 1` wide, and pools them at each step (`DynamicIndexedLayer`); the
    /// others are counted one key per token, which for SGLang's pooled cache, one key per
    /// `index_kpool` tokens and the unfinished pool per request, is the safe side.
    fn indexer_key_bytes(&self, head_dim: u64, pool: u64) -> u64 {
        match self.rules().indexer_keys {
            IndexerKeys::ActivationDtype if pool > 0 => (2 * head_dim + 1) * self.act_bytes(),
            IndexerKeys::ActivationDtype | IndexerKeys::Widest => head_dim * self.act_bytes(),
            IndexerKeys::KvType => self.kv_dtype.bytes_for(head_dim, self.act_kv_dtype()),
            IndexerKeys::Fp8Blocks => head_dim + head_dim.div_ceil(128) * 4,
        }
    }

    /// The indexer keys of `seqs` sequences of `context` tokens over a stage of `layers` blocks:
    /// the stage's share of the layers with an indexer, rounded up as the attention layers are.
    /// Zero, with no text, for a model without an indexer.
    pub(super) fn indexer_cache(&self, seqs: u64, context: u64, layers: u64) -> (u64, Formula) {
        let a = self.cache_arch();
        let Some(ix) = a.indexer else {
            return (0, Formula::default());
        };
        let n = a.num_layers.max(1);
        let here = ix.layers.saturating_mul(layers).div_ceil(n).min(layers);
        let per = self.indexer_key_bytes(ix.head_dim, ix.pool);
        let bytes = per
            .saturating_mul(here)
            .saturating_mul(context)
            .saturating_mul(seqs);
        if !self.text {
            return (bytes, Formula::default());
        }
        let (dim, size) = (ix.head_dim, b(bytes));
        let how = match self.rules().indexer_keys {
            IndexerKeys::Fp8Blocks => formula!(self.text;
                ["{dim} fp8 + scales = {per} B"],
                ["{dim} 个 fp8 + 缩放因子 = {per} B"]
            ),
            IndexerKeys::KvType => {
                Formula::same(alloc::format!("{dim} × {}", self.kv_dtype_name()))
            }
            IndexerKeys::ActivationDtype if ix.pool > 0 => formula!(self.text;
                ["key, gate score and flag ({}) × {} B", 2 * dim + 1, self.act_bytes()],
                ["键、门控分数与标志（{}）× {} B", 2 * dim + 1, self.act_bytes()]
            ),
            IndexerKeys::ActivationDtype | IndexerKeys::Widest => {
                Formula::same(alloc::format!("{dim} × {} B", self.act_bytes()))
            }
        };
        (
            bytes,
            formula!(self.text;
                [
                    " + indexer keys ({}) × {here} layers × {context} tokens × {seqs} seq = {size}",
                    how.en
                ],
                [
                    " + 索引键（{}）× {here} 层 × {context} token × {seqs} 条序列 = {size}",
                    how.zh
                ]
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ComponentKind, Engine, EstimateInput, Run, estimate};
    use super::super::{HardwareInput, ModelInput, RunInput, ServingInput};
    use crate::model::Architecture;
    use crate::precision::KvDtype;

    /// DeepSeek-V3.2's attention (61 MLA layers: latent 512, rotary key 64; an indexer of 64
    /// heads of 128 in each layer), as its preset holds it (its config.json, checked against
    /// transformers in `config/kinds_tests.rs`).
    fn deepseek_v32() -> Architecture {
        let a = crate::presets::find("deepseek-ai/DeepSeek-V3.2")
            .expect("the DeepSeek-V3.2 preset")
            .arch;
        let (m, i) = (a.mla.expect("MLA"), a.indexer.expect("an indexer"));
        assert_eq!(
            (a.num_layers, m.kv_lora_rank, m.qk_rope_head_dim),
            (61, 512, 64)
        );
        assert_eq!((i.heads, i.head_dim, i.layers), (64, 128, 61));
        a
    }

    /// The KV bytes of one token over every layer, as `engine` keeps them.
    fn per_token(engine: Engine, kv_dtype: KvDtype) -> u64 {
        let w = EstimateInput {
            model: ModelInput {
                arch: Some(deepseek_v32()),
                ..Default::default()
            },
            run: RunInput {
                engine,
                kv_dtype,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h200-sxm-141gb".into()),
                ..Default::default()
            },
            ..Default::default()
        }
        .resolve()
        .unwrap();
        let run = Run::new(&w, false);
        let decompressed = run.mla_decompressed();
        run.kv_bytes(1, 1, 61, decompressed).0
    }

    #[test]
    fn each_engine_keeps_the_indexer_keys_as_it_does() {
        // transformers: latent and rotary key (576) and the indexer key (128), bf16, compressed
        // even though it keeps DeepSeek-V3's MLA decompressed: 61 × 704 × 2 = 85,888 B.
        assert_eq!(per_token(Engine::Hf, KvDtype::Auto), 85_888);
        // vLLM and SGLang: the bf16 latent 1,152 B and the fp8 key with its scale 128 + 4:
        // 61 × 1,284 = 78,324 B; with an fp8 cache FlashMLA's 656 B layout and the same key:
        // 61 × 788 = 48,068 B (576 fp8 bytes a token would be 80 B short a layer).
        for engine in [Engine::Vllm, Engine::Sglang] {
            assert_eq!(per_token(engine, KvDtype::Auto), 78_324, "{engine:?}");
            assert_eq!(per_token(engine, KvDtype::Fp8), 48_068, "{engine:?}");
        }
        // TensorRT-LLM does not say: the wider layout, a bf16 key and the 656 B fp8 latent.
        assert_eq!(per_token(Engine::Trtllm, KvDtype::Fp8), 61 * (656 + 256));
    }

    #[test]
    fn llamacpp_counts_the_indexer_cache_beside_the_latent() {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(deepseek_v32()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Llamacpp,
                batch: 1.0,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(4096.0),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        let kv = e.component_bytes(ComponentKind::KvCache);
        // f16: (576 + 128) values × 61 layers × 4,096 cells × 2 B = 351,797,248 B.
        assert_eq!(kv, 351_797_248);
    }
}
