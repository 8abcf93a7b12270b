//! A command line a user pastes (`vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 …`), read
//! into an [`EstimateInput`]: the flags of [`super::flags`] set its fields, every other word is
//! listed as not read.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::flags::{self, Flag, Setting};
use crate::error::Result;
use crate::estimate::{AttentionImpl, Engine, EstimateInput, Mode, SplitMode};
use crate::precision::{Dtype, GgufFileType, KvDtype, Quantization};

/// A command line read.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReadCommand {
    /// The estimate's input it gives (the fields it does not set at their defaults).
    pub input: EstimateInput,
    /// The words that set nothing the estimate counts (`--port 8000`, an unknown flag and its
    /// value, an environment variable), as written.
    pub not_read: Vec<String>,
}

/// The engines whose command lines are read, as their users start them.
const ACCEPTED: &str = "vllm serve, python -m vllm.entrypoints.openai.api_server, python -m sglang.launch_server, sglang serve, trtllm-serve, llama-server, llama-cli, ollama run, mlx_lm.server, mlx_lm.generate (or python -m mlx_lm.server, python -m mlx_lm.generate), text-embeddings-router (or docker run … text-embeddings-inference:TAG), torchrun … pretrain_gpt.py (Megatron-LM), tune run (torchtune), python -m verl.trainer.main_ppo (verl)";

/// Reads `line`: optional `NAME=value` assignments, then one engine's command.
pub fn read_command(line: &str) -> Result<ReadCommand> {
    let joined = line.replace("\\\r\n", " ").replace("\\\n", " ");
    let words = shlex::split(&joined).ok_or_else(|| {
        crate::input_error!(
            Malformed,
            "command",
            "an unclosed quote or a trailing backslash",
            "有未闭合的引号或末尾的反斜杠",
            "a command line as a POSIX shell reads it",
            "POSIX shell 能读的命令行",
        )
    })?;
    let mut r = Reader::default();
    let mut rest = words.as_slice();
    while let [w, tail @ ..] = rest {
        match w.split_once('=') {
            Some((name, value)) if is_env_name(name) => r.env(name, value)?,
            _ => break,
        }
        rest = tail;
    }
    #[cfg(feature = "training")]
    if rest
        .first()
        .is_some_and(|w| w.rsplit('/').next() == Some("torchrun"))
    {
        return super::read_megatron::read(rest, r.not_read);
    }
    #[cfg(feature = "stack-config")]
    {
        let word = |i: usize| rest.get(i).map_or("", String::as_str);
        let python = matches!(word(0).rsplit('/').next(), Some("python" | "python3"));
        if word(0).rsplit('/').next() == Some("tune") && word(1) == "run" {
            return super::read_stack::tune_run(rest, r.not_read);
        }
        if python && word(1) == "-m" && word(2) == "verl.trainer.main_ppo" {
            return super::read_stack::verl(&rest[3..], r.not_read);
        }
    }
    let (engine, table, args) = program(rest)?;
    r.input.run.engine = engine;
    r.input.run.mode = match engine {
        Engine::Llamacpp | Engine::Ollama => Mode::Inference,
        Engine::Mlx if core::ptr::eq(table, flags::MLX_GENERATE) => Mode::Inference,
        _ => Mode::Serve,
    };
    r.flags(table, args)?;
    r.check_attn_dp()?;
    Ok(r.finish())
}

/// Whether `s` is an environment variable's name (`[A-Z_][A-Z0-9_]*`).
fn is_env_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_uppercase() || c == b'_')
        && b.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

