//! The keys of the stacks' files that decide FSDP's units, its offload and checkpointing,
//! LLaMA-Factory's GaLore, axolotl's activation offload and torchtune's distributed recipes:
//! each read as its stack's source sets it (cited per test), or refused by key and line where
//! vramfit would count less than the run holds.

use alloc::string::String;
use alloc::vec::Vec;

use super::read_training_config;
use crate::ErrorKind;
use crate::estimate::{Checkpointing, EstimateInput, Offload, Optimizer};

fn read(text: &str) -> super::ReadConfig {
    match read_training_config(text, EstimateInput::default()) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

fn not_read(r: &super::ReadConfig) -> Vec<&str> {
    r.not_read.iter().map(String::as_str).collect()
}

/// FSDP's unit is what its wrap policy wraps; vramfit counts one decoder layer gathered at a
/// time. accelerate 1.16.0 wraps nothing when its config names no policy
/// (`FullyShardedDataParallelPlugin.__post_init__`: `os.environ.get(env_prefix +
/// "AUTO_WRAP_POLICY", "NO_WRAP")`): the whole model gathered at once, 8,030,261,248 × 2 B =
/// 14.96 GiB for Llama-3.1-8B in bf16 against one layer's 218,112,000 × 2 B = 416 MiB, so the
/// per-layer count would be short by about 14.5 GiB; refused by its key and line.
/// transformers 5.25 defaults to `TRANSFORMER_BASED_WRAP` (`training_args.py`:
/// `fsdp_config.get("auto_wrap_policy", FSDP_AUTO_WRAP_POLICY[0])`).
#[test]
fn fsdp_wrap_policy_other_than_per_layer_is_refused() {
    let refused = |text: &str| read_training_config(text, EstimateInput::default()).err();
    let e = refused("distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_version: 2\n");
    assert!(
        e.as_ref()
            .is_some_and(|e| e.field == "fsdp_config.fsdp_auto_wrap_policy"
                && e.kind == ErrorKind::Unsupported
                && e.problem.contains("NO_WRAP")),
        "{e:?}"
    );
    let e = refused(
        "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_auto_wrap_policy: SIZE_BASED_WRAP\n",
    );
    assert!(
        e.as_ref()
            .is_some_and(|e| e.field == "fsdp_config.fsdp_auto_wrap_policy"
                && e.problem.starts_with("line 4:")),
        "{e:?}"
    );
    let e = refused("output_dir: o\nfsdp: full_shard\nfsdp_config:\n  auto_wrap_policy: NO_WRAP\n");
    assert!(
        e.as_ref().is_some_and(
            |e| e.field == "fsdp_config.auto_wrap_policy" && e.problem.starts_with("line 4:")
        ),
        "{e:?}"
    );
    let e = refused(
        "base_model: meta-llama/Llama-3.2-1B\nfsdp_version: 2\nfsdp_config:\n  auto_wrap_policy: SIZE_BASED_WRAP\n",
    );
    assert!(
        e.as_ref()
            .is_some_and(|e| e.field == "fsdp_config.auto_wrap_policy"),
        "{e:?}"
    );
    // transformers' default and accelerate's per-layer policy are read, not listed.
    let t = read("output_dir: o\nfsdp: full_shard auto_wrap\n");
    assert_eq!(t.input.placement.fsdp_version, Some(2.0));
    let a = read(
        "distributed_type: FSDP\nfsdp_config:\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n",
    );
    assert!(not_read(&a).is_empty(), "{:?}", not_read(&a));
}

/// transformers 5.25 renamed `gradient_checkpointing` to `activation_checkpointing`, the old
/// name a deprecated alias used only when the new one is not set (`training_args.py`
/// `__post_init__`); `fsdp_config.cpu_offload` is what `fsdp: "… offload"` sets
/// (`fsdp_config.setdefault("cpu_offload", True)`) and the FSDP plugin reads
/// (`if self.fsdp_config.get("cpu_offload", False)`); `fsdp_config.activation_checkpointing`
/// the plugin's own checkpointing.
#[test]
fn trainer_reads_the_new_checkpointing_name_and_fsdps_own_keys() {
    let r = read("output_dir: o\nactivation_checkpointing: true\n");
    assert_eq!(r.input.training.grad_checkpointing, Checkpointing::Full);
    // The new name wins over the alias, and neither is listed.
    let r = read("output_dir: o\nactivation_checkpointing: false\ngradient_checkpointing: true\n");
    assert_eq!(r.input.training.grad_checkpointing, Checkpointing::None);
    assert_eq!(not_read(&r), ["output_dir (line 1)"]);
    let r = read(
        "output_dir: o\nfsdp: full_shard\nfsdp_config:\n  cpu_offload: true\n  activation_checkpointing: true\n",
    );
    assert_eq!(r.input.placement.offload, Offload::Cpu);
    assert_eq!(r.input.training.grad_checkpointing, Checkpointing::Full);
    assert_eq!(not_read(&r), ["output_dir (line 1)"]);
    // Without the FSDP plugin's offload the parameters stay on the GPU.
    let r = read("output_dir: o\nfsdp: full_shard\nfsdp_config:\n  cpu_offload: false\n");
    assert_eq!(r.input.placement.offload, Offload::None);
}

/// LLaMA-Factory 0.9.5 (`hparams/finetuning_args.py`): `use_galore` off, `galore_rank` 16,
/// `galore_target` all; `train/trainer_utils.py` builds `GaLoreAdamW` under `adamw_torch` and
/// `GaLoreAdamW8bit` under the 8-bit AdamWs; LoRA with GaLore is refused there and here.
#[test]
fn llamafactory_galore() {
    let r = read("stage: sft\nfinetuning_type: full\nuse_galore: true\n");
    assert_eq!(r.input.training.optimizer, Optimizer::GaloreAdamw);
    assert_eq!(r.input.training.galore_rank, Some(16.0));
    let r = read(
        "stage: sft\nfinetuning_type: full\nuse_galore: true\ngalore_rank: 64\ngalore_target: all\noptim: paged_adamw_8bit\n",
    );
    assert_eq!(r.input.training.optimizer, Optimizer::GaloreAdamw8bit);
    assert_eq!(r.input.training.galore_rank, Some(64.0));
    assert!(not_read(&r).is_empty(), "{:?}", not_read(&r));
    let refused = |text: &str| read_training_config(text, EstimateInput::default()).err();
    // The default finetuning_type is lora.
    let e = refused("stage: sft\nuse_galore: true\n");
    assert!(
        e.as_ref()
            .is_some_and(|e| e.field == "use_galore" && e.problem.starts_with("line 2:")),
        "{e:?}"
    );
    let e = refused(
        "stage: sft\nfinetuning_type: full\nuse_galore: true\ngalore_target: q_proj,v_proj\n",
    );
    assert!(
        e.as_ref()
            .is_some_and(|e| e.field == "galore_target" && e.kind == ErrorKind::Unsupported),
        "{e:?}"
    );
    let e = refused("stage: sft\nfinetuning_type: full\nuse_galore: true\noptim: adafactor\n");
    assert!(e.as_ref().is_some_and(|e| e.field == "use_galore"), "{e:?}");
    // Layer-wise GaLore is counted with one step after backward: said.
    let r = read("stage: sft\nfinetuning_type: full\nuse_galore: true\ngalore_layerwise: true\n");
    assert_eq!(r.assumed.len(), 1);
}

/// axolotl 0.19 `activation_offloading: Literal["legacy", "disk"] | bool | None = False`.
#[test]
fn axolotl_activation_offloading() {
    for v in ["true", "legacy", "disk"] {
        let r = read(&alloc::format!(
            "base_model: meta-llama/Llama-3.2-1B\nactivation_offloading: {v}\n"
        ));
        assert_eq!(r.input.training.activation_offload, Some(true), "{v}");
        assert!(not_read(&r).is_empty(), "{:?}", not_read(&r));
    }
    let r = read("base_model: meta-llama/Llama-3.2-1B\nactivation_offloading: false\n");
    assert_ne!(r.input.training.activation_offload, Some(true));
}

/// torchtune 0.6.1's distributed recipes: `cfg.get("fsdp_cpu_offload", False)`,
/// `cfg.get("fsdp_reshard_after_forward", True)`; FSDP2 as `tune run --nproc_per_node` reads it.
#[test]
fn torchtune_distributed_recipe_keys() {
    let recipe = "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\ntokenizer:\n  max_seq_len: 2048\n";
    let r = read(&alloc::format!("{recipe}fsdp_cpu_offload: true\n"));
    let i = &r.input;
    assert_eq!(
        (
            i.placement.zero,
            i.placement.fsdp_version,
            i.placement.reshard_after_forward,
            i.placement.offload
        ),
        (3.0, Some(2.0), Some(true), Offload::Cpu)
    );
    let r = read(&alloc::format!(
        "{recipe}fsdp_cpu_offload: false\nfsdp_reshard_after_forward: false\n"
    ));
    let i = &r.input;
    assert_eq!(
        (
            i.placement.zero,
            i.placement.reshard_after_forward,
            i.placement.offload
        ),
        (3.0, Some(false), Offload::None)
    );
    assert!(not_read(&r).is_empty(), "{:?}", not_read(&r));
    // A single-device recipe has neither key: no sharding.
    assert_eq!(read(recipe).input.placement.fsdp_version, None);
}

/// axolotl hands `optim_args` to transformers (`optim_args: str | dict[str, Any] | None`):
/// GaLore's rank from the Trainer's string or from a mapping; 128, transformers' default,
/// where it names none.
#[test]
fn axolotl_galore_rank_from_optim_args() {
    let base = "base_model: meta-llama/Llama-3.2-1B\noptimizer: galore_adamw\n";
    let r = read(&alloc::format!("{base}optim_args:\n  rank: 64\n"));
    assert_eq!(
        (r.input.training.optimizer, r.input.training.galore_rank),
        (Optimizer::GaloreAdamw, Some(64.0))
    );
    assert!(not_read(&r).is_empty(), "{:?}", not_read(&r));
    let r = read(&alloc::format!(
        "{base}optim_args: \"rank=32, update_proj_gap=200\"\n"
    ));
    assert_eq!(r.input.training.galore_rank, Some(32.0));
    assert_eq!(read(base).input.training.galore_rank, None);
}
