//! Built-in model presets: the architectures of well-known checkpoints, read from their own
//! `config.json`, with the published parameter count each one reproduces exactly.
//!
//! The table is data: one human-edited TOML file per model in `crates/vramfit/data/models/`,
//! rendered into `src/generated/models.rs` by the test `tests/sourcegen_models.rs`, which fails
//! (and rewrites the file) when the committed table is stale. `tests/presets.rs` checks that
//! every preset's [`Architecture::params`] equals its published count.

use alloc::string::String;
use alloc::vec::Vec;

use crate::model::Architecture;
use crate::precision::{Dtype, Quantization};

// Rendered by `tests/sourcegen_models.rs`; rustfmt must not touch it, or the freshness test fails.
#[rustfmt::skip]
#[path = "generated/models.rs"]
mod generated;

/// A built-in model: a Hugging Face checkpoint and its architecture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Preset {
    /// The Hugging Face id, e.g. `meta-llama/Llama-3.1-8B`.
    pub id: &'static str,
    /// Other Hugging Face ids with the same architecture (the `-Instruct` variant, old names).
    pub aliases: &'static [&'static str],
    /// Display name.
    pub name: &'static str,
    /// The published total parameter count; equal to `arch.params()`.
    pub params: u64,
    /// The checkpoint's `torch_dtype`.
    pub dtype: Dtype,
    /// The format the released weights ship in (gpt-oss: MXFP4 experts; DeepSeek-V3: FP8);
    /// `None` for unquantized checkpoints.
    pub quantization: Quantization,
    /// Whether the checkpoint ships sentence-transformers' pooling config (`modules.json` naming
    /// a Pooling module), which makes vLLM's `--runner auto` pool it even under a
    /// `*ForCausalLM` architecture (Qwen3-Embedding): `_get_default_runner_type` returns
    /// "pooling" when `get_pooling_config` finds one (vllm/config/model.py at commit
    /// 18ec6629253632af0a384f2ffbb8c6b28af322e7).
    pub pooling: bool,
    /// The architecture, from the model's `config.json`.
    pub arch: Architecture,
    /// Where the architecture was read (a URL).
    pub source: Source,
    /// When it was read, `YYYY-MM-DD`.
    pub date: &'static str,
}

impl Preset {
    /// Where the architecture was read.
    pub fn source_url(&self) -> alloc::borrow::Cow<'static, str> {
        self.source.url()
    }

    /// Every id the preset answers to: its id, then its aliases.
    pub fn ids(&self) -> impl Iterator<Item = &'static str> + use<> {
        core::iter::once(self.id).chain(self.aliases.iter().copied())
    }
}

/// Where a preset's architecture was read, written as its URL. A model's own `config.json` on
/// Hugging Face is kept as the model's id, the rest of its URL being the same for every model:
/// every WebAssembly module carries these tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `https://huggingface.co/<id>/blob/main/config.json`.
    HfConfig(&'static str),
    /// Any other URL.
    Url(&'static str),
}

impl Source {
    /// The URL.
    pub fn url(self) -> alloc::borrow::Cow<'static, str> {
        match self {
            Source::HfConfig(id) => {
                alloc::format!("https://huggingface.co/{id}/blob/main/config.json").into()
            }
            Source::Url(u) => u.into(),
        }
    }
}

/// A string: the URL.
#[cfg(feature = "serde")]
impl serde::Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.url())
    }
}

/// Every preset, sorted by id (case-insensitively).
pub fn presets() -> &'static [Preset] {
    generated::PRESETS
}

