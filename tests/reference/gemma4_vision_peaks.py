"""Gemma 4's vision tower activation peak (issue 42), as `vision_encoder_peaks.py` measures the
other towers: transformers 5.25's `Gemma4VisionModel` at google/gemma-4-E2B-it's
`vision_config` widths (hidden 768, MLP 3072, 12 heads of 64, patch 16, pooling 3, clipped
linears) with fewer blocks, random bf16 weights, `sdpa` attention on real CPU tensors. vLLM
builds the same class (`gemma4_mm.py`: `AutoModel.from_config(config.vision_config)`), so the
figure is its encoder's too.

The input is the processor's: `pixel_values` of (items, patches, 3 × 16²) in fp32 and
`pixel_position_ids` of (items, patches, 2); a largest image of 280 soft tokens is 280 × 3² =
2,520 patches. `act_peak` is `PeakTracker`'s live-storage peak (each storage rounded to 512 B)
from just before the forward to its end, less the weights and the inputs; `outputs` what it
returns.

    PYTHONPATH=… python tests/reference/gemma4_vision_peaks.py   # writes gemma4-vision-peaks.csv
"""

import csv
import gc
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from vision_encoder_peaks import leaves, storage_bytes  # noqa: E402
from torch_peaks import PeakTracker  # noqa: E402

import transformers  # noqa: E402
from transformers.models.gemma4.configuration_gemma4 import Gemma4VisionConfig  # noqa: E402
from transformers.models.gemma4.modeling_gemma4 import Gemma4VisionModel  # noqa: E402

OUT = os.path.join(HERE, "gemma4-vision-peaks.csv")
DT = torch.bfloat16
DEPTH = 2


def tower():
    # google/gemma-4-E2B-it config.json vision_config (tests/hub/fixtures), with DEPTH blocks.
    c = Gemma4VisionConfig(hidden_size=768, intermediate_size=3072, num_hidden_layers=DEPTH,
                           num_attention_heads=12, num_key_value_heads=12, head_dim=64,
                           global_head_dim=64, patch_size=16, pooling_kernel_size=3,
                           position_embedding_size=10240, use_clipped_linears=True,
                           standardize=False)
    c._attn_implementation = "sdpa"
    return Gemma4VisionModel(c)


def inputs(items, soft):
    # A square grid of soft × 3² patches (soft a square here: 64 → 24 × 24, 256 → 48 × 48);
    # 280 → 2,520 patches as 45 × 56.
    side = {64: (24, 24), 256: (48, 48), 280: (45, 56)}[soft]
    ys, xs = torch.meshgrid(torch.arange(side[0]), torch.arange(side[1]), indexing="ij")
    pos = torch.stack([xs.flatten(), ys.flatten()], dim=-1).unsqueeze(0).repeat(items, 1, 1)
    patches = side[0] * side[1]
    pixels = torch.rand(items, patches, 3 * 16 * 16, dtype=torch.float32)
    return pixels, pos, patches


def run(items, soft):
    torch.manual_seed(0)
    model = tower().to(DT).eval()
    pixels, pos, patches = inputs(items, soft)
    inp = storage_bytes([pixels, pos])
    tracker = PeakTracker()
    with torch.no_grad(), tracker:
        for t in [*model.parameters(), *model.buffers(), pixels, pos]:
            tracker.track(t)
        base = tracker.cur
        tracker.reset_peak()
        out = model(pixel_values=pixels, pixel_position_ids=pos)
        outs = leaves(out)
        peak = tracker.peak - base
        outputs = storage_bytes(outs)
    del out, outs
    gc.collect()
    return {
        "tower": "gemma4_e2b",
        "items": items,
        "soft_tokens": soft,
        "patches": items * patches,
        "hidden": 768,
        "intermediate": 3072,
        "inputs_bytes": inp,
        "act_peak_bytes": peak,
        "outputs_bytes": outputs,
        "torch": torch.__version__.split("+")[0],
        "transformers": transformers.__version__,
    }


def main():
    rows = []
    for items, soft in [(1, 64), (1, 256), (1, 280), (2, 280), (4, 280)]:
        r = run(items, soft)
        print(r, flush=True)
        rows.append(r)
    with open(OUT, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
