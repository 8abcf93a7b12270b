//! llama.cpp's build (`build: 9525 (ad1b88ca0)` in its log, release tag `b9525`), where it
//! changes what a load holds on the GPU. Two changes since 2024 move the printed buffers:
//!
//! - **The output layer first** (PR #18148, "llama: offload output layer to GPU first", merged
//!   2025-12-18): `-ngl N` gives its first layer to the output layer, then the last N − 1
//!   blocks; before, the last N blocks, and the output layer only with N above the block
//!   count (`llama_model::load_tensors`: `i_gpu_start = n_layer − n_gpu_layers`). Build b7437
//!   (ec98e2002, 2025-12-16) still has the old loop, read in Ollama's vendored copy of it
//!   (ollama/ollama 49a9c9ba6, `llama/llama.cpp/src/llama-model.cpp`); the first release tag
//!   after the merge is not printed in any log found, so vramfit takes the new rule from b7438:
//!   the about two days of builds between them are counted with the output layer first.
//! - **One output per sequence** (PR #23861, "llama: limit max outputs of `llama_context`",
//!   reviewed 2026-06-01, in llama-cpp-python's sync of 210a6570c on 2026-06-02): the context's
//!   `n_outputs_max` caps the rows the worst-case prompt graph reserves logits for, and
//!   llama-server sets it to one per sequence (`n_parallel × n_outputs_max_per_seq`, 1 without
//!   speculative decoding; the log prints `llama_context: n_outputs_max = 1`). Before, the
//!   prompt graph was reserved with every token of the ubatch an output
//!   (`graph_reserve(n_tokens, n_seqs, n_tokens, …)` in `sched_reserve`, read in Ollama's
//!   vendored a5bb8ba4 of 2026-02-02): `n_ubatch × n_vocab × 4 B` of logits. vramfit takes the
//!   new reserve from b9509 (Ollama's pin of 2026-06-04, two days after the merge): a build
//!   between the merge and b9509 is counted with the full reserve, over by at most
//!   `(n_ubatch − sequences) × (n_vocab + n_embd) × 4 B`. With one output a block's stage and
//!   the graph's inputs set the buffer, and blocks in CPU memory are copied for a prompt batch
//!   (`Run::llamacpp_block_stage` and `llamacpp_figures` in `llamacpp.rs`, held to two
//!   published loads). A program that leaves `n_outputs_max` at 0 (`n_batch`) still reserves
//!   the micro-batch: an older `engine_version` estimates it that way.
//!
//! - **One KV stream per sequence** (PR #14363, "llama : add high-throughput mode", merged
//!   2025-07-16 as build b5913: ggml-org/llama.cpp issue #14847 dates the change between b5912
//!   and b5913): with `kv_unified` false the cache keeps `n_seq_max` streams, each of
//!   `n_ctx_seq = GGML_PAD(GGML_PAD(n_ctx, 256) / n_seq_max, 256)` cells (`llama_context`'s
//!   constructor, `src/llama-context.cpp`), its sliding-window cache
//!   `GGML_PAD(min(n_ctx_seq, n_swa + n_ubatch), 256)` cells per stream where a unified one has
//!   `n_swa × n_seq_max + n_ubatch` (`llama_kv_cache_iswa`, `src/llama-kv-cache-iswa.cpp`), the
//!   K and V tensors `[n_embd, kv_size, n_stream]` (`llama_kv_cache`, `src/llama-kv-cache.cpp`);
//!   read in Ollama's vendored copies (ollama/ollama 1a19df1f3 of 2025-08-14, b39bbd1eb of
//!   2026-03-29, `llama/llama.cpp/src/`). `common_params::kv_unified` defaults to false
//!   (`common/common.h`, same copies), so `llama-server -np N` splits unless `--kv-unified`
//!   (`-kvu`) is given; llama-server unifies it itself only where it picks the slots (`-np`
//!   left at auto: 4 slots, `kv_unified = true` in its log). Until PR #14959 (LLAMA_SET_ROWS on
//!   by default, August 2025) a split cache needed `LLAMA_SET_ROWS=1` and was otherwise forced
//!   unified ("non-unified KV cache requires ggml_set_rows() - forcing unified KV cache"):
//!   vramfit counts the split from b5913, the larger of the two, over for those few weeks of
//!   builds run without the variable.
//!
//! Ollama up to 0.24 ran its own Go runner on a vendored llama.cpp (ec98e2002, b7437, from
//! 2025-12-17 to the runner's removal in v0.30.0, ollama/ollama 9db4bdbad), whose reserve is the
//! full one: an Ollama run of those releases takes [`LlamacppBuild::OLLAMA_VENDORED`]'s rules,
//! its output layer last by Ollama's own plan. From 0.30 Ollama runs `llama-server` built from a
//! pinned release (`estimate/ollama/version.rs`), sized by that build's rules.

use crate::error::Result;

/// A llama.cpp build number, `b2000` to [`LlamacppBuild::LATEST`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LlamacppBuild(u32);

/// What `engine_version` accepts for llama.cpp, in the words of an error.
#[cfg(any(feature = "en", not(feature = "zh")))]
const ACCEPTED: &str = "a llama.cpp build from b2000 to b10615 (its release tag, or the number its log prints after build:), e.g. b4500";
/// The same, in Chinese.
#[cfg(feature = "zh")]
const ACCEPTED_ZH: &str =
    "b2000 到 b10615 的 llama.cpp 构建号（发布标签，或日志 build: 后的数字），如 b4500";

