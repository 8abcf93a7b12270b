"""The training launches vramfit writes, read by the stacks' own parsers.

Reads tests/data/training-launches.json (written by the test `training_launches_are_fresh`) and
writes tests/data/training-launches-parsed.json: for each launch, what TRL's `trl sft` parser
(and the arguments it hands to `accelerate launch`, and accelerate's config loader), DeepSpeed's
`DeepSpeedZeroConfig`, LLaMA-Factory's `_parse_train_args` or axolotl's `AxolotlInputConfig`
made of its files, or the error it raised. torchtune's `tune run`: its own parser (torchrun's
words, the recipe and its arguments), then `TuneRecipeArgumentParser` and
`_merge_yaml_and_cli_args` over the shipped config the registry names (the loss, the optimizer
and the model, on the meta device, instantiated from it).
verl's `main_ppo` overrides: Hydra's compose API over verl's own `ppo_trainer.yaml` (struct mode:
a key verl lacks fails), then verl's own `validate_config` (with the critic for PPO's `gae`).
OpenRLHF 0.11.2: `ray job submit`'s words by Ray's own click command, then the `if __name__ ==
"__main__":` block of `openrlhf/cli/train_ppo_ray.py` (its argparse parser and the checks it runs
before `train`, extracted with `ast` so that Ray and DeepSpeed are not started); DPO's
`deepspeed --module openrlhf.cli.train_dpo` by DeepSpeed's launcher parser, then `train_dpo.py`'s
block. Unsloth's `unsloth-cli.py` (the repository's root script, in UNSLOTH_CLI): its block the
same way, then its own `_build_sft_config` over TRL's `SFTConfig`. The `fsdp` stack is TRL's script with accelerate's FSDP config. Over several nodes, node 0's command: the machine
words `accelerate launch`'s parser reads (TRL's rest, axolotl's words after `--`), and the
`torchrun` line LLaMA-Factory's own launcher builds from the node's `env` words, read by
torchrun's parser (`torch.distributed.run.get_args_parser`). Megatron-LM's `torchrun …
pretrain_gpt.py …`: torchrun's words by torchrun's parser, the script's by Megatron-LM's own
`add_megatron_arguments` (its checkout in MEGATRON_LM, from `git archive` of
NVIDIA/Megatron-LM at d98e8a64ddf34856e74b24714e3bedb2f5a39553; Python 3.11 lacks
`typing.override`, which its imports name: an identity stands in). `stacks_parse_the_training_launches_as_written`
(tests/it/training_launch_parsed.rs) checks those values against the estimate's.

Run from the repository root, in a virtual environment with the stacks installed (their
parsers need torch, not a GPU; LLaMA-Factory and axolotl without their other dependencies):

    python3 -m venv /tmp/stacks
    /tmp/stacks/bin/pip install torch    # (or its CPU wheel from download.pytorch.org)
    /tmp/stacks/bin/pip install transformers peft trl==1.16.0 accelerate==1.16.0 \
        deepspeed==0.19.8 omegaconf pyyaml
    /tmp/stacks/bin/pip install --no-deps llamafactory==0.9.5 axolotl==0.19.0
    /tmp/stacks/bin/pip install torchtune==0.6.1 torchao==0.11.0 hydra-core==1.3.8
    /tmp/stacks/bin/pip install --no-deps verl==0.9.1
    /tmp/stacks/bin/pip install ray tensordict codetiming pybind11 pylatexenc   # verl's imports
    /tmp/stacks/bin/pip install --no-deps openrlhf==0.11.2
    git -C unsloth show 015bdef0d94a241bcd94eec7a405b1700632180d:unsloth-cli.py > /tmp/unsloth-cli.py
    git -C Megatron-LM archive d98e8a64ddf34856e74b24714e3bedb2f5a39553 megatron | tar -x -C /tmp/mlm
    UNSLOTH_CLI=/tmp/unsloth-cli.py MEGATRON_LM=/tmp/mlm DISABLE_VERSION_CHECK=1 VLLM_SITE=/tmp/engines/lib/python3.11/site-packages \
        /tmp/stacks/bin/python tests/launch/parse_training.py

VLLM_SITE is a site-packages with vLLM 0.33.0 (the engines' environment, `tests/launch/parse.py`),
appended after this environment's own packages: verl's `validate_config` checks a LoRA rank
against vLLM's `MaxLoRARanks`.

The parsers check that the card runs bf16; there is no GPU here, so that one check is answered
yes (`is_torch_bf16_gpu_available`). LLaMA-Factory pins transformers <= 5.6; its version check is
skipped (`DISABLE_VERSION_CHECK=1`), the parse itself is its own. torchtune 0.6.1 imports
`torchao.dtypes.nf4tensor`, which torchao 0.12 removed: torchao 0.11.0.
"""

