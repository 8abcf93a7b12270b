#!/usr/bin/env python3
"""FSDP2 reference peaks for vramfit, produced without a GPU (`fsdp-peaks.csv`).

Runs a Llama-architecture `transformers` model wrapped as transformers and accelerate wrap it
(`fully_shard` on every decoder layer, then on the whole model) on a fake process group
(`torch.distributed` backend `fake`, `FakeStore`: rank 0 of a world of N, collectives
allocate their outputs and move no data), on CPU tensors, and records rank 0's peak of live
tensor storages with `torch_peaks.PeakTracker` (the same accounting as `torch-peaks.csv`),
over two steps of forward, backward and AdamW. FSDP2 frees and refills its gathered
parameters by resizing their storages (`_fsdp_param.py` `alloc_storage` / `free_storage`),
which no aten op shows: both are wrapped here so the tracker sees them.

    python tests/reference/fsdp_peaks.py              # rewrites fsdp-peaks.csv (~1 min)

Needs torch and transformers (the versions of README.md); no GPU, no network.
"""
from __future__ import annotations

import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch_peaks as tp  # noqa: E402  (its environment patches and its tracker)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import transformers  # noqa: E402
from torch.distributed.device_mesh import init_device_mesh  # noqa: E402
from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard  # noqa: E402
from torch.distributed.fsdp._fully_shard import _fsdp_param, _fsdp_param_group  # noqa: E402
from torch.distributed.tensor import DTensor  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

OUT = os.path.join(HERE, "fsdp-peaks.csv")

# A Llama-3-shaped decoder at a size the CPU runs in seconds: the root unit (embedding, head)
# is 5.2 × a layer, as Llama-3.1-8B's is 4.8 ×.
CONFIG = dict(hidden_size=512, intermediate_size=1536, num_hidden_layers=6,
              num_attention_heads=8, num_key_value_heads=4, vocab_size=16000,
              tie_word_embeddings=False, max_position_embeddings=4096, rms_norm_eps=1e-5)

FIELDS = ["case_id", "world_size", "reshard_after_forward", "offload", "batch", "seq_len",
          "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
          "num_key_value_heads", "vocab_size", "params", "peak_allocated_bytes", "peak_phase",
          "torch_version", "transformers_version", "method", "reduce_dtype"]


class Tracker(tp.PeakTracker):
    """PeakTracker over a DTensor's local shard, and over FSDP2's storage resizes."""

    def track(self, t, op="param"):
        if isinstance(t, DTensor):
            t = t._local_tensor
        super().track(t, op)

    def uid_of(self, t):
        return super().uid_of(t._local_tensor if isinstance(t, DTensor) else t)

    def resized(self, t, nbytes):
        key = t.untyped_storage()._cdata
        ent = self.live.get(key)
        if ent is None:
            return
        uid, old = ent
        new = tp.round_alloc(nbytes)
        self.live[key] = (uid, new)
        if new < old and self.snap_pending and self.cur == self.peak:
            self._snapshot()
        self.cur += new - old
        if self.cur > self.peak:
            self.peak = self.cur
            self.peak_phase = self.phase
            self.snap_pending = True


TRACKER: Tracker | None = None
_alloc, _free = _fsdp_param.alloc_storage, _fsdp_param.free_storage


def alloc_storage(tensor):
    _alloc(tensor)
    if TRACKER is not None:
        TRACKER.resized(tensor, tensor.numel() * tensor.itemsize)


def free_storage(tensor):
    _free(tensor)
    if TRACKER is not None:
        TRACKER.resized(tensor, 0)


_fsdp_param.alloc_storage = alloc_storage
_fsdp_param.free_storage = free_storage
_fsdp_param_group.alloc_storage = alloc_storage