impl LlamacppBuild {
    /// The newest build whose rules are read: b10615 (2026-08-25, the release tag of
    /// ggml-org/llama.cpp issue #27680), the default.
    pub const LATEST: LlamacppBuild = LlamacppBuild(10_615);
    /// The oldest build accepted: b2000 (January 2024); the rules here reach back past it.
    const OLDEST: u32 = 2000;
    /// The first build counted with the output layer first (PR #18148; see the module).
    const OUTPUT_FIRST: u32 = 7438;
    /// The first build counted with one output per sequence reserved (PR #23861).
    const OUTPUTS_PER_SEQUENCE: u32 = 9509;
    /// The first build with a KV stream per sequence (PR #14363; see the module).
    const KV_STREAMS: u32 = 5913;
    /// The first build counted with llama-server's automatic slots without `-np` (PR #16736;
    /// `launch/llamacpp_slots.rs`).
    const AUTO_SLOTS: u32 = 6301;
    /// Ollama's last vendored llama.cpp, ec98e2002 (its Go runner, up to v0.2x).
    pub const OLLAMA_VENDORED: LlamacppBuild = LlamacppBuild(7437);

    /// A build by its number, for a pin read from a program's source (Ollama's
    /// `LLAMA_CPP_VERSION`), within b2000 to the latest.
    pub(in crate::estimate) const fn numbered(n: u32) -> LlamacppBuild {
        if n < Self::OLDEST {
            LlamacppBuild(Self::OLDEST)
        } else if n > Self::LATEST.0 {
            Self::LATEST
        } else {
            LlamacppBuild(n)
        }
    }

    /// `b4500`, `4500`, `B4500`: a build from b2000 to the latest.
    pub fn parse(field: &'static str, text: &str) -> Result<LlamacppBuild> {
        let t = text.trim();
        let digits = t
            .strip_prefix('b')
            .or_else(|| t.strip_prefix('B'))
            .unwrap_or(t);
        let Some(n) = Some(digits)
            .filter(|d| !d.is_empty() && d.len() <= 6 && d.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|d| d.parse::<u32>().ok())
        else {
            return Err(crate::input_error!(
                Malformed,
                field,
                ["{} is not a llama.cpp build", crate::units::quoted(text)],
                ["{} 不是 llama.cpp 构建号", crate::units::quoted(text)],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            ));
        };
        if !(Self::OLDEST..=Self::LATEST.0).contains(&n) {
            return Err(crate::input_error!(
                OutOfRange,
                field,
                ["llama.cpp b{} is not modelled", n],
                ["未建模 llama.cpp b{}", n],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            ));
        }
        Ok(LlamacppBuild(n))
    }

    /// Whether `-ngl` gives its first layer to the output layer (PR #18148).
    pub fn output_layer_first(self) -> bool {
        self.0 >= Self::OUTPUT_FIRST
    }

    /// Whether llama-server reserves the prompt graph's logits for one output per sequence
    /// (PR #23861) rather than for every token of the ubatch.
    pub fn outputs_per_sequence(self) -> bool {
        self.0 >= Self::OUTPUTS_PER_SEQUENCE
    }

    /// Whether a cache that is not unified keeps one stream per sequence (PR #14363); before,
    /// every cache was one stream shared by the sequences.
    pub fn kv_streams_per_sequence(self) -> bool {
        self.0 >= Self::KV_STREAMS
    }

    /// Whether llama-server without `-np` serves 4 slots over one unified KV cache (PR #16736),
    /// rather than one.
    pub fn auto_slots(self) -> bool {
        self.0 >= Self::AUTO_SLOTS
    }

    /// `b9525`, for notes.
    pub fn text(self) -> alloc::string::String {
        alloc::format!("b{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_read_in_their_spellings_and_the_rules_by_range() {
        let v = |t: &str| LlamacppBuild::parse("engine_version", t).unwrap();
        assert_eq!(v("b4500"), LlamacppBuild(4500));
        assert_eq!(v(" 9525 "), LlamacppBuild(9525));
        assert_eq!(v("B10615"), LlamacppBuild::LATEST);
        // The changes' ranges: b7437 (ec98e2002) has the old -ngl loop, b7438 on the output
        // layer first; b9508 the full logits reserve, b9509 on one output per sequence.
        assert!(!v("b7437").output_layer_first() && v("b7438").output_layer_first());
        assert!(!v("b9508").outputs_per_sequence() && v("b9509").outputs_per_sequence());
        assert!(!LlamacppBuild::OLLAMA_VENDORED.outputs_per_sequence());
        // b5912 has one shared cache, b5913 on a stream per sequence (issue #14847).
        assert!(!v("b5912").kv_streams_per_sequence() && v("b5913").kv_streams_per_sequence());
        assert_eq!(v("b2961").text(), "b2961");
        for bad in ["", "b", "bx12", "4.5", "b-1", "b1234567"] {
            let e = LlamacppBuild::parse("engine_version", bad).unwrap_err();
            assert_eq!(e.field, "engine_version", "{bad}");
            assert_eq!(e.kind, crate::error::ErrorKind::Malformed, "{bad}");
        }
        for far in ["b1999", "b10616", "99999"] {
            let e = LlamacppBuild::parse("engine_version", far).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::OutOfRange, "{far}");
        }
    }
}
