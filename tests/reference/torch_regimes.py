"""The training stacks' memory savers, written out as each stack runs them, for torch_peaks.py.

- `chunked_loss`: torchtune's `LinearCrossEntropyLoss` (torchtune/modules/loss/cross_entropy_loss.py,
  num_output_chunks 8): the hidden states split along the sequence (`tensor_split`), each chunk's
  non-ignored rows gathered (`hidden_chunk[mask_chunk]`, a copy), projected by the output layer, upcast
  to fp32 and reduced by `F.cross_entropy(..., reduction="sum")`; the sum over chunks divided by the
  non-ignored tokens. No label here is ignored, so the gather keeps every row (written as an integer
  index: a boolean mask's output shape depends on values, which fake tensors do not carry).
- `fused_loss`: Liger's `LigerFusedLinearCrossEntropyFunction` as Liger-Kernel v0.8.2 runs it
  (linkedin/Liger-Kernel src/liger_kernel/ops/fused_linear_cross_entropy.py at 000be609, tag v0.8.2,
  2026-08-18): the forward computes the gradients chunk by chunk,
  `chunk_size = next_power_of_2(ceil(BT / ceil(V / H)))` capped at BT; each chunk's logits a new
  tensor (`_input_chunk @ weight.t()`, chunk x V in the input dtype), allocated while the previous
  chunk's logits are still bound; the Triton kernel writing the logits' gradient in place (here an
  in-place op: no allocation, as the kernel makes none); `grad_input` (BT x H) and `grad_weight`
  (V x H, when the head is trained) kept for backward, which only scales them. The head's gradient
  accumulates by `torch.addmm(..., out_dtype=torch.float32, out=grad_weight)` (no allocation) when
  `grad_weight` is fp32 and the logits are half precision (torch >= 2.8, sm80+), otherwise by
  `grad_weight += torch.mm(grad_logits_chunk.t(), _input_chunk).float()`: a V x H product in the
  logits' dtype and its fp32 copy, alive together, per chunk.
- `OffloadActivations`: torchtune's `torchtune.training.OffloadActivations` with `use_streams=True`
  (torchtune/training/_activation_offloading.py): a saved tensor of 1024 B or more is copied to pinned
  host memory (not counted: the tracker is paused for the host copy), its GPU tensor kept in the
  forward stash until 5 newer tensors are packed (`max_fwd_stash_size`); in backward a tensor still in
  the stash is used as it is, any other is copied back to the GPU and kept until the next autograd
  node's hook (the previous node's are freed there; the whole stash at the first hook).
- optimizer in backward: torchtune's `optimizer_in_bwd` (`training.register_optim_in_bwd_hooks`):
  one optimizer per parameter, stepped and zeroed in `register_post_accumulate_grad_hook`.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.autograd.graph import saved_tensors_hooks


def chunked_loss(h, head, labels, chunks, ignore_index=-100):
    """torchtune's LinearCrossEntropyLoss.forward over hidden states `h` (B, S, H)."""
    total = (labels != ignore_index).sum()
    loss = 0.0
    for hc, tc in zip(h.tensor_split(chunks, dim=1), labels.tensor_split(chunks, dim=1)):
        n = hc.shape[0] * hc.shape[1]
        rows = torch.arange(n, device=hc.device)
        hidden = hc.reshape(n, hc.shape[-1])[rows]  # hidden_chunk[mask_chunk]: a copy
        target = tc.reshape(n)[rows]
        logits = head(hidden)
        loss = loss + F.cross_entropy(logits.float(), target, reduction="sum", ignore_index=ignore_index)
    return loss / total


def _next_pow2(x: int) -> int:
    return 1 << (x - 1).bit_length()


