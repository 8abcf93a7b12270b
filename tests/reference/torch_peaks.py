#!/usr/bin/env python3
"""Tensor-level GPU-memory reference figures for vramfit, produced without a GPU.

Runs real Hugging Face `transformers` models (random weights, configs written inline,
no hub access) under `torch._subclasses.fake_tensor.FakeTensorMode` and records, per
case, the peak of the bytes that PyTorch's CUDA caching allocator would count in
`torch.cuda.max_memory_allocated()`: every live tensor storage, each rounded up to the
allocator's 512-byte block size, plus the cuBLAS workspace. See README.md in this
directory for the method, the traps and how each one is handled.

    python tests/reference/torch_peaks.py            # rewrites torch-peaks.csv
    python tests/reference/torch_peaks.py --only gpt2 --out /tmp/x.csv

Needs `torch` and `transformers` (pip); no GPU, no network. Deterministic: fake tensors
carry no values, the case list is fixed, nothing depends on timing.
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import itertools
import os
import sys
import warnings
import weakref

os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

import transformers  # noqa: E402
from transformers.pytorch_utils import Conv1D  # noqa: E402
from transformers import AutoModelForCausalLM, BertForSequenceClassification  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "torch-peaks.csv")

# ---------------------------------------------------------------------------------------
# Allocator model
# ---------------------------------------------------------------------------------------
ALLOC_ROUND = 512  # c10 CUDACachingAllocator kMinBlockSize: every request rounded up
# cuBLAS workspace on sm90 (CUBLAS_WORKSPACE_CONFIG default ":4096:8" = 32 MiB), taken
# from the caching allocator on the first GEMM of the (single) stream and counted in
# memory_allocated from then on. Every case here runs a GEMM, so it is always live.
CUBLAS_WORKSPACE = 32 * 1024 * 1024


def round_alloc(n: int) -> int:
    return ((n + ALLOC_ROUND - 1) // ALLOC_ROUND) * ALLOC_ROUND


_HOST_OPS = {torch.ops.aten.lift_fresh.default, torch.ops.aten.lift_fresh_copy.default}


class PeakTracker(TorchDispatchMode):
    """Live-storage accounting: every tensor an aten op returns registers its storage
    (once); a weakref finalizer on the storage frees it. Peak = max over time of the
    sum of rounded storage sizes. The set of live storages at the peak is kept so the
    peak can be split into parameters / gradients / optimizer states / the rest."""

    def __init__(self, explain: bool = False):
        super().__init__()
        self.live: dict[int, tuple[int, int]] = {}  # storage _cdata -> (uid, bytes)
        # --explain: uid -> (creating op, shape, dtype, phase), to list what is alive at the peak.
        self.explain = explain
        self.desc: dict[int, tuple[str, tuple, str, str]] = {}
        self.phase = "setup"  # set by run_case: fwd1, bwd1, step1, ...
        self.peak_phase = ""
        self.sub_peak = 0  # peak since start_sub(): the decode steps alone
        self.uid = itertools.count(1)
        self.cur = 0
        self.peak = 0
        self.peak_snapshot: dict[int, int] | None = {}  # uid -> bytes at the peak
        self.snap_pending = False
        self.paused = False  # activation offload: the host copies are not on the GPU

    # -- registration -------------------------------------------------------------
    def track(self, t, op: str = "param"):
        if not isinstance(t, torch.Tensor) or self.paused:
            return
        st = t.untyped_storage()
        key = st._cdata
        if key in self.live:
            return
        n = round_alloc(st.nbytes())
        uid = next(self.uid)
        self.live[key] = (uid, n)
        self.cur += n
        if self.explain:
            self.desc[uid] = (op, tuple(t.shape), str(t.dtype).replace("torch.", ""), self.phase)
        weakref.finalize(st, self._free, key, uid)
        self.sub_peak = max(self.sub_peak, self.cur)
        if self.cur > self.peak:
            self.peak = self.cur
            self.peak_phase = self.phase
            self.snap_pending = True

    def _free(self, key, uid):
        ent = self.live.get(key)
        if ent is None or ent[0] != uid:
            return
        if self.snap_pending and self.cur == self.peak:
            self._snapshot()
        del self.live[key]
        self.cur -= ent[1]

    def _snapshot(self):
        self.peak_snapshot = {u: n for (u, n) in self.live.values()}
        self.snap_pending = False

    def uid_of(self, t) -> int | None:
        ent = self.live.get(t.untyped_storage()._cdata)
        return None if ent is None else ent[0]

    def start_sub(self):
        """A second peak from now on, as torch.cuda.reset_peak_memory_stats() here would give."""
        self.sub_peak = self.cur

    def reset_peak(self):
        """Like torch.cuda.reset_peak_memory_stats(): peak := current."""
        self.peak = self.cur
        self._snapshot()

    def finish(self):
        if self.snap_pending:
            self._snapshot()
        return self.peak, self.peak_snapshot

    # -- dispatch -------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in _HOST_OPS:
            # torch.tensor(data) without a device: a host constant (e.g. the optimizer's
            # non-fused `step` counter); on a real run it never touches the GPU allocator.
            return out
        op = func.__name__ if self.explain else ""
        for t in torch.utils._pytree.tree_leaves(out):
            self.track(t, op)
        return out

    def explain_peak(self, snap: dict[int, int], labels: dict[int, str], file=sys.stderr):
        """Print the storages alive at the peak, grouped by (category, creating op, shape, dtype,
        phase created), largest groups first."""
        groups: dict[tuple, list[int]] = {}
        for u, n in snap.items():
            op, shape, dt, ph = self.desc.get(u, ("?", (), "?", "?"))
            key = (labels.get(u, "other"), op, shape, dt, ph)
            g = groups.setdefault(key, [0, 0])
            g[0] += 1
            g[1] += n
        total = sum(snap.values())
        print(f"  peak in phase {self.peak_phase}: {total:,} B in {len(snap)} storages (+ cuBLAS workspace)",
              file=file)
        for key, (cnt, n) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
            if n * 1000 < total:  # groups under 0.1 % of the peak are summed below
                continue
            cat, op, shape, dt, ph = key
            print(f"  {n:>15,} B {cnt:>5} x {cat:9s} {op:42s} {str(list(shape)):28s} {dt:9s} {ph}", file=file)
        rest = sum(n for (cnt, n) in groups.values() if n * 1000 < total)
        print(f"  {rest:>15,} B in groups under 0.1 % each", file=file)


# ---------------------------------------------------------------------------------------
# SDPA: choose the backend PyTorch 2.15 (cu13 wheel, cuDNN 9.26) picks on sm90
# ---------------------------------------------------------------------------------------
SDPA_LOG: dict[str, int] = {}


def _sm90_backend(q, k, v, attn_mask, dropout_p, is_causal, enable_gqa) -> str:
    """Mirror of aten/src/ATen/native/transformers/cuda/sdp_utils.cpp select_sdp_backend
    for dense inputs on an sm90 device with the default priority order. With CUDA >= 13
    and cuDNN > 9.15 on sm90/sm10x, check_prefer_cudnn_attention() puts cuDNN first:
    order cudnn, flash, efficient, math."""
    low = q.dtype in (torch.float16, torch.bfloat16)
    d_qk, d_v = q.shape[-1], v.shape[-1]
    s_q, s_k = q.shape[-2], k.shape[-2]
    same_heads = q.shape[1] == k.shape[1]
    gqa_ok = same_heads or (enable_gqa and q.shape[1] % k.shape[1] == 0)
    # cuDNN: fp16/bf16, head_dim <= 256 (sm90, cuDNN > 9.22) and % 8, s_k != 1,
    # backward only for d <= 128 (or 192/128, 256/256); GQA supported; masks supported.
    need_grad = torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad)
    if low and d_qk <= 256 and d_v <= 256 and d_qk % 8 == 0 and d_v % 8 == 0 and s_k != 1 and gqa_ok:
        if not need_grad or (d_qk <= 128 and d_v <= 128) or (d_qk, d_v) in ((192, 128), (256, 256)):
            return "cudnn"
    # Flash: fp16/bf16, no mask, equal head dims <= 256, causal needs s_q == s_k.
    if low and attn_mask is None and d_qk == d_v and d_qk <= 256 and gqa_ok and not (is_causal and s_q != s_k):
        return "flash"
    # Mem-efficient: fp16/bf16/fp32 on sm80+, head_dim % (8 if half else 4) (tensor-core
    # alignment), GQA supported on CUDA, masks supported.
    align = 8 if low else 4
    if d_qk == k.shape[-1] and d_qk % align == 0 and d_v % align == 0 and gqa_ok:
        return "efficient"
    return "math"


def sm90_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    if torch.is_autocast_enabled(DEV):
        # CUDA autocast lists aten::scaled_dot_product_attention as lower-precision: all
        # floating inputs (q, k, v and a float mask) are cast to the autocast dtype. The
        # wrapper replaces the public function, so do the cast here.
        dt = torch.get_autocast_dtype(DEV)
        q_, k_, v_, m_ = (t.to(dt) if t is not None and t.is_floating_point() and t.dtype != dt else t
                          for t in (query, key, value, attn_mask))
        with torch.autocast(device_type=DEV, enabled=False):
            return sm90_sdpa(q_, k_, v_, m_, dropout_p, is_causal, scale, enable_gqa)
    backend = _sm90_backend(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa)
    SDPA_LOG[backend] = SDPA_LOG.get(backend, 0) + 1
    need_lse = torch.is_grad_enabled() and (query.requires_grad or key.requires_grad or value.requires_grad)
    if backend == "cudnn":
        return torch.ops.aten._scaled_dot_product_cudnn_attention(
            query, key, value, attn_mask, need_lse, dropout_p, is_causal, False, scale=scale)[0]
    if backend == "flash":
        return torch.ops.aten._scaled_dot_product_flash_attention(
            query, key, value, dropout_p, is_causal, False, scale=scale)[0]
    if backend == "efficient":
        if attn_mask is not None:
            # sdp::preprocess_mask: expand to (B, H, S_q, S_k) (a view) and pad the last
            # dim to a multiple of 16 (copies only when S_k % 16 != 0).
            attn_mask = attn_mask.expand(query.shape[0], query.shape[1], query.shape[2], key.shape[2])
            pad = (-key.shape[2]) % 16
            if pad:
                attn_mask = F.pad(attn_mask, (0, pad))[..., : key.shape[2]]
        return torch.ops.aten._scaled_dot_product_efficient_attention(
            query, key, value, attn_mask, need_lse, dropout_p, is_causal, scale=scale)[0]
    return torch.ops.aten._scaled_dot_product_attention_math(
        query, key, value, attn_mask, dropout_p, is_causal, None, scale=scale, enable_gqa=enable_gqa)[0]


# ---------------------------------------------------------------------------------------
# CUDA autocast's fp32 policy, emulated on top of CPU autocast
# ---------------------------------------------------------------------------------------
# The fake tensors live on device "cpu" (README), so torch.autocast("cpu") does the
# casting. Its lower-precision list (mm, bmm, addmm, baddbmm, matmul, linear, conv, sdpa)
# matches CUDA's for these models, but CPU autocast has no fp32 policy for pow, exp, log,
# rsqrt, softmax, log_softmax, layer_norm, sum, cumsum, ... which CUDA autocast runs in
# fp32 (aten/src/ATen/autocast_mode.cpp, KERNEL_CUDA(..., fp32 / fp32_set_opt_dtype)).
# GPT-2's gelu_new calls torch.pow, so on CUDA its MLP activations are fp32. The
# wrappers below apply that policy at the Python level (so autograd records the casts).
_F32 = torch.float32
_LOW = (torch.bfloat16, torch.float16)
_FP32_CAST = {torch.pow, torch.Tensor.pow, torch.Tensor.__pow__, torch.exp, torch.Tensor.exp, torch.log,
              torch.Tensor.log, torch.rsqrt, torch.Tensor.rsqrt, torch.reciprocal, torch.Tensor.reciprocal,
              torch.expm1, torch.log1p, torch.Tensor.log1p, F.softplus, F.layer_norm, torch.layer_norm,
              F.group_norm, torch.logsumexp, torch.Tensor.logsumexp, torch.norm, torch.Tensor.norm,
              F.nll_loss, F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.kl_div}
# fp32_set_opt_dtype: if no dtype is given, run with dtype=float32 (input not copied).
_FP32_OPT_DTYPE = {F.softmax, torch.softmax, torch.Tensor.softmax, F.log_softmax, torch.log_softmax,
                   torch.Tensor.log_softmax, torch.sum, torch.Tensor.sum, torch.cumsum, torch.Tensor.cumsum,
                   torch.prod, torch.Tensor.prod}


def _fp32_policy_wrap(func, opt_dtype):
    def wrapped(*args, **kwargs):
        if torch.is_autocast_enabled(DEV):
            if not opt_dtype:
                args, kwargs = torch.utils._pytree.tree_map(
                    lambda t: t.to(_F32) if isinstance(t, torch.Tensor) and t.dtype in _LOW else t, (args, kwargs))
            elif kwargs.get("dtype") is None:
                x = args[0] if args else kwargs.get("input")
                if isinstance(x, torch.Tensor) and x.dtype in _LOW:
                    kwargs["dtype"] = _F32
        return func(*args, **kwargs)
    wrapped.__wrapped__ = func
    return wrapped


def install_autocast_fp32_policy():
    """Wrap the functions themselves (not a TorchFunctionMode: modes are not active while
    the autograd engine recomputes checkpointed segments, and the recomputation must
    reproduce the forward's dtypes). Only acts while autocast is enabled."""
    import torch.nn.functional as Fm
    for opt_dtype, funcs in ((False, _FP32_CAST), (True, _FP32_OPT_DTYPE)):
        for f in funcs:
            for owner in (torch, torch.Tensor, Fm):
                for name, obj in list(vars(owner).items()):
                    if obj is f:
                        setattr(owner, name, _fp32_policy_wrap(f, opt_dtype))


# ---------------------------------------------------------------------------------------
# Dropout as CUDA runs it
# ---------------------------------------------------------------------------------------
_cpu_dropout = F.dropout


def cuda_dropout(input, p=0.5, training=True, inplace=False):
    """at::dropout takes the fused kernel on CUDA (`is_fused_kernel_acceptable`: a CUDA input,
    0 < p < 1): aten::native_dropout, whose backward keeps a bool mask (1 B per element). On
    the CPU it builds the mask in the input's dtype (`_dropout_impl`: empty_like(input).bernoulli_,
    2 or 4 B per element) and the multiply saves it, so the fake CPU tensors would over-count
    every dropout mask. Call the CUDA path's op directly."""
    if training and 0.0 < p < 1.0 and not inplace and input.is_floating_point() and input.numel() > 0:
        return torch.ops.aten.native_dropout(input, p, True)[0]
    return _cpu_dropout(input, p, training, inplace)


# ---------------------------------------------------------------------------------------
# Environment patches (no GPU here)
# ---------------------------------------------------------------------------------------
def install_patches():
    torch.nn.functional.scaled_dot_product_attention = sm90_sdpa
    torch.nn.functional.dropout = cuda_dropout
    install_autocast_fp32_policy()
    # HF asks about the device when choosing kernels / dtypes; answer as an H100 would.
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    torch.cuda.is_bf16_supported = lambda *a, **k: True


# Models: tests/reference/torch_models.py (configs as in the hub config.json files)
from torch_models import MODELS  # noqa: E402
from torch_regimes import OffloadActivations, chunked_loss, fused_loss, optimizer_in_backward  # noqa: E402


DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


class LoRALinear(nn.Module):
    """Frozen base Linear + A (r x in) + B (out x r), fp32 adapters (peft's layout)."""

    def __init__(self, base: nn.Module, r: int, alpha: int = 16):
        super().__init__()
        self.base = base
        if isinstance(base, nn.Linear):
            fin, fout = base.in_features, base.out_features
        else:  # transformers' Conv1D (GPT-2): weight is (in, out)
            fin, fout = base.weight.shape
        self.lora_A = nn.Parameter(torch.empty(r, fin, dtype=torch.float32))
        self.lora_B = nn.Parameter(torch.zeros(fout, r, dtype=torch.float32))
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x.to(self.lora_A.dtype), self.lora_A), self.lora_B) * self.scaling