def run_case(world: int, reshard: bool, offload: bool, batch: int, seq: int,
             reduce: torch.dtype = torch.bfloat16) -> dict:
    global TRACKER
    mesh = init_device_mesh("cpu", (world,))
    with torch.device("meta"):
        model = LlamaForCausalLM(LlamaConfig(**CONFIG, attn_implementation="sdpa"))
    params = sum(p.numel() for p in model.parameters())
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    fake.__enter__()
    model = model.to_empty(device="cpu")
    # accelerate's FSDP2 with mixed_precision bf16: fp32 shards, bf16 gathered and reduced.
    kw = dict(mesh=mesh, reshard_after_forward=reshard,
              mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=reduce))
    if offload:
        kw["offload_policy"] = CPUOffloadPolicy(pin_memory=False)
    for layer in model.model.layers:
        fully_shard(layer, **kw)
    fully_shard(model, **kw)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    TRACKER = tr = Tracker()
    with tr:
        for p in model.parameters():
            tr.track(p)
        # Offloaded, the fp32 shards are CPU memory, alive through the run: taken off the peak
        # (this CPU run's copy to the "device" is the shard itself, a view of it).
        shards = {tr.uid_of(p) for p in model.parameters()}
        grads: set = set()
        tr.reset_peak()
        for step in (1, 2):
            ids = torch.randint(0, CONFIG["vocab_size"], (batch, seq))
            tr.phase = f"fwd{step}"
            loss = model(input_ids=ids, labels=ids).loss
            tr.phase = f"bwd{step}"
            loss.backward()
            del loss, ids
            if offload:
                # FSDP2 copies each shard gradient to the CPU and frees the GPU's copy; here the
                # copy is the tensor itself: its storage is CPU memory.
                grads |= {tr.uid_of(p.grad) for p in model.parameters() if p.grad is not None}
            tr.phase = f"step{step}"
            optimizer_step(tr, opt, offload)
        peak, snap = tr.finish()
        if offload:
            # On the GPU at that moment: the peak's storages less the CPU-resident ones.
            peak -= sum(n for u, n in snap.items() if u in shards or u in grads)
    TRACKER = None
    fake.__exit__(None, None, None)
    return {
        "case_id": f"llama-w{world}-{'reshard' if reshard else 'keep'}{'-offload' if offload else ''}"
                   f"{'-reduce32' if reduce == torch.float32 else ''}-b{batch}s{seq}",
        "world_size": world,
        "reshard_after_forward": str(reshard).lower(),
        "offload": "cpu" if offload else "none",
        "batch": batch,
        "seq_len": seq,
        **model_and_peak(params, peak, tr.peak_phase),
        "reduce_dtype": "fp32" if reduce == torch.float32 else "bf16",
    }


def optimizer_step(tr, opt, offload):
    """The optimizer's step and `zero_grad`; with offload the step runs on the CPU over CPU
    tensors, outside the GPU's allocator, so the tracker is left for it."""
    if offload:
        tr.__exit__(None, None, None)
        opt.step()
        opt.zero_grad(set_to_none=True)
        tr.__enter__()
    else:
        opt.step()
        opt.zero_grad(set_to_none=True)


def model_and_peak(params, peak, phase):
    """The columns every fake-process-group row ends with (FSDP2's and FSDP1's): the model's
    shape, its parameters, the peak with cuBLAS's workspace, and the versions."""
    return {
        **{k: CONFIG[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers",
                                  "num_attention_heads", "num_key_value_heads", "vocab_size")},
        "params": params,
        "peak_allocated_bytes": peak + tp.CUBLAS_WORKSPACE,
        "peak_phase": phase,
        "torch_version": torch.__version__.split("+")[0],
        "transformers_version": transformers.__version__,
        "method": "fake-process-group",
    }


def main():
    tp.install_patches()
    rows = []
    for world in (4, 8):
        dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
        for reshard, offload in ((True, False), (False, False), (True, True)):
            for batch, seq in ((1, 32), (1, 512), (2, 1024)):
                rows.append(run_case(world, reshard, offload, batch, seq))
                print(rows[-1]["case_id"], rows[-1]["peak_allocated_bytes"], rows[-1]["peak_phase"],
                      file=sys.stderr)
        # FSDP's reduce_dtype fp32 under bf16 (verl's actor): the reduce-scatter input in fp32.
        for batch, seq in ((1, 32), (1, 512), (2, 1024)):
            rows.append(run_case(world, True, False, batch, seq, reduce=torch.float32))
            print(rows[-1]["case_id"], rows[-1]["peak_allocated_bytes"], rows[-1]["peak_phase"],
                  file=sys.stderr)
        dist.destroy_process_group()
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
