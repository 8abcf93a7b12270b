//! DeepSeek-V4's compressed-attention cache, as each engine's [`CompressedCache`] rule keeps it.
//!
//! Per sequence of `T` tokens (`w` the window's tokens, `hd` the head width, `ihd` the indexer's):
//! every layer keeps its window's key-value rows (`w × hd`; transformers' window-only layers keep
//! keys and values apart, `2 × w × hd`); a CSA layer adds `⌈T / 4⌉` entries of `hd` and as many
//! indexer keys of `ihd`, an HCA layer `⌈T / 128⌉` entries of `hd` (transformers 5.24
//! `DeepseekV4CSACompressor`, `DeepseekV4HCACompressor`; DeepSeek-V4 technical report §2.3). The
//! tokens not yet pooled wait beside them: in transformers as slices of the prompt's `kv_proj` and
//! `gate_proj` outputs, whose whole storage (`2 × 2 × (hd + ihd)` a token in CSA, `2 × hd` in
//! HCA) stays alive until the first decode step, with the last window's overlap state (`4 × (hd +
//! ihd)` in the model dtype and fp32); in a paged engine as one unfinished window per request in
//! fp32. Rounding the entries up and holding the prompt's storage together with the context's
//! entries errs to the safe side by at most one entry a layer.

use super::engine::CompressedCache;
use super::{Formula, Run, b};
use crate::model::Compressed;

/// A DeepSeek-V4 cache's elements per sequence, by where they sit.
struct Elements {
    /// Window rows.
    window: u64,
    /// Compressed entries and indexer keys.
    entries: u64,
    /// Unfinished windows (transformers: the prompt's projections held; paged: fp32 state),
    /// in the activation dtype for transformers.
    pending: u64,
    /// fp32 elements (the overlap gates in transformers; a paged engine's pending windows).
    fp32: u64,
}