/// The engine `words` start, its flags, and the words after the program (a positional model
/// first, where it takes one).
fn program(words: &[String]) -> Result<(Engine, &'static [Flag], &[String])> {
    let w = |i: usize| words.get(i).map_or("", String::as_str);
    let base = w(0).rsplit('/').next().unwrap_or("");
    let python = matches!(base, "python" | "python3");
    Ok(match base {
        "vllm" if w(1) == "serve" => (Engine::Vllm, flags::VLLM, &words[2..]),
        _ if python && w(1) == "-m" && w(2) == "vllm.entrypoints.openai.api_server" => {
            (Engine::Vllm, flags::VLLM, &words[3..])
        }
        _ if python && w(1) == "-m" && w(2) == "sglang.launch_server" => {
            (Engine::Sglang, flags::SGLANG, &words[3..])
        }
        // SGLang's own CLI (`sglang/cli/serve.py`): the model by --model-path or first.
        "sglang" if w(1) == "serve" => (Engine::Sglang, flags::SGLANG, &words[2..]),
        "trtllm-serve" if w(1) == "serve" => (Engine::Trtllm, flags::TRTLLM, &words[2..]),
        "trtllm-serve" => (Engine::Trtllm, flags::TRTLLM, &words[1..]),
        "llama-server" | "llama-cli" => (Engine::Llamacpp, flags::LLAMA_SERVER, &words[1..]),
        "ollama" if w(1) == "run" => (Engine::Ollama, &[], &words[2..]),
        "mlx_lm.server" => (Engine::Mlx, flags::MLX_SERVER, &words[1..]),
        "text-embeddings-router" => (Engine::Tei, flags::TEI, &words[1..]),
        // `docker run [docker's own flags] IMAGE [the router's flags]`: TEI's image, any tag.
        "docker" if w(1) == "run" && tei_image(words).is_some() => {
            let at = tei_image(words).map_or(words.len(), |i| i + 1);
            (Engine::Tei, flags::TEI, &words[at..])
        }
        "mlx_lm.generate" => (Engine::Mlx, flags::MLX_GENERATE, &words[1..]),
        _ if python && w(1) == "-m" && w(2) == "mlx_lm.server" => {
            (Engine::Mlx, flags::MLX_SERVER, &words[3..])
        }
        _ if python && w(1) == "-m" && w(2) == "mlx_lm.generate" => {
            (Engine::Mlx, flags::MLX_GENERATE, &words[3..])
        }
        _ => {
            let first = words.iter().take(3).cloned().collect::<Vec<_>>().join(" ");
            return Err(crate::input_error!(
                UnknownName,
                "command",
                ["`{first}` starts no engine vramfit reads"],
                ["`{first}` 不是 vramfit 能读的引擎命令"],
                [= ACCEPTED],
                [= ACCEPTED],
            ));
        }
    })
}

/// Where TEI's image (`…/text-embeddings-inference[:tag]`) is among a `docker run`'s words.
fn tei_image(words: &[String]) -> Option<usize> {
    words.iter().position(|w| {
        let name = w.split(':').next().unwrap_or("");
        name.rsplit('/').next() == Some("text-embeddings-inference")
    })
}

/// What has been read so far.
#[derive(Default)]
struct Reader {
    input: EstimateInput,
    not_read: Vec<String>,
    /// vLLM's data-parallel size and its expert-parallel switch, applied at the end.
    dp: f64,
    expert_parallel: bool,
    /// SGLang's deprecated `--enable-dp-attention`: `dp` is then the attention groups.
    dp_attention: bool,
    /// SGLang's `--attn-dp-size`: the attention groups inside tp (0: not given).
    attn_dp: f64,
    /// `--nnodes`, applied at the end (0: not given).
    nodes: f64,
    /// vLLM's `--data-parallel-size-local`, applied at the end (0: not given).
    dp_local: f64,
    /// A GGUF file's type, from its name (llama.cpp).
    file_type: Option<GgufFileType>,
    /// vLLM's `--limit-mm-per-prompt` with image at 0 and another modality left at its
    /// default: decided at the end, by the model's towers (`multimodal::ImageZero`).
    image_zero: Option<super::multimodal::ImageZero>,
    /// llama.cpp's `--cpu-moe`: every block's experts, once the model's blocks are known.
    cpu_moe: bool,
    /// llama.cpp's `--kv-unified-per-slot N` (0: not given), applied once `-c` and `-np` are
    /// known.
    kv_per_slot: f64,
    /// llama.cpp's `-np` was given.
    parallel_given: bool,
    /// An MLX conversion's format, from its name (mlx-lm).
    mlx_format: Option<Quantization>,
}