def build_model(model_name, dtype, attention, lora_rank, lora_targets, lora_style="hand", lora_dropout=0.0):
    kind, cfg_fn, n_params = MODELS[model_name]
    cfg = cfg_fn()
    with torch.device("meta"):
        if kind == "causal":
            model = AutoModelForCausalLM.from_config(cfg, attn_implementation=attention, dtype=dtype)
        else:
            model = BertForSequenceClassification._from_config(cfg, attn_implementation=attention, dtype=dtype)
        # Tied parameters are one Parameter object, so parameters() counts them once.
        got = sum(p.numel() for p in model.parameters())
        if got != n_params:
            raise ValueError(f"{model_name}: {got:,} parameters, the hub checkpoint has {n_params:,}")
        if lora_rank and lora_style == "peft":
            # peft's own wrapper with its defaults (lora_dropout 0 unless the case sets it: then its
            # nn.Dropout before lora_A, issue 40; alpha 16 here, no bias, adapters cast to fp32 by
            # get_peft_model's autocast_adapter_dtype=True); it freezes the base.
            import peft
            conf = peft.LoraConfig(r=lora_rank, lora_alpha=16, target_modules=list(lora_targets),
                                   lora_dropout=lora_dropout, task_type="CAUSAL_LM")
            model = peft.get_peft_model(model, conf)
            dts = {p.dtype for n, p in model.named_parameters() if "lora_" in n}
            if dts != {torch.float32}:
                raise ValueError(f"peft adapters in {dts}, expected float32")
        elif lora_rank:
            for p in model.parameters():
                p.requires_grad_(False)
            for name, mod in list(model.named_modules()):
                for tgt in lora_targets:
                    child = getattr(mod, tgt, None)
                    if isinstance(child, (nn.Linear, Conv1D)):
                        setattr(mod, tgt, LoRALinear(child, lora_rank))
    return model


