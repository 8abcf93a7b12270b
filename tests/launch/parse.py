"""The launches vramfit writes, parsed by the engines' own argument parsers.

Reads tests/data/launch-commands.json (written by the test `launch_commands_are_fresh`) and
writes tests/data/launch-parsed.json: for each command, what vLLM's or SGLang's parser made of
the settings vramfit counts, or the error it raised. `engines_parse_the_launches_as_written`
(tests/it/launch_parsed.rs) checks those values against the estimate's.

Run from the repository root, in a virtual environment with the engines installed without
their GPU dependencies (their parsers need torch, not a GPU):

    python3 -m venv /tmp/engines
    /tmp/engines/bin/pip install --no-deps vllm==0.33.0 sglang==0.5.23
    /tmp/engines/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu
    # then whatever module the imports below ask for (packaging, numpy, transformers, ...)
    /tmp/engines/bin/python tests/launch/parse.py
"""

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path

COMMANDS = Path("tests/data/launch-commands.json")
OUT = Path("tests/data/launch-parsed.json")

# The settings vramfit counts, by the parsers' own attribute names.
VLLM_KEYS = [
    "model_tag", "tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size",
    "enable_expert_parallel", "max_model_len", "gpu_memory_utilization", "max_num_seqs",
    "max_num_batched_tokens", "kv_cache_dtype", "enforce_eager", "dtype", "quantization",
    "kv_transfer_config",
    # Data parallel over several nodes, vLLM's own launcher.
    "headless", "data_parallel_size_local", "data_parallel_start_rank",
]
SGLANG_KEYS = [
    "model_path", "tp_size", "pp_size", "dp_size", "ep_size", "context_length",
    "mem_fraction_static", "max_running_requests", "chunked_prefill_size",
    "cuda_graph_max_bs_decode", "cuda_graph_backend_decode", "kv_cache_dtype", "dtype",
    "quantization", "enable_lora", "max_loras_per_batch", "max_lora_rank",
    "lora_target_modules", "max_loaded_loras",
    "disaggregation_mode", "disaggregation_transfer_backend", "num_reserved_decode_tokens",
    "attn_dp_size", "enable_dp_attention", "nnodes", "node_rank",
]


def vllm_parser():
    # No GPU here: vLLM's device inference would fail while the parser fills its defaults.
    import vllm.platforms as platforms
    from vllm.platforms.cpu import CpuPlatform

    platforms._current_platform = CpuPlatform()
    from vllm.entrypoints.common.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    return make_arg_parser(FlexibleArgumentParser())


def sglang_parser():
    from sglang.srt.server_args import ServerArgs

    p = argparse.ArgumentParser(exit_on_error=False)
    ServerArgs.add_cli_args(p)
    return p


def plain(v):
    """A parsed value as JSON has it (enums by their value)."""
    if hasattr(v, "value") and not isinstance(v, (int, float, str, bool)):
        return v.value
    if hasattr(v, "kv_connector") and hasattr(v, "kv_role"):
        # vLLM's KVTransferConfig: the connector and the role vramfit writes.
        return {"kv_connector": v.kv_connector, "kv_role": v.kv_role}
    return v


def parse(parser, words, keys):
    try:
        ns = parser.parse_args(words)
    except (SystemExit, argparse.ArgumentError) as e:
        return None, f"{type(e).__name__}: {e}"
    return {k: plain(getattr(ns, k)) for k in keys if hasattr(ns, k)}, None


def main():
    commands = json.loads(COMMANDS.read_text())
    parsers = {}
    parsed = []
    for c in commands:
        argv, engine = c["argv"], c["engine"]
        if engine == "vllm":
            parser = parsers.setdefault("vllm", vllm_parser())
            values, error = parse(parser, argv[2:], VLLM_KEYS)
        elif engine == "sglang":
            parser = parsers.setdefault("sglang", sglang_parser())
            values, error = parse(parser, argv[3:], SGLANG_KEYS)
        else:
            continue
        parsed.append({"name": c["name"], "argv": argv, "values": values, "error": error})
    out = {
        "tools": {"vllm": version("vllm"), "sglang": version("sglang"), "python": sys.version.split()[0]},
        "parsed": parsed,
    }
    OUT.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(parsed)} commands")


if __name__ == "__main__":
    main()