import json
import os
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

import transformers.training_args as training_args
import yaml

training_args.is_torch_bf16_gpu_available = lambda: True

LAUNCHES = Path("tests/data/training-launches.json").absolute()
OUT = Path("tests/data/training-launches-parsed.json").absolute()


def deepspeed_values(path):
    """What DeepSpeed's own ZeRO config makes of the JSON."""
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    zero = DeepSpeedZeroConfig(**json.loads(Path(path).read_text())["zero_optimization"])
    device = lambda o: "none" if o is None else str(getattr(o.device, "value", o.device))
    return {
        "zero_stage": int(zero.stage),
        "offload_optimizer": device(zero.offload_optimizer),
        "offload_param": device(zero.offload_param),
        "overlap_comm": zero.overlap_comm,
        "reduce_bucket_size": zero.reduce_bucket_size,
        "allgather_bucket_size": zero.allgather_bucket_size,
    }


def accelerate_values(path):
    """What accelerate's config loader makes of an accelerate config."""
    from accelerate.commands.config.config_args import load_config_from_file

    c = load_config_from_file(path)
    v = {"num_processes": c.num_processes, "distributed_type": str(c.distributed_type.value)}
    f = c.fsdp_config or {}
    if f:
        v["fsdp_version"] = int(f.get("fsdp_version", 1))
        if v["fsdp_version"] >= 2:
            v["reshard_after_forward"] = bool(f["fsdp_reshard_after_forward"])
        else:
            v["reshard_after_forward"] = f["fsdp_sharding_strategy"] != "SHARD_GRAD_OP"
        v["fsdp_offload_params"] = bool(f["fsdp_offload_params"])
        if "fsdp_activation_checkpointing" in f:
            v["fsdp_activation_checkpointing"] = bool(f["fsdp_activation_checkpointing"])
    return v


def trl_values(case):
    import importlib

    from accelerate.commands.launch import launch_command_parser
    from trl.cli.accelerate_config import resolve_accelerate_config_argument

    argv = case["argv"]
    assert argv[0] == "trl" and argv[1] in ("sft", "grpo", "dpo"), argv
    parser = importlib.import_module(f"trl.scripts.{argv[1]}").make_parser()
    *parsed, config_rest, cli_rest = parser.parse_args_and_config(
        argv[2:], return_remaining_strings=True, separate_remaining_strings=True
    )
    by_kind = {type(d).__name__: d for d in parsed}
    script = next(d for n, d in by_kind.items() if n.endswith("ScriptArguments"))
    training = next(d for n, d in by_kind.items() if n.endswith("Config") and hasattr(d, "per_device_train_batch_size"))
    model = by_kind["ModelConfig"]
    launch_args = resolve_accelerate_config_argument(config_rest + cli_rest)
    launched = launch_command_parser().parse_args(launch_args + ["sft.py"])
    v = {
        "per_device_train_batch_size": training.per_device_train_batch_size,
        "max_length": getattr(training, "max_length", None),
        "gradient_checkpointing": training.gradient_checkpointing,
        "bf16": training.bf16,
        "fp16": training.fp16,
        "optim": str(training.optim.value),
        "packing": getattr(training, "packing", False),
        "use_liger_kernel": training.use_liger_kernel,
        "dtype": model.dtype,
        "use_peft": model.use_peft,
        "lora_r": model.lora_r,
        "load_in_4bit": model.load_in_4bit,
        "dataset_name": script.dataset_name,
        "num_processes": launched.num_processes or 1,
    }
    v.update(machine_values(launched))
    if argv[1] == "grpo":
        v.update({
            "num_generations": training.num_generations,
            "max_completion_length": training.max_completion_length,
            "beta": training.beta,
            "use_vllm": training.use_vllm,
            "vllm_mode": training.vllm_mode,
            "vllm_gpu_memory_utilization": training.vllm_gpu_memory_utilization,
            "vllm_enable_sleep_mode": training.vllm_enable_sleep_mode,
            "reward_funcs": script.reward_funcs,
        })
    if argv[1] == "dpo":
        v.update({"beta": training.beta, "precompute_ref_log_probs": training.precompute_ref_log_probs})
    if launched.config_file:
        v.update(accelerate_values(launched.config_file))
    if training.deepspeed:
        v.update(deepspeed_values(training.deepspeed))
    return v


