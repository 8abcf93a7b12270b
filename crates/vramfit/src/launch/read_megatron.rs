//! Megatron-LM's command line read back: `torchrun [its options] pretrain_gpt.py [Megatron's
//! flags]` into a training [`EstimateInput`] of stack `megatron`. torchrun's `--nnodes` and
//! `--nproc-per-node` give the GPUs and the node's size; Megatron's parallel, batch, precision
//! and recompute flags the layout; `--tokenizer-model` names the model (its shape flags then
//! agree with the preset and are listed as not read, as is every word the estimate does not use).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::read::ReadCommand;
use crate::error::Result;
use crate::estimate::{
    Checkpointing, EstimateInput, Mode, PlacementInput, Precision, RecomputeMethod, RunInput,
    Stack, TrainingInput,
};

/// torchrun's options that take a value (`torch.distributed.run`'s, both spellings), also
/// `tune run`'s (`read_stack.rs`).
pub(super) const TORCHRUN_VALUED: &[&str] = &[
    "--nnodes",
    "--nproc-per-node",
    "--nproc_per_node",
    "--node-rank",
    "--node_rank",
    "--rdzv-backend",
    "--rdzv_backend",
    "--rdzv-endpoint",
    "--rdzv_endpoint",
    "--rdzv-id",
    "--rdzv_id",
    "--master-addr",
    "--master_addr",
    "--master-port",
    "--master_port",
    "--max-restarts",
    "--max_restarts",
];

/// Megatron's flags that take no value and that the estimate reads.
const SWITCHES: &[&str] = &[
    "--sequence-parallel",
    "--use-distributed-optimizer",
    "--bf16",
    "--fp16",
];

/// Reads `words` (from `torchrun` on), `env` the assignments before it, listed as not read.
pub(super) fn read(words: &[String], env: Vec<String>) -> Result<ReadCommand> {
    let mut not_read = env;
    let torchrun = torchrun_options(words, 1, &mut not_read, |w| {
        w.ends_with(super::train_megatron::SCRIPT)
    })?;
    let (nodes, per_node, i) = (torchrun.nodes, torchrun.per_node, torchrun.next);
    if i >= words.len() {
        return Err(crate::input_error!(
            Unsupported,
            "command",
            "torchrun without Megatron-LM's pretrain_gpt.py",
            "torchrun 后没有 Megatron-LM 的 pretrain_gpt.py",
            "torchrun … pretrain_gpt.py with Megatron-LM's flags",
            "torchrun … pretrain_gpt.py 加 Megatron-LM 的参数",
        ));
    }
    let mut input = EstimateInput {
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        training: TrainingInput {
            stack: Some(Stack::Megatron),
            precision: Precision::Fp32,
            ..Default::default()
        },
        placement: PlacementInput {
            gpus: Some(nodes * per_node),
            gpus_per_node: (nodes > 1.0).then_some(per_node),
            ..Default::default()
        },
        ..Default::default()
    };
    let (mut global, mut per_chunk, mut layers) = (None, None, None);
    let args = &words[i + 1..];
    let mut j = 0;
    while j < args.len() {
        let (flag, inline) = split(&args[j]);
        let takes_value = !SWITCHES.contains(&flag)
            && inline.is_none()
            && args.get(j + 1).is_some_and(|v| !v.starts_with("--"));
        let value = match inline {
            Some(v) => v.to_string(),
            None if takes_value => {
                j += 1;
                args[j].clone()
            }
            None => String::new(),
        };
        match flag {
            "--tensor-model-parallel-size" => input.placement.tp = count(flag, &value)?,
            "--pipeline-model-parallel-size" => input.placement.pp = count(flag, &value)?,
            "--num-layers-per-virtual-pipeline-stage" => per_chunk = Some(count(flag, &value)?),
            "--context-parallel-size" => input.placement.cp = Some(count(flag, &value)?),
            "--sequence-parallel" => input.placement.sequence_parallel = true,
            "--use-distributed-optimizer" => input.placement.distributed_optimizer = true,
            "--micro-batch-size" => input.run.batch = count(flag, &value)?,
            "--global-batch-size" => global = Some(count(flag, &value)?),
            "--seq-length" => input.run.seq_len = count(flag, &value)?,
            "--num-layers" => {
                layers = Some(count(flag, &value)?);
                not_read.extend([flag.to_string(), value]);
            }
            "--bf16" => input.training.precision = Precision::AmpBf16,
            "--fp16" => input.training.precision = Precision::AmpFp16,
            "--recompute-granularity" if value == "full" => {
                input.training.grad_checkpointing = Checkpointing::Full;
            }
            "--recompute-granularity" if value == "selective" => {
                input.training.grad_checkpointing = Checkpointing::Selective;
            }
            "--recompute-method" if value == "uniform" => {
                input.training.recompute_method = Some(RecomputeMethod::Uniform);
            }
            "--recompute-method" if value == "block" => {
                input.training.recompute_method = Some(RecomputeMethod::Block);
            }
            "--recompute-num-layers" => {
                input.training.recompute_num_layers = Some(count(flag, &value)?)
            }
            "--tokenizer-model" => input.model.model = Some(value),
            _ => {
                not_read.push(flag.to_string());
                if !value.is_empty() {
                    not_read.push(value);
                }
            }
        }
        j += 1;
    }
    // The interleaved schedule: layers / (pp × layers a chunk) chunks a stage.
    if let Some(chunk) = per_chunk {
        match layers {
            Some(l) if l / (input.placement.pp * chunk) >= 1.0 => {
                input.placement.vp = Some(libm::trunc(l / (input.placement.pp * chunk)))
            }
            _ => not_read.extend([
                String::from("--num-layers-per-virtual-pipeline-stage"),
                format!("{chunk}"),
            ]),
        }
    }
    // Micro-batches a step: the global batch over the micro-batch of each replica.
    if let Some(g) = global {
        let replicas = (nodes * per_node
            / (input.placement.tp * input.placement.pp * input.placement.cp.unwrap_or(1.0)))
        .max(1.0);
        let steps = g / (input.run.batch * replicas);
        if steps >= 1.0 && libm::trunc(steps) == steps {
            input.training.grad_accum = (steps > 1.0).then_some(steps);
        } else {
            not_read.extend([String::from("--global-batch-size"), format!("{g}")]);
        }
    }
    Ok(ReadCommand { input, not_read })
}

