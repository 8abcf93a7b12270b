"""Step 3.5 and Step 3.7 (issue 42): parameter counts and transformers' cache contents, the
reference that `config/step3p5.rs`'s tests check (`step3p5-reference.csv`).

Parameters: transformers 5.24's `Step3p7TextModel` (the `step3p5` text stack) plus its LM head,
which is what a `Step3p5ForCausalLM` checkpoint holds without its trailing MTP layers
(transformers ignores them on load), and `Step3p7ForConditionalGeneration` (the text stack, the
vision tower and its projector), built on the meta device, every parameter counted; the vision
tower and projector are printed apart (`vision`).

The full-size config is stepfun-ai/Step-3.5-Flash's config.json
(https://huggingface.co/stepfun-ai/Step-3.5-Flash/blob/main/config.json) as vendored in
yevvonlim/Megatron-Bridge at 2023060258425968ad5401c99153723cee8cd114
(tests/unit_tests/models/step3p5/_reference/config.json), read 2026-12-07: 45 layers (+3 MTP
padded into its per-layer lists), 4096 wide, 64 heads on the 12 full layers (every 4th from
layer 0) and 96 (`attention_other_setting`) on the 33 sliding ones (window 512), 8 KV heads of
128, vocab 128896, dense FFN 11264 on layers 0-2, 288 experts of 1280 top-8 and a shared expert
of 1280 on layers 3-44. Step-3.7-Flash's text_config is the same stack; its vision_config is
`Step3p7VisionConfig`'s defaults (1536 wide, 47 layers, FFN 8960, 728-pixel images of 14-pixel
patches), the class's docstring checkpoint.

Caches: a tiny text model with real bf16 tensors on the CPU, one prefill of `batch` sequences
of `seq` tokens with `use_cache=True`, then one decode step: each layer's key and value tensors
read back with the bytes their storage holds (`untyped_storage().nbytes()`, after the prefill
and after the decode step) and their logical size after the prefill. A sliding layer's keys are
a slice of the prompt's, so until the first decode step it holds the whole prompt.

Run: python3 tests/reference/step3p5_reference.py > tests/reference/step3p5-reference.csv
(transformers 5.24.0, torch 2.15.0; CPU only, under a minute).
"""
import torch
import transformers
from torch import nn
from transformers import Step3p7Config, Step3p7ForConditionalGeneration
from transformers.models.step3p7.configuration_step3p7 import Step3p7TextConfig
from transformers.models.step3p7.modeling_step3p7 import Step3p7TextModel

LAYERS = 45
FLASH = dict(
    hidden_size=4096, intermediate_size=11264, num_hidden_layers=LAYERS, vocab_size=128896,
    num_attention_heads=64, num_attention_groups=8, head_dim=128, moe_num_experts=288,
    moe_top_k=8, moe_intermediate_size=1280, share_expert_dim=1280,
    moe_layers_enum=",".join(str(i) for i in range(3, LAYERS)), sliding_window=512,
    num_nextn_predict_layers=3, max_position_embeddings=262144, tie_word_embeddings=False,
    layer_types=[("full_attention" if i % 4 == 0 else "sliding_attention")
                 for i in range(LAYERS + 3)],
    rope_theta=[(5e6 if i % 4 == 0 else 1e4) for i in range(LAYERS + 3)],
    partial_rotary_factors=[(0.5 if i % 4 == 0 else 1.0) for i in range(LAYERS + 3)],
    attention_other_setting={"attention_type": "sliding_attention", "num_attention_heads": 96,
                             "num_attention_groups": 8, "head_dim": 128, "true_head_dim": 128},
)
TINY_LAYERS = 6
TINY = dict(
    hidden_size=64, intermediate_size=96, num_hidden_layers=TINY_LAYERS, vocab_size=128,
    num_attention_heads=4, num_attention_groups=2, head_dim=16, moe_num_experts=4, moe_top_k=2,
    moe_intermediate_size=32, share_expert_dim=32, moe_layers_enum="2,3,4,5", sliding_window=8,
    layer_types=[("full_attention" if i % 4 == 0 else "sliding_attention")
                 for i in range(TINY_LAYERS)],
    attention_other_setting={"num_attention_heads": 6, "num_attention_groups": 2},
)
TINY_VISION = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=2, image_size=56, patch_size=14)

CASES = {
    "step3p5-flash": (FLASH, None, 0, 0),
    "step3p7-flash": (FLASH, {}, 0, 0),
    "step3p5-tiny": (TINY, TINY_VISION, 2, 24),
}


def layer_bytes(cache):
    """Per layer: (storage bytes, logical bytes) of its keys and values."""
    out = []
    for layer in cache.layers:
        keys, values = getattr(layer, "keys", None), getattr(layer, "values", None)
        if keys is None or keys.numel() == 0:
            out.append((0, 0))
            continue
        out.append((sum(t.untyped_storage().nbytes() for t in (keys, values)),
                    sum(t.numel() * t.element_size() for t in (keys, values))))
    return out


class CausalLm(nn.Module):
    """The text stack and its LM head: the parameters of a `Step3p5ForCausalLM` checkpoint."""

    def __init__(self, config):
        super().__init__()
        self.model = Step3p7TextModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids, cache=None):
        out = self.model(input_ids=input_ids, cache=cache, use_cache=True)
        return self.lm_head(out.last_hidden_state), out.cache


def cache_bytes(model, batch, seq):
    torch.manual_seed(0)
    ids = torch.randint(0, model.model.config.vocab_size, (batch, seq))
    with torch.no_grad():
        logits, cache = model(ids)
        prefill = layer_bytes(cache)
        nxt = logits[:, -1:].argmax(-1)
        _, cache = model(nxt, cache)
        decode = layer_bytes(cache)
    return (sum(s for s, _ in prefill), sum(n for _, n in prefill), sum(s for s, _ in decode),
            " ".join(str(s) for s, _ in prefill))


def part(model, prefix):
    return sum(p.numel() for n, p in model.named_parameters() if n.startswith(prefix))


def main():
    print("case,params,text_params,vision,batch,seq,prefill_storage_bytes,"
          "prefill_logical_bytes,decode_storage_bytes,layers,transformers,torch")
    for name, (over, vision_over, batch, seq) in CASES.items():
        text = Step3p7TextConfig(**over)
        with torch.device("meta"):
            lm = CausalLm(text)
        text_params = sum(p.numel() for p in lm.parameters())
        params, vision = text_params, 0
        if vision_over is not None:
            config = Step3p7Config(text_config=dict(over), vision_config=dict(vision_over))
            with torch.device("meta"):
                full = Step3p7ForConditionalGeneration(config)
            params = sum(p.numel() for p in full.parameters())
            vision = part(full, "model.vision_model.") + part(full, "model.multi_modal_projector.")
        storage = logical = decode = 0
        held = ""
        if batch:
            torch.manual_seed(0)
            model = CausalLm(text).to(torch.bfloat16).eval()
            for p in model.parameters():
                nn.init.normal_(p, std=0.02)
            storage, logical, decode, held = cache_bytes(model, batch, seq)
        print(f"{name},{params},{text_params},{vision},{batch},{seq},"
              f"{storage},{logical},{decode},{held},"
              f"{transformers.__version__},{torch.__version__.split('+')[0]}")


if __name__ == "__main__":
    main()
