//! torchtune's `tune run …` and verl's `python3 -m verl.trainer.main_ppo …` read back: their
//! `key=value` overrides are the stack's config, nested by their dots, which the stack's own
//! config reader (`stack_config`) reads as it reads the file; `tune run`'s torchrun words give
//! the GPUs, and a distributed recipe shards with FSDP2 (`fsdp_reshard_after_forward`,
//! `fsdp_cpu_offload`). What the overrides leave to the shipped config (`--config`) is the
//! reader's default, and every word not read is listed: a key the reader does not use, the
//! config's name, a removal (`~key`), torchrun's rendezvous.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::read::ReadCommand;
use super::read_megatron::torchrun_options;
use crate::error::Result;
use crate::estimate::PlacementInput;
use crate::estimate::{EstimateInput, Offload};
use crate::stack_config::read_training_config;

/// torchtune's distributed recipes (the others run on one device).
const DISTRIBUTED: &[&str] = &[
    "full_finetune_distributed",
    "lora_finetune_distributed",
    "qat_distributed",
    "qat_lora_finetune_distributed",
];

/// `tune run [torchrun's options] RECIPE --config CONFIG key=value …`, from `tune`.
pub(super) fn tune_run(words: &[String], env: Vec<String>) -> Result<ReadCommand> {
    let mut not_read = env;
    let torchrun = torchrun_options(words, 2, &mut not_read, |w| !w.starts_with('-'))?;
    let (nodes, per_node, i) = (torchrun.nodes, torchrun.per_node, torchrun.next);
    let Some(recipe) = words.get(i) else {
        return Err(crate::input_error!(
            Unsupported,
            "command",
            "tune run without a recipe",
            "tune run 后没有配方",
            "tune run RECIPE --config CONFIG key=value …",
            "tune run 配方 --config 配置 key=value …",
        ));
    };
    let distributed = DISTRIBUTED.contains(&recipe.as_str());
    let mut overrides: Vec<(String, String)> = Vec::new();
    let mut rest = words[i + 1..].iter();
    while let Some(w) = rest.next() {
        if w == "--config" {
            not_read.push(w.clone());
            not_read.extend(rest.next().cloned());
            continue;
        }
        match w.split_once('=') {
            Some((k, v)) if !k.starts_with('~') && !k.starts_with('-') => {
                overrides.push((k.to_string(), v.to_string()));
            }
            _ => not_read.push(w.clone()),
        }
    }
    let gpus = nodes * per_node;
    let mut start = EstimateInput {
        placement: PlacementInput {
            gpus: (gpus > 1.0).then_some(gpus),
            gpus_per_node: (nodes > 1.0).then_some(per_node),
            ..Default::default()
        },
        ..Default::default()
    };
    // FSDP2 under the distributed recipes: full shard unless told, CPU offload when told.
    if distributed {
        start.placement.zero = 3.0;
        start.placement.fsdp_version = Some(2.0);
    }
    let mut kept = Vec::new();
    for (k, v) in overrides {
        match k.as_str() {
            "fsdp_reshard_after_forward" if distributed => {
                start.placement.reshard_after_forward = Some(truth(&v))
            }
            "fsdp_cpu_offload" if distributed => {
                if truth(&v) {
                    start.placement.offload = Offload::Cpu;
                }
            }
            _ => kept.push((k, v)),
        }
    }
    let input = overrides_read(&kept, start, &mut not_read)?;
    Ok(ReadCommand { input, not_read })
}

/// `python3 -m verl.trainer.main_ppo key=value …`, its arguments after the module.
pub(super) fn verl(args: &[String], env: Vec<String>) -> Result<ReadCommand> {
    let mut not_read = env;
    let mut overrides = Vec::new();
    for w in args {
        // Hydra's `+key=value` and `++key=value` add or force a key: the same key read.
        match w.trim_start_matches('+').split_once('=') {
            Some((k, v)) if !k.starts_with('~') && !k.starts_with('-') => {
                overrides.push((k.to_string(), v.to_string()));
            }
            _ => not_read.push(w.clone()),
        }
    }
    let input = overrides_read(&overrides, EstimateInput::default(), &mut not_read)?;
    Ok(ReadCommand { input, not_read })
}

/// The overrides as the stack's config, read onto `start`; the words of the keys not read
/// added to `not_read`.
fn overrides_read(
    overrides: &[(String, String)],
    start: EstimateInput,
    not_read: &mut Vec<String>,
) -> Result<EstimateInput> {
    let text = nested_yaml(overrides)?;
    let read = read_training_config(&text, start)?;
    for path in &read.not_read {
        let path = path.split(" (line ").next().unwrap_or(path);
        for (k, v) in overrides {
            if k == path || k.strip_prefix(path).is_some_and(|r| r.starts_with('.')) {
                not_read.push(format!("{k}={v}"));
            }
        }
    }
    Ok(read.input)
}

/// The overrides nested by their dots as YAML: `a.b=1 a.c=x` is `a:\n  b: 1\n  c: x`.
fn nested_yaml(overrides: &[(String, String)]) -> Result<String> {
    #[derive(Default)]
    struct Node {
        value: Option<String>,
        children: Vec<(String, Node)>,
    }
    let mut root = Node::default();
    for (k, v) in overrides {
        let mut n = &mut root;
        for part in k.split('.') {
            if part.is_empty() || n.value.is_some() {
                return Err(conflict(k));
            }
            let at = match n.children.iter().position(|(p, _)| p == part) {
                Some(at) => at,
                None => {
                    n.children.push((part.to_string(), Node::default()));
                    n.children.len() - 1
                }
            };
            n = &mut n.children[at].1;
        }
        if !n.children.is_empty() {
            return Err(conflict(k));
        }
        n.value = Some(v.clone());
    }
    fn emit(n: &Node, depth: usize, out: &mut String) {
        for (k, child) in &n.children {
            out.extend(core::iter::repeat_n("  ", depth));
            match &child.value {
                Some(v) => *out += &format!("{}: {}\n", key(k), scalar(v)),
                None => {
                    *out += &format!("{}:\n", key(k));
                    emit(child, depth + 1, out);
                }
            }
        }
    }
    let mut out = String::new();
    emit(&root, 0, &mut out);
    Ok(out)
}

/// A key as YAML takes it (quoted where it is not plain).
fn key(k: &str) -> String {
    if k.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        k.to_string()
    } else {
        format!("'{}'", k.replace('\'', "''"))
    }
}

/// A value as Hydra and OmegaConf take it: plain, a flow list `[a,b]`, or quoted where YAML
/// would read it otherwise.
fn scalar(v: &str) -> String {
    let plain = !v.is_empty()
        && !v.contains(": ")
        && !v.contains(" #")
        && !v.contains(['\n', '\r', '\t'])
        && v.trim() == v
        && !v.starts_with(['{', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '#'])
        && !v.starts_with("- ")
        && (!v.starts_with('[') || v.ends_with(']'));
    if plain {
        v.to_string()
    } else {
        format!("'{}'", v.replace('\'', "''"))
    }
}

fn truth(v: &str) -> bool {
    matches!(v, "true" | "True" | "TRUE" | "1")
}

fn conflict(k: &str) -> crate::error::InputError {
    crate::input_error!(
        Conflict,
        "command",
        ["`{k}` is set both as a value and as a section"],
        ["`{k}` 同时被设为值与小节"],
        "each key once, as a value or as the parent of others",
        "每个键只设一次：要么是值，要么是其他键的父级",
    )
}