# ---------------------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------------------
FIELDS = ["case_id", "split", "regime", "model", "mode", "batch", "seq_len", "dtype", "precision", "optimizer",
          "fused", "grad_checkpointing", "lora_rank", "lora_targets", "lora_style", "lora_dropout", "attention", "logits",
          "decode_steps", "decode_loop", "peak_allocated_bytes", "decode_peak_bytes", "params_bytes", "grads_bytes", "optimizer_bytes",
          "activations_bytes", "torch_version", "transformers_version", "peft_version", "method",
          "loss", "loss_chunks", "optimizer_in_bwd", "activation_offload", "cpu_offloaded_bytes"]

DEV = "cpu"  # fake device; see README ("why the fake tensors live on device cpu")


def _decode(model, tracker, ids, out, steps, loop):
    """`steps` decode steps after the prefill whose output is `out` (logits of the last position).
    loop "model": the bf16 logits' argmax feeds the next step (plain model() calls).
    loop "generate": GenerationMixin._sample's greedy loop: the last position's logits copied
    to fp32 (`outputs.logits[:, -1].to(copy=True, dtype=torch.float32)`), argmax, the token
    appended to input_ids (torch.cat), `del outputs`, then the next forward."""
    for step in range(steps + 1):
        if loop == "generate":
            nxt_logits = out.logits[:, -1].to(copy=True, dtype=torch.float32)
            nxt = torch.argmax(nxt_logits, dim=-1)
            ids = torch.cat([ids, nxt[:, None]], dim=-1)
            nxt = nxt[:, None]
        else:
            nxt = out.logits[:, -1:, :].argmax(-1)
        pkv = out.past_key_values
        del out
        if step == steps:  # generate() stops after the last token is chosen
            break
        tracker.phase = f"decode{step + 1}"
        if step == 0:
            tracker.start_sub()
        out = model(input_ids=nxt, past_key_values=pkv, use_cache=True, logits_to_keep=1)
        if loop == "generate":
            del nxt_logits


