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
from transformers import (  # noqa: E402
    AutoModelForCausalLM,
    BertConfig,
    BertForSequenceClassification,
    GPT2Config,
    LlamaConfig,
    Qwen2Config,
)

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

    def __init__(self):
        super().__init__()
        self.live: dict[int, tuple[int, int]] = {}  # storage _cdata -> (uid, bytes)
        self.uid = itertools.count(1)
        self.cur = 0
        self.peak = 0
        self.peak_snapshot: dict[int, int] | None = {}  # uid -> bytes at the peak
        self.snap_pending = False

    # -- registration -------------------------------------------------------------
    def track(self, t):
        if not isinstance(t, torch.Tensor):
            return
        st = t.untyped_storage()
        key = st._cdata
        if key in self.live:
            return
        n = round_alloc(st.nbytes())
        uid = next(self.uid)
        self.live[key] = (uid, n)
        self.cur += n
        weakref.finalize(st, self._free, key, uid)
        if self.cur > self.peak:
            self.peak = self.cur
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
        for t in torch.utils._pytree.tree_leaves(out):
            self.track(t)
        return out


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
# Environment patches (no GPU here)
# ---------------------------------------------------------------------------------------
def install_patches():
    torch.nn.functional.scaled_dot_product_attention = sm90_sdpa
    install_autocast_fp32_policy()
    # HF asks about the device when choosing kernels / dtypes; answer as an H100 would.
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    torch.cuda.is_bf16_supported = lambda *a, **k: True


# ---------------------------------------------------------------------------------------
# Models (configs as in the hub config.json files)
# ---------------------------------------------------------------------------------------
def cfg_gpt2():
    return GPT2Config()  # defaults are exactly openai-community/gpt2


def cfg_qwen25_05b():
    return Qwen2Config(
        vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
        num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
        rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True, hidden_act="silu",
        use_sliding_window=False, sliding_window=32768, max_window_layers=24, attention_dropout=0.0,
        bos_token_id=151643, eos_token_id=151643)


def _llama3_rope(factor):
    return {"rope_type": "llama3", "factor": factor, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192}


def cfg_llama32_1b():
    return LlamaConfig(
        vocab_size=128256, hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
        num_attention_heads=32, num_key_value_heads=8, head_dim=64, max_position_embeddings=131072,
        rms_norm_eps=1e-5, rope_theta=500000.0, rope_scaling=_llama3_rope(32.0), tie_word_embeddings=True,
        attention_bias=False, mlp_bias=False, hidden_act="silu", bos_token_id=128000, eos_token_id=128001)


def cfg_llama31_8b():
    return LlamaConfig(
        vocab_size=128256, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
        rms_norm_eps=1e-5, rope_theta=500000.0, rope_scaling=_llama3_rope(8.0), tie_word_embeddings=False,
        attention_bias=False, mlp_bias=False, hidden_act="silu", bos_token_id=128000, eos_token_id=128001)


def cfg_bert_base():
    return BertConfig(num_labels=2)  # defaults are exactly google-bert/bert-base-uncased


MODELS = {
    "gpt2": ("causal", cfg_gpt2),
    "Qwen/Qwen2.5-0.5B": ("causal", cfg_qwen25_05b),
    "meta-llama/Llama-3.2-1B": ("causal", cfg_llama32_1b),
    "meta-llama/Llama-3.1-8B": ("causal", cfg_llama31_8b),
    "google-bert/bert-base-uncased": ("seqcls", cfg_bert_base),
}

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


def build_model(model_name, dtype, attention, lora_rank, lora_targets):
    kind, cfg_fn = MODELS[model_name]
    cfg = cfg_fn()
    with torch.device("meta"):
        if kind == "causal":
            model = AutoModelForCausalLM.from_config(cfg, attn_implementation=attention, dtype=dtype)
        else:
            model = BertForSequenceClassification._from_config(cfg, attn_implementation=attention, dtype=dtype)
        if lora_rank:
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
FIELDS = ["case_id", "model", "mode", "batch", "seq_len", "dtype", "precision", "optimizer", "fused",
          "grad_checkpointing", "lora_rank", "lora_targets", "attention", "logits", "peak_allocated_bytes",
          "params_bytes", "grads_bytes", "optimizer_bytes", "activations_bytes", "torch_version",
          "transformers_version", "method"]

DEV = "cpu"  # fake device; see README ("why the fake tensors live on device cpu")