def liger_chunk_size(bt: int, v: int, h: int) -> int:
    inc = -(-v // h)
    return min(_next_pow2(-(-bt // inc)), bt)


class FusedLinearCE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, target):
        bt, h = x.shape
        v = w.shape[0]
        chunk = liger_chunk_size(bt, v, h)
        grad_input = torch.zeros_like(x)
        grad_weight = torch.zeros_like(w) if w.requires_grad else None
        loss_1d = torch.zeros(bt, dtype=torch.float32, device=x.device)
        _mask = target != -100  # target_mask (its .item() is skipped: fake tensors carry no values)
        logits = None
        for start in range(0, bt, chunk):
            end = min(start + chunk, bt)
            xc = x[start:end]
            logits = xc @ w.t()  # a new chunk; the previous one is freed only at this rebinding
            logits.mul_(1.0)  # the cross-entropy kernel: loss and gradient written in place
            grad_input[start:end] = logits @ w
            if grad_weight is not None:
                if grad_weight.dtype == torch.float32 and logits.dtype in (torch.float16, torch.bfloat16):
                    torch.addmm(grad_weight, logits.t(), xc.to(logits.dtype), out_dtype=torch.float32,
                                out=grad_weight)
                else:
                    grad_weight += torch.mm(logits.t(), xc).float()
            del xc
        del logits
        loss = torch.sum(loss_1d)
        ctx.save_for_backward(grad_input, grad_weight)
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        grad_input, grad_weight = ctx.saved_tensors
        # element_mul_kernel scales in place when grad_output is not 1.0: no allocation.
        return grad_input, grad_weight, None


def fused_loss(h, head, labels):
    """transformers' forward as Liger patches it (`lce_forward` + `LigerForCausalLMLoss`): the
    labels shifted by padding (`F.pad(labels, (0, 1), value=-100)[..., 1:]`), the hidden states of
    every position flattened, the mean over the non-ignored tokens."""
    shift = F.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
    x = h.reshape(-1, h.shape[-1])
    return FusedLinearCE.apply(x, head.weight, shift.reshape(-1)) / shift.numel()


class OffloadActivations(saved_tensors_hooks):
    """torchtune's OffloadActivations(use_streams=True), its memory behaviour without streams."""

    def __init__(self, tracker, max_fwd_stash_size=5, min_offload_size=1024):
        self.tracker = tracker
        self.tid = 0
        self.fwd_stash: dict[int, torch.Tensor] = {}
        self.bwd_stash: dict[int, torch.Tensor] = {}
        self.cur_node = None
        self.cpu_bytes = 0
        self.cpu_peak = 0

        def pack(t):
            n = t.element_size() * t.nelement()
            if n < min_offload_size or isinstance(t, torch.nn.Parameter):
                return (None, t)
            self.tid += 1
            tid = self.tid
            for k in [k for k in self.fwd_stash if k <= tid - max_fwd_stash_size]:
                del self.fwd_stash[k]
            tracker.paused = True
            try:
                host = torch.empty_like(t)  # pinned host copy
            finally:
                tracker.paused = False
            self.cpu_bytes += n
            self.cpu_peak = max(self.cpu_peak, self.cpu_bytes)
            self.fwd_stash[tid] = t
            return (tid, host)

        def unpack(packed):
            tid, t = packed
            if tid is None:
                return t
            node = torch._C._current_autograd_node()
            prev = []
            if node is not None and node is not self.cur_node:
                self.cur_node = node
                prev = list(self.bwd_stash)
            self.cpu_bytes -= t.element_size() * t.nelement()
            if tid in self.fwd_stash:
                gpu = self.fwd_stash[tid]
            else:
                gpu = t.clone()  # brought back to the GPU
                self.bwd_stash[tid] = gpu

            def hook(outputs, inputs):
                self.fwd_stash.clear()
                for k in prev:
                    self.bwd_stash.pop(k, None)
                return outputs

            if node is not None:
                node.register_hook(hook)
            return gpu

        super().__init__(pack, unpack)

    def finish(self):
        self.fwd_stash.clear()
        self.bwd_stash.clear()
        self.cur_node = None


def optimizer_in_backward(params, make_optimizer):
    """torchtune's register_optim_in_bwd_hooks: one optimizer per parameter, stepped in its
    post-accumulate-grad hook and its gradient set to None."""
    opts = {p: make_optimizer([p]) for p in params}

    def step(p):
        opts[p].step()
        opts[p].zero_grad(set_to_none=True)

    for p in params:
        p.register_post_accumulate_grad_hook(step)
    return opts