def run_case(c: dict, explain: bool = False) -> dict:
    SDPA_LOG.clear()
    model_name = c["model"]
    kind = MODELS[model_name][0]
    dtype = DTYPES[c["dtype"]]
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    tracker = PeakTracker(explain)
    model = build_model(model_name, dtype, c["attention"], c.get("lora_rank", 0), c.get("lora_targets", ()),
                        c.get("lora_style", "hand"), c.get("lora_dropout", 0))
    with fake, tracker:
        model = model.to_empty(device=DEV)
        model.tie_weights()  # to_empty() materialises tied parameters separately; re-tie
        params = [p for p in model.parameters()]
        for p in params:
            tracker.track(p)
        for b in model.buffers():
            tracker.track(b, "buffer")
        param_uids = {tracker.uid_of(p) for p in params}
        B, S = c["batch"], c["seq_len"]
        vocab = model.config.vocab_size
        grad_uids, opt_uids = set(), set()
        offloader = None
        if c["mode"] == "inference":
            model.eval()
            tracker.reset_peak()
            tracker.phase = "prefill"
            with torch.no_grad():
                ids = torch.randint(0, vocab, (B, S), device=DEV)
                if kind == "seqcls":
                    out = model(input_ids=ids)
                else:
                    keep = 1 if c["logits"] == "last" else 0
                    out = model(input_ids=ids, logits_to_keep=keep)
                    if c.get("decode_steps", 0):
                        _decode(model, tracker, ids, out, c["decode_steps"], c["decode_loop"])
                        out = None
                del out
        else:
            model.train()
            if c["grad_checkpointing"]:
                model.gradient_checkpointing_enable()
            trainable = [p for p in params if p.requires_grad]
            opt_name = c["optimizer"]
            if opt_name == "adamw":
                kw = {"fused": True} if c["fused"] else {"foreach": True}  # CUDA default = foreach

                def make_opt(ps):
                    return torch.optim.AdamW(ps, lr=1e-4, weight_decay=0.01, **kw)
            elif opt_name == "sgd":
                def make_opt(ps):
                    return torch.optim.SGD(ps, lr=1e-3, momentum=0.9, foreach=True)
            else:
                raise ValueError(opt_name)
            # The stacks' regimes (torch_regimes.py): the loss's form, the step in backward,
            # activation offload.
            loss_kind = c.get("loss") or "full"
            if c.get("optimizer_in_bwd"):
                opts = list(optimizer_in_backward(trainable, make_opt).values())
            else:
                opts = [make_opt(trainable)]
            offloader = OffloadActivations(tracker) if c.get("activation_offload") else None
            amp = c["precision"] == "amp-bf16"
            tracker.reset_peak()
            for step in range(1, 3):
                tracker.phase = f"fwd{step}"
                ids = torch.randint(0, vocab, (B, S), device=DEV)
                if kind == "seqcls":
                    labels = torch.randint(0, 2, (B,), device=DEV)
                else:
                    labels = ids
                ctx = torch.autocast(device_type=DEV, dtype=torch.bfloat16) if amp else contextlib.nullcontext()
                with ctx:
                    if loss_kind == "full" and offloader is None:
                        loss = model(input_ids=ids, labels=labels).loss  # Trainer-style: outputs dropped
                    else:
                        # The stack's loop: the body's hidden states (under the offload hooks,
                        # as torchtune wraps the model's forward), then the loss outside them.
                        body = model.get_base_model() if hasattr(model, "get_base_model") else model
                        with offloader if offloader is not None else contextlib.nullcontext():
                            h = body.model(input_ids=ids).last_hidden_state
                        if loss_kind == "chunked":
                            # torchtune's recipe shifts the labels (hstack with an ignore column).
                            shifted = torch.cat([labels[..., 1:], torch.full((B, 1), -100, device=DEV)], dim=1)
                            loss = chunked_loss(h, body.lm_head, shifted, c["loss_chunks"])
                            del shifted
                        elif loss_kind == "fused":
                            loss = fused_loss(h, body.lm_head, labels)
                        else:
                            loss = body.loss_function(logits=body.lm_head(h), labels=labels, vocab_size=vocab)
                        del body
                        del h
                tracker.phase = f"bwd{step}"
                loss.backward()
                if offloader is not None:
                    offloader.finish()
                del loss, ids, labels
                for p in trainable:
                    if p.grad is not None:
                        grad_uids.add(tracker.uid_of(p.grad))
                tracker.phase = f"step{step}"
                for opt in opts:
                    if not c.get("optimizer_in_bwd"):
                        opt.step()
                    for st in opt.state.values():
                        for v in st.values():
                            if isinstance(v, torch.Tensor):
                                u = tracker.uid_of(v)
                                if u is not None:
                                    opt_uids.add(u)
                    opt.zero_grad(set_to_none=True)
        peak, snap = tracker.finish()
    if explain:
        labels = {u: "param" for u in param_uids}
        labels.update({u: "grad" for u in grad_uids})
        labels.update({u: "optim" for u in opt_uids})
        tracker.explain_peak(snap, labels)
    peak += CUBLAS_WORKSPACE
    pb = sum(n for u, n in snap.items() if u in param_uids)
    gb = sum(n for u, n in snap.items() if u in grad_uids)
    ob = sum(n for u, n in snap.items() if u in opt_uids)
    row = {k: c.get(k, "") for k in FIELDS}
    row.update({
        "peak_allocated_bytes": peak,
        "decode_peak_bytes": tracker.sub_peak + CUBLAS_WORKSPACE if c.get("decode_steps") else "",
        "params_bytes": pb,
        "grads_bytes": gb,
        "optimizer_bytes": ob,
        "activations_bytes": peak - pb - gb - ob,
        "torch_version": torch.__version__.split("+")[0],
        "transformers_version": transformers.__version__,
        "peft_version": _peft_version() if c.get("lora_style") == "peft" else "",
        "method": "fake-tensor",
        "cpu_offloaded_bytes": offloader.cpu_peak if c["mode"] == "training" and offloader is not None else "",
    })
    row["attention"] = c["attention"] + (
        "" if c["attention"] == "eager" else ":" + "+".join(f"{k}" for k in sorted(SDPA_LOG)))
    row["lora_targets"] = "+".join(c.get("lora_targets", ()))
    return row