impl Run<'_> {
    /// The compressed cache of `seqs` sequences of `context` tokens over a stage of `layers`
    /// blocks, transformers holding the `prompt`'s storage. One token of one sequence
    /// (`seqs` = `context` = 1, the serving pools' and the speed model's unit) is a sequence at
    /// the run's context shared among its tokens, rounded up.
    pub(super) fn compressed_cache(
        &self,
        c: Compressed,
        seqs: u64,
        context: u64,
        layers: u64,
        prompt: u64,
    ) -> (u64, Formula) {
        if seqs == 1 && context == 1 && self.max_model_len > 1 {
            let whole = self.compressed_bytes(c, self.max_model_len, layers, 0);
            let per = whole.div_ceil(self.max_model_len);
            let formula = formula!(self.text;
                [
                    "one sequence of {} tokens ({}) / {} tokens = {per} B a token (compressed attention: window, entries every {} and {} tokens, indexer keys)",
                    self.max_model_len, b(whole), self.max_model_len, c.csa_rate, c.hca_rate
                ],
                [
                    "一条 {} token 的序列（{}）/ {} token = 每 token {per} B（压缩注意力：窗口、每 {} 与 {} 个 token 的条目、索引键）",
                    self.max_model_len, b(whole), self.max_model_len, c.csa_rate, c.hca_rate
                ]
            );
            return (per, formula);
        }
        let one = self.compressed_bytes(c, context, layers, prompt);
        let bytes = one.saturating_mul(seqs);
        if !self.text {
            return (bytes, Formula::default());
        }
        let a = self.cache_arch();
        let (sliding, csa, hca) = c.stage(layers, a.num_layers);
        let w = self.window_tokens(context, prompt);
        let (hd, ihd) = (a.head_dim, c.index_head_dim);
        let held = match self.rules().compressed_cache {
            CompressedCache::Transformers if prompt > 0 => formula!(self.text;
                [" + the prompt's kv and gate projections held until the first decode step ({prompt} tokens × (4 × ({hd} + {ihd}) CSA, 2 × {hd} HCA))"],
                [" + 首个解码步之前保留的提示词 kv 与 gate 投影（{prompt} token × (4 × ({hd} + {ihd}) CSA、2 × {hd} HCA)）"]
            ),
            _ => formula!(self.text;
                [" + one unfinished window a layer in fp32"],
                [" + 每层一个未完成的窗口（fp32）"]
            ),
        };
        let total = b(bytes);
        (
            bytes,
            formula!(self.text;
                [
                    "{seqs} seq × ({} layers × {w} window tokens × {hd} + {csa} CSA layers × ⌈{context} / {}⌉ × ({hd} + {ihd} indexer) + {hca} HCA layers × ⌈{context} / {}⌉ × {hd}{}) × {} B = {total}",
                    sliding + csa + hca, c.csa_rate, c.hca_rate, held.en, self.act_bytes()
                ],
                [
                    "{seqs} 条序列 × ({} 层 × {w} 个窗口 token × {hd} + {csa} 个 CSA 层 × ⌈{context} / {}⌉ × ({hd} + {ihd} 索引) + {hca} 个 HCA 层 × ⌈{context} / {}⌉ × {hd}{}) × {} B = {total}",
                    sliding + csa + hca, c.csa_rate, c.hca_rate, held.zh, self.act_bytes()
                ]
            ),
        )
    }

    /// The window's tokens: the last `sliding_window`, or in transformers the prompt's until the
    /// first decode step.
    fn window_tokens(&self, context: u64, prompt: u64) -> u64 {
        let window = self.cache_arch().sliding_window;
        let held = match self.rules().compressed_cache {
            CompressedCache::Transformers => window.max(prompt),
            _ => window,
        };
        context.min(held)
    }

    /// One sequence's bytes.
    fn compressed_bytes(&self, c: Compressed, context: u64, layers: u64, prompt: u64) -> u64 {
        let e = self.compressed_elements(c, context, layers, prompt);
        let act = self.act_bytes();
        e.window
            .saturating_add(e.entries)
            .saturating_add(e.pending)
            .saturating_mul(act)
            .saturating_add(e.fp32.saturating_mul(4))
    }

    /// One sequence's elements, by the engine's rule.
    fn compressed_elements(
        &self,
        c: Compressed,
        context: u64,
        layers: u64,
        prompt: u64,
    ) -> Elements {
        let a = self.cache_arch();
        let (sliding, csa, hca) = c.stage(layers, a.num_layers);
        let (hd, ihd) = (a.head_dim, c.index_head_dim);
        let w = self.window_tokens(context, prompt);
        let transformers = self.rules().compressed_cache == CompressedCache::Transformers;
        // transformers keeps a window-only layer's keys and values apart
        // (`DynamicSlidingWindowLayer`), the compressed layers' as one tensor.
        let apart = if transformers { 2 } else { 1 };
        let window = w.saturating_mul(hd).saturating_mul(
            sliding
                .saturating_mul(apart)
                .saturating_add(csa)
                .saturating_add(hca),
        );
        let csa_entries = context.div_ceil(c.csa_rate.max(1));
        let hca_entries = context.div_ceil(c.hca_rate.max(1));
        let entries = csa
            .saturating_mul(csa_entries)
            .saturating_mul(hd + ihd)
            .saturating_add(hca.saturating_mul(hca_entries).saturating_mul(hd));
        // CSA's two overlapping series: kv and gate of 2 × width each; HCA's one series.
        let csa_state = 4 * (hd + ihd);
        let hca_state = 2 * hd;
        let (pending, fp32) = if transformers {
            let (csa_tokens, hca_tokens) = (prompt.max(c.csa_rate), prompt.max(c.hca_rate));
            let pending = csa
                .saturating_mul(csa_tokens)
                .saturating_mul(csa_state)
                .saturating_add(hca.saturating_mul(hca_tokens).saturating_mul(hca_state));
            // The last window's Ca slice: kv in the model dtype (counted with `pending`) and
            // its gate in fp32 (`position_bias` is kept in fp32).
            let overlap = csa.saturating_mul(c.csa_rate).saturating_mul(hd + ihd);
            (pending.saturating_add(overlap), overlap)
        } else {
            let fp32 = csa
                .saturating_mul(c.csa_rate)
                .saturating_mul(csa_state)
                .saturating_add(hca.saturating_mul(c.hca_rate).saturating_mul(hca_state));
            (0, fp32)
        };
        Elements {
            window,
            entries,
            pending,
            fp32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ComponentKind, Engine, EstimateInput, Run, estimate};
    use super::super::{HardwareInput, ModelInput, RunInput, ServingInput};
    use crate::config::parse_config;

    fn tiny() -> crate::model::Architecture {
        parse_config(crate::config::compressed_tests::DEEPSEEK_V4_TINY)
            .unwrap()
            .arch
    }

    /// The cache bytes of `seqs` sequences as `engine` keeps them.
    fn cache(engine: Engine, seqs: u64, context: u64, prompt: u64) -> u64 {
        let w = EstimateInput {
            model: ModelInput {
                arch: Some(tiny()),
                ..Default::default()
            },
            run: RunInput {
                engine,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        }
        .resolve()
        .unwrap();
        Run::new(&w, false)
            .kv_bytes_held(seqs, context, 5, false, prompt)
            .0
    }

    #[test]
    fn transformers_cache_matches_the_tensors_it_keeps_alive() {
        // compressed-reference.csv, deepseek_v4-tiny: 2 sequences of 300 tokens hold 840,064 B
        // after the prefill. By hand, per sequence, in elements: the window-only layers' keys and
        // values 2 × 2 × 300 × 32 = 38,400; the compressed layers' windows 3 × 300 × 32 = 28,800;
        // CSA entries 2 × 75 × (32 + 16) = 7,200; HCA entries 1 × ⌈300 / 128⌉ × 32 = 96; the
        // prompt's projections 2 × 300 × 4 × 48 + 300 × 2 × 32 = 134,400 and the overlap's kv
        // 2 × 4 × 48 = 384: 209,280 × 2 B, with the overlap's fp32 gate 384 × 4 B: 420,096 B,
        // 840,192 B for two: 128 B (one HCA entry, rounded up) over the reference.
        let prefill = cache(Engine::Hf, 2, 300, 300);
        assert_eq!(prefill, 840_192);
        assert!(prefill >= 840_064 && prefill - 840_064 < 840_064 / 50);
        // A prompt of 256 (every window closed, nothing rounded): 717,568 B, exactly.
        assert_eq!(cache(Engine::Hf, 2, 256, 256), 717_568);
        // After the first decode step the prompt's storage is gone: 161,408 B in transformers.
        // The count keeps a whole unfinished window a layer (4 tokens in CSA, 128 in HCA,
        // where 45 wait): 187,776 B, the bound above it (2 × (128 − 45) × 64 × 2 B = 21,248 B
        // of it, the rest the rounded-up entries).
        let decode = cache(Engine::Hf, 2, 301, 0);
        assert_eq!(decode, 187_776);
        assert!(decode >= 161_408);
    }

    #[test]
    fn paged_engines_count_rows_and_pending_windows() {
        // vLLM, one sequence of 256 tokens: windows 5 × 128 × 32 = 20,480; entries
        // 2 × 64 × 48 + 2 × 32 = 6,208; × 2 B = 53,376 B; pending windows in fp32
        // (2 × 4 × 192 + 128 × 64) × 4 B = 38,912 B: 92,288 B.
        assert_eq!(cache(Engine::Vllm, 1, 256, 0), 92_288);
        assert_eq!(cache(Engine::Sglang, 1, 256, 0), 92_288);
    }

    #[test]
    fn engines_that_do_not_run_it_are_refused_by_name() {
        for engine in [
            Engine::Llamacpp,
            Engine::Ollama,
            Engine::Trtllm,
            Engine::Mlx,
        ] {
            let e = estimate(&EstimateInput {
                model: ModelInput {
                    arch: Some(tiny()),
                    ..Default::default()
                },
                run: RunInput {
                    engine,
                    ..Default::default()
                },
                ..Default::default()
            })
            .unwrap_err();
            assert_eq!(e.field, "engine", "{engine:?}");
            assert!(e.problem.contains("DeepSeek-V4"), "{}", e.problem);
        }
        // transformers estimates it with its cache.
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(tiny()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Hf,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        assert!(e.component_bytes(ComponentKind::KvCache) > 0);
    }

    #[test]
    fn a_serving_token_is_a_sequence_shared() {
        // DeepSeek-V4-Flash's preset in vLLM at 1,048,576 tokens, by hand in elements: windows
        // 43 × 128 × 512 = 2,818,048; CSA 21 × 262,144 × (512 + 128) = 3,523,215,360; HCA
        // 20 × 8,192 × 512 = 83,886,080; × 2 B = 7,219,838,976 B; pending windows in fp32
        // (21 × 4 × 4 × 640 + 20 × 128 × 2 × 512) × 4 B = 11,345,920 B: 7,231,184,896 B a
        // sequence, ⌈/ 1,048,576⌉ = 6,897 B a token.
        let arch = crate::presets::find("deepseek-ai/DeepSeek-V4-Flash")
            .expect("the DeepSeek-V4-Flash preset")
            .arch;
        let w = EstimateInput {
            model: ModelInput {
                arch: Some(arch),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Vllm,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(1_048_576.0),
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
        assert_eq!(run.kv_bytes(1, 1_048_576, 43, false).0, 7_231_184_896);
        assert_eq!(run.kv_bytes(1, 1, 43, false).0, 6_897);
    }
}
