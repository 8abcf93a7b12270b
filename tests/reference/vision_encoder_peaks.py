"""Vision encoders' activation peaks (issue 42): the bytes a vision tower's forward holds
beyond its weights and its pixel input, measured tensor by tensor on real (CPU) tensors.

Each tower is transformers 5.24's class at the hub checkpoint's widths (hidden size, MLP
width, heads, patch size, position grid), with fewer blocks (the peak is one block's working
set over the residual stream, the same in every block, plus what the tower keeps: Qwen3-VL's
DeepStack features, taken here after the first blocks so the last block holds them all, as
the real tower's last blocks after layer 24 do). Weights are random, bf16, `sdpa` attention
(on the CPU, PyTorch's flash kernel: the attention matrix is not materialised, as with the
flash/SDPA kernels vLLM's and transformers' CUDA runs take).

The peak is `torch_peaks.PeakTracker`'s live-storage count (every storage an aten op returns,
freed by a weakref finalizer; rounded to 512 B as the CUDA caching allocator rounds), taken
from just before the forward (weights and inputs live) to its end; `act_peak` is that peak
less the weights and the inputs, `inputs` the pixel tensor, `outputs` what the forward
returns (merged embeddings, DeepStack features, the last hidden state).

    /work/venv-ref/bin/python tests/reference/vision_encoder_peaks.py   # writes vision-encoder-peaks.csv
"""

import csv
import gc
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_peaks import PeakTracker  # noqa: E402

import transformers  # noqa: E402
from transformers import (  # noqa: E402
    InternVLVisionConfig,
    InternVLVisionModel,
    SiglipVisionConfig,
    SiglipVisionModel,
)
from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLVisionConfig  # noqa: E402
from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLVisionModel  # noqa: E402

OUT = os.path.join(HERE, "vision-encoder-peaks.csv")
DT = torch.bfloat16
DEPTH = 4


def qwen3_vl():
    # Qwen/Qwen3-VL-8B-Instruct config.json vision_config: hidden 1152, intermediate 4304,
    # 16 heads, patch 16, temporal 2, merge 2, 2304 positions, out_hidden_size 4096,
    # deepstack_visual_indexes [8, 16, 24] (here after blocks 0, 1, 2 of 4).
    c = Qwen3VLVisionConfig(depth=DEPTH, hidden_size=1152, intermediate_size=4304, num_heads=16,
                            patch_size=16, temporal_patch_size=2, spatial_merge_size=2,
                            num_position_embeddings=2304, out_hidden_size=4096,
                            deepstack_visual_indexes=[0, 1, 2], hidden_act="gelu_pytorch_tanh")
    c._attn_implementation = "sdpa"
    return Qwen3VLVisionModel(c)


def siglip():
    # google/gemma-3-4b-it config.json vision_config: SigLIP so400m, hidden 1152,
    # intermediate 4304, 16 heads, image 896, patch 14 (4,096 patches an image).
    c = SiglipVisionConfig(num_hidden_layers=DEPTH, hidden_size=1152, intermediate_size=4304,
                           num_attention_heads=16, image_size=896, patch_size=14,
                           vision_use_head=False, hidden_act="gelu_pytorch_tanh")
    c._attn_implementation = "sdpa"
    return SiglipVisionModel(c)


def internvit():
    # OpenGVLab/InternVL3-8B-hf config.json vision_config: InternViT-300M, hidden 1024,
    # intermediate 4096, 16 heads, image 448, patch 14 (1,024 patches and a CLS a tile).
    c = InternVLVisionConfig(num_hidden_layers=DEPTH, hidden_size=1024, intermediate_size=4096,
                             num_attention_heads=16, image_size=[448, 448], patch_size=[14, 14],
                             use_qk_norm=False, norm_type="layer_norm", use_mean_pooling=False)
    c._attn_implementation = "sdpa"
    return InternVLVisionModel(c)


def qwen_inputs(images, side):
    grid = side // 16
    thw = torch.tensor([[1, grid, grid]] * images)
    pixels = torch.randn(images * grid * grid, 3 * 2 * 16 * 16, dtype=DT)
    return (pixels,), {"grid_thw": thw}, images * grid * grid


def siglip_inputs(images, _side):
    return (torch.randn(images, 3, 896, 896, dtype=DT),), {}, images * 4096


def internvit_inputs(tiles, _side):
    return (torch.randn(tiles, 3, 448, 448, dtype=DT),), {}, tiles * 1025


CASES = [
    ("qwen3_vl_8b", qwen3_vl, qwen_inputs, [(1, 512), (1, 1024), (2, 1024)]),
    ("siglip_gemma3", siglip, siglip_inputs, [(1, 896), (2, 896)]),
    ("internvit_300m", internvit, internvit_inputs, [(1, 448), (7, 448), (13, 448)]),
]


def storage_bytes(tensors):
    seen, n = set(), 0
    for t in tensors:
        st = t.untyped_storage()
        if st._cdata not in seen:
            seen.add(st._cdata)
            n += ((st.nbytes() + 511) // 512) * 512
    return n


def leaves(out):
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    return [t for t in torch.utils._pytree.tree_leaves(out) if isinstance(t, torch.Tensor)]


def run(name, build, make, items, side):
    torch.manual_seed(0)
    model = build().to(DT).eval()
    args, kwargs, patches = make(items, side)
    inputs = storage_bytes([a for a in args])
    tracker = PeakTracker()
    with torch.no_grad(), tracker:
        # The weights and inputs predate the mode: registered first, so that the views the
        # forward takes of them (a linear's `t()`) are not counted as new storages.
        for t in [*model.parameters(), *model.buffers(), *args]:
            tracker.track(t)
        base = tracker.cur
        tracker.reset_peak()
        out = model(*args, **kwargs)
        outs = leaves(out)
        peak = tracker.peak - base
        outputs = storage_bytes(outs)
    del out, outs
    gc.collect()
    return {
        "tower": name,
        "items": items,
        "side": side,
        "patches": patches,
        "hidden": model.config.hidden_size,
        "intermediate": model.config.intermediate_size,
        "inputs_bytes": inputs,
        "act_peak_bytes": peak,
        "outputs_bytes": outputs,
        "torch": torch.__version__.split("+")[0],
        "transformers": transformers.__version__,
    }


def main():
    rows = []
    for name, build, make, sizes in CASES:
        for items, side in sizes:
            r = run(name, build, make, items, side)
            print(r, flush=True)
            rows.append(r)
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