def _peft_version():
    import peft
    return peft.__version__


# ---------------------------------------------------------------------------------------
# Case list
# ---------------------------------------------------------------------------------------
SHORT = {"gpt2": "gpt2", "Qwen/Qwen2.5-0.5B": "qwen2.5-0.5b", "meta-llama/Llama-3.2-1B": "llama3.2-1b",
         "meta-llama/Llama-3.1-8B": "llama3.1-8b", "google-bert/bert-base-uncased": "bert-base",
         "gpt2-medium": "gpt2-medium", "google-bert/bert-large-uncased": "bert-large",
         "Qwen/Qwen2.5-1.5B": "qwen2.5-1.5b", "meta-llama/Llama-3.2-3B": "llama3.2-3b", "Qwen/Qwen3-4B": "qwen3-4b",
         "mistralai/Mistral-7B-v0.1": "mistral-7b"}

# Small models for the mixed-precision regime of issue 31 (fp32 weights under bf16 autocast).
SMALL = {"gpt2", "gpt2-medium", "google-bert/bert-base-uncased", "google-bert/bert-large-uncased"}
# peft's q, k, v, o targets; GPT-2 fuses q, k, v into c_attn, and "attn.c_proj" is its o_proj
# (a bare "c_proj" would also match the MLP's).
QKVO_ALL = ("q_proj", "k_proj", "v_proj", "o_proj")
ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
QKVO = {"gpt2": ("c_attn", "attn.c_proj"), "gpt2-medium": ("c_attn", "attn.c_proj")}


def regime(c) -> str:
    """The regime a case belongs to (the error table of FINDINGS-31.md is grouped by it)."""
    if c["mode"] == "inference":
        if c.get("decode_steps"):
            return "decode"
        return "prefill-all-logits" if c["logits"] == "all" else "prefill"
    if c.get("activation_offload"):
        return "activation-offload"
    if c.get("optimizer_in_bwd"):
        return "optimizer-in-backward"
    if c.get("loss") in ("chunked", "fused"):
        return f"loss-{c['loss']}"
    if c["lora_rank"] and c.get("lora_dropout"):
        return f"lora-{c['lora_style']}-dropout"
    if c["lora_rank"]:
        return f"lora-{c['lora_style']}-{c['precision']}"
    if c["precision"] == "amp-bf16" and c["model"] in SMALL:
        return "amp-small"
    return "training"