impl Reader {
    fn env(&mut self, name: &str, value: &str) -> Result<()> {
        let i = &mut self.input;
        match name {
            "OLLAMA_NUM_PARALLEL" => i.run.batch = number(name, value)?,
            "OLLAMA_CONTEXT_LENGTH" => i.serving.max_model_len = Some(number(name, value)?),
            "OLLAMA_KV_CACHE_TYPE" => i.run.kv_dtype = KvDtype::parse(name, value)?,
            "OLLAMA_FLASH_ATTENTION" if matches!(value, "1" | "true") => {
                i.run.attention = AttentionImpl::Flash;
            }
            _ => self.not_read.push(alloc::format!("{name}={value}")),
        }
        Ok(())
    }

    /// The words after the program: a positional model first (where the engine takes one),
    /// then flags.
    fn flags(&mut self, table: &[Flag], mut args: &[String]) -> Result<()> {
        let positional_model = !matches!(
            self.input.run.engine,
            Engine::Sglang | Engine::Llamacpp | Engine::Mlx | Engine::Tei
        );
        if let [m, tail @ ..] = args
            && positional_model
            && !m.starts_with('-')
        {
            self.input.model.model = Some(m.clone());
            args = tail;
        }
        while let [word, tail @ ..] = args {
            args = tail;
            let (name, inline) = match word.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v)),
                _ => (word.as_str(), None),
            };
            let Some(flag) = flags::find(table, name).filter(|_| word.starts_with('-')) else {
                self.not_read.push(word.clone());
                // An unknown flag's value goes with it.
                if let [v, t @ ..] = args
                    && word.starts_with('-')
                    && inline.is_none()
                    && !v.starts_with('-')
                {
                    self.not_read.push(v.clone());
                    args = t;
                }
                continue;
            };
            if flag.many && inline.is_none() {
                // argparse's `nargs="*"`: every word up to the next flag.
                let n = args.iter().take_while(|v| !v.starts_with('-')).count();
                let (values, t) = args.split_at(n);
                args = t;
                for v in values {
                    self.set(flag.setting, name, v)?;
                }
                continue;
            }
            let value = match (flag.takes_value, inline, args) {
                (false, _, _) => None,
                (true, Some(v), _) => Some(v),
                // llama.cpp's `-fa` was a switch before it took on|off|auto.
                (true, None, [v, t @ ..])
                    if !(flag.setting == Setting::FlashAttn && v.starts_with('-')) =>
                {
                    args = t;
                    Some(v.as_str())
                }
                (true, None, _) if flag.setting == Setting::FlashAttn => Some("on"),
                (true, None, _) => {
                    return Err(crate::input_error!(
                        Missing,
                        "command",
                        ["{name} without its value"],
                        ["{name} 缺少取值"],
                        ["{name} followed by its value"],
                        ["{name} 后接取值"],
                    ));
                }
            };
            self.set(flag.setting, name, value.unwrap_or(""))?;
        }
        Ok(())
    }

    /// `setting` from `flag`'s `value`.
    fn set(&mut self, setting: Setting, flag: &str, value: &str) -> Result<()> {
        if setting == Setting::Model {
            let model = self.model(value);
            self.input.model.model = Some(model);
            return Ok(());
        }
        let i = &mut self.input;
        match setting {
            Setting::Model => {}
            Setting::Tp => i.placement.tp = number(flag, value)?,
            Setting::Pp => i.placement.pp = number(flag, value)?,
            Setting::Dp => self.dp = number(flag, value)?,
            Setting::Ep => i.placement.ep = number(flag, value)?,
            Setting::ExpertParallel => self.expert_parallel = true,
            // vLLM's `auto` (or -1): the longest context that fits, which vLLM finds at start-up;
            // the estimate keeps its default (the trained context) and says it did not read it.
            Setting::Context if matches!(value, "auto" | "-1") => {
                self.not_read.extend([flag.to_string(), value.to_string()]);
            }
            Setting::Context => i.serving.max_model_len = Some(number(flag, value)?),
            Setting::Utilization => i.serving.gpu_memory_utilization = fraction(flag, value)?,
            Setting::MaxSeqs => i.serving.max_num_seqs = Some(number(flag, value)?),
            Setting::BatchedTokens => i.serving.max_num_batched_tokens = Some(number(flag, value)?),
            Setting::KvDtype => i.run.kv_dtype = KvDtype::parse(flag, value)?,
            Setting::KvDtypeV if KvDtype::parse(flag, value)? == i.run.kv_dtype => {}
            // The estimate takes one type for keys and values.
            Setting::KvDtypeV => self.not_read.extend([flag.to_string(), value.to_string()]),
            Setting::NoCudaGraphs => i.serving.cuda_graphs = false,
            Setting::DpAttention => self.dp_attention = true,
            Setting::AttnDp => self.attn_dp = number(flag, value)?,
            // The decode graphs are the ones the estimate counts.
            Setting::GraphBackendDecode => i.serving.cuda_graphs = value != "disabled",
            Setting::GraphBackendPrefill => {}
            Setting::Dtype => i.run.dtype = dtype(flag, value)?,
            Setting::Quantization => match quantization(value) {
                Some(q) => i.model.quantization = q,
                None => self.not_read.extend([flag.to_string(), value.to_string()]),
            },
            Setting::MemFraction => i.serving.mem_fraction_static = Some(fraction(flag, value)?),
            Setting::CudaGraphMaxBs => i.serving.cuda_graph_max_bs = Some(number(flag, value)?),
            Setting::FreeFraction => {
                i.serving.free_gpu_memory_fraction = Some(fraction(flag, value)?)
            }
            // A file vramfit does not see: its settings are given as flags of vramfit's.
            Setting::ExtraOptions => self.not_read.extend([flag.to_string(), value.to_string()]),
            Setting::GpuLayers => i.placement.gpu_layers = Some(number(flag, value)?),
            Setting::Ubatch => i.serving.ubatch = number(flag, value)?,
            // llama-server's `-np -1` is its automatic slots, as without `-np`.
            Setting::Parallel
                if value.trim() == "-1" && i.run.engine == crate::estimate::Engine::Llamacpp =>
            {
                self.parallel_given = false
            }
            Setting::Parallel => {
                i.run.batch = number(flag, value)?;
                self.parallel_given = true;
            }
            Setting::NCpuMoe => i.placement.n_cpu_moe = Some(number(flag, value)?),
            Setting::CpuMoe => self.cpu_moe = true,
            Setting::KvUnified => i.serving.kv_unified = Some(true),
            Setting::NoKvUnified => i.serving.kv_unified = Some(false),
            Setting::KvPerSlot => self.kv_per_slot = number(flag, value)?,
            Setting::TensorSplit => i.placement.tensor_split = shares(flag, value)?,
            Setting::SplitMode => i.placement.split_mode = split_mode(flag, value)?,
            Setting::MainGpu => i.placement.main_gpu = number(flag, value)?,
            Setting::EnableLora => i.serving.enable_lora = true,
            Setting::MaxLoras => i.serving.max_loras = Some(number(flag, value)?),
            Setting::MaxLoraRank => i.serving.max_lora_rank = Some(number(flag, value)?),
            Setting::MaxCpuLoras => i.serving.max_cpu_loras = Some(number(flag, value)?),
            Setting::LoraTargets => i.training.lora_targets.push(value.into()),
            Setting::KvOffloadingSize => i.serving.kv_offloading_size = Some(number(flag, value)?),
            Setting::KvOffloadingBackend => {
                i.serving.kv_offloading_backend = Some(offloading_backend(flag, value)?);
            }
            Setting::Runner => {
                i.run.runner = match value {
                    "auto" | "none" => None,
                    "generate" | "transcription" => Some(crate::estimate::RunnerType::Generate),
                    _ => Some(crate::estimate::RunnerType::Pooling),
                }
            }
            Setting::IsEmbedding => i.run.runner = Some(crate::estimate::RunnerType::Pooling),
            Setting::Pooling => {
                if pooling(flag, value)? {
                    i.run.runner = Some(crate::estimate::RunnerType::Pooling);
                }
            }
            Setting::NewTokens => i.run.new_tokens = number(flag, value)?,
            Setting::MaxKvSize => i.serving.max_kv_size = Some(number(flag, value)?),
            Setting::KvBits => i.serving.kv_bits = Some(number(flag, value)?),
            Setting::KvGroupSize => i.serving.kv_group_size = Some(number(flag, value)?),
            Setting::QuantizedKvStart => i.serving.quantized_kv_start = Some(number(flag, value)?),
            // The prompt's text: its tokens are the estimate's seq_len, which a flag does not say.
            Setting::Prompt => self.not_read.extend([flag.to_string(), value.to_string()]),
            Setting::Nodes => self.nodes = number(flag, value)?,
            // The same run on every node: where this one sits changes no figure.
            Setting::NodePlace
            | Setting::Headless
            | Setting::DpAddress
            | Setting::DpRpcPort
            | Setting::DpStartRank => {}
            Setting::DpLocal => self.dp_local = number(flag, value)?,
            Setting::SpeculativeConfig => {
                super::speculative::read(flag, value, i, &mut self.not_read)?;
            }
            Setting::SglangSpeculative(which) => {
                super::sglang_speculative::read(which, flag, value, i)?;
            }
            Setting::MmLimit => {
                self.image_zero = super::multimodal::read(flag, value, i, &mut self.not_read)?;
            }
            Setting::LanguageModelOnly => i.run.language_model_only = true,
            Setting::DisaggregationMode => {
                i.serving.disaggregation_mode = super::disaggregation::mode(flag, value)?;
            }
            Setting::TransferBackend => {
                i.serving.disaggregation_transfer_backend =
                    Some(super::disaggregation::backend(flag, value)?);
            }
            Setting::ReservedDecodeTokens => {
                i.serving.num_reserved_decode_tokens = Some(number(flag, value)?);
            }
            Setting::KvTransferConfig => {
                super::disaggregation::read_kv_transfer(flag, value, i, &mut self.not_read)?;
            }
            Setting::FlashAttn => i.run.attention = flash_attn(value),
        }
        Ok(())
    }

    /// The model a flag names: a GGUF file named after a preset and its file type
    /// (`Qwen3-32B-Q4_K_M.gguf`) is that preset in that type; anything else as written.
    fn model(&mut self, value: &str) -> String {
        if self.input.run.engine == Engine::Mlx {
            return self.mlx_model(value);
        }
        let file = value.rsplit('/').next().unwrap_or(value);
        let Some(stem) = file.strip_suffix(".gguf") else {
            return value.to_string();
        };
        let named = stem.rsplit_once(['-', '.']).and_then(|(name, ft)| {
            let ft = GgufFileType::ALL
                .into_iter()
                .find(|t| t.name().eq_ignore_ascii_case(ft))?;
            Some((crate::presets::find(name)?, ft))
        });
        match named {
            Some((p, ft)) => {
                self.file_type = Some(ft);
                p.id.to_string()
            }
            None => value.to_string(),
        }
    }

    /// An MLX checkpoint named after a preset and its format: vramfit's conversion
    /// (`Llama-3.1-8B-Instruct-mlx-4bit-g32`), or mlx-community's `-4bit`, `-8bit` (affine,
    /// groups of 64, `mlx_lm.convert`'s defaults); anything else as written.
    fn mlx_model(&mut self, value: &str) -> String {
        let name = value.trim_end_matches('/');
        let dir = name.rsplit('/').next().unwrap_or(name);
        let named = match dir.split_once("-mlx-") {
            Some((stem, fmt)) => Quantization::parse("quantization", &alloc::format!("mlx-{fmt}"))
                .ok()
                .zip(crate::presets::find(stem)),
            None => dir.rsplit_once('-').and_then(|(stem, fmt)| {
                let q = Quantization::parse("quantization", &alloc::format!("mlx-{fmt}")).ok()?;
                Some((q, crate::presets::find(stem)?))
            }),
        };
        match named {
            Some((q, p)) => {
                self.mlx_format = Some(q);
                p.id.to_string()
            }
            None => value.to_string(),
        }
    }

    /// SGLang 0.5.23 refuses copies of the server (`--dp-size`) beside attention groups
    /// (`--attn-dp-size`, `arg_groups/parallel_hook.py`), and so does this reader.
    fn check_attn_dp(&self) -> Result<()> {
        if self.attn_dp <= 1.0 || self.dp <= 1.0 {
            return Ok(());
        }
        let (dp, attn) = (self.dp, self.attn_dp);
        Err(crate::input_error!(
            Unsupported,
            "command",
            [
                "--dp-size {dp} with --attn-dp-size {attn}: SGLang does not combine copies of the server with attention data parallelism"
            ],
            [
                "--dp-size {dp} 与 --attn-dp-size {attn} 同用：SGLang 不支持服务副本与注意力数据并行同时开启"
            ],
            "--dp-size 1 beside --attn-dp-size, or --attn-dp-size 1 beside --dp-size",
            "与 --attn-dp-size 同用时 --dp-size 为 1，或与 --dp-size 同用时 --attn-dp-size 为 1",
        ))
    }

    fn finish(mut self) -> ReadCommand {
        if let Some(zero) = self.image_zero.take() {
            zero.apply(&mut self.input, &mut self.not_read);
        }
        let i = &mut self.input;
        if let Some(q) = self.mlx_format {
            i.model.quantization = q;
        }
        if let Some(file_type) = self.file_type {
            i.model.quantization = Quantization::Gguf { file_type };
        }
        if self.attn_dp > 1.0 {
            // The groups inside tp; SGLang divides the chunk it was given among them.
            i.placement.enable_dp_attention = true;
            i.placement.dp_size = Some(self.attn_dp);
        } else if self.dp_attention && self.attn_dp == 0.0 {
            // The deprecated spelling: `--dp-size` counted the groups, as SGLang 0.5.23's
            // `handle_deprecated_dp_attention` turns it into `--attn-dp-size`.
            i.placement.enable_dp_attention = true;
            i.placement.dp_size = Some(self.dp.max(1.0));
            self.dp = 1.0;
        } else if self.dp > 1.0 {
            i.placement.gpus = Some(i.placement.tp * i.placement.pp * self.dp);
        }
        // vLLM's `--data-parallel-size-local L`: a node holds L ranks of tp × pp GPUs each.
        if self.dp_local >= 1.0 && self.dp > 1.0 {
            i.placement.gpus_per_node = Some(i.placement.tp * i.placement.pp * self.dp_local);
        }
        // `--nnodes N`: the GPUs of tp × pp × dp fill N nodes, each its share; a count they
        // do not divide into is listed as not read.
        if self.nodes > 1.0 {
            let per_node = i.placement.tp * i.placement.pp * self.dp.max(1.0) / self.nodes;
            if per_node >= 1.0 && libm::trunc(per_node) == per_node {
                i.placement.gpus_per_node = Some(per_node);
            } else {
                let n = crate::units::number_text(self.nodes);
                self.not_read.extend([String::from("--nnodes"), n]);
            }
        }
        let i = &mut self.input;
        // llama.cpp's `-ts` names a share per GPU: that many GPUs (unless `-sm none` keeps one).
        if i.placement.tensor_split.len() > 1 && i.placement.split_mode != SplitMode::None {
            i.placement.gpus = Some(i.placement.tensor_split.len() as f64);
        }
        if self.expert_parallel {
            i.placement.ep = i.placement.tp * self.dp.max(1.0);
        }
        // llama.cpp's `--cpu-moe`: every block (the model's, where its preset is known).
        if self.cpu_moe {
            match i.model.model.as_deref().and_then(crate::presets::find) {
                Some(p) => i.placement.n_cpu_moe = Some(p.arch.num_layers as f64),
                None => self.not_read.push(String::from("--cpu-moe")),
            }
        }
        llama_server_context(i, self.kv_per_slot, self.parallel_given);
        // llama.cpp's `-ngl 999`: every layer.
        if let (Some(n), Some(p)) = (
            i.placement.gpu_layers,
            i.model.model.as_deref().and_then(crate::presets::find),
        ) && n > (p.arch.num_layers + 1) as f64
        {
            i.placement.gpu_layers = None;
        }
        ReadCommand {
            input: self.input,
            not_read: self.not_read,
        }
    }
}

