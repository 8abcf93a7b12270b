//! Ollama's release (`engine_version` for Ollama, `0.30.5`), where it changes what a load holds.
//!
//! Up to 0.24 Ollama ran its own Go runner on a vendored llama.cpp and decided the layers on the
//! GPU from its own estimate (`llm/memory.go`). From 0.30.0 (ollama/ollama 9db4bdbad,
//! "runner: Remove CGO engines, use llama-server exclusively for GGML models", 2026-05-29; no
//! release is numbered 0.25 to 0.29) it starts upstream `llama-server`, built from the llama.cpp
//! release named in its `LLAMA_CPP_VERSION` file, and passes it (`llm/llama_server.go`
//! `startLlamaServer`): `-c num_ctx × parallel -np parallel`, `--flash-attn auto` (off where
//! `OLLAMA_FLASH_ATTENTION=0` or the GPU has no flash attention), `-b`/`-ub` its batch, the KV
//! type of `OLLAMA_KV_CACHE_TYPE`, and `-ngl` only when `num_gpu` is set: otherwise
//! `llama-server`'s own fit picks the layers. Its buffers are that build's
//! (`llamacpp_build.rs`), the one-output reserve included from the builds that have it.

use crate::error::Result;
use crate::estimate::LlamacppBuild;

/// An Ollama release, `0.1.0` to [`OllamaVersion::LATEST`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OllamaVersion {
    minor: u16,
    patch: u16,
}

/// What `engine_version` accepts for Ollama, in the words of an error.
#[cfg(any(feature = "en", not(feature = "zh")))]
const ACCEPTED: &str = "an Ollama release from 0.1.0 to 0.32.15, e.g. 0.30.5 (v0.30.5)";
/// The same, in Chinese.
#[cfg(feature = "zh")]
const ACCEPTED_ZH: &str = "0.1.0 到 0.32.15 的 Ollama 版本，如 0.30.5（v0.30.5）";

/// The llama.cpp release each Ollama release builds `llama-server` from, from that release on
/// until the next row: ollama/ollama's `LLAMA_CPP_VERSION` at each release tag (read at
/// fb3076099 of 2026-08-21 with `git show vX.Y.Z:LLAMA_CPP_VERSION`, 2026-12-07).
const PINS: [(u16, u16, u32); 16] = [
    (30, 0, 9452),
    (30, 1, 9479),
    (30, 4, 9493),
    (30, 5, 9509),
    (30, 9, 9626),
    (30, 10, 9672),
    (30, 11, 9781),
    (31, 0, 9840),
    (31, 2, 9888),
    (32, 2, 10_069),
    (32, 3, 10_091),
    (32, 6, 10_242),
    (32, 8, 10_353),
    (32, 10, 10_380),
    (32, 14, 10_434),
    (32, 15, 10_488),
];

impl OllamaVersion {
    /// The newest release read: 0.32.15 (2026-08-18, llama.cpp b10488), the default.
    pub const LATEST: OllamaVersion = OllamaVersion {
        minor: 32,
        patch: 15,
    };
    /// The first release that runs `llama-server`.
    const LLAMA_SERVER: OllamaVersion = OllamaVersion {
        minor: 30,
        patch: 0,
    };

