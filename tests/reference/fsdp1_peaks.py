#!/usr/bin/env python3
"""FSDP1 reference peaks for vramfit, produced without a GPU (`fsdp1-peaks.csv`).

The same model, steps and accounting as `fsdp_peaks.py` (FSDP2), with PyTorch's
`FullyShardedDataParallel` instead of `fully_shard`: the Llama-architecture `transformers`
model wrapped as accelerate and transformers wrap it (`transformer_auto_wrap_policy` on the
decoder layer, the rest in the root unit), `MixedPrecision(param_dtype=bf16,
reduce_dtype=bf16)`, `device_id` cpu, on a fake process group (`fake` backend, `FakeStore`:
rank 0 of a world of N, collectives allocate their outputs and move no data), under fake
tensors; rank 0's peak of live tensor storages as `torch_peaks.PeakTracker` counts them, over
two steps of forward, backward and foreach AdamW. FSDP1 frees and refills its unsharded flat
parameters and its low-precision shards by resizing their storages
(`torch/distributed/utils.py` `_alloc_storage` / `_free_storage`, imported by
`fsdp/_flat_param.py`), which no aten op shows: both are wrapped so the tracker sees them.

Regimes: `FULL_SHARD`, `SHARD_GRAD_OP` and `NO_SHARD`; `use_orig_params` True (accelerate's
default) and False; `CPUOffload(offload_params=True)` under `FULL_SHARD`. Under CPU offload
the flat parameters' shards and `_cpu_grad` are CPU memory: on this CPU run they are taken off
the peak (the step runs outside the tracker, as in `fsdp_peaks.py`); `pin_memory` (which fake
tensors do not implement) returns the tensor itself.

    python tests/reference/fsdp1_peaks.py             # rewrites fsdp1-peaks.csv (~2 min)
    python tests/reference/fsdp1_peaks.py w4-full_shard-b1s32 --explain   # one case's peak

Needs torch and transformers (the versions of README.md); no GPU, no network.
"""
from __future__ import annotations

import csv
import functools
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fsdp_peaks as f2  # noqa: E402  (its model, its tracker with storage resizes)
import torch_peaks as tp  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import transformers  # noqa: E402
from torch.distributed.fsdp import CPUOffload, MixedPrecision, ShardingStrategy  # noqa: E402
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP  # noqa: E402
from torch.distributed.fsdp import _flat_param  # noqa: E402
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaDecoderLayer  # noqa: E402

OUT = os.path.join(HERE, "fsdp1-peaks.csv")
CONFIG = f2.CONFIG

FIELDS = ["case_id", "world_size", "sharding_strategy", "use_orig_params", "offload", "batch",
          "seq_len", "hidden_size", "intermediate_size", "num_hidden_layers",
          "num_attention_heads", "num_key_value_heads", "vocab_size", "params",
          "peak_allocated_bytes", "peak_phase", "torch_version", "transformers_version", "method"]

_alloc, _free = _flat_param._alloc_storage, _flat_param._free_storage


def alloc_storage(tensor, size):
    _alloc(tensor, size)
    if f2.TRACKER is not None:
        f2.TRACKER.resized(tensor, size.numel() * tensor.element_size())


def free_storage(tensor):
    _free(tensor)
    if f2.TRACKER is not None:
        f2.TRACKER.resized(tensor, 0)


_flat_param._alloc_storage = alloc_storage
_flat_param._free_storage = free_storage
# A fake tensor's storage has no data pointer: allocated is a non-empty storage.
_flat_param._data_ptr_allocated = lambda t: t.untyped_storage().nbytes() > 0
# Nor can two of them be told apart by data pointer: a gradient is the flat gradient's view when
# they share a storage (else FSDP1 writes every original gradient back into a new flat one).
_flat_param._same_storage = lambda a, b: a.untyped_storage()._cdata == b.untyped_storage()._cdata
# Fake tensors have no `_pin_memory`; pinned or not, the tensor is CPU memory.
torch.Tensor.pin_memory = lambda self, *a, **k: self
# FSDP1's CPU-offload path waits on its streams; the CPU's have nothing to wait for.
torch.cpu.Stream.synchronize = lambda self: None

_writeback = _flat_param.FlatParamHandle._writeback_orig_params


def writeback_orig_params(self):
    """Under CPU offload FSDP1 writes the original parameters' gradients back into a new flat
    gradient beside the CPU shard (`zeros_like(flat_param)`): CPU memory, never counted."""
    tr = f2.TRACKER
    if tr is None or not self._offload_params:
        return _writeback(self)
    tr.host = True
    try:
        return _writeback(self)
    finally:
        tr.host = False


