//! Each stack's file read as its users write it (the keys of the stacks' own example configs,
//! cited), checked field by field against the stack's documented defaults.

use alloc::string::String;
use alloc::vec::Vec;

use super::{ConfigFormat, read_training_config};
use crate::ErrorKind;
use crate::estimate::{
    Checkpointing, EstimateInput, Loss, Mode, Offload, Optimizer, Precision, RlAlgorithm, Rollout,
    Stack,
};
use crate::estimate::{ModelInput, RunInput};
use crate::precision::Quantization;

fn read(text: &str) -> super::ReadConfig {
    match read_training_config(text, EstimateInput::default()) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

fn not_read(r: &super::ReadConfig) -> Vec<&str> {
    r.not_read.iter().map(String::as_str).collect()
}

/// TRL's `examples/cli_configs/example_config.yaml`-style SFT config with QLoRA (TRL 1.16
/// `SFTConfig` + `ModelConfig`).
#[test]
fn trl_sft_qlora_yaml() {
    let r = read(
        "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\n\
         dataset_name: trl-lib/Capybara\n\
         learning_rate: 2.0e-4\n\
         per_device_train_batch_size: 2\n\
         max_length: 2048\n\
         use_peft: true\n\
         lora_r: 32\n\
         lora_target_modules: all-linear\n\
         load_in_4bit: true\n\
         output_dir: out\n",
    );
    assert_eq!(r.format, ConfigFormat::Trl);
    let i = &r.input;
    assert_eq!(i.run.mode, Mode::Training);
    assert_eq!(i.model.model.as_deref(), Some("Qwen/Qwen2.5-7B-Instruct"));
    assert_eq!(
        (i.run.batch, i.run.seq_len, i.training.lora_rank),
        (2.0, 2048.0, 32.0)
    );
    assert!(i.training.qlora);
    // TRL's `use_bnb_nested_quant` is off by default.
    assert_eq!(
        i.model.quantization,
        Quantization::BnbNf4 {
            double_quant: false
        }
    );
    assert_eq!(i.training.lora_targets, ["all-linear"]);
    // TRL's defaults: bf16 on (model loaded in fp32: mixed precision), checkpointing on,
    // transformers' fused AdamW.
    assert_eq!(i.training.precision, Precision::AmpBf16);
    assert_eq!(i.training.grad_checkpointing, Checkpointing::Full);
    assert_eq!(
        (i.training.optimizer, i.training.fused_optimizer),
        (Optimizer::Adamw, true)
    );
    // TRL's stack (its defaults for what the file does not say); loaded in fp32, the 4-bit
    // model's unquantized parameters are fp32.
    assert_eq!(
        (i.training.stack, i.training.kbit_upcast),
        (Some(Stack::Trl), Some(true))
    );
    assert_eq!(
        not_read(&r),
        [
            "dataset_name (line 2)",
            "learning_rate (line 3)",
            "output_dir (line 10)"
        ]
    );
    assert!(r.input.resolve().is_ok());
}

/// A plain `TrainingArguments` JSON: transformers' own defaults (batch 8, no checkpointing,
/// fp32 without `bf16`), a DeepSpeed file named for the caller to read.
/// The keys `trl sft` hands to `accelerate launch`: the processes are the GPUs; a config file is
/// named for reading after it, one of TRL's named configs is said, not read.
#[test]
fn trl_launch_keys() {
    let r =
        read("model_name_or_path: Qwen/Qwen3-8B\nnum_processes: 8\naccelerate_config: fsdp.yaml\n");
    assert_eq!(r.input.placement.gpus, Some(8.0));
    assert_eq!(r.files.len(), 1);
    assert_eq!(
        (r.files[0].key.as_str(), r.files[0].path.as_str()),
        ("accelerate_config", "fsdp.yaml")
    );
    assert!(not_read(&r).is_empty(), "{:?}", r.not_read);
    let named = read("model_name_or_path: Qwen/Qwen3-8B\naccelerate_config: zero3\n");
    assert!(named.files.is_empty());
    assert!(
        named
            .assumed
            .iter()
            .any(|t| t.en.contains("`zero3` is not read"))
    );
}

/// axolotl 0.19's `attn_implementation` before its deprecated booleans.
#[test]
fn axolotl_attn_implementation() {
    use crate::estimate::AttentionImpl;
    let r = read("base_model: Qwen/Qwen3-8B\nattn_implementation: eager\nsdp_attention: true\n");
    assert_eq!(r.input.run.attention, AttentionImpl::Eager);
}

#[test]
fn trainer_json_names_its_deepspeed_file() {
    let r = read(
        r#"{"output_dir": "o", "per_device_train_batch_size": 4, "bf16": true,
            "optim": "paged_adamw_8bit", "deepspeed": "ds_z3.json", "report_to": "none"}"#,
    );
    assert_eq!(r.format, ConfigFormat::Trainer);
    assert_eq!(r.input.run.batch, 4.0);
    assert_eq!(r.input.training.precision, Precision::AmpBf16);
    assert_eq!(r.input.training.grad_checkpointing, Checkpointing::None);
    assert_eq!(r.input.training.optimizer, Optimizer::PagedAdamw8bit);
    assert_eq!(r.files.len(), 1);
    assert_eq!(r.files[0].path, "ds_z3.json");
    assert_eq!(not_read(&r), ["output_dir (line 1)", "report_to (line 2)"]);
    // The sequence length is the data's: said, not invented.
    assert!(r.assumed.iter().any(|t| t.en.contains("sequence length")));
}

