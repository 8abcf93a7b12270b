//! `vramfit estimate --config FILE`: a fine-tuning stack's own config read onto the run (the
//! files it names, such as a Trainer's DeepSpeed JSON, read after it), the flags given on the
//! command line keeping their word over the file's.

use std::path::{Path, PathBuf};

use serde_json::Value;
use vramfit::estimate::EstimateInput;
use vramfit::stack_config::{ConfigFormat, read_training_config};

use crate::output::Failure;

/// One file read, for the report.
#[derive(serde::Serialize)]
pub struct FileRead {
    /// The path as given (or as the file that named it wrote it).
    pub file: String,
    /// Which stack's file it is.
    pub format: ConfigFormat,
    /// Its keys that set nothing the estimate counts, with their lines.
    pub not_read: Vec<String>,
    /// What it assumed where the file is silent (English).
    pub assumed: Vec<String>,
}

/// At most this many files, the named ones included (a file naming itself stops here).
const MAX_FILES: usize = 8;

/// `input` with each of `paths` read onto it in turn, then the flags in `explicit` (the
/// command line's, by their ids) set again from `flags`.
pub fn apply(
    paths: &[PathBuf],
    input: EstimateInput,
    flags: &EstimateInput,
    explicit: &[String],
) -> Result<(EstimateInput, Vec<FileRead>), Failure> {
    let mut queue: Vec<PathBuf> = paths.to_vec();
    let mut input = input;
    let mut reads = Vec::new();
    while let Some(path) = (!queue.is_empty()).then(|| queue.remove(0)) {
        if reads.len() == MAX_FILES {
            return Err(Failure::io(format!(
                "{}: more than {MAX_FILES} config files named one by another",
                path.display()
            )));
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Failure::io(format!("{}: {e}", path.display())))?;
        let read = read_training_config(&text, input).map_err(|mut e| {
            e.field = format!("{}: {}", path.display(), e.field);
            Failure::from(e)
        })?;
        for named in &read.files {
            queue.push(beside(&path, &named.path));
        }
        reads.push(FileRead {
            file: path.display().to_string(),
            format: read.format,
            not_read: read.not_read,
            assumed: read.assumed.into_iter().map(|t| t.en).collect(),
        });
        input = read.input;
    }
    Ok((keep_flags(input, flags, explicit)?, reads))
}

/// The files read, in words: each one's stack, its keys not read and what it assumed.
pub fn describe(reads: &[FileRead]) -> String {
    let mut t = String::new();
    for r in reads {
        let listed = if r.not_read.is_empty() {
            String::from("none")
        } else {
            r.not_read.join(", ")
        };
        t.push_str(&format!(
            "Read {} as {}. Not read (no effect on memory counted): {listed}\n",
            r.file,
            format_name(r.format)
        ));
        for a in &r.assumed {
            t.push_str(&format!("  Assumed: {a}\n"));
        }
    }
    t
}

/// A stack's file in words.
fn format_name(f: ConfigFormat) -> &'static str {
    match f {
        ConfigFormat::Trainer => "Hugging Face TrainingArguments",
        ConfigFormat::Trl => "a TRL config",
        ConfigFormat::Deepspeed => "a DeepSpeed config",
        ConfigFormat::Torchtune => "a torchtune recipe",
        ConfigFormat::Llamafactory => "a LLaMA-Factory config",
        ConfigFormat::Axolotl => "an axolotl config",
        ConfigFormat::Accelerate => "an accelerate config",
        ConfigFormat::Verl => "a verl config",
    }
}

/// A path a config names, relative to the config's own folder when it is relative and exists
/// there, else as written (relative to where vramfit runs, as the stacks read it).
fn beside(config: &Path, named: &str) -> PathBuf {
    let named = PathBuf::from(named);
    match config.parent() {
        Some(dir) if named.is_relative() && dir.join(&named).exists() => dir.join(named),
        _ => named,
    }
}

/// The flags' ids whose input fields have other names (the model's flags set its three ways
/// of being named).
const FIELDS_OF_FLAG: [(&str, &[&str]); 6] = [
    ("checkpointing", &["grad_checkpointing"]),
    ("all_logits", &["logits"]),
    ("enforce_eager", &["cuda_graphs"]),
    ("cpu_moe", &["n_cpu_moe"]),
    ("model", &["model", "params", "arch", "checkpoint_dtype"]),
    ("params", &["model", "params", "arch", "checkpoint_dtype"]),
];

/// `input` with every field a command-line flag set taken from `flags`.
fn keep_flags(
    input: EstimateInput,
    flags: &EstimateInput,
    explicit: &[String],
) -> Result<EstimateInput, Failure> {
    let to_json =
        |i: &EstimateInput| serde_json::to_value(i).map_err(|e| Failure::io(e.to_string()));
    let (mut merged, given) = (to_json(&input)?, to_json(flags)?);
    let (Value::Object(m), Value::Object(g)) = (&mut merged, &given) else {
        return Ok(input);
    };
    for id in explicit {
        let own = [id.as_str()];
        let fields = FIELDS_OF_FLAG
            .iter()
            .find(|(f, _)| f == id)
            .map_or(&own[..], |(_, fields)| fields);
        for field in fields {
            if let Some(v) = g.get(*field) {
                m.insert((*field).to_string(), v.clone());
            }
        }
    }
    serde_json::from_value(merged).map_err(|e| Failure::io(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vramfit::estimate::{Precision, RunInput, TrainingInput};

    /// A flag given on the command line keeps its value over the file's (and over the
    /// stack's default the file implies); one not given takes the file's.
    #[test]
    fn flags_given_win_over_the_file() {
        let dir = std::env::temp_dir().join(format!("vramfit-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let trl = dir.join("sft.yaml");
        let ds = dir.join("ds.json");
        std::fs::write(
            &trl,
            "model_name_or_path: Qwen/Qwen3-8B\nmax_length: 4096\ndeepspeed: ds.json\n",
        )
        .ok();
        std::fs::write(&ds, r#"{"zero_optimization": {"stage": 2}}"#).ok();
        let flags = EstimateInput {
            run: RunInput {
                batch: 2.0,
                ..Default::default()
            },
            training: TrainingInput {
                precision: Precision::Bf16,
                ..Default::default()
            },
            ..Default::default()
        };
        let explicit = ["batch".to_string(), "precision".to_string()];
        let applied = apply(&[trl], flags.clone(), &flags, &explicit);
        let (input, reads) = match applied {
            Ok(x) => x,
            Err(e) => panic!("{}", e.message),
        };
        // The flags: the batch (TRL's default 8 otherwise) and the precision.
        assert_eq!(
            (input.run.batch, input.training.precision),
            (2.0, Precision::Bf16)
        );
        // The file: the model, the length; the DeepSpeed file it names, read from beside it.
        assert_eq!(input.model.model.as_deref(), Some("Qwen/Qwen3-8B"));
        assert_eq!((input.run.seq_len, input.placement.zero), (4096.0, 2.0));
        assert_eq!(reads.len(), 2);
        assert_eq!(reads[1].format, ConfigFormat::Deepspeed);
        std::fs::remove_dir_all(&dir).ok();
    }
}