def machine_values(launched):
    """The machine words `accelerate launch`'s parser read, when there are any."""
    if launched.num_machines is None or launched.num_machines <= 1:
        return {}
    return {
        "num_machines": launched.num_machines,
        "machine_rank": launched.machine_rank,
        "main_process_ip": launched.main_process_ip,
        "main_process_port": launched.main_process_port,
    }


def llamafactory_torchrun(case):
    """The torchrun line LLaMA-Factory's launcher builds for node 0, read by torchrun's parser."""
    import subprocess

    from llamafactory import launcher
    from torch.distributed.run import get_args_parser

    argv = case["argv"]
    words = {}
    while argv and (argv[0] == "env" or "=" in argv[0]):
        if argv[0] != "env":
            k, _, val = argv[0].partition("=")
            words[k] = val
        argv = argv[1:]
    env = {e["name"]: e["value"] for e in case["env"]}
    env.update(words)
    seen = {}

    class Done(Exception):
        pass

    def run(cmd, **_kw):
        seen["cmd"] = cmd
        raise Done

    saved = (dict(os.environ), list(sys.argv), subprocess.run)
    os.environ.update(env)
    sys.argv = ["llamafactory-cli"] + argv[1:]
    launcher.subprocess.run = run
    try:
        launcher.launch()
    except Done:
        pass
    finally:
        os.environ.clear()
        os.environ.update(saved[0])
        sys.argv = saved[1]
        launcher.subprocess.run = saved[2]
    cmd = seen["cmd"]
    assert cmd[0] == "torchrun", cmd
    a = get_args_parser().parse_args(cmd[1:])
    return {
        "nnodes": int(a.nnodes),
        "node_rank": a.node_rank,
        "nproc_per_node": int(a.nproc_per_node),
        "master_addr": a.master_addr,
        "master_port": a.master_port,
    }


def llamafactory_values(case):
    from llamafactory.hparams import parser

    sys.argv = ["llamafactory-cli", case["argv"][-1]]
    model, data, training, finetuning, _generating = parser._parse_train_args(None)
    v = {
        "per_device_train_batch_size": training.per_device_train_batch_size,
        "cutoff_len": data.cutoff_len,
        "disable_gradient_checkpointing": model.disable_gradient_checkpointing,
        "finetuning_type": finetuning.finetuning_type,
        "lora_rank": finetuning.lora_rank,
        "bf16": training.bf16,
        "pure_bf16": finetuning.pure_bf16,
        "optim": str(training.optim.value),
        "packing": bool(data.packing),
        "quantization_bit": model.quantization_bit,
    }
    if training.deepspeed:
        v.update(deepspeed_values(training.deepspeed))
    if case["argv"][0] == "env":
        v.update(llamafactory_torchrun(case))
    return v