/// A count as the engines write it: digits, or vLLM's `32k` (× 1,000) and `32K` (× 1,024).
pub(super) fn number(flag: &str, value: &str) -> Result<f64> {
    let (digits, scale) = match value.as_bytes().last() {
        Some(b'k') => (&value[..value.len() - 1], 1e3),
        Some(b'K') => (&value[..value.len() - 1], 1024.0),
        Some(b'm') => (&value[..value.len() - 1], 1e6),
        Some(b'M') => (&value[..value.len() - 1], 1_048_576.0),
        _ => (value, 1.0),
    };
    match digits.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x * scale),
        _ => Err(crate::input_error!(
            Malformed,
            "command",
            ["{flag} {value} is not a count"],
            ["{flag} {value} 不是一个数"],
            "a whole number, such as 8192 or 32k",
            "整数，如 8192 或 32k",
        )),
    }
}

/// llama.cpp's `-ts 3,1` (or `3/1`): each GPU's share.
fn shares(flag: &str, value: &str) -> Result<Vec<f64>> {
    value
        .split([',', '/'])
        .map(|x| match x.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(crate::input_error!(
                Malformed,
                "command",
                ["{flag} {value} is not a list of shares"],
                ["{flag} {value} 不是比例列表"],
                "numbers separated by commas or slashes, such as 3,1",
                "以逗号或斜杠分隔的数，如 3,1",
            )),
        })
        .collect()
}