class Tracker(f2.Tracker):
    """`fsdp_peaks.Tracker` that leaves out storages created while `host` is set (CPU memory
    on a real run), then and later."""

    def __init__(self, explain: bool = False):
        super().__init__(explain)
        self.host = False
        self.host_keys: set[int] = set()

    def track(self, t, op="param"):
        if isinstance(t, torch.Tensor) and not self.paused:
            key = t.untyped_storage()._cdata
            if self.host and key not in self.live:
                self.host_keys.add(key)
            if key in self.host_keys:
                return
        super().track(t, op)


_flat_param.FlatParamHandle._writeback_orig_params = writeback_orig_params

STRATEGIES = {"FULL_SHARD": ShardingStrategy.FULL_SHARD,
              "SHARD_GRAD_OP": ShardingStrategy.SHARD_GRAD_OP,
              "NO_SHARD": ShardingStrategy.NO_SHARD}


def handles(model):
    """The flat parameters of every FSDP unit."""
    return [m._handle.flat_param for m in model.modules()
            if isinstance(m, FSDP) and m._handle is not None]


def case_id(world: int, strategy: str, orig: bool, offload: bool, batch: int, seq: int) -> str:
    return (f"llama-w{world}-{strategy.lower()}{'' if orig else '-flat'}"
            f"{'-offload' if offload else ''}-b{batch}s{seq}")


def run_case(world: int, strategy: str, orig: bool, offload: bool, batch: int, seq: int) -> dict:
    with torch.device("meta"):
        model = LlamaForCausalLM(LlamaConfig(**CONFIG, attn_implementation="sdpa"))
    params = sum(p.numel() for p in model.parameters())
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    fake.__enter__()
    model = model.to_empty(device="cpu")
    model = FSDP(
        model,
        auto_wrap_policy=functools.partial(transformer_auto_wrap_policy,
                                           transformer_layer_cls={LlamaDecoderLayer}),
        sharding_strategy=STRATEGIES[strategy],
        mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16),
        cpu_offload=CPUOffload(offload_params=offload),
        use_orig_params=orig,
        device_id=torch.device("cpu"),
    )
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    f2.TRACKER = tr = Tracker(explain=EXPLAIN)
    with tr:
        for p in model.parameters():
            tr.track(p)
        for fp in handles(model):
            tr.track(fp)
        tr.reset_peak()
        for step in (1, 2):
            ids = torch.randint(0, CONFIG["vocab_size"], (batch, seq))
            tr.phase = f"fwd{step}"
            loss = model(input_ids=ids, labels=ids).loss
            tr.phase = f"bwd{step}"
            loss.backward()
            del loss, ids
            tr.phase = f"step{step}"
            f2.optimizer_step(tr, opt, offload)
        peak, snap = tr.finish()
        if offload:
            # On the GPU at that moment: the peak's storages less the CPU-resident ones (the
            # shards, the pre-allocated `_cpu_grad` each gradient is copied into).
            cpu = set()
            for fp in handles(model):
                for name in ("_local_shard", "_cpu_grad"):
                    t = getattr(fp, name, None)
                    if t is not None:
                        cpu.add(tr.uid_of(t))
            peak -= sum(n for u, n in snap.items() if u in cpu)
    if EXPLAIN:
        labels = {tr.uid_of(fp): "flat" for fp in handles(model)}
        tr.explain_peak(snap, labels)
    f2.TRACKER = None
    fake.__exit__(None, None, None)
    return {
        "case_id": case_id(world, strategy, orig, offload, batch, seq),
        "world_size": world,
        "sharding_strategy": strategy,
        "use_orig_params": str(orig).lower(),
        "offload": "cpu" if offload else "none",
        "batch": batch,
        "seq_len": seq,
        **f2.model_and_peak(params, peak, tr.peak_phase),
    }


REGIMES = [  # (sharding strategy, use_orig_params, CPU offload)
    ("FULL_SHARD", True, False),
    ("FULL_SHARD", False, False),
    ("SHARD_GRAD_OP", True, False),
    ("NO_SHARD", True, False),
    ("FULL_SHARD", True, True),
]


EXPLAIN = "--explain" in sys.argv


def main():
    tp.install_patches()
    args = [a for a in sys.argv[1:] if a != "--explain"]
    only = args[0] if args else ""
    rows = []
    for world in (4, 8):
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
        for strategy, orig, offload in REGIMES:
            for batch, seq in ((1, 32), (1, 512), (2, 1024)):
                if only not in case_id(world, strategy, orig, offload, batch, seq):
                    continue
                row = run_case(world, strategy, orig, offload, batch, seq)
                rows.append(row)
                print(row["case_id"], row["peak_allocated_bytes"], row["peak_phase"],
                      file=sys.stderr)
        dist.destroy_process_group()
    if only:
        return
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