def axolotl_values(case):
    from axolotl.utils.schemas.config import AxolotlInputConfig

    argv = case["argv"]
    config = argv[2]
    c = AxolotlInputConfig(**yaml.safe_load(Path(config).read_text()))
    v = {
        "micro_batch_size": c.micro_batch_size,
        "sequence_len": c.sequence_len,
        "gradient_checkpointing": bool(c.gradient_checkpointing),
        "lora_r": c.lora_r,
        "load_in_4bit": bool(c.load_in_4bit),
        "bf16": c.bf16,
        "optimizer": str(getattr(c.optimizer, "value", c.optimizer)),
        "sample_packing": bool(c.sample_packing),
        "attn_implementation": c.attn_implementation,
    }
    if c.fsdp_config:
        f = c.fsdp_config.model_dump() if hasattr(c.fsdp_config, "model_dump") else dict(c.fsdp_config)
        v["fsdp_version"] = int(c.fsdp_version or f.get("fsdp_version") or 1)
        v["reshard_after_forward"] = bool(f.get("reshard_after_forward", True))
        v["fsdp_offload_params"] = bool(f.get("offload_params"))
    if c.deepspeed:
        v.update(deepspeed_values(c.deepspeed))
    if "--" in argv:
        from accelerate.commands.launch import launch_command_parser

        rest = argv[argv.index("--") + 1 :]
        launched = launch_command_parser().parse_args(rest + ["-m", "axolotl.cli.train", config])
        v["num_processes"] = launched.num_processes
        v.update(machine_values(launched))
    return v


MEGATRON_COMMIT = "d98e8a64ddf34856e74b24714e3bedb2f5a39553"
# unsloth-cli.py is no part of Unsloth's wheel: the repository's root script, at this commit.
UNSLOTH_COMMIT = "015bdef0d94a241bcd94eec7a405b1700632180d"


def megatron_values(case):
    """torchrun's and Megatron-LM's parsers over node 0's command."""
    import argparse
    import typing

    from torch.distributed.run import get_args_parser

    if not hasattr(typing, "override"):
        typing.override = lambda f: f
    sys.path.insert(0, os.environ["MEGATRON_LM"])
    from megatron.training.arguments import add_megatron_arguments

    argv = case["argv"]
    script = next(i for i, w in enumerate(argv) if w.endswith("pretrain_gpt.py"))
    t = get_args_parser().parse_args(argv[1 : script + 1] + argv[script + 1 :])
    a = add_megatron_arguments(argparse.ArgumentParser(allow_abbrev=False)).parse_args(argv[script + 1 :])
    return {
        "nnodes": int(str(t.nnodes).split(":")[0]),
        "nproc_per_node": int(t.nproc_per_node),
        "rdzv_backend": t.rdzv_backend,
        "rdzv_endpoint": t.rdzv_endpoint,
        "standalone": t.standalone,
        "tensor_model_parallel_size": a.tensor_model_parallel_size,
        "pipeline_model_parallel_size": a.pipeline_model_parallel_size,
        "num_layers_per_virtual_pipeline_stage": a.num_layers_per_virtual_pipeline_stage,
        "sequence_parallel": a.sequence_parallel,
        "context_parallel_size": a.context_parallel_size,
        "use_distributed_optimizer": a.use_distributed_optimizer,
        "micro_batch_size": a.micro_batch_size,
        "global_batch_size": a.global_batch_size,
        "seq_length": a.seq_length,
        "num_layers": a.num_layers,
        "bf16": a.bf16,
        "recompute_granularity": a.recompute_granularity,
        "tokenizer_model": a.tokenizer_model,
    }


def deepspeed_launcher_values(case):
    """DeepSpeed's launcher parser and hostfile reader, then TRL's script parser on its words."""
    import importlib

    from deepspeed.launcher.runner import fetch_hostfile, parse_args

    a = parse_args(case["argv"][1:])
    assert a.module, a
    module = importlib.import_module(a.user_script)
    *parsed, _rest = module.make_parser().parse_args_and_config(a.user_args, return_remaining_strings=True)
    training = next(d for d in parsed if hasattr(d, "per_device_train_batch_size"))
    v = {
        "per_device_train_batch_size": training.per_device_train_batch_size,
        "max_length": training.max_length,
        "gradient_checkpointing": training.gradient_checkpointing,
        "bf16": training.bf16,
        "launcher_module": a.user_script,
    }
    if a.hostfile and os.path.exists(a.hostfile):
        hosts = fetch_hostfile(a.hostfile)
        v.update({
            "nnodes": len(hosts),
            "nproc_per_node": sorted(set(hosts.values()))[0] if hosts else 0,
            "master_addr": a.master_addr,
            "master_port": a.master_port,
        })
    else:
        v["nproc_per_node"] = a.num_gpus
    if training.deepspeed:
        v.update(deepspeed_values(training.deepspeed))
    return v


