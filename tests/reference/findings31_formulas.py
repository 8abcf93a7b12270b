#!/usr/bin/env python3
"""The peak formulas that FINDINGS-31.md recommends for the estimator, evaluated on every row of
torch-peaks.csv, to show what error per regime the estimator would have with them.

This is a check of the recommendation, not a second estimator: it covers what the reference set
holds (dense decoders and BERT, SDPA kernels, one GPU, no ZeRO), and reads the architecture from
the same inline configs as torch_peaks.py. Every term is written as a formula of
B (batch), S (sequence), h (hidden), i (FFN width), H (heads), K (KV heads), d (head dim),
L (layers), V (vocabulary), r (LoRA rank) and the bytes of the dtypes; FINDINGS-31.md names
each term and the tensor it is.

    python tests/reference/findings31_formulas.py            # table per regime and split
    python tests/reference/findings31_formulas.py --rows     # and every row

Needs torch and transformers (for the configs only; nothing runs under fake tensors).
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_peaks as tp  # noqa: E402

CUBLAS = tp.CUBLAS_WORKSPACE
GOAL = {"inference": (3.0, 10.0), "training": (5.0, 10.0)}


class Arch:
    def __init__(self, name):
        kind, cfg_fn, n_params = tp.MODELS[name]
        c = cfg_fn()
        self.name, self.params, self.causal = name, n_params, kind == "causal"
        if name.startswith("gpt2"):
            self.h, self.L, self.H = c.n_embd, c.n_layer, c.n_head
            self.K, self.d, self.i = self.H, self.h // self.H, 4 * c.n_embd
            self.norm, self.gated, self.gelu_new, self.fused_qkv, self.dropout = "layer", False, True, True, True
            self.tied = True
        elif "bert" in name:
            self.h, self.L, self.H = c.hidden_size, c.num_hidden_layers, c.num_attention_heads
            self.K, self.d, self.i = self.H, self.h // self.H, c.intermediate_size
            self.norm, self.gated, self.gelu_new, self.fused_qkv, self.dropout = "layer", False, False, False, True
            self.tied = False
        else:
            self.h, self.L, self.H = c.hidden_size, c.num_hidden_layers, c.num_attention_heads
            self.K = c.num_key_value_heads
            self.d = getattr(c, "head_dim", None) or self.h // self.H
            self.i = c.intermediate_size
            self.norm, self.gated, self.gelu_new, self.fused_qkv, self.dropout = "rms", True, False, False, False
            self.tied = c.tie_word_embeddings
        self.V = c.vocab_size
        self.qk_norm = name.startswith("Qwen/Qwen3")
        # Matrix weights of the blocks (what autocast casts and caches), and the LM head's.
        self.block_mats = self.L * (self.h * (self.H + 2 * self.K) * self.d + self.H * self.d * self.h
                                    + (3 if self.gated else 2) * self.h * self.i)
        self.head_mat = self.V * self.h if self.causal else 0

    def module_in(self, target):
        """Input and output features of a LoRA target (per layer)."""
        hd = self.H * self.d
        return {"q_proj": (self.h, hd), "k_proj": (self.h, self.K * self.d), "v_proj": (self.h, self.K * self.d),
                "o_proj": (hd, self.h), "c_attn": (self.h, 3 * self.h), "attn.c_proj": (self.h, self.h)}[target]


def training_per_token(a: Arch, act, autocast, fp32w, targets, style, r):
    """Bytes saved for backward per token per block (SDPA kernels: cuDNN, flash, efficient)."""
    h, i, H, K, d = a.h, a.i, a.H, a.K, a.d
    resid = 4 if fp32w else act  # the residual stream's dtype: the embedding's and the biases'
    full = not targets
    b = 0
    # Norms. LayerNorm (aten::native_layer_norm) saves its input only: the residual, or under
    # autocast its fp32 cast. RMSNorm (HF's Python code) saves its explicit fp32 copy and, when its
    # weight trains, the act-dtype normalised tensor.
    if a.norm == "layer":
        b += 2 * (4 * h if autocast else resid * h)
    else:
        b += 2 * (4 * h + (resid * h if full else 0))
    # The 16-bit copies of a projection's input: under autocast an fp32 input is cast for each
    # projection on its own; otherwise the projections share the norm's output.
    ln_out = 4 if (a.norm == "layer" and autocast) or resid == 4 else act
    def proj_inputs(n):
        return act * h * (n if (autocast and ln_out == 4) else 1)
    if full:
        b += proj_inputs(1 if a.fused_qkv else 3)  # q, k, v
        b += proj_inputs(2 if a.gated else 1)      # gate, up
    else:
        for t in targets:
            fin, _ = a.module_in(t)
            if style == "peft" and not autocast:
                b += 4 * fin + 4 * r      # peft's fp32 copy of x, lora_A's fp32 output
            else:
                b += act * fin + act * r  # autocast's 16-bit cast of x, lora_A's output
    # Attention: q (after RoPE), k and v at their own KV heads (cuDNN/flash take GQA natively; k and
    # v are the DynamicCache's concatenated copies), the output (o_proj reads it as a view: the
    # kernel writes it in B, S, H, D order) and the fp32 log-sum-exp. GPT-2's fused c_attn output
    # stays alive whole (q is a view of it) beside the cache's copies of k and v.
    if a.fused_qkv:
        b += act * (3 * h + 2 * h + h) + 4 * H
    else:
        b += act * (H * d + 2 * K * d + H * d) + 4 * H
    # FFN.
    down_saves = full
    if a.gated:
        b += 3 * act * i + (act * i if down_saves else 0)
    elif a.gelu_new and autocast:
        # gelu_new under CUDA autocast: pow is on the fp32 list, so x is cast to fp32 (saved by
        # pow), tanh and 1 + tanh are fp32 (saved), 0.5·x stays 16-bit (saved); c_proj casts the
        # fp32 product back to 16 bits (saved when c_proj's input is needed).
        b += 12 * i + act * i + (act * i if down_saves else 0)
    elif a.gelu_new:
        b += 4 * act * i + (act * i if down_saves else 0)
    else:
        b += act * i + (act * i if down_saves else 0)
    if a.dropout:
        b += 2 * h  # bool masks after attention and after the FFN; SDPA drops in-kernel
    if a.qk_norm:
        # Qwen3's RMSNorm on every head of q and k: the fp32 copies of q and k, and the
        # act-dtype normalised tensors when the norm weights train.
        b += 4 * (H + K) * d + (act * (H + K) * d if full else 0)
    return b



def training_peak(a: Arch, row):
    B, S = int(row["batch"]), int(row["seq_len"])
    T = B * S
    prec, dtype = row["precision"], row["dtype"]
    autocast = prec == "amp-bf16"
    fp32w = dtype == "fp32"
    act = 4 if prec == "fp32" else 2
    wb = 4 if fp32w else 2
    r = int(row["lora_rank"])
    targets = [t for t in row["lora_targets"].split("+") if t]
    style = row["lora_style"]
    W = a.params * wb
    if r:
        adapters = a.L * sum(r * sum(a.module_in(t)) for t in targets)
        W += adapters * 4  # fp32 adapters (peft's autocast_adapter_dtype; the script's too)
        trainable, sb = adapters, 4
    else:
        trainable, sb = a.params, wb
    states = trainable * sb * (2 if row["optimizer"] == "adamw" else 1)
    casts = 2 * (a.block_mats + a.head_mat) if (autocast and fp32w) else 0
    per_tok = training_per_token(a, act, autocast, fp32w, targets if r else [], style, r)
    loss = 12 * T * a.V if a.causal else 0  # log-softmax out, its grad, the logits' grad (fp32)
    if row["grad_checkpointing"] == "True":
        # Every block's input, and either the loss's tensors (start of backward) or one block
        # recomputed (later in backward, the loss's tensors gone).
        fwd = W + states + casts + T * a.L * (4 if fp32w else act) * a.h + max(loss, T * per_tok)
    else:
        fwd = W + states + casts + T * per_tok * a.L + loss
    grads = trainable * sb
    foreach = 0 if row["fused"] == "True" else trainable * sb
    step = W + states + grads + (foreach if row["optimizer"] == "adamw" else 0)
    # End of backward (full fine-tuning): every gradient, and the embedding's dense gradient built
    # in a fresh buffer (twice the matrix when the head is tied to it) - the estimator's term.
    emb = 0 if r else a.V * a.h * sb * (2 if a.tied and a.causal else 1)
    bwd_end = W + states + grads + emb
    return max(fwd, step, bwd_end) + CUBLAS


def inference_block_per_token(a: Arch, act):
    """The estimator's one-block figure (unchanged), with GPT-2's gelu_new holding 4 FFN-wide
    tensors at once (x, 0.5·x, a tanh-chain temporary, the product) instead of 2."""
    h = a.h
    mlp = a.i * (3 if a.gated else 4 if a.gelu_new else 2)
    attn = (a.H + 2 * a.K) * a.d + a.H * a.d
    return act * (2 * h + max(attn, mlp)) + 8 * h


def inference_peak(a: Arch, row, decode_only=False):
    B, S = int(row["batch"]), int(row["seq_len"])
    act = 4 if row["dtype"] == "fp32" else 2
    W = a.params * act
    n = int(row["decode_steps"] or 0)
    kv_tok = 2 * a.K * a.d * a.L * act if a.causal else 0
    block = B * S * inference_block_per_token(a, act)
    if not a.causal:
        return W + block + CUBLAS
    kept = S if row["logits"] == "all" else 1
    # At the LM head every block's tensors are gone: the final norm's output and the logits.
    head = B * kept * a.V * act + B * S * a.h * act
    prefill = B * S * kv_tok + max(block, head)
    # A decode step: the cache of S + n tokens, one layer's K (or V) of S + n - 1 tokens still
    # alive while torch.cat writes its longer copy, the last position's logits and generate()'s
    # fp32 copy of them.
    decode = B * (S + n) * kv_tok + B * a.K * a.d * (S + n - 1) * act + B * a.V * (act + 4)
    if decode_only:
        return W + decode + CUBLAS
    return W + max(prefill, decode if n else 0) + CUBLAS


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default=os.path.join(HERE, "torch-peaks.csv"))
    ap.add_argument("--rows", action="store_true")
    a = ap.parse_args(argv)
    rows = list(csv.DictReader(open(a.csv)))
    archs = {}
    groups: dict[tuple, list[float]] = {}
    for row in rows:
        if row["attention"] == "eager" or row["lora_style"] == "hand" and row["precision"] == "bf16":
            continue  # eager kernels and the hand adapter in pure bf16 are outside these formulas
        arch = archs.setdefault(row["model"], Arch(row["model"]))
        peak = int(row["peak_allocated_bytes"])
        est = training_peak(arch, row) if row["mode"] == "training" else inference_peak(arch, row)
        err = 100 * (est / peak - 1)
        groups.setdefault((row["regime"], row["split"], row["mode"]), []).append(err)
        if row.get("decode_peak_bytes"):
            dp = int(row["decode_peak_bytes"])
            derr = 100 * (inference_peak(arch, row, decode_only=True) / dp - 1)
            groups.setdefault(("decode-step-only", row["split"], "inference"), []).append(derr)
        if a.rows:
            print(f"{row['case_id']:62s} {row['split']:9s} {peak:>16,} {est:>16,} {err:+7.2f} %")
    print(f"{'regime':22s} {'split':9s} {'cases':>5s} {'median %':>9s} {'max %':>8s}  goal")
    for (reg, split, mode), errs in groups.items():
        med = statistics.median(abs(e) for e in errs)
        mx = max(abs(e) for e in errs)
        gm, gx = GOAL[mode]
        ok = "ok" if med <= gm and mx <= gx else "MISS"
        print(f"{reg:22s} {split:9s} {len(errs):>5d} {med:>9.2f} {mx:>8.2f}  {ok}")


if __name__ == "__main__":
    sys.exit(main())
