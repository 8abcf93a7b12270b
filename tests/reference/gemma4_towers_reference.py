"""Gemma 4's vision and audio towers (issue 42): parameter counts of
`Gemma4ForConditionalGeneration` on the meta device, the reference that
`config/gemma4_towers_tests.rs` checks (`gemma4-towers-reference.csv`).

Each case prints the whole model's parameters, the text stack's (`model.language_model.`), and
the vision tower's, its embedder's, the audio tower's and its embedder's apart. Buffers (the
clipped linears' input/output bounds, the vision rotary frequencies, `standardize`'s bias and
scale) are not parameters: `towers_state_dict` adds the persistent ones a checkpoint holds to the
towers' parameters, to show their size.

Cases:
- gemma4-e2b: google/gemma-4-E2B-it's published config, as the mock hub's fixture holds it
  (tests/hub/fixtures/google/gemma-4-e2b-it/config.json).
- gemma4-towers-defaults: `Gemma4TextConfig`, `Gemma4VisionConfig` and `Gemma4AudioConfig`'s
  class defaults (both towers given as empty objects).
- gemma4-vision-gqa: a vision tower of grouped KV heads and a head width that is not
  hidden_size / heads, no audio tower (as the larger Gemma 4 models ship none).
- gemma4-audio-narrow: an audio tower of other widths and no vision tower.

Run: python3 tests/reference/gemma4_towers_reference.py > tests/reference/gemma4-towers-reference.csv
(transformers 5.25.0, torch 2.15.0; CPU only, seconds).
"""
import json
import os

import torch
import transformers
from transformers import Gemma4Config, Gemma4ForConditionalGeneration

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "hub", "fixtures", "google", "gemma-4-e2b-it", "config.json")

SMALL_TEXT = dict(model_type="gemma4_text", hidden_size=640, intermediate_size=1024,
                  num_hidden_layers=6, num_attention_heads=4, num_key_value_heads=1,
                  head_dim=128, global_head_dim=256, hidden_size_per_layer_input=0)


def e2b():
    cfg = json.load(open(FIXTURE))
    cfg.pop("architectures", None)
    return cfg


CASES = {
    "gemma4-e2b": e2b,
    "gemma4-towers-defaults": lambda: dict(vision_config={}, audio_config={}),
    "gemma4-vision-gqa": lambda: dict(
        text_config=SMALL_TEXT,
        vision_config=dict(hidden_size=1152, intermediate_size=4304, num_hidden_layers=27,
                           num_attention_heads=16, num_key_value_heads=4, head_dim=72,
                           patch_size=14, position_embedding_size=4096, standardize=True)),
    "gemma4-audio-narrow": lambda: dict(
        text_config=SMALL_TEXT,
        audio_config=dict(hidden_size=512, num_hidden_layers=4, num_attention_heads=4,
                          subsampling_conv_channels=[64, 16], conv_kernel_size=7,
                          output_proj_dims=768, use_clipped_linears=False)),
}


def part(model, prefix):
    return sum(p.numel() for n, p in model.named_parameters() if n.startswith(prefix))


def main():
    print("case,params,text_params,vision_tower,embed_vision,audio_tower,embed_audio,"
          "towers_state_dict,transformers,torch")
    for name, make in CASES.items():
        config = Gemma4Config(**make())
        with torch.device("meta"):
            model = Gemma4ForConditionalGeneration(config)
        params = sum(p.numel() for p in model.parameters())
        cols = [part(model, "model.language_model.")] + [
            part(model, f"model.{m}.")
            for m in ("vision_tower", "embed_vision", "audio_tower", "embed_audio")
        ]
        # The head is tied to the embeddings in every case: no lm_head of its own.
        assert params == sum(cols), (name, params, cols)
        towers = ("model.vision_tower.", "model.embed_vision.", "model.audio_tower.",
                  "model.embed_audio.")
        state = sum(t.numel() for k, t in model.state_dict().items() if k.startswith(towers))
        print(f"{name},{params}," + ",".join(map(str, cols)) + f",{state}"
              + f",{transformers.__version__},{torch.__version__.split('+')[0]}")


if __name__ == "__main__":
    main()