    /// `0.30.5`, `v0.30.5`, `0.30` (its .0): a release from 0.1.0 to the latest.
    pub fn parse(field: &'static str, text: &str) -> Result<OllamaVersion> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let num = |s: Option<&str>| {
            s.filter(|s| !s.is_empty() && s.len() <= 4 && s.bytes().all(|c| c.is_ascii_digit()))
                .and_then(|s| s.parse::<u16>().ok())
        };
        let (major, minor) = (num(parts.next()), num(parts.next()));
        let patch = match parts.next() {
            None => Some(0),
            p => num(p),
        };
        let (Some(major), Some(minor), Some(patch), None) = (major, minor, patch, parts.next())
        else {
            return Err(crate::input_error!(
                Malformed,
                field,
                ["{} is not an Ollama release", crate::units::quoted(text)],
                ["{} 不是 Ollama 版本", crate::units::quoted(text)],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            ));
        };
        let v = OllamaVersion { minor, patch };
        if major != 0 || minor == 0 || v > Self::LATEST {
            return Err(crate::input_error!(
                OutOfRange,
                field,
                ["Ollama {} is not modelled", t],
                ["未建模 Ollama {}", t],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            ));
        }
        Ok(v)
    }

    /// Whether it starts upstream `llama-server` (0.30.0 on) rather than its Go runner.
    pub fn runs_llama_server(self) -> bool {
        self >= Self::LLAMA_SERVER
    }

    /// The llama.cpp build its loads are sized by: the release its `llama-server` is built
    /// from, or before 0.30 its Go runner's vendored llama.cpp, whose rules are the same as
    /// every build's before b7438 (`LlamacppBuild::OLLAMA_VENDORED`).
    pub fn llamacpp_build(self) -> LlamacppBuild {
        PINS.iter()
            .rev()
            .find(|(minor, patch, _)| (*minor, *patch) <= (self.minor, self.patch))
            .map_or(LlamacppBuild::OLLAMA_VENDORED, |p| {
                LlamacppBuild::numbered(p.2)
            })
    }

    /// `0.30.5`, for notes.
    pub fn text(self) -> alloc::string::String {
        alloc::format!("0.{}.{}", self.minor, self.patch)
    }
}

/// Whether a load sized with this llama.cpp build is Ollama's `llama-server` (0.30 on): every
/// release from 0.30 pins a build after its Go runner's vendored one.
pub(in crate::estimate) fn runs_llama_server(build: LlamacppBuild) -> bool {
    build > LlamacppBuild::OLLAMA_VENDORED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_read_in_their_spellings_with_their_llama_cpp() {
        let v = |t: &str| OllamaVersion::parse("engine_version", t).unwrap();
        assert_eq!(v("0.30.5"), v("v0.30.5"));
        assert_eq!(v("0.30"), v("0.30.0"));
        // The pins as `LLAMA_CPP_VERSION` holds them at each tag.
        let build = |t: &str| v(t).llamacpp_build().text();
        assert_eq!(build("0.30.0"), "b9452");
        assert_eq!(build("0.30.3"), "b9479");
        assert_eq!(build("0.30.5"), "b9509");
        assert_eq!(build("0.31.1"), "b9840");
        assert_eq!(build("0.32.1"), "b9888");
        assert_eq!(build("0.32.15"), "b10488");
        assert_eq!(OllamaVersion::LATEST.llamacpp_build().text(), "b10488");
        // The Go runner's releases are sized with its vendored llama.cpp.
        assert_eq!(v("0.24.0").llamacpp_build(), LlamacppBuild::OLLAMA_VENDORED);
        assert!(!v("0.24.0").runs_llama_server() && v("0.30.0").runs_llama_server());
        assert!(!runs_llama_server(v("0.12.3").llamacpp_build()));
        assert!(runs_llama_server(v("0.30.0").llamacpp_build()));
        // One output per sequence from the release that pins b9509 (0.30.5).
        assert!(!v("0.30.4").llamacpp_build().outputs_per_sequence());
        assert!(v("0.30.5").llamacpp_build().outputs_per_sequence());
        assert_eq!(v("0.30.5").text(), "0.30.5");
        for bad in ["", "x", "0", "0.x", "0.30.5.1", "0.30.-1", "b9452"] {
            let e = OllamaVersion::parse("engine_version", bad).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::Malformed, "{bad}");
        }
        for far in ["1.0.0", "0.0.9", "0.32.16", "0.33.0"] {
            let e = OllamaVersion::parse("engine_version", far).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::OutOfRange, "{far}");
            assert_eq!(e.field, "engine_version");
        }
    }
}