/// The preset with this Hugging Face id or alias, compared case-insensitively; the part after
/// the `/` alone (`llama-3.1-8b`) and a `https://huggingface.co/` prefix are accepted too.
pub fn find(id: &str) -> Option<&'static Preset> {
    let id = id.trim().trim_end_matches('/');
    let id = [
        "https://huggingface.co/",
        "http://huggingface.co/",
        "huggingface.co/",
        "hf.co/",
    ]
    .iter()
    .find_map(|p| strip_prefix_ignore_case(id, p))
    .unwrap_or(id);
    if id.is_empty() {
        return None;
    }
    // No two presets share an id or alias, whatever the case (a test below): a preset's own id
    // as written, the usual question, needs no case-insensitive comparison.
    if let Some(p) = presets().iter().find(|p| p.id == id) {
        return Some(p);
    }
    let whole = |p: &&Preset| p.ids().any(|x| x.eq_ignore_ascii_case(id));
    let tail = |p: &&Preset| {
        p.ids().any(|x| {
            x.rsplit_once('/')
                .is_some_and(|(_, t)| t.eq_ignore_ascii_case(id))
        })
    };
    // An exact id wins over a name that only matches after the `/`.
    presets()
        .iter()
        .find(whole)
        .or_else(|| presets().iter().find(tail))
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Presets matching a free-text query, for a searchable picker, in table order.
///
/// Every whitespace-separated word of the query must occur in the preset's id, aliases or name,
/// ignoring case; punctuation is ignored too, so `llama3.1 8b`, `Llama-3.1-8B` and
/// `llama 3.1 8b` all find Llama 3.1 8B. An empty query matches every preset.
pub fn search(query: &str) -> impl Iterator<Item = &'static Preset> + use<> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(squash)
        .filter(|w| !w.is_empty())
        .collect();
    presets().iter().filter(move |p| {
        let mut hay = squash(p.name);
        for id in p.ids() {
            hay.push('\u{1}');
            hay.push_str(&squash(id));
        }
        words.iter().all(|w| hay.contains(w.as_str()))
    })
}

/// Lower-case letters, digits and dots only: `Llama-3.1-8B` → `llama3.18b`. Every id, alias
/// and name is ASCII, so case is folded for ASCII only, and any other character is kept as it
/// is (a query in another script matches nothing rather than everything). Unicode's case and
/// alphabet tables would cost the WebAssembly modules about 7 KB gzip each for no preset.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.' || !c.is_ascii())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {

    /// A model's own config.json is written in full, in Rust and in JSON; another source as given.
    #[cfg(feature = "serde")]
    #[test]
    fn sources_read_in_full() {
        let l = super::find("meta-llama/Llama-3.1-8B").unwrap();
        let url = "https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json";
        assert_eq!(l.source_url(), url);
        let json = serde_json::to_string(l).unwrap();
        assert!(
            json.contains(&alloc::format!("\"source\":\"{url}\"")),
            "{json}"
        );
        assert!(json.starts_with("{\"id\":\"meta-llama/Llama-3.1-8B\",\"aliases\":["));
        let y = super::find("ultralytics/yolov5s").unwrap();
        assert_eq!(
            y.source_url(),
            "https://github.com/ultralytics/yolov5/blob/master/models/yolov5s.yaml"
        );
    }

    use super::*;

    /// No id or alias names two presets, whatever the case: [`find`]'s exact match first
    /// relies on it.
    #[test]
    fn ids_and_aliases_are_unique_ignoring_case() {
        let mut all: Vec<String> = presets()
            .iter()
            .flat_map(|p| p.ids())
            .map(|id| id.to_ascii_lowercase())
            .collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    }

    #[test]
    fn squash_drops_punctuation() {
        assert_eq!(squash("meta-llama/Llama-3.1-8B"), "metallamallama3.18b");
    }

    #[test]
    fn every_preset_is_ascii_and_other_scripts_match_nothing() {
        for p in presets() {
            assert!(p.name.is_ascii(), "{}", p.name);
            assert!(p.ids().all(|id| id.is_ascii()), "{}", p.name);
        }
        assert_eq!(search("通义千问").count(), 0);
        assert_eq!(search("").count(), presets().len());
        let by_name: Vec<_> = search("LLAMA 3.1 8b").map(|p| p.name).collect();
        assert!(by_name.contains(&"Llama 3.1 8B"), "{by_name:?}");
    }
}