def run_case(c: dict) -> dict:
    SDPA_LOG.clear()
    model_name = c["model"]
    kind = MODELS[model_name][0]
    dtype = DTYPES[c["dtype"]]
    fake = FakeTensorMode(allow_non_fake_inputs=True)
    tracker = PeakTracker()
    model = build_model(model_name, dtype, c["attention"], c.get("lora_rank", 0), c.get("lora_targets", ()))
    with fake, tracker:
        model = model.to_empty(device=DEV)
        model.tie_weights()  # to_empty() materialises tied parameters separately; re-tie
        params = [p for p in model.parameters()]
        for p in params:
            tracker.track(p)
        for b in model.buffers():
            tracker.track(b)
        param_uids = {tracker.uid_of(p) for p in params}
        B, S = c["batch"], c["seq_len"]
        vocab = model.config.vocab_size
        grad_uids, opt_uids = set(), set()
        if c["mode"] == "inference":
            model.eval()
            tracker.reset_peak()
            with torch.no_grad():
                ids = torch.randint(0, vocab, (B, S), device=DEV)
                if kind == "seqcls":
                    out = model(input_ids=ids)
                else:
                    keep = 1 if c["logits"] == "last" else 0
                    out = model(input_ids=ids, logits_to_keep=keep)
                    if c.get("decode_steps", 0):
                        pkv = out.past_key_values
                        nxt = out.logits[:, -1:, :].argmax(-1)
                        del out
                        for _ in range(c["decode_steps"]):
                            out = model(input_ids=nxt, past_key_values=pkv, use_cache=True, logits_to_keep=1)
                            pkv = out.past_key_values
                            nxt = out.logits[:, -1:, :].argmax(-1)
                del out
        else:
            model.train()
            if c["grad_checkpointing"]:
                model.gradient_checkpointing_enable()
            trainable = [p for p in params if p.requires_grad]
            opt_name = c["optimizer"]
            if opt_name == "adamw":
                kw = {"fused": True} if c["fused"] else {"foreach": True}  # CUDA default = foreach
                opt = torch.optim.AdamW(trainable, lr=1e-4, weight_decay=0.01, **kw)
            elif opt_name == "sgd":
                opt = torch.optim.SGD(trainable, lr=1e-3, momentum=0.9, foreach=True)
            else:
                raise ValueError(opt_name)
            amp = c["precision"] == "amp-bf16"
            tracker.reset_peak()
            for _step in range(2):
                ids = torch.randint(0, vocab, (B, S), device=DEV)
                if kind == "seqcls":
                    labels = torch.randint(0, 2, (B,), device=DEV)
                else:
                    labels = ids
                ctx = torch.autocast(device_type=DEV, dtype=torch.bfloat16) if amp else contextlib.nullcontext()
                with ctx:
                    loss = model(input_ids=ids, labels=labels).loss  # Trainer-style: outputs dropped
                loss.backward()
                del loss, ids, labels
                for p in trainable:
                    if p.grad is not None:
                        grad_uids.add(tracker.uid_of(p.grad))
                opt.step()
                for st in opt.state.values():
                    for v in st.values():
                        if isinstance(v, torch.Tensor):
                            u = tracker.uid_of(v)
                            if u is not None:
                                opt_uids.add(u)
                opt.zero_grad(set_to_none=True)
        peak, snap = tracker.finish()
    peak += CUBLAS_WORKSPACE
    pb = sum(n for u, n in snap.items() if u in param_uids)
    gb = sum(n for u, n in snap.items() if u in grad_uids)
    ob = sum(n for u, n in snap.items() if u in opt_uids)
    row = {k: c.get(k, "") for k in FIELDS}
    row.update({
        "peak_allocated_bytes": peak,
        "params_bytes": pb,
        "grads_bytes": gb,
        "optimizer_bytes": ob,
        "activations_bytes": peak - pb - gb - ob,
        "torch_version": torch.__version__.split("+")[0],
        "transformers_version": transformers.__version__,
        "method": "fake-tensor",
    })
    row["attention"] = c["attention"] + (
        "" if c["attention"] == "eager" else ":" + "+".join(f"{k}" for k in sorted(SDPA_LOG)))
    row["lora_targets"] = "+".join(c.get("lora_targets", ()))
    return row


# ---------------------------------------------------------------------------------------
# Case list
# ---------------------------------------------------------------------------------------
SHORT = {"gpt2": "gpt2", "Qwen/Qwen2.5-0.5B": "qwen2.5-0.5b", "meta-llama/Llama-3.2-1B": "llama3.2-1b",
         "meta-llama/Llama-3.1-8B": "llama3.1-8b", "google-bert/bert-base-uncased": "bert-base"}


def cases():
    out = []

    def add(**c):
        c.setdefault("optimizer", "")
        c.setdefault("fused", "")
        c.setdefault("grad_checkpointing", "")
        c.setdefault("lora_rank", 0)
        c.setdefault("lora_targets", ())
        c.setdefault("attention", "sdpa")
        c.setdefault("logits", "all")
        if c["mode"] == "inference":
            tag = f"infer-{'gen1' if c.get('decode_steps') else 'prefill'}-logits{c['logits']}"
        else:
            tag = f"train-{c['precision']}-{c['optimizer']}{'-fused' if c['fused'] else ''}"
            tag += "-gc" if c["grad_checkpointing"] else ""
            tag += f"-lora{c['lora_rank']}" if c["lora_rank"] else ""
        tag += "-eager" if c["attention"] == "eager" else ""
        c["case_id"] = f"{SHORT[c['model']]}-{tag}-{c['dtype']}-b{c['batch']}-s{c['seq_len']}"
        out.append(c)

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
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", default="", help="substring filter on case_id")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    install_patches()
    torch.manual_seed(0)
    todo = [c for c in cases() if a.only in c["case_id"]]
    if a.list:
        print("\n".join(c["case_id"] for c in todo))
        return 0
    rows = []
    for c in todo:
        try:
            row = run_case(c)
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
