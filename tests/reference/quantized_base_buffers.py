"""torchao NF4 (torchtune's QLoRA) and HQQ bases on CPU: the bytes each format stores per weight
and the transient its dequantization holds in forward and backward, against what vramfit counts
(`crates/vramfit/src/estimate/weights.rs`, `training/kbit.rs`, tests in `training/kbit_tests.rs`).

Real tensors, small matrices (the formats are per block or group, so bytes scale exactly); a
dispatch mode follows every storage the ops create until it is freed and keeps the peak of live
bytes. Eager only: `torch.compile` fuses the dequantization (2 B per weight, not measured here).

    pip install --no-deps torchao==0.18.0 hqq==0.2.8.post1 && pip install termcolor
    python tests/reference/quantized_base_buffers.py

Versions: torch 2.15.0, torchao 0.18.0, hqq 0.2.8.post1.
"""

import weakref

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import torchao
from torchao.quantization.quantize_.workflows.nf4.nf4_tensor import linear_nf4, to_nf4
from hqq.core.quantize import BaseQuantizeConfig, HQQLinear


class Live(TorchDispatchMode):
    """The peak of bytes alive in storages the ops under it create."""

    def __init__(self):
        super().__init__()
        self.refs, self.size, self.live, self.peak = {}, {}, 0, 0

    def _drop(self, ptr):
        self.refs[ptr] -= 1
        if self.refs[ptr] == 0:
            self.live -= self.size.pop(ptr)
            del self.refs[ptr]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor) and type(t) is torch.Tensor:
                ptr = t.untyped_storage().data_ptr()
                if ptr not in self.refs:
                    self.refs[ptr], self.size[ptr] = 0, t.untyped_storage().nbytes()
                    self.live += self.size[ptr]
                self.refs[ptr] += 1
                weakref.finalize(t, self._drop, ptr)
        self.peak = max(self.peak, self.live)
        return out


def peaks(module_fn, d_in, n):
    """Forward and backward transient peaks of one frozen quantized linear, per weight."""
    x = torch.randn(8, d_in, dtype=torch.bfloat16, requires_grad=True)
    with Live() as f:
        y = module_fn(x)
    with Live() as b:
        y.sum().backward()
    return f.peak / n, b.peak / n


def torchao_nf4():
    # Llama-3.1-8B's MLP matrix: the bytes as stored.
    w = to_nf4(torch.randn(14336, 4096, dtype=torch.bfloat16))
    n = 14336 * 4096
    stored = sum(
        t.numel() * t.element_size()
        for t in (w.quantized_data, w.quantized_scalers, w.quantization_factor, w.scaler_mean, w.nf4)
    )
    hand = n // 2 + n // 64 + n // (64 * 256) * 2 + 2 + 16 * 2
    print(f"torchao {torchao.__version__} NF4 14336x4096: {stored} B stored, by hand {hand}")
    assert stored == hand == 30_284_834
    o, i = 4096, 1024
    n = o * i
    small = to_nf4(torch.randn(o, i, dtype=torch.bfloat16))
    fwd, bwd = peaks(lambda x: linear_nf4(x, small), i, n)
    # Eager get_original_weight: two int64 nibble halves, both looked up and scaled in 16 bits,
    # the stacked weight and the dequantized scalers: 14 n + n / 32.
    print(f"torchao NF4 dequantization, eager: forward {fwd} B, backward {bwd:.6f} B per weight")
    assert fwd == 14 + 1 / 32 and abs(bwd - fwd) < 1e-5


def hqq():
    o, i = 512, 256
    n, groups = o * i, o * i // 64
    for bits in (1, 2, 3, 4, 5, 6, 8):
        lin = torch.nn.Linear(i, o, bias=False).to(torch.bfloat16)
        cfg = BaseQuantizeConfig(nbits=bits, group_size=64, quant_zero=False, quant_scale=False, axis=0)
        q = HQQLinear(lin, quant_config=cfg, compute_dtype=torch.bfloat16, device="cpu")
        stored = q.W_q.numel() * q.W_q.element_size() + sum(
            v.numel() * v.element_size() for v in q.meta.values() if isinstance(v, torch.Tensor)
        )
        codes = {3: groups * 7 * 4, 1: n // 8, 2: n // 4, 4: n // 2}.get(bits, n)
        hand = codes + groups * 4
        print(f"HQQ {bits}-bit, groups of 64: {stored} B = {stored * 8 / n} bits per weight, by hand {hand}")
        assert stored == hand
        if bits == 4:
            fwd, bwd = peaks(q, i, n)
            print(f"HQQ dequantization, eager: forward {fwd} B, backward {bwd:.6f} B per weight")
            assert fwd == 6 and abs(bwd - 6) < 1e-3  # backward adds the 8-row gradients


if __name__ == "__main__":
    print(f"torch {torch.__version__}")
    torchao_nf4()
    hqq()