/// DeepSpeed's ZeRO-3 with CPU offload of both (the `ds_z3_offload_config.json` of
/// LLaMA-Factory's examples), read on top of a Trainer's input: "auto" leaves it.
#[test]
fn deepspeed_zero3_offload() {
    let base = EstimateInput {
        run: RunInput {
            batch: 4.0,
            ..Default::default()
        },
        ..Default::default()
    };
    let text = r#"{
  "train_batch_size": "auto",
  "train_micro_batch_size_per_gpu": "auto",
  "gradient_accumulation_steps": "auto",
  "bf16": {"enabled": "auto"},
  "zero_optimization": {
    "stage": 3,
    "offload_optimizer": {"device": "cpu", "pin_memory": true},
    "offload_param": {"device": "cpu", "pin_memory": true},
    "overlap_comm": false
  }
}"#;
    let r = match read_training_config(text, base) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(r.format, ConfigFormat::Deepspeed);
    assert_eq!(r.input.run.batch, 4.0);
    assert_eq!(r.input.placement.zero, 3.0);
    assert_eq!(r.input.placement.offload, Offload::Cpu);
    assert_eq!(
        not_read(&r),
        [
            "train_batch_size (line 2)",
            "gradient_accumulation_steps (line 4)",
            "zero_optimization.offload_optimizer.pin_memory (line 8)",
            "zero_optimization.offload_param.pin_memory (line 9)"
        ]
    );
    assert_eq!(r.input.training.overlap_comm, Some(false));
}