def torchtune_values(case):
    """`tune run`'s own parser (torchrun's words and the recipe's), then the recipe's config as
    torchtune builds it: `TuneRecipeArgumentParser` reads `--config` (the shipped config the
    registry names) and the overrides, `_merge_yaml_and_cli_args` merges them; the loss is
    instantiated by `torchtune.config.instantiate`."""
    import argparse

    from torchtune import config as tt_config
    from torchtune._cli.run import ROOT, Run
    from torchtune.config._parse import TuneRecipeArgumentParser
    from torchtune.config._utils import _merge_yaml_and_cli_args

    argv = case["argv"]
    assert argv[:2] == ["tune", "run"], argv
    top = argparse.ArgumentParser(prog="tune")
    run = Run(top.add_subparsers(title="subcommands"))
    a = top.parse_args(argv[1:])
    recipe = run._get_recipe(a.recipe)
    assert recipe is not None, a.recipe
    distributed = len(argv) - 2 > len(a.recipe_args) + 1
    assert recipe.supports_distributed or not distributed, recipe.name
    i = a.recipe_args.index("--config") + 1
    config = run._get_config(a.recipe_args[i], recipe)
    assert config is not None, a.recipe_args[i]
    recipe_args = list(a.recipe_args)
    recipe_args[i] = str(ROOT / "recipes" / "configs" / config.file_path)
    yaml_args, cli_args = TuneRecipeArgumentParser(description=recipe.name).parse_known_args(recipe_args)
    cfg = _merge_yaml_and_cli_args(yaml_args, cli_args)
    get = lambda key, default=None: cfg.get(key, default)
    loss = tt_config.instantiate(cfg.loss)
    # The model's builder takes the overrides' arguments (built on the meta device: no memory),
    # and the optimizer its own.
    import torch

    with torch.device("meta"):
        tt_config.instantiate(cfg.model)
    tt_config.instantiate(cfg.optimizer, [torch.nn.Parameter(torch.zeros(1))])
    v = {
        "recipe": recipe.name,
        "model_component": cfg.model._component_,
        "batch_size": cfg.batch_size,
        "gradient_accumulation_steps": cfg.gradient_accumulation_steps,
        "max_seq_len": cfg.tokenizer.max_seq_len,
        "tt_dtype": cfg.dtype,
        "enable_activation_checkpointing": get("enable_activation_checkpointing", False),
        "enable_activation_offloading": get("enable_activation_offloading", False),
        "optimizer_in_bwd": get("optimizer_in_bwd", False),
        "optimizer_component": cfg.optimizer._component_,
        "optimizer_fused": cfg.optimizer.get("fused"),
        "loss_component": cfg.loss._component_,
        "num_output_chunks": getattr(loss, "num_output_chunks", None),
        "compile": get("compile", False),
        "packed": bool(cfg.dataset.get("packed", False)),
        "model_built": True,
    }
    if "lora" in recipe.name:
        v.update({
            "lora_rank": cfg.model.lora_rank,
            "lora_attn_modules": list(cfg.model.lora_attn_modules),
            "apply_lora_to_mlp": cfg.model.apply_lora_to_mlp,
        })
    if distributed:
        v.update({
            "fsdp_reshard_after_forward": get("fsdp_reshard_after_forward", True),
            "fsdp_cpu_offload": get("fsdp_cpu_offload", False),
            "nnodes": int(str(a.nnodes).split(":")[0]),
            "nproc_per_node": int(a.nproc_per_node),
        })
        if a.rdzv_endpoint:
            v.update({"rdzv_backend": a.rdzv_backend, "rdzv_endpoint": a.rdzv_endpoint})
    return v


