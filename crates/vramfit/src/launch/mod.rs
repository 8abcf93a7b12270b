//! The command that starts a run, and back: an estimate's serving run written as its engine's
//! own command line (`vllm serve …`, `python -m sglang.launch_server …`, `trtllm-serve …`,
//! `llama-server …`, Ollama's environment and Modelfile), a fine-tuning run as its stack's
//! files and launcher (`trl sft --config train.yaml`, `llamafactory-cli train`, `axolotl
//! train`, with DeepSpeed's JSON or accelerate's config), with every number the estimate
//! assumed set explicitly, so that the engine runs what was estimated; and a command line a
//! user pastes, read into an [`EstimateInput`], every flag not read listed.
//!
//! Each engine's flags are one table ([`flags`]), which both the writer and the reader use:
//! the spelling written is the first name of a row, and every name of a row is read.

mod disaggregation;
mod flags;
#[cfg(test)]
mod llamacpp_kv_tests;
mod llamacpp_slots;
#[cfg(test)]
mod llamacpp_slots_tests;
mod local;
#[cfg(all(test, feature = "training"))]
mod megatron_tests;
mod mlx;
mod multimodal;
#[cfg(test)]
mod nodes_tests;
#[cfg(test)]
mod plan_tests;
mod read;
#[cfg(feature = "training")]
mod read_megatron;
#[cfg(feature = "stack-config")]
mod read_stack;
#[cfg(all(test, feature = "training"))]
mod rl_launch_tests;
mod serve;
mod sglang_speculative;
mod speculative;
mod tei;
#[cfg(test)]
mod tests;
#[cfg(feature = "training")]
mod train;
#[cfg(feature = "training")]
mod train_megatron;
#[cfg(feature = "training")]
mod train_nodes;
#[cfg(feature = "training")]
mod train_openrlhf;
#[cfg(feature = "training")]
mod train_rl;
#[cfg(feature = "training")]
mod train_stacks;
#[cfg(all(test, feature = "stack-config"))]
mod train_tests;
#[cfg(feature = "training")]
mod train_torchtune;
#[cfg(feature = "training")]
mod train_unsloth;
#[cfg(feature = "training")]
mod train_verl;
#[cfg(feature = "training")]
mod yaml;

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{InputError, Result};
use crate::estimate::{EstimateInput, Runner, Workload};

pub use llamacpp_slots::{AUTO_SLOTS, llama_server_auto_slots};
pub use read::{ReadCommand, read_command};
pub use speculative::read_speculative_config;

/// A run's launch: files to write, environment to set, commands to run, in that order.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Launch {
    /// Files the commands read (Ollama's `Modelfile`, TensorRT-LLM's extra options YAML).
    pub files: Vec<LaunchFile>,
    /// Environment variables, `NAME=value` (Ollama's server settings).
    pub env: Vec<EnvVar>,
    /// The commands, each as its words (`argv`), run one after the other.
    pub commands: Vec<Vec<String>>,
    /// All of it as one POSIX shell script a user pastes: files as here-documents, `export`,
    /// then the commands, each word quoted where the shell needs it.
    pub script: String,
    /// What the user supplies or checks (the GGUF file's path; a checkpoint in the format
    /// counted), in English and Chinese.
    pub notes: Vec<LaunchNote>,
}

/// A file a launch writes.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LaunchFile {
    /// Its name, in the working directory.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// An environment variable a launch sets.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct EnvVar {
    /// `OLLAMA_NUM_PARALLEL`.
    pub name: String,
    /// `4`.
    pub value: String,
}

/// A note on a launch, in both languages.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LaunchNote {
    /// English.
    pub en: String,
    /// Chinese.
    pub zh: String,
}

/// The launch of `input`'s run ([`launch`] of its resolved workload).
pub fn launch_input(input: &EstimateInput) -> Result<Launch> {
    launch(&input.resolve()?)
}

/// The command line that starts `w`'s run on its engine, with the numbers the estimate used:
/// a serving engine's, local inference's, or a fine-tuning stack's files and launcher
/// (`train.rs`). transformers inference runs from the user's own Python, and a model known by
/// its parameter count or its `config.json` alone has no name an engine can load.
pub fn launch(w: &Workload) -> Result<Launch> {
    let mut l = Builder::default();
    match w.runner() {
        Runner::Vllm => serve::vllm(w, &mut l)?,
        Runner::Sglang => serve::sglang(w, &mut l)?,
        Runner::Trtllm => serve::trtllm(w, &mut l)?,
        Runner::Llamacpp => local::llama_server(w, &mut l)?,
        Runner::Ollama => local::ollama(w, &mut l)?,
        Runner::Mlx => mlx::mlx(w, &mut l)?,
        Runner::Tei => tei::tei(w, &mut l)?,
        #[cfg(feature = "training")]
        Runner::Training => train::training(w, &mut l)?,
        // A build without training resolves no training run.
        #[cfg(not(feature = "training"))]
        Runner::Training => {
            return Err(crate::input_error!(
                Unsupported,
                "mode",
                "training is not in this build of vramfit",
                "这个 vramfit 版本不含训练",
                "inference or serve",
                "inference 或 serve",
            ));
        }
        Runner::Transformers => {
            return Err(crate::input_error!(
                Unsupported,
                "engine",
                "no launch command for transformers inference: it runs from your own Python",
                "transformers 推理没有启动命令：它由你自己的 Python 代码运行",
                "a serving engine (vllm, sglang, trtllm, llamacpp, ollama, mlx or tei), or a training run",
                "一个推理服务引擎（vllm、sglang、trtllm、llamacpp、ollama、mlx 或 tei），或训练运行",
            ));
        }
    }
    Ok(l.finish())
}

