//! The model a hub lookup gives: the checkpoint's tensors and the model to estimate.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{Hub, HubKind, errors::no_layout};
use crate::config::ParsedConfig;
use crate::error::Result;
use crate::estimate::{Engine, EstimateInput};
use crate::headers::{GgufHeader, SafetensorsHeader, TypeCount};
use crate::precision::{Dtype, Quantization};

/// A checkpoint's tensors, exactly, from its headers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Checkpoint {
    /// `safetensors` or `gguf`.
    pub format: String,
    /// The files whose headers were read.
    pub files: Vec<String>,
    /// Tensors in them.
    pub tensors: u64,
    /// Elements in all tensors (packed quantized layouts count their stored elements).
    pub params: u64,
    /// Bytes of tensor data: what the weights occupy on disk, and in memory as loaded.
    pub bytes: u64,
    /// Per element type, largest first.
    pub by_dtype: Vec<TypeCount>,
}

impl Checkpoint {
    /// The checkpoint of safetensors `files` with header `h` (of all of them together).
    pub fn of_safetensors(files: Vec<String>, h: &SafetensorsHeader) -> Checkpoint {
        Checkpoint {
            format: "safetensors".into(),
            files,
            tensors: h.tensor_count,
            params: h.total_params,
            bytes: h.total_bytes,
            by_dtype: h.by_dtype.clone(),
        }
    }

    /// The checkpoint of the GGUF `files`, one header each.
    pub fn of_gguf(files: Vec<String>, headers: &[GgufHeader]) -> Checkpoint {
        let mut by: Vec<TypeCount> = Vec::new();
        for t in headers.iter().flat_map(|h| &h.by_type) {
            match by.iter_mut().find(|x| x.dtype == t.dtype) {
                Some(x) => {
                    x.tensors += t.tensors;
                    x.params = x.params.saturating_add(t.params);
                    x.bytes = x.bytes.zip(t.bytes).map(|(a, b)| a.saturating_add(b));
                }
                None => by.push(t.clone()),
            }
        }
        by.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.dtype.cmp(&b.dtype)));
        Checkpoint {
            format: "gguf".into(),
            files,
            tensors: headers.iter().map(|h| h.tensor_count).sum(),
            params: headers.iter().map(|h| h.total_params).sum(),
            bytes: headers.iter().map(|h| h.total_bytes).sum(),
            by_dtype: by,
        }
    }
}

/// A model looked up on a hub: what the estimator takes, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HubModel {
    /// `OWNER/NAME`.
    pub repo: String,
    /// The hub it was read from.
    pub hub: Hub,
    /// The branch read (`main`, `master`).
    pub revision: String,
    /// The model to estimate: architecture, dtype and weight format (from `config.json` where
    /// the repo has one, else from the weights' header), with the notes of its reading.
    pub model: ParsedConfig,
    /// The notes in Chinese, one for one with `model.notes` (kept here: `ParsedConfig` does not
    /// serialize them).
    pub notes_zh: Vec<String>,
    /// The checkpoint's tensors, from the headers; `None` where the repo lists no weights.
    pub checkpoint: Option<Checkpoint>,
    /// The files read, in order.
    pub files_read: Vec<String>,
    /// Bytes downloaded in all.
    pub bytes_read: u64,
}

impl HubModel {
    /// Whether the model is a GGUF file, which llama.cpp runs.
    pub fn is_gguf(&self) -> bool {
        matches!(self.model.quantization, Some(Quantization::Gguf { .. }))
    }

    /// The notes in the language asked for (Chinese where the cache kept them).
    pub fn notes(&self, zh: bool) -> &[String] {
        if zh && self.notes_zh.len() == self.model.notes.len() {
            &self.notes_zh
        } else {
            &self.model.notes
        }
    }

    /// Sets what this model gives of an estimate's `input`, as every face reads a looked-up
    /// model: its architecture and the checkpoint's own dtype (`checkpoint_dtype`, which the
    /// engine's `auto` resolves from, as from a preset's: never `dtype`, the run's choice,
    /// which would keep vLLM from serving an fp32 checkpoint in 16 bits); its weight format
    /// where the input names none; and, unless the person chose the engine (`engine_chosen`),
    /// Ollama for a registry tag and llama.cpp for a GGUF file.
    pub fn fill(&self, input: &mut EstimateInput, engine_chosen: bool) {
        input.model.arch = Some(self.model.arch);
        input.model.checkpoint_dtype = self.model.dtype;
        if let (Quantization::None, Some(q)) = (input.model.quantization, self.model.quantization) {
            input.model.quantization = q;
        }
        if !engine_chosen && self.hub.kind == HubKind::Ollama {
            input.run.engine = Engine::Ollama;
        } else if !engine_chosen && self.is_gguf() {
            input.run.engine = Engine::Llamacpp;
        }
    }