def verl_values(case):
    """verl's own Hydra config (`verl/trainer/config/ppo_trainer.yaml`, the one `main_ppo`'s
    `@hydra.main` names), composed with the overrides by Hydra's compose API, in Hydra's struct
    mode: a key verl's config lacks is an error; then verl's own `validate_config`, as
    `main_ppo` runs it (verl's package imports Ray: installed, not started)."""
    import importlib.util

    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    argv = case["argv"]
    assert argv[:3] == ["python3", "-m", "verl.trainer.main_ppo"], argv
    root = importlib.util.find_spec("verl").submodule_search_locations[0]
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=os.path.join(root, "trainer", "config"), version_base=None):
        cfg = compose(config_name="ppo_trainer", overrides=argv[3:])
    arr = cfg.actor_rollout_ref
    # verl's own check of a composed config (main_ppo runs it before training): the batch's
    # divisibility over the GPUs, the actor's mini- and micro-batches, the log-probabilities'
    # micro-batches of the rollout and the reference.
    # verl checks a LoRA rank against vLLM's own `MaxLoRARanks`: vLLM from VLLM_SITE (the
    # engines' environment, after this one's packages) where this environment has none.
    if os.environ.get("VLLM_SITE") and os.environ["VLLM_SITE"] not in sys.path:
        sys.path.append(os.environ["VLLM_SITE"])
    from verl.utils.config import validate_config

    use_ref = bool(arr.actor.use_kl_loss or cfg.algorithm.use_kl_in_reward)
    use_critic = cfg.algorithm.adv_estimator == "gae"
    # The critic's `model` section is composed and struct-checked above, but left out of verl's
    # dataclass check: its HFModelConfig fetches the checkpoint's config and tokenizer from the
    # Hub, which this offline check cannot; every other critic check of verl's runs.
    checked = cfg.copy()
    if use_critic:
        from omegaconf import open_dict

        with open_dict(checked):
            checked.critic.model = None
    validate_config(checked, use_reference_policy=use_ref, use_critic=use_critic)
    critic = {}
    if use_critic:
        c = cfg.critic
        critic = {
            "critic_model_path": c.model.path,
            "critic_strategy": c.strategy,
            "critic_ppo_micro_batch_size_per_gpu": c.ppo_micro_batch_size_per_gpu,
            "critic_enable_gradient_checkpointing": c.model.enable_gradient_checkpointing,
            "critic_use_remove_padding": c.model.use_remove_padding,
            "critic_lora_rank": c.model.lora_rank,
            "critic_param_offload": c.fsdp.param_offload,
            "critic_optimizer_offload": c.fsdp.optimizer_offload,
        }
    return critic | {
        "verl_validated": True,
        "rollout_log_prob_micro_batch_size_per_gpu": arr.rollout.log_prob_micro_batch_size_per_gpu,
        "adv_estimator": cfg.algorithm.adv_estimator,
        "train_batch_size": cfg.data.train_batch_size,
        "max_prompt_length": cfg.data.max_prompt_length,
        "max_response_length": cfg.data.max_response_length,
        "enable_gradient_checkpointing": arr.model.enable_gradient_checkpointing,
        "use_remove_padding": arr.model.use_remove_padding,
        "lora_rank": arr.model.lora_rank,
        "strategy": arr.actor.strategy,
        "ppo_mini_batch_size": arr.actor.ppo_mini_batch_size,
        "ppo_micro_batch_size_per_gpu": arr.actor.ppo_micro_batch_size_per_gpu,
        "use_kl_loss": arr.actor.use_kl_loss,
        "kl_loss_coef": arr.actor.kl_loss_coef,
        "param_offload": arr.actor.fsdp_config.param_offload,
        "optimizer_offload": arr.actor.fsdp_config.optimizer_offload,
        "rollout_name": arr.rollout.name,
        "rollout_tensor_model_parallel_size": arr.rollout.tensor_model_parallel_size,
        "gpu_memory_utilization": arr.rollout.gpu_memory_utilization,
        "rollout_n": arr.rollout.n,
        "free_cache_engine": arr.rollout.free_cache_engine,
        "max_model_len": arr.rollout.max_model_len,
        "max_num_seqs": arr.rollout.max_num_seqs,
        "max_num_batched_tokens": arr.rollout.max_num_batched_tokens,
        "n_gpus_per_node": cfg.trainer.n_gpus_per_node,
        "nnodes": cfg.trainer.nnodes,
    }