def cases():
    out = []

    def add(split="tuned", **c):
        c.setdefault("optimizer", "")
        c.setdefault("fused", "")
        c.setdefault("grad_checkpointing", "")
        c.setdefault("lora_rank", 0)
        c.setdefault("lora_targets", ())
        c.setdefault("lora_style", "hand" if c["lora_rank"] else "")
        c.setdefault("lora_dropout", 0)
        c.setdefault("attention", "sdpa")
        c.setdefault("logits", "all")
        c.setdefault("decode_steps", 0)
        c.setdefault("decode_loop", "model" if c["decode_steps"] else "")
        c.setdefault("loss", "")
        c.setdefault("loss_chunks", "")
        c.setdefault("optimizer_in_bwd", "")
        c.setdefault("activation_offload", "")
        if c["mode"] == "inference":
            if c["decode_loop"] == "generate":
                tag = f"infer-generate{c['decode_steps']}"
            else:
                tag = f"infer-{'gen1' if c['decode_steps'] else 'prefill'}"
            tag += f"-logits{c['logits']}"
        else:
            tag = f"train-{c['precision']}-{c['optimizer']}{'-fused' if c['fused'] else ''}"
            tag += "-gc" if c["grad_checkpointing"] else ""
            if c["lora_rank"]:
                tag += f"-{'peft' if c['lora_style'] == 'peft' else 'lora'}{c['lora_rank']}"
                tag += "-qkvo" if tuple(c["lora_targets"]) in (QKVO_ALL, QKVO["gpt2"]) else ""
                tag += "-all" if tuple(c["lora_targets"]) == ALL_LINEAR else ""
                tag += f"-drop{c['lora_dropout']}" if c["lora_dropout"] else ""
            if c.get("loss"):
                tag += f"-loss{c['loss']}{c.get('loss_chunks') or ''}"
            tag += "-inbwd" if c.get("optimizer_in_bwd") else ""
            tag += "-offload" if c.get("activation_offload") else ""
        tag += "-eager" if c["attention"] == "eager" else ""
        c["case_id"] = f"{SHORT[c['model']]}-{tag}-{c['dtype']}-b{c['batch']}-s{c['seq_len']}"
        c["split"] = split
        c["regime"] = regime(c)
        out.append(c)

    # -- The first set (tuned: the estimator's constants were fitted to these rows) ---------
    shapes = {
        "gpt2": [(1, 512), (4, 1024)],
        "Qwen/Qwen2.5-0.5B": [(1, 512), (4, 2048)],
        "meta-llama/Llama-3.2-1B": [(1, 512), (4, 2048)],
        "meta-llama/Llama-3.1-8B": [(1, 2048), (4, 2048)],
        "google-bert/bert-base-uncased": [(4, 512), (32, 128)],
    }
    for m, shp in shapes.items():
        causal = MODELS[m][0] == "causal"
        for (b, s) in shp:
            # inference
            for dt in (["bf16", "fp32"] if m == "gpt2" else ["bf16"]):
                if causal:
                    add(model=m, mode="inference", batch=b, seq_len=s, dtype=dt, precision=dt, logits="last")
                    add(model=m, mode="inference", batch=b, seq_len=s, dtype=dt, precision=dt, logits="all")
                    add(model=m, mode="inference", batch=b, seq_len=s, dtype=dt, precision=dt, logits="last",
                        decode_steps=1)
                else:
                    add(model=m, mode="inference", batch=b, seq_len=s, dtype=dt, precision=dt, logits="cls")
            # training
            lg = "all" if causal else "cls"
            tr = dict(model=m, mode="training", batch=b, seq_len=s, logits=lg)
            add(**tr, dtype="fp32", precision="fp32", optimizer="adamw", fused=False, grad_checkpointing=False)
            add(**tr, dtype="fp32", precision="amp-bf16", optimizer="adamw", fused=False, grad_checkpointing=False)
            add(**tr, dtype="fp32", precision="amp-bf16", optimizer="adamw", fused=True, grad_checkpointing=False)
            add(**tr, dtype="bf16", precision="bf16", optimizer="adamw", fused=False, grad_checkpointing=False)
            add(**tr, dtype="fp32", precision="fp32", optimizer="sgd", fused=False, grad_checkpointing=False)
            add(**tr, dtype="fp32", precision="fp32", optimizer="adamw", fused=False, grad_checkpointing=True)
            add(**tr, dtype="fp32", precision="amp-bf16", optimizer="adamw", fused=False, grad_checkpointing=True)
            if causal:
                add(**tr, dtype="bf16", precision="amp-bf16", optimizer="adamw", fused=False,
                    grad_checkpointing=False, lora_rank=16, lora_targets=("q_proj", "v_proj")
                    if m != "gpt2" else ("c_attn",))
    # eager attention: one training and one inference case
    add(model="gpt2", mode="training", batch=4, seq_len=1024, dtype="fp32", precision="fp32", optimizer="adamw",
        fused=False, grad_checkpointing=False, attention="eager")
    add(model="meta-llama/Llama-3.2-1B", mode="inference", batch=1, seq_len=2048, dtype="bf16", precision="bf16",
        logits="last", attention="eager")

    # -- Issue 31: the four regimes where the estimator is off, on the first set's models ----
    # (split "tuned": the fix may be fitted to them) and on others (split "held-out": nobody
    # fits to them; they show whether a fix generalises).
    qkvo = QKVO_ALL

    def train(split, m, b, s, **kw):
        kw.setdefault("optimizer", "adamw")
        kw.setdefault("fused", False)
        kw.setdefault("grad_checkpointing", False)
        lg = "all" if MODELS[m][0] == "causal" else "cls"
        add(split, model=m, mode="training", batch=b, seq_len=s, logits=lg, **kw)

    def peft_bf16(split, m, b, s, r):
        train(split, m, b, s, dtype="bf16", precision="bf16", lora_rank=r, lora_targets=QKVO.get(m, qkvo),
              lora_style="peft")

    # 1. LoRA in pure bf16 (bf16 base, no autocast) with peft's defaults: fp32 adapters on q, k, v, o.
    for (m, b, s, r) in [("gpt2", 1, 512, 16), ("gpt2", 4, 1024, 16), ("Qwen/Qwen2.5-0.5B", 1, 512, 16),
                         ("Qwen/Qwen2.5-0.5B", 4, 2048, 16), ("meta-llama/Llama-3.2-1B", 1, 512, 8),
                         ("meta-llama/Llama-3.2-1B", 4, 2048, 8), ("meta-llama/Llama-3.2-1B", 4, 2048, 16),
                         ("meta-llama/Llama-3.1-8B", 1, 2048, 16), ("meta-llama/Llama-3.1-8B", 4, 2048, 16)]:
        peft_bf16("tuned", m, b, s, r)
    for (m, b, s, r) in [("gpt2-medium", 8, 512, 8), ("Qwen/Qwen2.5-1.5B", 2, 1024, 16),
                         ("meta-llama/Llama-3.2-3B", 4, 1024, 8), ("Qwen/Qwen3-4B", 1, 4096, 16),
                         ("mistralai/Mistral-7B-v0.1", 2, 2048, 16)]:
        peft_bf16("held-out", m, b, s, r)
    # The same with the script's hand-written adapter (fp32 A and B, output left in fp32), and
    # peft under autocast (the first set's LoRA regime), for comparison.
    for (m, b, s) in [("gpt2", 4, 1024), ("meta-llama/Llama-3.2-1B", 4, 2048), ("meta-llama/Llama-3.1-8B", 4, 2048)]:
        train("tuned", m, b, s, dtype="bf16", precision="bf16", lora_rank=16,
              lora_targets=("c_attn",) if m == "gpt2" else qkvo)
        train("tuned", m, b, s, dtype="bf16", precision="amp-bf16", lora_rank=16,
              lora_targets=QKVO.get(m, qkvo), lora_style="peft")

    # 2. Mixed precision (fp32 weights, bf16 autocast) on small models.
    for (m, b, s, fused) in [("gpt2", 2, 512, False), ("gpt2", 8, 1024, False), ("gpt2", 8, 1024, True),
                             ("google-bert/bert-base-uncased", 8, 512, False),
                             ("google-bert/bert-base-uncased", 64, 128, False)]:
        train("tuned", m, b, s, dtype="fp32", precision="amp-bf16", fused=fused)
    for (m, b, s, fused) in [("gpt2-medium", 1, 512, False), ("gpt2-medium", 4, 1024, False),
                             ("gpt2-medium", 4, 1024, True), ("google-bert/bert-large-uncased", 4, 512, False),
                             ("google-bert/bert-large-uncased", 32, 128, False)]:
        train("held-out", m, b, s, dtype="fp32", precision="amp-bf16", fused=fused)

    # 3. Prefill with the logits of every position, large vocabularies (and Mistral's 32,000).
    def infer(split, m, b, s, logits, **kw):
        add(split, model=m, mode="inference", batch=b, seq_len=s, dtype="bf16", precision="bf16", logits=logits,
            **kw)

    for (m, b, s) in [("Qwen/Qwen2.5-0.5B", 1, 4096), ("Qwen/Qwen2.5-0.5B", 8, 1024),
                      ("meta-llama/Llama-3.2-1B", 1, 4096), ("meta-llama/Llama-3.2-1B", 8, 1024),
                      ("meta-llama/Llama-3.1-8B", 8, 1024)]:
        infer("tuned", m, b, s, "all")
    for (m, b, s) in [("Qwen/Qwen2.5-1.5B", 1, 2048), ("Qwen/Qwen2.5-1.5B", 4, 2048),
                      ("meta-llama/Llama-3.2-3B", 4, 2048), ("Qwen/Qwen3-4B", 4, 1024),
                      ("mistralai/Mistral-7B-v0.1", 4, 2048), ("gpt2-medium", 4, 1024)]:
        infer("held-out", m, b, s, "all")

    # 4. Decode steps after the prefill, as generate() runs them (fp32 copy of the last logits).
    for (m, b, s, n) in [("gpt2", 8, 512, 1), ("Qwen/Qwen2.5-0.5B", 4, 2048, 1), ("Qwen/Qwen2.5-0.5B", 8, 1024, 1),
                         ("meta-llama/Llama-3.2-1B", 1, 2048, 1), ("meta-llama/Llama-3.2-1B", 4, 512, 1),
                         ("meta-llama/Llama-3.2-1B", 4, 2048, 1), ("meta-llama/Llama-3.2-1B", 8, 2048, 1),
                         ("meta-llama/Llama-3.2-1B", 16, 1024, 4), ("meta-llama/Llama-3.1-8B", 1, 4096, 1),
                         ("meta-llama/Llama-3.1-8B", 4, 2048, 4)]:
        infer("tuned", m, b, s, "last", decode_steps=n, decode_loop="generate")
    for (m, b, s, n) in [("Qwen/Qwen2.5-1.5B", 4, 2048, 1), ("meta-llama/Llama-3.2-3B", 8, 1024, 1),
                         ("Qwen/Qwen3-4B", 4, 4096, 1), ("mistralai/Mistral-7B-v0.1", 4, 2048, 1),
                         ("gpt2-medium", 16, 512, 1)]:
        infer("held-out", m, b, s, "last", decode_steps=n, decode_loop="generate")

    # -- Held-out cases in the first set's regimes: other models, batches and lengths --------
    for (m, b, s) in [("Qwen/Qwen2.5-1.5B", 4, 2048), ("meta-llama/Llama-3.2-3B", 4, 2048), ("Qwen/Qwen3-4B", 2, 4096),
                      ("mistralai/Mistral-7B-v0.1", 4, 4096), ("gpt2-medium", 4, 1024),
                      ("meta-llama/Llama-3.2-1B", 16, 1024)]:
        infer("held-out", m, b, s, "last")
    infer("held-out", "google-bert/bert-large-uncased", 8, 512, "cls")
    train("held-out", "gpt2-medium", 4, 1024, dtype="fp32", precision="fp32")
    train("held-out", "gpt2-medium", 4, 1024, dtype="bf16", precision="bf16")
    train("held-out", "google-bert/bert-large-uncased", 8, 512, dtype="fp32", precision="fp32")
    train("held-out", "Qwen/Qwen2.5-0.5B", 8, 1024, dtype="bf16", precision="bf16")
    train("held-out", "Qwen/Qwen2.5-1.5B", 2, 1024, dtype="fp32", precision="amp-bf16", fused=True)
    train("held-out", "meta-llama/Llama-3.2-1B", 2, 1024, dtype="fp32", precision="fp32")
    train("held-out", "meta-llama/Llama-3.2-3B", 2, 2048, dtype="bf16", precision="bf16")
    train("held-out", "Qwen/Qwen3-4B", 4, 2048, dtype="bf16", precision="bf16", grad_checkpointing=True)
    train("held-out", "mistralai/Mistral-7B-v0.1", 1, 4096, dtype="bf16", precision="bf16")
    train("held-out", "meta-llama/Llama-3.2-3B", 2, 2048, dtype="bf16", precision="amp-bf16", lora_rank=16,
          lora_targets=("q_proj", "v_proj"))

    # -- Issue 40: the stacks' memory savers (torch_regimes.py), pure bf16 as torchtune and Unsloth
    # train, on Llama-3.2-1B (tuned) and Qwen2.5-0.5B / Llama-3.2-3B (held-out) ---------------------
    L1, Q05, L3 = "meta-llama/Llama-3.2-1B", "Qwen/Qwen2.5-0.5B", "meta-llama/Llama-3.2-3B"

    def bf16(split, m, b, s, **kw):
        train(split, m, b, s, dtype="bf16", precision="bf16", **kw)

    def lora(split, m, b, s, **kw):
        bf16(split, m, b, s, lora_rank=16, lora_targets=qkvo, lora_style="peft", **kw)

    for split, m, b, s in [("tuned", L1, 2, 2048), ("held-out", Q05, 4, 1024)]:
        bf16(split, m, b, s, loss="chunked", loss_chunks=8)
        bf16(split, m, b, s, loss="fused")
    lora("tuned", L1, 4, 2048, loss="chunked", loss_chunks=8)
    lora("tuned", L1, 4, 2048, loss="fused")
    lora("held-out", L3, 2, 2048, loss="fused")
    bf16("held-out", L1, 2, 2048, loss="chunked", loss_chunks=16)
    # The step in backward: the peak at the step (batch 1 × 512) and at the loss.
    bf16("tuned", L1, 1, 512, optimizer_in_bwd=True)
    bf16("tuned", L1, 2, 2048, optimizer_in_bwd=True, loss="chunked", loss_chunks=8)
    bf16("held-out", Q05, 2, 1024, optimizer_in_bwd=True)
    # Activation offload, with and without checkpointing (torchtune's loss).
    bf16("tuned", L1, 2, 2048, activation_offload=True, grad_checkpointing=True, loss="chunked", loss_chunks=8)
    bf16("tuned", L1, 2, 2048, activation_offload=True, loss="chunked", loss_chunks=8)
    lora("held-out", Q05, 4, 2048, activation_offload=True, grad_checkpointing=True, loss="chunked", loss_chunks=8)
    # Where the activations, not the step, set the peak: LoRA at 4 × 4096, and the fused step.
    lora("tuned", L1, 4, 4096, activation_offload=True, grad_checkpointing=True, loss="chunked", loss_chunks=8)
    bf16("held-out", L1, 2, 2048, activation_offload=True, fused=True, loss="chunked", loss_chunks=8)

    # -- Issue 40: PEFT's own LoRA with lora_dropout 0.1 (TRL's default is 0.05, the same tensors):
    # each adapted module keeps the dropout's bool mask and lora_A its own input ----------------
    for split, m, b, s, prec, targets in [("tuned", L1, 4, 2048, "bf16", qkvo),
                                          ("tuned", L1, 4, 2048, "amp-bf16", qkvo),
                                          ("held-out", Q05, 4, 1024, "bf16", ALL_LINEAR),
                                          ("held-out", L3, 2, 1024, "amp-bf16", ALL_LINEAR)]:
        train(split, m, b, s, dtype="bf16", precision=prec, lora_rank=16, lora_targets=targets, lora_style="peft",
              lora_dropout=0.1)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", default="", help="substring filter on case_id")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--explain", action="store_true",
                    help="print the storages alive at each case's peak, by creating op (stderr)")
    a = ap.parse_args(argv)
    install_patches()
    torch.manual_seed(0)
    # --only: a substring, or several separated by commas (any of them).
    todo = [c for c in cases() if any(o in c["case_id"] for o in a.only.split(","))]
    if a.list:
        print("\n".join(c["case_id"] for c in todo))
        return 0
    rows = []
    for c in todo:
        try:
            row = run_case(c, a.explain)
        except Exception as e:  # keep going; report the failure on stderr
            print(f"FAILED {c['case_id']}: {type(e).__name__}: {str(e).splitlines()[0][:200]}", file=sys.stderr)
            continue
        print(f"{row['case_id']:60s} peak {row['peak_allocated_bytes'] / 2**30:8.3f} GiB  {row['attention']}",
              file=sys.stderr, flush=True)
        rows.append(row)
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    return 0 if len(rows) == len(todo) else 1


if __name__ == "__main__":
    sys.exit(main())