/// A launch as it is written.
#[derive(Default)]
pub(crate) struct Builder {
    files: Vec<LaunchFile>,
    env: Vec<EnvVar>,
    commands: Vec<Vec<String>>,
    notes: Vec<LaunchNote>,
    /// The node each command runs on, for a run over several nodes: `(node, nodes)` by the
    /// command's index; the script says it in a comment above the command.
    nodes: Vec<(usize, u64, u64)>,
}

impl Builder {
    pub(crate) fn file(&mut self, name: &str, text: String) {
        self.files.push(LaunchFile {
            name: String::from(name),
            text,
        });
    }
    /// The file the command reads first (a training stack's config), before the files it
    /// names and were written while it was built.
    #[cfg(feature = "training")]
    pub(crate) fn first_file(&mut self, name: &str, text: String) {
        self.files.insert(
            0,
            LaunchFile {
                name: String::from(name),
                text,
            },
        );
    }
    pub(crate) fn env(&mut self, name: &str, value: String) {
        self.env.push(EnvVar {
            name: String::from(name),
            value,
        });
    }
    pub(crate) fn command(&mut self, argv: Vec<String>) {
        self.commands.push(argv);
    }
    /// A command run on node `node` (from 0) of `nodes`.
    pub(crate) fn command_on(&mut self, node: u64, nodes: u64, argv: Vec<String>) {
        self.nodes.push((self.commands.len(), node, nodes));
        self.commands.push(argv);
    }
    pub(crate) fn note(&mut self, en: String, zh: String) {
        self.notes.push(LaunchNote { en, zh });
    }

    fn finish(self) -> Launch {
        let script = script(&self.files, &self.env, &self.commands, &self.nodes);
        Launch {
            files: self.files,
            env: self.env,
            commands: self.commands,
            script,
            notes: self.notes,
        }
    }
}

/// The POSIX shell text of a launch. A command's words go one flag to a line (a flag and its
/// value together), continued with `\`, as people paste them.
/// A command on a node of several is preceded by a comment naming the node.
fn script(
    files: &[LaunchFile],
    env: &[EnvVar],
    commands: &[Vec<String>],
    nodes: &[(usize, u64, u64)],
) -> String {
    let mut s = String::new();
    for f in files {
        // A quoted delimiter: the file's text is taken as it is, no expansion.
        s += &alloc::format!("cat > {} <<'EOF'\n{}EOF\n", quote(&f.name), f.text);
    }
    for e in env {
        s += &alloc::format!("export {}={}\n", e.name, quote(&e.value));
    }
    for (i, argv) in commands.iter().enumerate() {
        if let Some((_, node, of)) = nodes.iter().find(|n| n.0 == i) {
            let role = if *node == 0 { "the head" } else { "a worker" };
            s += &alloc::format!("# on node {node} of {of} ({role})\n");
        }
        s += &command_text(argv);
        s.push('\n');
    }
    s
}

/// One command's text: the program and its positional words on the first line, then each flag
/// with its value on a line of its own (a short command on one line).
pub(crate) fn command_text(argv: &[String]) -> String {
    let long = argv.len() > 6;
    let mut s = String::new();
    for (i, word) in argv.iter().enumerate() {
        if i > 0 {
            let starts_flag = long && word.starts_with('-') && word.len() > 1;
            // A `key=value` override (torchtune's, Hydra's) after no flag: a line of its own.
            let after_flag = argv[i - 1].starts_with('-');
            let starts_override = long && !after_flag && is_override(word);
            s += if starts_flag || starts_override {
                " \\\n  "
            } else {
                " "
            };
        }
        s += &quote(word);
    }
    s
}

/// Whether `word` is a `key=value` override: a lowercase dotted key (`model.lora_rank`,
/// `~optimizer.fused`, Hydra's `+key`), not an environment variable's `NAME=value`.
fn is_override(word: &str) -> bool {
    let key = match word.split_once('=') {
        Some((k, _)) => k,
        None => return word.starts_with('~'),
    };
    let key = key.trim_start_matches(['+', '~']);
    !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
}

/// `word` as the shell reads it back: as it is when it has nothing the shell would change,
/// else in single quotes.
fn quote(word: &str) -> String {
    match shlex::try_quote(word) {
        Ok(q) => String::from(q),
        // A NUL byte, which no command line carries; the estimator never writes one.
        Err(_) => String::from(word),
    }
}

/// The error of a launch for a run whose model no engine can load by name.
pub(crate) fn no_model_name(w: &Workload) -> InputError {
    let name = w.model_name.as_str();
    crate::input_error!(
        Missing,
        "model",
        ["`{name}` names no checkpoint an engine can load"],
        ["`{name}` 不是引擎能加载的检查点名称"],
        "a model preset (a Hugging Face id) or an Ollama library name",
        "一个预设模型（Hugging Face id）或 Ollama 库中的名称",
    )
}

/// A flag's JSON value (`--speculative-config`, `--limit-mm-per-prompt`) as an object, or the
/// flag's own error `bad` when it is not one.
fn json_object(
    value: &str,
    bad: impl Fn() -> InputError,
) -> Result<serde_json::Map<String, serde_json::Value>> {
    match serde_json::from_str(value) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        _ => Err(bad()),
    }
}