def script_main(path, argv, entry, defs=()):
    """A script's own `if __name__ == "__main__":` block (its argparse parser and the checks it
    runs after parsing) run on `argv`, the call to `entry` that ends it answered with the parsed
    arguments: the script's module-level imports (Ray, DeepSpeed, Unsloth, CUDA) are not run.
    `defs` names module-level functions the caller needs too (they run nothing on definition)."""
    import argparse
    import ast
    import datetime

    tree = ast.parse(Path(path).read_text())
    main = next(
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "__name__ == '__main__'"
    )
    body = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in defs] + main.body
    got = {}
    ns = {"argparse": argparse, "datetime": datetime.datetime, "os": os, entry: lambda a: got.setdefault("args", a)}
    old = sys.argv
    sys.argv = [str(path)] + list(argv)
    try:
        exec(compile(ast.Module(body=body, type_ignores=[]), str(path), "exec"), ns)
    except SystemExit as e:  # argparse's refusal of a word: the finding, not the end of the run
        raise ValueError(f"{Path(path).name}'s parser refused the command (exit {e.code})") from None
    finally:
        sys.argv = old
    return got["args"], ns


def openrlhf_cli(name):
    import importlib.util

    return Path(importlib.util.find_spec("openrlhf").submodule_search_locations[0], "cli", name)


def openrlhf_values(case):
    """OpenRLHF 0.11.2: `ray job submit`'s words by Ray's own click command, then
    `train_ppo_ray.py`'s parser and its checks (`script_main`); DPO's `deepspeed --module
    openrlhf.cli.train_dpo` by DeepSpeed's launcher parser, then `train_dpo.py`'s."""
    argv = case["argv"]
    if argv[0] == "deepspeed":
        from deepspeed.launcher.runner import parse_args

        d = parse_args(argv[1:])
        assert d.module and d.user_script == "openrlhf.cli.train_dpo", d
        a, _ = script_main(openrlhf_cli("train_dpo.py"), d.user_args, "train")
        return {
            "orl_model": a.model.model_name_or_path,
            "orl_ref_model": a.ref.model_name_or_path,
            "orl_max_len": a.data.max_len,
            "orl_micro_batch_size": a.train.micro_batch_size,
            "orl_batch_size": a.train.batch_size,
            "orl_beta": a.model.beta,
            "orl_gradient_checkpointing": a.model.gradient_checkpointing_enable,
            "orl_zero_stage": a.ds.zero_stage,
            "orl_adam_offload": a.ds.adam_offload,
            "orl_param_dtype": a.ds.param_dtype,
            "orl_lora_rank": a.ds.lora.rank,
            "nproc_per_node": d.num_gpus,
        }
    from ray.dashboard.modules.job.cli import submit

    assert argv[:3] == ["ray", "job", "submit"], argv
    job = submit.make_context("submit", argv[3:]).params
    entry = list(job["entrypoint"])
    assert entry[:3] == ["python3", "-m", "openrlhf.cli.train_ppo_ray"], entry
    a, _ = script_main(openrlhf_cli("train_ppo_ray.py"), entry[3:], "train")
    return {
        "orl_ray_address": job["address"],
        "orl_model": a.actor.model_name_or_path,
        "orl_critic_model": a.critic.model_name_or_path,
        "orl_reward_model": a.reward.model_name_or_path,
        "orl_reward_remote_url": a.reward.remote_url,
        "orl_estimator": a.algo.advantage.estimator,
        "orl_kl_init_coef": a.algo.kl.init_coef,
        "orl_kl_use_loss": a.algo.kl.use_loss,
        "orl_n_samples_per_prompt": a.rollout.n_samples_per_prompt,
        "orl_rollout_batch_size": a.rollout.batch_size,
        "orl_rollout_micro_batch_size": a.rollout.micro_batch_size,
        "orl_micro_batch_size": a.train.micro_batch_size,
        "orl_batch_size": a.train.batch_size,
        "orl_max_len": a.data.max_len,
        "orl_max_new_tokens": a.rollout.max_new_tokens,
        "orl_zero_stage": a.ds.zero_stage,
        "orl_adam_offload": a.ds.adam_offload,
        "orl_param_dtype": a.ds.param_dtype,
        "orl_gradient_checkpointing": a.actor.gradient_checkpointing_enable,
        "orl_colocate_all": a.train.colocate_all,
        "orl_colocate_actor_ref": a.train.colocate_actor_ref,
        "orl_vllm_num_engines": a.vllm.num_engines,
        "orl_vllm_tensor_parallel_size": a.vllm.tensor_parallel_size,
        "orl_vllm_gpu_memory_utilization": a.vllm.gpu_memory_utilization,
        "orl_vllm_enable_sleep": a.vllm.enable_sleep,
        "orl_actor_num_nodes": a.actor.num_nodes,
        "orl_actor_num_gpus_per_node": a.actor.num_gpus_per_node,
        "orl_ref_num_gpus_per_node": a.ref.num_gpus_per_node,
        "orl_critic_num_gpus_per_node": a.critic.num_gpus_per_node,
        "orl_reward_num_gpus_per_node": a.reward.num_gpus_per_node,
        "orl_lora_rank": a.ds.lora.rank,
        "orl_attn_implementation": a.ds.attn_implementation,
    }