/// A fraction such as `0.9`.
fn fraction(flag: &str, value: &str) -> Result<f64> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(crate::input_error!(
            Malformed,
            "command",
            ["{flag} {value} is not a number"],
            ["{flag} {value} 不是数字"],
            "a fraction such as 0.9",
            "小数，如 0.9",
        )),
    }
}

/// vLLM's and SGLang's `--dtype`: `auto` leaves the checkpoint's.
fn dtype(flag: &str, value: &str) -> Result<Option<Dtype>> {
    Ok(match value {
        "auto" => None,
        "half" => Some(Dtype::Fp16),
        "float" => Some(Dtype::Fp32),
        v => Some(Dtype::parse(flag, v)?),
    })
}

/// An engine's `--quantization` word, as the estimate counts it; `None` for a method it does
/// not count.
fn quantization(value: &str) -> Option<Quantization> {
    match value {
        "bitsandbytes" => Some(Quantization::BnbNf4 {
            double_quant: false,
        }),
        v => Quantization::parse("quantization", v).ok(),
    }
}

/// llama-server's context and slots where the command leaves them to the server: the pool
/// of `--kv-unified-per-slot`, the trained context without `-c`, and the automatic slots
/// without `-np`.
fn llama_server_context(i: &mut EstimateInput, kv_per_slot: f64, parallel_given: bool) {
    // llama.cpp's `--kv-unified-per-slot N` (ggml-org/llama.cpp#24124, b10662), the input's
    // `kv_unified_per_slot`: without `-c` (or with `-c 0`) the estimate sizes the shared pool
    // to the slots × N, with `-c` it is a cap that holds no memory. N of 0 does nothing.
    if kv_per_slot != 0.0 {
        i.serving.kv_unified_per_slot = Some(kv_per_slot);
        if i.serving.max_model_len == Some(0.0) {
            i.serving.max_model_len = None;
        }
    }
    // llama-server without `-c`, or with `-c 0`: the context the model was trained with
    // (`common_params::n_ctx = 0`, "0 == context the model was trained with", in
    // `common/common.h`; builds from PR #10136 of 2024-11 until the fit made it 0 again
    // took 4096, less than any preset's trained context), which `--fit` lowers toward 4096
    // only where the free memory lacks: the most it allocates, on the safe side.
    if i.run.engine == crate::estimate::Engine::Llamacpp
        && matches!(i.serving.max_model_len, None | Some(0.0))
        && i.serving.kv_unified_per_slot.is_none()
    {
        i.serving.max_model_len = i
            .model
            .model
            .as_deref()
            .and_then(crate::presets::find)
            .map(|p| p.arch.max_position_embeddings)
            .filter(|&t| t > 0)
            .map(|t| t as f64);
    }
    // llama-server without `-np` (or `-np -1`): 4 slots over one unified cache
    // (`llamacpp_slots.rs`), whatever `--no-kv-unified` says.
    if i.run.engine == crate::estimate::Engine::Llamacpp && !parallel_given {
        super::llama_server_auto_slots(i);
    }
}

