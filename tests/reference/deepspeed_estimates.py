#!/usr/bin/env python3
"""DeepSpeed's own model-state estimates (`deepspeed-estimates.csv`) for vramfit's tests.

Calls `estimate_zero2_model_states_mem_needs` (deepspeed/runtime/zero/stage_1_and_2.py) and
`estimate_zero3_model_states_mem_needs` (deepspeed/runtime/zero/stage3.py) with the parameter
counts of transformers models built on the meta device. Their `*_all_live` wrappers count
parameters by `data_ptr()`, which is 0 for every meta tensor (they would count one tensor):
the counts are taken here as `model_to_params` takes them, by numel, and the largest module's
own parameters (`parameters(recurse=False)`).

Offload: `none` (cpu_offload=False), `cpu` (cpu_offload=True; under ZeRO-3 with
cpu_offload_params=True: `offload_optimizer` and `offload_param`), and under ZeRO-3
`optimizer-cpu` (cpu_offload=True, cpu_offload_params=False: `offload_optimizer` alone).
`cpu_bytes` is the estimator's CPU memory per node, with its `additional_buffer_factor` 1.5.

    pip install deepspeed        # 0.19.8 wrote the CSV
    python tests/reference/deepspeed_estimates.py
"""
from __future__ import annotations

import csv
import os
import warnings

warnings.filterwarnings("ignore")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import torch  # noqa: E402
import deepspeed  # noqa: E402
from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs  # noqa: E402
from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "deepspeed-estimates.csv")

# The hub config.json files' shapes (meta-llama/Llama-3.1-8B, meta-llama/Llama-3.1-70B).
MODELS = {
    "meta-llama/Llama-3.1-8B": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                                    num_attention_heads=32, num_key_value_heads=8, vocab_size=128256),
    "meta-llama/Llama-3.1-70B": dict(hidden_size=8192, intermediate_size=28672, num_hidden_layers=80,
                                     num_attention_heads=64, num_key_value_heads=8, vocab_size=128256),
    # Tied: the embedding is the head, counted once.
    "meta-llama/Llama-3.2-1B": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                                    num_attention_heads=32, num_key_value_heads=8, vocab_size=128256,
                                    tie_word_embeddings=True),
}


def counts(model):
    total = sum(p.numel() for p in model.parameters())
    largest = max(sum(p.numel() for p in m.parameters(recurse=False)) for m in model.modules())
    return total, largest


def main():
    rows = []
    for name, shape in MODELS.items():
        shape = {"tie_word_embeddings": False, **shape}
        with torch.device("meta"):
            model = LlamaForCausalLM(LlamaConfig(**shape))
        total, largest = counts(model)
        for nodes in (1, 2):
            cases = []
            for offload in (False, True):
                cpu2, gpu2 = estimate_zero2_model_states_mem_needs(
                    total, num_gpus_per_node=8, num_nodes=nodes, cpu_offload=offload)
                call = (f"estimate_zero2_model_states_mem_needs(params, num_gpus_per_node=8, "
                        f"num_nodes={nodes}, cpu_offload={offload})")
                cases.append((2, "cpu" if offload else "none", cpu2, gpu2, call))
            for offload, params in (("none", False), ("cpu", True), ("optimizer-cpu", False)):
                cpu3, gpu3, _ = estimate_zero3_model_states_mem_needs(
                    total, largest, num_gpus_per_node=8, num_nodes=nodes,
                    cpu_offload=offload != "none", cpu_offload_params=params)
                call = (f"estimate_zero3_model_states_mem_needs(params, largest_module_params, "
                        f"num_gpus_per_node=8, num_nodes={nodes}, cpu_offload={offload != 'none'}, "
                        f"cpu_offload_params={params})")
                cases.append((3, offload, cpu3, gpu3, call))
            for stage, offload, cpu, gpu, call in cases:
                rows.append({
                    "model": name, "stage": stage, "gpus": 8 * nodes,
                    "offload": offload, "params": total,
                    "largest_module_params": largest, "gpu_bytes": gpu,
                    "deepspeed_version": deepspeed.__version__, "cpu_bytes": cpu,
                    "call": call,
                })
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