/// `--flag=value` split; `--flag` alone.
/// What torchrun's own options say: the nodes, the processes on each, and where they end.
pub(super) struct Torchrun {
    pub(super) nodes: f64,
    pub(super) per_node: f64,
    /// The index of the first word after them.
    pub(super) next: usize,
}

/// torchrun's options in `words` from `from` up to the first word `ends` accepts (Megatron's
/// script; `tune run`'s recipe, the first word that is not an option): `--nnodes` (`MIN:MAX` read as MIN)
/// and `--nproc-per-node`; every other word goes to `not_read`, with its value.
pub(super) fn torchrun_options(
    words: &[String],
    from: usize,
    not_read: &mut Vec<String>,
    ends: impl Fn(&str) -> bool,
) -> Result<Torchrun> {
    let (mut nodes, mut per_node) = (1.0, 1.0);
    let mut i = from;
    while i < words.len() && !ends(&words[i]) {
        let (flag, inline) = split(&words[i]);
        let value = match inline {
            Some(v) => v.to_string(),
            None if TORCHRUN_VALUED.contains(&flag) => {
                i += 1;
                words.get(i).cloned().unwrap_or_default()
            }
            None => String::new(),
        };
        match flag {
            "--nnodes" => nodes = count(flag, value.split(':').next().unwrap_or(""))?,
            "--nproc-per-node" | "--nproc_per_node" => per_node = count(flag, &value)?,
            _ => {
                not_read.push(flag.to_string());
                if !value.is_empty() {
                    not_read.push(value);
                }
            }
        }
        i += 1;
    }
    Ok(Torchrun {
        nodes,
        per_node,
        next: i,
    })
}

/// A count flag's value: a whole number from 1, else an error naming the flag.
pub(super) fn count(flag: &str, value: &str) -> Result<f64> {
    value
        .parse::<u64>()
        .ok()
        .filter(|&n| n >= 1)
        .map(|n| n as f64)
        .ok_or_else(|| {
            crate::input_error!(
                OutOfRange,
                "command",
                ["`{flag} {value}` is not a count"],
                ["`{flag} {value}` 不是计数"],
                "a whole number after each count flag",
                "每个计数参数后为整数",
            )
        })
}

fn split(word: &str) -> (&str, Option<&str>) {
    match word.split_once('=') {
        Some((f, v)) if f.starts_with("--") => (f, Some(v)),
        _ => (word, None),
    }
}
