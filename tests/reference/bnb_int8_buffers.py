"""bitsandbytes LLM.int8() under LoRA: the tensors one frozen int8 linear creates in forward
and backward, logged op by op, against the sizes vramfit counts (`training/kbit.rs`).

bitsandbytes' CUDA kernels cannot run here (no GPU) and its custom ops are opaque to fake
tensors below their registered fakes, so this runs `MatMul8bitLt` itself on CPU with small real
tensors, through bitsandbytes' own "default" kernels, which the CUDA path shares above
`int8_linear_matmul` (bitsandbytes 0.50.2: `backends/default/ops.py` registers
`int8_scaled_mm` for every device as `int8_linear_matmul` into an int32 tensor, then
`int8_mm_dequant`; `backends/cuda/ops.py` allocates that int32 output of tokens × out).
`bitsandbytes.matmul` would route CPU training to `MatMul8bitFp`; CUDA training takes
`MatMul8bitLt`, called here directly.

    pip install --no-deps bitsandbytes==0.50.2
    python tests/reference/bnb_int8_buffers.py

Checks (and prints): forward makes the int8 input `CA` (tokens × in × 1 B) and the int32
accumulator (tokens × out × 4 B) before the 16-bit output; backward for the input's gradient
copies the whole int8 weight to 16 bits (out × in × 2 B). Versions: torch 2.15.0,
bitsandbytes 0.50.2.
"""

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import bitsandbytes
import bitsandbytes.functional as F
from bitsandbytes.autograd._functions import MatMul8bitLt, MatmulLtState


class Log(TorchDispatchMode):
    """Every op's outputs: (op, shape, dtype, bytes)."""

    def __init__(self):
        super().__init__()
        self.rows = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.rows.append((str(func), tuple(t.shape), t.dtype, t.numel() * t.element_size()))
        return out


def main():
    tokens, d_in, d_out = 64, 256, 512
    torch.manual_seed(0)
    w = torch.randn(d_out, d_in, dtype=torch.float16)
    state = MatmulLtState()
    state.threshold, state.has_fp16_weights, state.is_training = 6.0, False, True
    state.CB, state.SCB, _ = F.int8_vectorwise_quant(w)
    x = torch.randn(tokens, d_in, dtype=torch.float16, requires_grad=True)

    with Log() as fwd:
        y = MatMul8bitLt.apply(x, state.CB, None, None, state)
        # What `int8_mixed_scaled_mm` runs inside (opaque to the mode above), op by op.
        ca, sca, _ = torch.ops.bitsandbytes.int8_vectorwise_quant.default(x.detach(), 0.0)
        acc = torch.ops.bitsandbytes.int8_linear_matmul.default(ca, state.CB)
        torch.ops.bitsandbytes.int8_mm_dequant.default(acc, sca, state.SCB, dtype=torch.float16)
    with Log() as bwd:
        y.sum().backward()

    for phase, log in (("forward", fwd), ("backward", bwd)):
        for op, shape, dtype, size in log.rows:
            print(f"{phase:8} {op:48} {str(shape):14} {str(dtype):14} {size}")

    def made(log, dtype, size):
        return any(d == dtype and s == size for _, _, d, s in log.rows)

    assert made(fwd, torch.int8, tokens * d_in), "CA: tokens × in int8"
    assert made(fwd, torch.int32, tokens * d_out * 4), "int32 accumulator: tokens × out × 4 B"
    assert made(bwd, torch.float16, d_out * d_in * 2), "16-bit copy of the weight: out × in × 2 B"
    largest_bwd = max(s for _, _, _, s in bwd.rows)
    assert largest_bwd == d_out * d_in * 2, largest_bwd
    print(
        f"bitsandbytes {bitsandbytes.__version__}, torch {torch.__version__}: forward int8 input "
        f"{tokens * d_in} B + int32 accumulator {tokens * d_out * 4} B = tokens × (in + 4 × out); "
        f"backward's largest tensor {largest_bwd} B = out × in × 2 B: as vramfit counts"
    )


if __name__ == "__main__":
    main()
