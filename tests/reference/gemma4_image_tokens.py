"""Gemma 4's image tokens (issue 42): transformers' own `Gemma4ImageProcessorPil` (the PIL backend of `Gemma4ImageProcessor`; its class
defaults: patch_size 16, pooling_kernel_size 3, max_soft_tokens 280) on random images of each
size, the reference that `model/image_tokens.rs`'s Gemma 4 test checks
(`gemma4-image-tokens.csv`). `soft_tokens` is the processor's `num_soft_tokens_per_image`; the
prompt holds them between `<boi>` and `<eoi>` (`Gemma4Processor`), 2 more. A size the processor
refuses is written as `refused`.

Run: python3 tests/reference/gemma4_image_tokens.py > tests/reference/gemma4-image-tokens.csv
(transformers 5.25.0, torch 2.15.0, numpy, Pillow; CPU only, seconds).
"""
import numpy as np
import torch
import transformers
from transformers.models.gemma4.image_processing_pil_gemma4 import Gemma4ImageProcessorPil

SIZES = [(1024, 1024), (640, 480), (1920, 1080), (1080, 1920), (224, 224), (4032, 3024),
         (300, 2000), (48, 48), (100, 3000), (32768, 16)]
proc = Gemma4ImageProcessorPil()
rng = np.random.default_rng(0)
print(f"width,height,soft_tokens  # transformers {transformers.__version__}, torch {torch.__version__}")
for w, h in SIZES:
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    try:
        out = proc(images=[img])
        print(f"{w},{h},{int(out['num_soft_tokens_per_image'][0])}")
    except ValueError:
        print(f"{w},{h},refused")
