//! Ollama library names (`llama3.1:8b`, `qwen3:32b-q4_K_M`, `llama3.1:70b-instruct-q8_0`): the
//! preset and the GGUF file type each pulls, from the catalog in `data/ollama/` (rendered into
//! `src/generated/ollama.rs` by `tests/sourcegen_ollama.rs`).

use crate::error::Result;
use crate::precision::GgufFileType;
use alloc::string::String;
use alloc::vec::Vec;

// Rendered by `tests/sourcegen_ollama.rs`; rustfmt must not touch it, or the freshness test fails.
#[rustfmt::skip]
#[path = "../generated/ollama.rs"]
mod generated;

/// A model of the Ollama library and its tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OllamaModel {
    /// The library name (`llama3.1`).
    pub name: &'static str,
    /// The GGUF `general.architecture` of its files: which of Ollama's graph estimates applies.
    pub gguf_arch: &'static str,
    /// The library page.
    pub source: &'static str,
    /// Where the tags' download sizes were read.
    pub sizes_source: &'static str,
    /// When, `YYYY-MM-DD`.
    pub date: &'static str,
    /// Its size tags.
    pub tags: &'static [OllamaTag],
}

/// One size tag of a library model (`8b`) and what it pulls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OllamaTag {
    /// The size tag.
    pub size: &'static str,
    /// Other size tags for the same files (`30b-a3b` for `30b`).
    pub aliases: &'static [&'static str],
    /// Whether the bare name (`:latest`) pulls it.
    pub latest: bool,
    /// The preset with its architecture.
    pub preset: &'static str,
    /// The GGUF file type the size tag alone pulls.
    pub file_type: GgufFileType,
    /// Its download as the library lists it, in bytes (decimal units, rounded as listed).
    pub download_bytes: u64,
}

/// Every Ollama library model vramfit knows, sorted by name.
pub fn ollama_models() -> &'static [OllamaModel] {
    generated::OLLAMA_MODELS
}

/// An Ollama name read: the model, the size tag and the GGUF file type it pulls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OllamaName {
    /// The library model.
    pub model: &'static OllamaModel,
    /// Its size tag.
    pub tag: &'static OllamaTag,
    /// The GGUF file type: the tag's own (`-q8_0`, `-fp16`), else the size tag's default.
    pub file_type: GgufFileType,
}

/// Ollama's own tag of the preset `preset_id` (`qwen3:32b` for `Qwen/Qwen3-32B`): the library
/// model's size tag whose weights are the preset's, in that tag's default file type (Q4_K_M for
/// most), which `ollama run` pulls. A preset's `latest` tag first where it has one.
pub fn default_tag_of(preset_id: &str) -> Option<OllamaName> {
    let of_preset = || {
        ollama_models()
            .iter()
            .flat_map(|m| m.tags.iter().map(move |t| (m, t)))
            .filter(move |(_, t)| t.preset == preset_id)
    };
    let (model, tag) = of_preset()
        .find(|(_, t)| t.latest)
        .or_else(|| of_preset().next())?;
    Some(OllamaName {
        model,
        tag,
        file_type: tag.file_type,
    })
}

/// Flavours a tag may name between its size and its file type; the same weights' architecture.
const FLAVOURS: [&str; 4] = ["instruct", "text", "chat", "base"];

/// The library name `name` without its namespace (`library/`, `registry.ollama.ai/library/`), or
/// `None` when it is not an Ollama library name at all (a Hugging Face id has an owner).
fn library_name(name: &str) -> Option<&str> {
    let name = name.trim();
    let bare = ["registry.ollama.ai/library/", "library/"]
        .iter()
        .find_map(|p| {
            name.get(..p.len())
                .filter(|head| head.eq_ignore_ascii_case(p))
                .map(|_| &name[p.len()..])
        })
        .unwrap_or(name);
    (!bare.contains('/') && !bare.is_empty()).then_some(bare)
}

/// Whether `name` reads as an Ollama library name (no owner before a slash), known or not.
pub fn is_ollama_name(name: &str) -> bool {
    library_name(name).is_some()
}