/// llama.cpp's `--split-mode` (`-sm`) value.
fn split_mode(flag: &str, value: &str) -> Result<SplitMode> {
    match value {
        "layer" => Ok(SplitMode::Layer),
        "row" => Ok(SplitMode::Row),
        "none" => Ok(SplitMode::None),
        _ => Err(crate::input_error!(
            UnknownName,
            "command",
            ["{flag} {value} is not a split mode"],
            ["{flag} {value} 不是切分方式"],
            "layer, row or none",
            "layer、row 或 none",
        )),
    }
}

/// vLLM's `--kv-offloading-backend` value.
fn offloading_backend(flag: &str, value: &str) -> Result<crate::estimate::KvOffloadingBackend> {
    match value {
        "native" => Ok(crate::estimate::KvOffloadingBackend::Native),
        "lmcache" => Ok(crate::estimate::KvOffloadingBackend::Lmcache),
        _ => Err(crate::input_error!(
            UnknownName,
            "command",
            ["{flag} {value} is not a KV offloading backend"],
            ["{flag} {value} 不是 KV 卸载后端"],
            "native or lmcache",
            "native 或 lmcache",
        )),
    }
}

/// Whether llama.cpp's `--pooling` type makes an embedding server: its pooling types
/// (`common/arg.cpp`), any but `none` (`server_n_outputs_max`); `none` changes nothing read.
fn pooling(flag: &str, value: &str) -> Result<bool> {
    match value {
        "mean" | "cls" | "last" | "rank" => Ok(true),
        "none" => Ok(false),
        _ => Err(crate::input_error!(
            UnknownName,
            "command",
            ["{flag} {value} is not a llama.cpp pooling type"],
            ["{flag} {value} 不是 llama.cpp 的池化类型"],
            "none, mean, cls, last or rank",
            "none、mean、cls、last 或 rank",
        )),
    }
}

/// llama.cpp's `--flash-attn` (`-fa`) value: on, off or auto (the default kernel).
fn flash_attn(value: &str) -> AttentionImpl {
    match value {
        "on" | "1" | "true" => AttentionImpl::Flash,
        "off" | "0" | "false" => AttentionImpl::Eager,
        _ => AttentionImpl::default(),
    }
}