def unsloth_values(case):
    """unsloth-cli.py (UNSLOTH_CLI, from `git show` of unslothai/unsloth at UNSLOTH_COMMIT): its
    argparse parser (`script_main`), then its own `_build_sft_config` over TRL's `SFTConfig`
    (a bf16 card), the config its trainer gets."""
    from trl import SFTConfig

    argv = case["argv"]
    assert argv[:2] == ["python", "unsloth-cli.py"], argv
    a, ns = script_main(os.environ["UNSLOTH_CLI"], argv[2:], "run", defs=("_build_sft_config",))
    cfg = ns["_build_sft_config"](SFTConfig, a, False, True)
    return {
        "unsloth_model_name": a.model_name,
        "unsloth_max_seq_length": a.max_seq_length,
        "unsloth_dtype": a.dtype,
        "unsloth_load_in_4bit": a.load_in_4bit,
        "unsloth_r": a.r,
        "unsloth_use_gradient_checkpointing": a.use_gradient_checkpointing,
        "per_device_train_batch_size": cfg.per_device_train_batch_size,
        "gradient_accumulation_steps": cfg.gradient_accumulation_steps,
        "max_length": cfg.max_length,
        "optim": str(getattr(cfg.optim, "value", cfg.optim)),
        "packing": cfg.packing,
        "bf16": cfg.bf16,
    }


def visible_gpus(case):
    env = {e["name"]: e["value"] for e in case["env"]}
    ids = env.get("CUDA_VISIBLE_DEVICES")
    return len(ids.split(",")) if ids else 1


def parse(case):
    with tempfile.TemporaryDirectory() as d:
        for f in case["files"]:
            Path(d, f["name"]).write_text(f["text"])
        here = os.getcwd()
        os.chdir(d)
        try:
            stack = case["stack"]
            if stack in ("trl", "fsdp"):
                return trl_values(case)
            if stack == "torchtune":
                return torchtune_values(case)
            if stack == "verl":
                return verl_values(case)
            if stack == "openrlhf":
                return openrlhf_values(case)
            if stack == "unsloth":
                return unsloth_values(case)
            if stack == "megatron":
                return megatron_values(case)
            if stack == "deepspeed":
                return deepspeed_launcher_values(case)
            v = llamafactory_values(case) if stack == "llamafactory" else axolotl_values(case)
            v["visible_gpus"] = visible_gpus(case)
            return v
        finally:
            os.chdir(here)


def main():
    cases = []
    for case in json.loads(LAUNCHES.read_text()):
        try:
            cases.append({"name": case["name"], "values": parse(case), "error": None})
        except Exception as e:  # the parser's refusal is the finding
            cases.append({"name": case["name"], "values": {}, "error": f"{type(e).__name__}: {e}"})
    versions = {p: version(p) for p in ["trl", "accelerate", "deepspeed", "transformers", "llamafactory", "axolotl", "torch", "torchtune", "torchao", "verl", "hydra-core", "omegaconf", "openrlhf", "ray"]}
    versions["megatron-lm"] = MEGATRON_COMMIT
    versions["unsloth-cli.py"] = UNSLOTH_COMMIT
    try:
        versions["vllm"] = version("vllm")
    except Exception:
        pass
    OUT.write_text(json.dumps({"versions": versions, "cases": cases}, indent=2, sort_keys=True) + "\n")
    bad = [c["name"] for c in cases if c["error"]]
    print(f"{len(cases)} launches parsed, {len(bad)} refused: {bad}")


if __name__ == "__main__":
    main()
