"""Image tokens per image by each multimodal family's own processor (transformers 5.24.0), for
crates/vramfit/src/model/image_tokens.rs's `counts_match_transformers_processors`.

Run: /work/venv-ref/bin/python tests/reference/image_tokens_reference.py
No download: each processor is built from its model's preprocessor_config.json values.
Columns: height, width, Qwen3-VL image tokens (placeholders, without <|vision_start|> and
<|vision_end|>), InternVL3 tiles (each 256 tokens; thumbnail included), Mistral Small 3.1 tokens
(Pixtral rows with [IMG_BREAK]/[IMG_END]), Pixtral 12B tokens.
"""
import numpy as np
import transformers
from transformers import GotOcr2ImageProcessor, Qwen2VLImageProcessor
from transformers.models.pixtral.image_processing_pil_pixtral import get_resize_output_image_size

SIZES = [(32, 32), (480, 640), (768, 1024), (1024, 1024), (333, 1001), (1080, 1920), (3000, 4000),
         (10, 2000), (4096, 4096), (8192, 8192), (720, 1280), (448, 448), (100, 4000)]

# Qwen/Qwen3-VL-8B-Instruct preprocessor_config.json (Qwen3.5 ships the same).
qwen = Qwen2VLImageProcessor(size={"shortest_edge": 65536, "longest_edge": 16777216},
                             patch_size=16, merge_size=2)
# OpenGVLab/InternVL3-8B-hf preprocessor_config.json.
internvl = GotOcr2ImageProcessor(size={"height": 448, "width": 448}, crop_to_patches=True,
                                 min_patches=1, max_patches=12)


def pixtral(h, w, patch, edge):
    """PixtralProcessor._get_num_multimodal_tokens: patch = patch_size x spatial_merge_size."""
    rh, rw = get_resize_output_image_size(np.zeros((h, w, 3)), size=(edge, edge),
                                          patch_size=(patch, patch))
    return (rw // patch + 1) * (rh // patch)


print("transformers", transformers.__version__)
print("height,width,qwen3_vl,internvl_tiles,mistral_small_3_1,pixtral_12b")
for h, w in SIZES:
    print(h, w, qwen.get_number_of_image_patches(h, w) // 4, internvl.get_number_of_image_patches(h, w),
          pixtral(h, w, 28, 1540), pixtral(h, w, 16, 1024), sep=",")