    /// Checks a model read back (a cache, a link): its architecture valid as the estimator
    /// requires, so that nothing wrong is estimated from a damaged copy.
    pub fn validate(&self) -> Result<()> {
        self.hub.check_repo(&self.repo)?;
        self.model.arch.validate("hub")?;
        if let Some(q) = &self.model.quantization {
            q.validate("hub")?;
        }
        Ok(())
    }
}

/// What the faces read, for [`assemble`].
#[derive(Clone, Debug, Default)]
pub struct Read {
    /// `config.json`, parsed (its error already turned into the hub's by [`in_file`]).
    pub config: Option<ParsedConfig>,
    /// The safetensors files and their header together.
    pub safetensors: Option<(Vec<String>, SafetensorsHeader)>,
    /// The GGUF files and their headers, in order.
    pub gguf: Option<(Vec<String>, Vec<GgufHeader>)>,
    /// The files read, in order.
    pub files_read: Vec<String>,
    /// Bytes downloaded.
    pub bytes_read: u64,
    /// Notes of the lookup itself, each in English and Chinese (an Ollama manifest's projector).
    pub notes: Vec<(String, String)>,
}

/// The model the files give: the config's (its architecture and format, the repo's own), else
/// the architecture a GGUF or safetensors header gives with the format of its tensors. `params`
/// is the hub's own count, which an error suggests estimating from.
pub fn assemble(hub: &Hub, repo: &str, read: Read, params: Option<u64>) -> Result<HubModel> {
    let checkpoint = match (&read.safetensors, &read.gguf) {
        (Some((files, h)), _) => Some(Checkpoint::of_safetensors(files.clone(), h)),
        (None, Some((files, hs))) => Some(Checkpoint::of_gguf(files.clone(), hs)),
        (None, None) => None,
    };
    let count = checkpoint.as_ref().map(|c| c.params).or(params);
    let from_gguf = read.gguf.as_ref().and_then(|(_, hs)| {
        let h = hs.first()?;
        let quantization = h
            .file_type
            .map(|file_type| Quantization::Gguf { file_type });
        let arch = match (&h.arch, &read.config) {
            (Some(a), _) if hs.len() == 1 => *a,
            (_, Some(c)) => c.arch,
            _ => return None,
        };
        Some(ParsedConfig {
            arch,
            dtype: None,
            model_type: h
                .architecture
                .as_ref()
                .map_or_else(|| "gguf".into(), |a| format!("gguf ({a})")),
            quantization,
            notes: Vec::new(),
            notes_zh: Vec::new(),
        })
    });
    let model = if read.gguf.is_some() {
        from_gguf.ok_or_else(|| no_layout(hub, repo, count, true))?
    } else if let Some(c) = read.config.clone() {
        c
    } else if let Some((_, h)) = &read.safetensors {
        let arch = h.arch.ok_or_else(|| no_layout(hub, repo, count, false))?;
        let (dtype, quantization) = match h.by_dtype.first().map(|t| t.dtype.as_str()) {
            Some("BF16") => (Some(Dtype::Bf16), None),
            Some("F16") => (Some(Dtype::Fp16), None),
            Some("F32") => (Some(Dtype::Fp32), None),
            Some("F8_E4M3" | "F8_E5M2") => (Some(Dtype::Bf16), Some(Quantization::Fp8)),
            _ => (None, None),
        };
        ParsedConfig {
            arch,
            dtype,
            model_type: "safetensors".into(),
            quantization,
            notes: Vec::new(),
            notes_zh: Vec::new(),
        }
    } else {
        return Err(no_layout(hub, repo, count, false));
    };
    let mut model = model;
    let mut notes_zh = if model.notes_zh.len() == model.notes.len() {
        model.notes_zh.clone()
    } else {
        model.notes.clone()
    };
    // A config whose model differs from the checkpoint it ships (an unquantized checkpoint
    // holds exactly the architecture's parameters): say so, with both counts.
    if let (Some(c), true, None) = (&checkpoint, read.config.is_some(), &model.quantization) {
        let (arch, held) = (model.arch.params(), c.params);
        if c.format == "safetensors" && arch != held {
            model.notes.push(format!(
                "config.json describes {arch} parameters; the checkpoint holds {held}: the estimate follows config.json."
            ));
            notes_zh.push(format!(
                "config.json 描述 {arch} 个参数，检查点实有 {held} 个：估算按 config.json。"
            ));
        }
    }
    for (en, zh) in read.notes {
        model.notes.push(en);
        notes_zh.push(zh);
    }
    model.notes_zh = notes_zh.clone();
    let revision = match hub.kind {
        HubKind::Ollama => super::address::ollama_split(repo).1,
        k => k.revision(),
    };
    Ok(HubModel {
        repo: repo.to_string(),
        hub: hub.clone(),
        revision: revision.to_string(),
        model,
        notes_zh,
        checkpoint,
        files_read: read.files_read,
        bytes_read: read.bytes_read,
    })
}