/// ZeRO-3 offloading the optimizer alone is `optimizer-cpu` (`optimizer-nvme`): the parameters
/// stay partitioned on the GPUs. Under ZeRO-1/2 `offload_optimizer` is `cpu`, which there moves
/// the optimizer alone; `offload_param` too makes it `cpu` under ZeRO-3.
#[test]
fn deepspeed_optimizer_only_offload_under_zero3_is_its_own_choice() {
    let r = read(r#"{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}}"#);
    assert_eq!(r.input.placement.offload, Offload::OptimizerCpu);
    assert!(r.assumed.is_empty(), "{:?}", r.assumed);
    let r = read(r#"{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "nvme"}}}"#);
    assert_eq!(r.input.placement.offload, Offload::OptimizerNvme);
    let r = read(
        r#"{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}}}"#,
    );
    assert_eq!(r.input.placement.offload, Offload::Cpu);
    let r = read(r#"{"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}"#);
    assert_eq!(
        (r.input.placement.zero, r.input.placement.offload),
        (2.0, Offload::Cpu)
    );
}

/// torchtune 0.6.1's `recipes/configs/llama3_1/8B_qlora_single_device.yaml` keys.
#[test]
fn torchtune_qlora_recipe() {
    let r = read(
        "output_dir: /tmp/torchtune/llama3_1_8B/qlora\n\
         model:\n  _component_: torchtune.models.llama3_1.qlora_llama3_1_8b\n  \
         lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n  apply_lora_to_mlp: True\n  \
         apply_lora_to_output: False\n  lora_rank: 8\n  lora_alpha: 16\n  lora_dropout: 0.0\n\
         tokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  path: /tmp/t.model\n  max_seq_len: 4096\n\
         batch_size: 2\n\
         optimizer:\n  _component_: torch.optim.AdamW\n  fused: True\n  lr: 3e-4\n\
         dtype: bf16\n\
         enable_activation_checkpointing: True\n",
    );
    assert_eq!(r.format, ConfigFormat::Torchtune);
    let i = &r.input;
    assert_eq!(i.model.model.as_deref(), Some("meta-llama/Llama-3.1-8B"));
    assert!(i.training.qlora);
    // `qlora_*` builders quantize with torchao's to_nf4, not bitsandbytes.
    assert_eq!(i.model.quantization, Quantization::TorchaoNf4);
    assert_eq!(
        (i.training.lora_rank, i.run.batch, i.run.seq_len),
        (8.0, 2.0, 4096.0)
    );
    assert_eq!(i.training.lora_dropout, Some(0.0));
    assert_eq!(
        i.training.lora_targets,
        [
            "q_proj",
            "v_proj",
            "o_proj",
            "gate_proj",
            "up_proj",
            "down_proj"
        ]
    );
    // torchtune trains in the recipe's dtype: pure bf16.
    assert_eq!(i.training.precision, Precision::Bf16);
    assert_eq!(
        (i.training.optimizer, i.training.fused_optimizer),
        (Optimizer::Adamw, true)
    );
    assert_eq!(i.training.grad_checkpointing, Checkpointing::Full);
    assert_eq!(
        not_read(&r),
        [
            "output_dir (line 1)",
            "model.apply_lora_to_output (line 6)",
            "model.lora_alpha (line 8)",
            "tokenizer._component_ (line 11)",
            "tokenizer.path (line 12)",
            "optimizer.lr (line 18)"
        ]
    );
    assert!(r.input.resolve().is_ok());
}

/// LLaMA-Factory 0.9.5's `examples/train_qlora/llama3_lora_sft_otfq.yaml`-style file: its
/// defaults (lora_target all, checkpointing on) and its bitsandbytes 4-bit base.
#[test]
fn llamafactory_qlora_yaml() {
    let r = read(
        "model_name_or_path: meta-llama/Meta-Llama-3-8B\n\
         quantization_bit: 4\n\
         stage: sft\n\
         do_train: true\n\
         finetuning_type: lora\n\
         lora_rank: 8\n\
         lora_target: all\n\
         cutoff_len: 2048\n\
         per_device_train_batch_size: 1\n\
         bf16: true\n",
    );
    assert_eq!(r.format, ConfigFormat::Llamafactory);
    let i = &r.input;
    assert!(i.training.qlora);
    assert_eq!(
        i.model.quantization,
        Quantization::BnbNf4 { double_quant: true }
    );
    assert_eq!(i.training.lora_targets, ["all-linear"]);
    assert_eq!(i.training.grad_checkpointing, Checkpointing::Full);
    assert_eq!(i.training.precision, Precision::AmpBf16);
    assert_eq!((i.run.batch, i.run.seq_len), (1.0, 2048.0));
    assert_eq!(not_read(&r), ["do_train (line 4)"]);
}

/// transformers' `optim_args` carries GaLore's rank (`_parse_optim_args`, `rank` read by
/// `_get_galore_optimizer`); with another optimizer it is not read; a bad rank names the key.
#[test]
fn trainer_galore_rank_from_optim_args() {
    let json = |optim: &str, args: &str| {
        alloc::format!(
            r#"{{"output_dir": "out", "per_device_train_batch_size": 1, "optim": "{optim}", "optim_args": "{args}", "optim_target_modules": ["attn", "mlp"]}}"#
        )
    };
    let r = read(&json(
        "galore_adamw",
        "rank=64, update_proj_gap=200, scale=0.25",
    ));
    assert_eq!(r.input.training.optimizer, Optimizer::GaloreAdamw);
    assert_eq!(r.input.training.galore_rank, Some(64.0));
    let r = read(&json("galore_adamw_8bit", "update_proj_gap=200"));
    assert_eq!(r.input.training.galore_rank, None);
    let r = read(&json("adamw_torch", "rank=64"));
    assert_eq!(r.input.training.galore_rank, None);
    assert!(not_read(&r).iter().any(|k| k.starts_with("optim_args")));
    let e = read_training_config(&json("galore_adamw", "rank=x"), EstimateInput::default()).err();
    assert_eq!(
        e.as_ref().map(|e| (e.kind, e.field.as_str())),
        Some((ErrorKind::OutOfRange, "optim_args"))
    );
}

/// LLaMA-Factory 0.9.5 with `quantization_method: hqq`: HQQ at the given width in groups of 64
/// (`HqqConfig`'s default), no QLoRA flag (no bitsandbytes); a width HQQ lacks is refused.
#[test]
fn llamafactory_hqq_base() {
    let yaml = |bits: &str| {
        alloc::format!(
            "model_name_or_path: meta-llama/Meta-Llama-3-8B\n\
             quantization_bit: {bits}\n\
             quantization_method: hqq\n\
             stage: sft\n\
             finetuning_type: lora\n\
             lora_rank: 8\n"
        )
    };
    for (bits, q) in [
        (
            "4",
            Quantization::Hqq {
                bits: 4,
                group_size: 64,
            },
        ),
        (
            "2",
            Quantization::Hqq {
                bits: 2,
                group_size: 64,
            },
        ),
        (
            "8",
            Quantization::Hqq {
                bits: 8,
                group_size: 64,
            },
        ),
    ] {
        let r = read(&yaml(bits));
        assert_eq!(r.format, ConfigFormat::Llamafactory);
        assert_eq!(r.input.model.quantization, q);
        assert!(!r.input.training.qlora);
        assert_eq!(r.input.training.lora_rank, 8.0);
    }
    let e = read_training_config(&yaml("7"), EstimateInput::default()).err();
    assert_eq!(
        e.as_ref().map(|e| (e.kind, e.field.as_str())),
        Some((ErrorKind::Unsupported, "quantization_bit"))
    );
}

/// A stage whose models vramfit does not count (KTO) is refused, naming the key and line;
/// DPO and PPO read as RL runs.
#[test]
fn llamafactory_kto_is_refused_and_dpo_is_rl() {
    let e = read_training_config(
        "stage: kto\nfinetuning_type: lora\n",
        EstimateInput::default(),
    )
    .err();
    let e = e
        .as_ref()
        .map(|e| (e.kind, e.field.as_str(), e.problem.as_str()));
    assert_eq!(
        e,
        Some((
            ErrorKind::Unsupported,
            "stage",
            "line 1: stage `kto` holds more models than the one trained"
        ))
    );
    let r = read(
        "model_name_or_path: meta-llama/Llama-3.2-1B\nstage: dpo\nfinetuning_type: full\npref_beta: 0.1\ncutoff_len: 1024\nper_device_train_batch_size: 1\n",
    );
    assert_eq!(
        (r.input.training.rl, r.input.training.rl_beta),
        (Some(RlAlgorithm::Dpo), Some(0.1))
    );
    assert!(r.input.resolve().is_ok());
}

/// TRL 1.16's GRPO config: the group size, the completions, vLLM colocated (its default mode
/// once `use_vllm` is on) with its fraction and sleep; the per-device batch counted in
/// completions becomes prompts per GPU.
#[test]
fn trl_grpo_colocate() {
    let r = read(
        "model_name_or_path: meta-llama/Llama-3.2-1B\nper_device_train_batch_size: 8\nnum_generations: 4\n\
         max_completion_length: 768\nuse_vllm: true\nvllm_gpu_memory_utilization: 0.4\nvllm_enable_sleep_mode: true\nbeta: 0.04\n",
    );
    let i = &r.input;
    assert_eq!(i.training.rl, Some(RlAlgorithm::Grpo));
    assert_eq!(
        (
            i.run.batch,
            i.training.num_generations,
            i.training.max_completion_length
        ),
        (2.0, Some(4.0), Some(768.0))
    );
    assert_eq!(
        (
            i.training.rollout,
            i.training.rollout_memory_utilization,
            i.training.sleep_mode
        ),
        (Some(Rollout::Colocate), Some(0.4), Some(true))
    );
    assert_eq!(i.training.rl_beta, Some(0.04));
    assert!(r.not_read.is_empty(), "{:?}", r.not_read);
    // The prompt's length is the data's: said.
    assert!(r.assumed.iter().any(|a| a.en.contains("prompt length")));
    assert!(i.resolve().is_ok());
    // DPO: precomputed reference log-probs, no reference on the card; the completion is
    // max_length less the prompt.
    let d = read(
        "model_name_or_path: meta-llama/Llama-3.2-1B\nprecompute_ref_log_probs: true\nmax_length: 2048\nper_device_train_batch_size: 2\n",
    );
    assert_eq!(
        (d.input.training.rl, d.input.training.ref_model),
        (Some(RlAlgorithm::Dpo), Some(false))
    );
    assert_eq!(
        d.input.training.max_completion_length,
        Some(2048.0 - d.input.run.seq_len)
    );
}

/// axolotl 0.19's `examples/llama-3/qlora.yml` keys: its defaults where absent.
#[test]
fn axolotl_qlora_yaml() {
    let text = |optimizer: &str| {
        alloc::format!(
            "base_model: NousResearch/Meta-Llama-3-8B\n\
             load_in_4bit: true\n\
             adapter: qlora\n\
             lora_r: 32\n\
             lora_target_linear: true\n\
             sequence_len: 4096\n\
             micro_batch_size: 2\n\
             optimizer: {optimizer}\n\
             bf16: auto\n\
             gradient_checkpointing: true\n\
             flash_attention: true\n"
        )
    };
    let r = read(&text("adamw_bnb_8bit"));
    assert_eq!(r.format, ConfigFormat::Axolotl);
    let i = &r.input;
    assert!(i.training.qlora);
    assert_eq!(
        (i.training.lora_rank, i.run.batch, i.run.seq_len),
        (32.0, 2.0, 4096.0)
    );
    assert_eq!(i.training.lora_targets, ["all-linear"]);
    assert_eq!(i.training.optimizer, Optimizer::Adamw8bit);
    // axolotl loads the model in bf16 under `bf16: auto` (its `torch_dtype`).
    assert_eq!(i.training.precision, Precision::Bf16);
    assert_eq!(i.training.grad_checkpointing, Checkpointing::Full);
    assert!(r.not_read.is_empty(), "{:?}", r.not_read);
    // An optimizer vramfit does not count is refused, naming the key and its line.
    let e = read_training_config(&text("adopt_adamw"), EstimateInput::default()).err();
    let e = e
        .as_ref()
        .map(|e| (e.kind, e.field.as_str(), e.problem.as_str()));
    assert_eq!(
        e,
        Some((
            ErrorKind::Unsupported,
            "optimizer",
            "line 8: `adopt_adamw` is not an optimizer vramfit counts"
        ))
    );
}

/// Every optimizer of part `optimizers` under the names each stack writes: Hugging Face's `optim`
/// (transformers 5.25 `OptimizerNames`) in a Trainer JSON and a LLaMA-Factory YAML, axolotl's
/// `optimizer` (its own `muon` and `ao_adamw_4bit` besides HF's), torchtune's
/// `optimizer._component_`; the error lists the new names.
#[test]
fn new_optimizers_by_their_stacks_names() {
    let hf = [
        ("paged_adamw_8bit", Optimizer::PagedAdamw8bit),
        ("paged_adamw_32bit", Optimizer::PagedAdamw),
        ("adamw_torch_4bit", Optimizer::Adamw4bit),
        ("adamw_torch_8bit", Optimizer::Adamw8bit),
        ("ademamix", Optimizer::Ademamix),
        ("paged_ademamix_32bit", Optimizer::Ademamix),
        ("ademamix_8bit", Optimizer::Ademamix8bit),
        ("paged_ademamix_8bit", Optimizer::Ademamix8bit),
        ("galore_adamw", Optimizer::GaloreAdamw),
        ("galore_adamw_8bit", Optimizer::GaloreAdamw8bit),
        ("schedule_free_adamw", Optimizer::ScheduleFreeAdamw),
    ];
    for (name, want) in hf {
        let r = read(&alloc::format!(
            r#"{{"output_dir": "o", "optim": "{name}"}}"#
        ));
        assert_eq!(r.input.training.optimizer, want, "{name}");
        assert!(!r.input.training.fused_optimizer);
        let r = read(&alloc::format!(
            "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: full\noptim: {name}\n"
        ));
        assert_eq!(
            (r.format, r.input.training.optimizer),
            (ConfigFormat::Llamafactory, want),
            "{name}"
        );
    }
    for (name, want) in [
        ("muon", Optimizer::Muon),
        ("ao_adamw_4bit", Optimizer::Adamw4bit),
    ] {
        let r = read(&alloc::format!(
            "base_model: NousResearch/Meta-Llama-3-8B\noptimizer: {name}\n"
        ));
        assert_eq!(
            (r.format, r.input.training.optimizer),
            (ConfigFormat::Axolotl, want),
            "{name}"
        );
    }
    let torchtune = [
        (
            "bitsandbytes.optim.PagedAdamW8bit",
            Optimizer::PagedAdamw8bit,
        ),
        ("bitsandbytes.optim.PagedAdamW", Optimizer::PagedAdamw),
        ("torchao.optim.AdamW4bit", Optimizer::Adamw4bit),
        ("bitsandbytes.optim.AdEMAMix", Optimizer::Ademamix),
        ("bitsandbytes.optim.AdEMAMix8bit", Optimizer::Ademamix8bit),
        ("torch.optim.Muon", Optimizer::Muon),
        (
            "schedulefree.AdamWScheduleFree",
            Optimizer::ScheduleFreeAdamw,
        ),
    ];
    for (component, want) in torchtune {
        let r = read(&alloc::format!(
            "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\n\
             tokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  path: /tmp/t.model\n\
             optimizer:\n  _component_: {component}\n  lr: 2e-5\n"
        ));
        assert_eq!(
            (r.format, r.input.training.optimizer),
            (ConfigFormat::Torchtune, want),
            "{component}"
        );
    }
    let e = read_training_config(r#"{"optim": "lomo"}"#, EstimateInput::default()).err();
    let accepted = e.as_ref().map_or("", |e| e.accepted.as_str());
    for name in [
        "paged_adamw_32bit",
        "adamw_torch_4bit",
        "galore_adamw",
        "muon",
        "schedule_free_adamw",
    ] {
        assert!(accepted.contains(name), "{accepted}");
    }
}

/// accelerate's FSDP config with parameter offload over 8 processes.
#[test]
fn accelerate_fsdp_offload() {
    let r = read(
        "compute_environment: LOCAL_MACHINE\n\
         distributed_type: FSDP\n\
         fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_offload_params: true\n  fsdp_state_dict_type: SHARDED_STATE_DICT\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n\
         mixed_precision: bf16\n\
         num_machines: 1\n\
         num_processes: 8\n",
    );
    assert_eq!(r.format, ConfigFormat::Accelerate);
    assert_eq!(r.input.placement.gpus, Some(8.0));
    // accelerate 1.16's FSDP plugin is FSDP1 unless `fsdp_version` says 2.
    assert_eq!(r.input.placement.fsdp_version, Some(1.0));
    assert_eq!(
        (r.input.placement.zero, r.input.placement.offload),
        (3.0, Offload::Cpu)
    );
    assert_eq!(r.input.training.precision, Precision::AmpBf16);
    assert_eq!(
        not_read(&r),
        [
            "compute_environment (line 1)",
            "fsdp_config.fsdp_state_dict_type (line 6)"
        ]
    );
}

/// A malformed value names its key and line; a malformed file its line.
#[test]
fn errors_name_the_key_and_the_line() {
    let e = read_training_config(
        "output_dir: o\nper_device_train_batch_size: many\n",
        EstimateInput::default(),
    )
    .err();
    let e = e.as_ref().map(|e| (e.field.as_str(), e.problem.as_str()));
    assert_eq!(
        e,
        Some(("per_device_train_batch_size", "line 2: not a number"))
    );
    let e = read_training_config("a: [1, 2\nb: 3\n", EstimateInput::default()).err();
    assert!(e.is_some_and(|e| e.field == "config" && e.problem.starts_with("line ")));
    let e = read_training_config("hello: world\n", EstimateInput::default()).err();
    assert_eq!(e.map(|e| e.kind), Some(ErrorKind::Unsupported));
    let e = read_training_config("- a\n- b\n", EstimateInput::default()).err();
    assert_eq!(e.map(|e| e.kind), Some(ErrorKind::Malformed));
}

/// A file too deep or too large is refused before it is walked (the walk recurses; a
/// WebAssembly stack is small); a deep flow nesting stops at `saphyr`'s own limit.
#[test]
fn deep_or_large_files_are_refused() {
    let mut deep = String::from("a:\n");
    for i in 1..200 {
        deep.push_str(&" ".repeat(i));
        deep.push_str("b:\n");
    }
    let e = read_training_config(&deep, EstimateInput::default()).err();
    assert_eq!(e.map(|e| e.kind), Some(ErrorKind::OutOfRange));
    let dashes = alloc::format!("a: 1\nb:\n{}x\n", "- ".repeat(40));
    let e = read_training_config(&dashes, EstimateInput::default()).err();
    assert_eq!(e.map(|e| e.kind), Some(ErrorKind::OutOfRange));
    let flow = alloc::format!("a: {}{}\n", "[".repeat(300), "]".repeat(300));
    assert!(read_training_config(&flow, EstimateInput::default()).is_err());
    let big = "x".repeat(2 << 20);
    let e = read_training_config(&big, EstimateInput::default()).err();
    assert_eq!(e.map(|e| e.kind), Some(ErrorKind::TooLarge));
}

proptest::proptest! {
    /// Any text, and any text made of a config's pieces: a reading or an error, never a
    /// panic; a reading's input either resolves or is refused with an error.
    #[test]
    fn any_text_reads_or_errs(
        parts in proptest::collection::vec(proptest::sample::select(alloc::vec![
            "per_device_train_batch_size: ", "bf16: ", "zero_optimization:\n  stage: ",
            "model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_1b\ntokenizer: ",
            "stage: ", "adapter: ", "- ", "[", "{", "}", "]", "\n", "  ", "auto", "true", "-1",
            "1e400", "nan", "\"x\"", ": ", "&a ", "*a ", "!!str ", "distributed_type: FSDP\n",
            "fsdp_config:\n  fsdp_offload_params: ", "optim: ", "sgd", "lora_r: ", "use_peft: ",
        ]), 0..40),
        noise in ".{0,40}",
    ) {
        let text: String = parts.concat() + &noise;
        if let Ok(r) = read_training_config(&text, EstimateInput::default()) {
            let _ = r.input.resolve();
        }
    }
}

/// The memory savers each stack's file turns on, by its own keys.
#[test]
fn memory_savers_by_their_stacks_keys() {
    let trl = read(
        "model_name_or_path: Qwen/Qwen3-8B\nuse_liger_kernel: true\nactivation_offloading: true\npadding_free: true\nmodel_init_kwargs:\n  dtype: bfloat16\nuse_peft: true\nload_in_4bit: true\n",
    );
    let i = &trl.input;
    assert_eq!(i.training.loss, Some(Loss::Fused));
    assert!(i.training.activation_offload == Some(true) && i.training.packing);
    // Loaded in bf16 under TRL's default bf16: pure bf16, the unquantized parameters bf16.
    assert_eq!(
        (i.training.precision, i.training.kbit_upcast),
        (Precision::Bf16, Some(false))
    );
    assert!(trl.not_read.is_empty(), "{:?}", trl.not_read);
    let tune = read(
        "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\ntokenizer:\n  max_seq_len: 2048\nbatch_size: 2\n\
         loss:\n  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\n  num_output_chunks: 16\n\
         optimizer_in_bwd: True\nenable_activation_offloading: True\ndataset:\n  packed: True\ncompile: True\n",
    );
    let i = &tune.input;
    assert_eq!(
        (i.training.stack, i.training.loss, i.training.loss_chunks),
        (Some(Stack::Torchtune), Some(Loss::Chunked), Some(16.0))
    );
    assert!(
        i.training.optimizer_in_backward
            && i.training.activation_offload == Some(true)
            && i.training.packing
            && i.training.compile
    );
    assert!(i.resolve().is_ok());
    let axo = read(
        "base_model: meta-llama/Llama-3.2-1B\nplugins:\n  - axolotl.integrations.liger.LigerPlugin\nliger_fused_linear_cross_entropy: true\ngradient_checkpointing: offload\nsample_packing: true\n",
    );
    let i = &axo.input;
    assert_eq!(
        (i.training.stack, i.training.loss),
        (Some(Stack::Axolotl), Some(Loss::Fused))
    );
    assert!(i.training.activation_offload == Some(true) && i.training.packing);
    assert_eq!(i.training.grad_checkpointing, Checkpointing::Full);
    assert!(axo.not_read.is_empty(), "{:?}", axo.not_read);
    let lf = read(
        "stage: sft\nfinetuning_type: full\nenable_liger_kernel: true\nuse_unsloth_gc: true\nneat_packing: true\n",
    );
    let i = &lf.input;
    assert_eq!(
        (i.training.stack, i.training.loss),
        (Some(Stack::Llamafactory), Some(Loss::Fused))
    );
    assert!(i.training.activation_offload == Some(true) && i.training.packing);
}

/// DeepSpeed's buffers as the file sizes them, and `"auto"` as transformers resolves it from
/// the model's hidden size (Llama-3.1-8B: 4096): hidden², 0.9 × hidden², 10 × hidden.
#[test]
fn deepspeed_buffers_and_their_auto_values() {
    let text = r#"{"zero_optimization": {"stage": 3, "reduce_bucket_size": "auto",
        "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
        "stage3_max_live_parameters": 1e9, "allgather_bucket_size": 2e8, "overlap_comm": true}}"#;
    let base = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let r = read_training_config(text, base).unwrap_or_else(|e| panic!("{e}"));
    let i = &r.input;
    assert_eq!(i.training.reduce_bucket_size, Some(16_777_216.0));
    assert_eq!(
        i.training.stage3_prefetch_bucket_size,
        Some(0.9 * 16_777_216.0)
    );
    assert_eq!(
        i.training.stage3_param_persistence_threshold,
        Some(40_960.0)
    );
    assert_eq!(i.training.stage3_max_live_parameters, Some(1e9));
    assert_eq!(i.training.allgather_bucket_size, Some(2e8));
    assert_eq!(i.training.overlap_comm, Some(true));
    assert!(r.not_read.is_empty(), "{:?}", r.not_read);
    assert!(r.assumed.is_empty());
    // No model yet: DeepSpeed's own (larger) defaults, said.
    let r = read(text);
    assert_eq!(r.input.training.reduce_bucket_size, None);
    assert_eq!(r.assumed.len(), 1);
}

/// FSDP's version and resharding as each file sets them.
#[test]
fn fsdp_version_and_resharding() {
    // transformers 5.25: `fsdp_config.version` 2 by default, `reshard_after_forward` read.
    let t = read(
        "output_dir: o\nfsdp: full_shard auto_wrap offload\nfsdp_config:\n  reshard_after_forward: false\n",
    );
    let i = &t.input;
    assert_eq!(
        (
            i.placement.fsdp_version,
            i.placement.zero,
            i.placement.reshard_after_forward
        ),
        (Some(2.0), 3.0, Some(false))
    );
    assert_eq!(i.placement.offload, Offload::Cpu);
    // accelerate: FSDP1's strategy names.
    let a = read(
        "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n",
    );
    assert_eq!(
        (a.input.placement.fsdp_version, a.input.placement.zero),
        (Some(1.0), 2.0)
    );
    // NO_SHARD stays FSDP1's: zero 0, no DDP bucket.
    let n = read(
        "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_sharding_strategy: NO_SHARD\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n",
    );
    assert_eq!(
        (n.input.placement.fsdp_version, n.input.placement.zero),
        (Some(1.0), 0.0)
    );
    // accelerate with FSDP2.
    let a2 = read(
        "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: false\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n",
    );
    assert_eq!(
        (
            a2.input.placement.fsdp_version,
            a2.input.placement.reshard_after_forward
        ),
        (Some(2.0), Some(false))
    );
    // axolotl.
    let x = read(
        "base_model: meta-llama/Llama-3.2-1B\nfsdp_version: 2\nfsdp_config:\n  offload_params: true\n  reshard_after_forward: true\n",
    );
    assert_eq!(
        (
            x.input.placement.fsdp_version,
            x.input.placement.reshard_after_forward,
            x.input.placement.offload
        ),
        (Some(2.0), Some(true), Offload::Cpu)
    );
}

/// verl 0.9.1's trainer config, with its defaults where the file is silent: GRPO with the
/// hybrid engine on the actor's GPUs, `rollout.n` completions, FSDP, the KL loss off.
#[test]
fn verl_grpo_config() {
    let r = read(
        "data:\n  train_batch_size: 256\n  max_prompt_length: 1024\n  max_response_length: 2048\n\
         actor_rollout_ref:\n  model:\n    path: Qwen/Qwen3-8B\n  actor:\n    ppo_micro_batch_size_per_gpu: 8\n    strategy: fsdp2\n    use_kl_loss: true\n    kl_loss_coef: 0.001\n  \
         rollout:\n    name: vllm\n    gpu_memory_utilization: 0.6\n    n: 4\n\
         algorithm:\n  adv_estimator: grpo\n\
         trainer:\n  n_gpus_per_node: 8\n  nnodes: 1\n",
    );
    assert_eq!(r.format, ConfigFormat::Verl);
    let i = &r.input;
    assert_eq!(
        (i.training.stack, i.training.rl),
        (Some(Stack::Verl), Some(RlAlgorithm::Grpo))
    );
    assert_eq!(
        (i.run.seq_len, i.training.max_completion_length),
        (1024.0, Some(2048.0))
    );
    // 8 sequences per micro-batch over a group of 4: 2 prompts per GPU.
    assert_eq!((i.run.batch, i.training.num_generations), (2.0, Some(4.0)));
    assert_eq!(
        (i.training.rollout, i.training.rollout_memory_utilization),
        (Some(Rollout::Colocate), Some(0.6))
    );
    assert_eq!(
        (
            i.training.rl_beta,
            i.placement.fsdp_version,
            i.placement.zero,
            i.placement.gpus
        ),
        (Some(0.001), Some(2.0), 3.0, Some(8.0))
    );
    assert_eq!(i.training.grad_checkpointing, Checkpointing::Full);
    assert!(r.not_read.is_empty(), "{:?}", r.not_read);
    assert!(i.resolve().is_ok());
}

/// `lora_dropout` as TRL, LLaMA-Factory and axolotl spell it (torchtune's `model.lora_dropout`:
/// `torchtune_qlora_recipe`); absent, the input leaves it to the stack's default (TRL's 0.05).
#[test]
fn lora_dropout_is_read_by_each_stack() {
    let trl = "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nuse_peft: true\nlora_r: 16\n";
    let r = read(&alloc::format!("{trl}lora_dropout: 0.1\n"));
    assert_eq!(r.format, ConfigFormat::Trl);
    assert_eq!(r.input.training.lora_dropout, Some(0.1));
    assert!(!not_read(&r).iter().any(|k| k.starts_with("lora_dropout")));
    assert_eq!(read(trl).input.training.lora_dropout, None);
    let r = read(
        "model_name_or_path: meta-llama/Meta-Llama-3-8B\nstage: sft\nfinetuning_type: lora\n\
         lora_target: all\nlora_dropout: 0.05\ncutoff_len: 2048\n",
    );
    assert_eq!(r.format, ConfigFormat::Llamafactory);
    assert_eq!(r.input.training.lora_dropout, Some(0.05));
    let r = read(
        "base_model: NousResearch/Meta-Llama-3-8B\nadapter: lora\nlora_r: 32\n\
         lora_target_linear: true\nlora_dropout: 0.2\nsequence_len: 4096\n",
    );
    assert_eq!(r.format, ConfigFormat::Axolotl);
    assert_eq!(r.input.training.lora_dropout, Some(0.2));
}

/// accelerate's DeepSpeed plugin under ZeRO-3 with `offload_optimizer_device` alone:
/// `optimizer-cpu`, the parameters left on the GPUs; with `offload_param_device` too, `cpu`.
#[test]
fn accelerate_deepspeed_optimizer_only_offload() {
    let config = |param: &str| {
        alloc::format!(
            "distributed_type: DEEPSPEED\n\
             deepspeed_config:\n  zero_stage: 3\n  offload_optimizer_device: cpu\n  offload_param_device: {param}\n\
             num_processes: 4\n"
        )
    };
    let r = read(&config("none"));
    assert_eq!(
        (r.input.placement.zero, r.input.placement.offload),
        (3.0, Offload::OptimizerCpu)
    );
    let r = read(&config("cpu"));
    assert_eq!(
        (r.input.placement.zero, r.input.placement.offload),
        (3.0, Offload::Cpu)
    );
}
