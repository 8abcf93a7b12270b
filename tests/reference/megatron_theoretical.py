#!/usr/bin/env python3
"""Megatron-LM's own theoretical memory (`megatron-theoretical.csv`) for vramfit's tests.

Runs `report_theoretical_memory` from Megatron-LM's `megatron/training/theoretical_memory_usage.py`
(NVIDIA/Megatron-LM, the file as of commit 1bcb3b9e0b029c6109d8d32872645bd540052963; the
snapshot read was d98e8a64ddf34856e74b24714e3bedb2f5a39553), read from a checkout given on the
command line (nothing of it is copied here), with Megatron's arguments for Llama-3.1-8B- and
70B-shaped GPTs (`--swiglu`, `--group-query-attention`, RMSNorm, untied embeddings, bf16).

    git -C /path/to/Megatron-LM show HEAD:megatron/training/theoretical_memory_usage.py > /tmp/tmu.py
    python tests/reference/megatron_theoretical.py /tmp/tmu.py
"""
from __future__ import annotations

import csv
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "megatron-theoretical.csv")
MIB = 1024 * 1024

SHAPES = {
    "meta-llama/Llama-3.1-8B": dict(hidden_size=4096, ffn_hidden_size=14336, num_layers=32,
                                    num_attention_heads=32, num_query_groups=8),
    "meta-llama/Llama-3.1-70B": dict(hidden_size=8192, ffn_hidden_size=28672, num_layers=80,
                                     num_attention_heads=64, num_query_groups=8),
}

# (model, tp, pp, vp, dp, sequence_parallel + selective recompute, distributed optimizer)
CASES = [
    ("meta-llama/Llama-3.1-8B", 1, 1, None, 8, False, False),
    ("meta-llama/Llama-3.1-8B", 1, 1, None, 8, False, True),
    ("meta-llama/Llama-3.1-8B", 4, 1, None, 2, True, True),
    ("meta-llama/Llama-3.1-8B", 2, 4, None, 1, True, False),
    ("meta-llama/Llama-3.1-8B", 2, 4, 2, 1, True, False),
    ("meta-llama/Llama-3.1-70B", 8, 4, None, 2, True, True),
    ("meta-llama/Llama-3.1-70B", 8, 4, 5, 2, True, True),
]


def load(path):
    # Its two helpers from megatron/training/utils.py: a GPT here is no hybrid model.
    src = open(path).read()
    src = src.replace("from .utils import is_hybrid_model, print_rank_0",
                      "print_rank_0 = print\nis_hybrid_model = lambda args: False")
    src = src.replace("from .utils import print_rank_0", "print_rank_0 = print")
    mod = types.ModuleType("theoretical_memory_usage")
    exec(compile(src, path, "exec"), mod.__dict__)
    return mod


class Args(types.SimpleNamespace):
    """Megatron's arguments: every one not set here is absent (None), as argparse leaves an
    optional feature it was not given."""

    def __getattr__(self, name):
        return None


def args_for(model, tp, pp, vp, dp, sp, dist_opt, seq=4096, mbs=1):
    shape = SHAPES[model]
    return Args(
        **shape,
        kv_channels=shape["hidden_size"] // shape["num_attention_heads"],
        group_query_attention=True, swiglu=True, normalization="RMSNorm",
        num_experts=None, moe_layer_freq=1, moe_ffn_hidden_size=None,
        moe_shared_expert_intermediate_size=None, moe_router_topk=1, mtp_num_layers=None,
        multi_latent_attention=False, padded_vocab_size=128256,
        untie_embeddings_and_output_weights=True, is_hybrid_model=False,
        tensor_model_parallel_size=tp, pipeline_model_parallel_size=pp,
        virtual_pipeline_model_parallel_size=vp, data_parallel_size=dp,
        context_parallel_size=1, expert_model_parallel_size=1, expert_tensor_parallel_size=tp,
        use_distributed_optimizer=dist_opt, sequence_parallel=sp,
        recompute_granularity="selective" if sp else None,
        seq_length=seq, micro_batch_size=mbs, world_size=tp * pp * dp,
    )


def main():
    tmu = load(sys.argv[1])
    rows = []
    for model, tp, pp, vp, dp, sp, dist_opt in CASES:
        w, a, _ = tmu.report_theoretical_memory(args_for(model, tp, pp, vp, dp, sp, dist_opt))
        rows.append({
            "model": model, "tp": tp, "pp": pp, "vp": vp or "", "dp": dp,
            "sequence_parallel": str(sp).lower(), "distributed_optimizer": str(dist_opt).lower(),
            "seq_len": 4096, "micro_batch": 1,
            "weight_and_optimizer_bytes": round(w * MIB), "activation_bytes": round(a * MIB),
            "megatron_commit": "1bcb3b9e0b029c6109d8d32872645bd540052963",
        })
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