/// Reads an Ollama library name: `NAME`, `NAME:SIZE`, `NAME:SIZE-FLAVOUR`, `NAME:SIZE-TYPE`,
/// `NAME:SIZE-FLAVOUR-TYPE` (case-insensitive; `latest` is the bare name). `field` names the input.
pub fn resolve_ollama_name(field: &str, name: &str) -> Result<OllamaName> {
    let given = name.trim();
    let Some(bare) = library_name(given) else {
        return Err(input_error!(
            Malformed,
            field,
            ["`{given}` is not an Ollama library name"],
            ["`{given}` 不是 Ollama 模型库中的名称"],
            "a library name and tag such as llama3.1:8b or qwen3:32b-q4_K_M",
            "模型库名称加标签，如 llama3.1:8b 或 qwen3:32b-q4_K_M",
        ));
    };
    let (model_name, tag) = bare.split_once(':').unwrap_or((bare, "latest"));
    let Some(model) = ollama_models()
        .iter()
        .find(|m| m.name.eq_ignore_ascii_case(model_name))
    else {
        let names: Vec<&str> = ollama_models().iter().map(|m| m.name).collect();
        let names = names.join(", ");
        return Err(input_error!(
            UnknownName,
            field,
            ["no Ollama library model `{model_name}` in vramfit's catalog"],
            ["vramfit 的目录中没有 Ollama 模型 `{model_name}`"],
            ["one of {names}, with a tag such as :8b, or a preset id"],
            ["以下之一：{names}，可加标签（如 :8b），或一个预设模型 id"],
        ));
    };
    let sizes = || {
        let s: Vec<&str> = model.tags.iter().map(|t| t.size).collect();
        s.join(", ")
    };
    let tag_lower = tag.to_ascii_lowercase();
    let (size_tag, rest) = if tag_lower == "latest" {
        let Some(t) = model.tags.iter().find(|t| t.latest) else {
            let (m, sizes) = (model.name, sizes());
            return Err(input_error!(
                UnknownName,
                field,
                ["`{m}` has no latest tag in vramfit's catalog"],
                ["vramfit 的目录中 `{m}` 没有 latest 标签"],
                ["{m} with a size tag: {sizes}"],
                ["{m} 加大小标签：{sizes}"],
            ));
        };
        (t, String::new())
    } else {
        // The longest size tag (or alias) the tag starts with, followed by its end or a `-`.
        let found = model
            .tags
            .iter()
            .flat_map(|t| {
                core::iter::once(t.size)
                    .chain(t.aliases.iter().copied())
                    .map(move |s| (t, s))
            })
            .filter(|(_, s)| {
                tag_lower == *s
                    || tag_lower
                        .strip_prefix(*s)
                        .is_some_and(|r| r.starts_with('-'))
            })
            .max_by_key(|(_, s)| s.len());
        let Some((t, s)) = found else {
            let (m, sizes) = (model.name, sizes());
            return Err(input_error!(
                UnknownName,
                field,
                ["`{m}` has no tag `{tag}` in vramfit's catalog"],
                ["vramfit 的目录中 `{m}` 没有标签 `{tag}`"],
                [
                    "a size tag of {m}: {sizes} (then, optionally, -instruct, -text and a GGUF type such as -q8_0)"
                ],
                ["{m} 的大小标签：{sizes}（之后可加 -instruct、-text 以及 GGUF 类型，如 -q8_0）"],
            ));
        };
        (t, String::from(&tag_lower[s.len()..]))
    };
    let mut file_type = None;
    for part in rest.split('-').filter(|p| !p.is_empty()) {
        if FLAVOURS.contains(&part) {
            continue;
        }
        let ft = GgufFileType::ALL
            .iter()
            .copied()
            .find(|f| f.name() == part || (part == "fp16" && *f == GgufFileType::F16));
        match (ft, file_type) {
            (Some(f), None) => file_type = Some(f),
            _ => {
                let flavours = FLAVOURS.join(", ");
                return Err(input_error!(
                    UnknownName,
                    field,
                    [
                        "`{part}` in `{given}` is neither a flavour nor a GGUF file type vramfit knows (or a second file type)"
                    ],
                    [
                        "`{given}` 中的 `{part}` 不是 vramfit 认识的版本名称或 GGUF 文件类型（或是第二个文件类型）"
                    ],
                    [
                        "after the size tag: a flavour ({flavours}) and one GGUF file type (q2_K to q8_0, fp16)"
                    ],
                    [
                        "大小标签之后：一个版本名称（{flavours}）和一个 GGUF 文件类型（q2_K 到 q8_0、fp16）"
                    ],
                ));
            }
        }
    }
    Ok(OllamaName {
        model,
        tag: size_tag,
        file_type: file_type.unwrap_or(size_tag.file_type),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_a_preset_and_a_file_type() {
        let r = |s: &str| resolve_ollama_name("model", s).unwrap();
        // The bare name is :latest, the 8b tag, Q4_K_M (4.9 GB in the library).
        let n = r("llama3.1");
        assert_eq!(
            (n.tag.preset, n.file_type),
            ("meta-llama/Llama-3.1-8B", GgufFileType::Q4_K_M)
        );
        assert_eq!(r("llama3.1:8b"), n);
        assert_eq!(r("library/llama3.1:latest"), n);
        // A file type and a flavour after the size tag.
        let n = r("llama3.1:70b-instruct-q8_0");
        assert_eq!(
            (n.tag.preset, n.file_type),
            ("meta-llama/Llama-3.1-70B", GgufFileType::Q8_0)
        );
        let n = r("qwen3:32b-q4_K_M");
        assert_eq!(
            (n.tag.preset, n.file_type, n.model.gguf_arch),
            ("Qwen/Qwen3-32B", GgufFileType::Q4_K_M, "qwen3")
        );
        assert_eq!(r("llama3.1:8b-text-fp16").file_type, GgufFileType::F16);
        // llama3 was published in Q4_0; llama3.2:1b in Q8_0.
        assert_eq!(r("llama3").file_type, GgufFileType::Q4_0);
        assert_eq!(r("llama3.2:1b").file_type, GgufFileType::Q8_0);
        // An alias of a size tag, the longest match first (30b-a3b, not 30b then `a3b`).
        assert_eq!(r("qwen3:30b-a3b-q8_0").tag.preset, "Qwen/Qwen3-30B-A3B");
    }

    #[test]
    fn an_unknown_name_tag_or_part_is_an_error_naming_what_is_known() {
        let e = |s: &str| resolve_ollama_name("model", s).unwrap_err();
        let m = e("mistral:7b");
        assert_eq!(m.field, "model");
        assert!(m.accepted.contains("llama3.1"), "{m}");
        let t = e("llama3.1:9b");
        assert!(
            t.problem.contains("9b") && t.accepted.contains("8b, 70b, 405b"),
            "{t}"
        );
        let p = e("llama3.1:8b-q9_9");
        assert!(p.problem.contains("q9_9"), "{p}");
        let two = e("llama3.1:8b-q8_0-q4_0");
        assert!(two.problem.contains("q4_0"), "{two}");
        assert!(
            e("meta-llama/Llama-3.1-8B")
                .problem
                .contains("not an Ollama")
        );
        assert!(!is_ollama_name("meta-llama/Llama-3.1-8B"));
        assert!(is_ollama_name("library/qwen3"));
    }
}
