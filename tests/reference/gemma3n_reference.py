"""Gemma 3n (issue 42): parameter counts and transformers' cache contents, the reference that
`config/gemma3n.rs`'s tests check (`gemma3n-reference.csv`).

Parameters: `Gemma3nForConditionalGeneration` (the whole checkpoint: text stack, the MobileNet-v5
vision tower, the USM conformer audio tower and the two multimodal embedders) and
`Gemma3nForCausalLM` (the text stack alone) built on the meta device, every parameter counted;
the towers' and embedders' counts are printed apart (`vision`, `audio`, `embedders`).

Caches: a tiny text model with real bf16 tensors on the CPU, one prefill of `batch` sequences of
`seq` tokens with `use_cache=True`, then one decode step: each layer's key and value tensors read
back with the bytes their storage holds (`untyped_storage().nbytes()`, after the prefill and
after the decode step) and their logical size after the prefill. A sliding layer's keys are a
slice of the prompt's, so until the first decode step it holds the whole prompt; the last
`num_kv_shared_layers` layers hold none.

The full-size configs: google/gemma-3n-E4B-it's text_config is `Gemma3nTextConfig`'s defaults
(the class's docstring checkpoint, "gemma3n_text-E4B style"): 35 layers, intermediate 16384,
15 KV-shared layers. google/gemma-3n-E2B-it
(https://huggingface.co/google/gemma-3n-E2B-it/blob/main/config.json) differs by 30 layers,
intermediate 8192, 10 KV-shared layers and 10 of 30 activation-sparse layers, as copies of the
hub file in public repositories write it (read 2026-12-07: google-ai-edge/ai-edge-torch's
gemma3n `get_model_config_e2b`, mlx-community/gemma-3n-E2B-it-lm-4bit's config as quoted in
tests). Both checkpoints' vision_config (`mobilenetv5_300m_enc`, 2048 wide) and audio_config
are the classes' defaults. The vision tower is timm's, built with timm 1.0.31 (and
torchvision 0.29.2 for its imports; `pip install --target DIR --no-deps timm torchvision==0.29.2`
and `PYTHONPATH=DIR`).

Run: python3 tests/reference/gemma3n_reference.py > tests/reference/gemma3n-reference.csv
(transformers 5.24.0, torch 2.15.0; CPU only, under a minute).
"""
import torch
import transformers
from transformers import (Gemma3nConfig, Gemma3nForCausalLM, Gemma3nForConditionalGeneration,
                          Gemma3nTextConfig)

E4B = dict()
E2B = dict(num_hidden_layers=30, intermediate_size=8192, num_kv_shared_layers=10,
           activation_sparsity_pattern=[0.95] * 10 + [0.0] * 20)
TINY = dict(vocab_size=128, vocab_size_per_layer_input=128, hidden_size=64,
            hidden_size_per_layer_input=8, intermediate_size=96, num_hidden_layers=10,
            num_attention_heads=4, num_key_value_heads=2, head_dim=16, sliding_window=8,
            num_kv_shared_layers=5, laurel_rank=4, altup_num_inputs=4)

CASES = {
    "gemma3n-e4b": (E4B, True, 0, 0),
    "gemma3n-e2b": (E2B, True, 0, 0),
    "gemma3n-tiny": (TINY, False, 2, 24),
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


def cache_bytes(model, batch, seq):
    torch.manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (batch, seq))
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
        prefill = layer_bytes(out.past_key_values)
        nxt = out.logits[:, -1:].argmax(-1)
        out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
        decode = layer_bytes(out.past_key_values)
    return (sum(s for s, _ in prefill), sum(n for _, n in prefill), sum(s for s, _ in decode),
            " ".join(str(s) for s, _ in prefill))


def part(model, prefix):
    return sum(p.numel() for n, p in model.named_parameters() if n.startswith(prefix))


def main():
    print("case,params,text_params,vision,audio,embedders,batch,seq,prefill_storage_bytes,"
          "prefill_logical_bytes,decode_storage_bytes,layers,transformers,torch")
    for name, (over, whole, batch, seq) in CASES.items():
        text = Gemma3nTextConfig(**over)
        with torch.device("meta"):
            lm = Gemma3nForCausalLM(text)
        text_params = sum(p.numel() for p in lm.parameters())
        params, vision, audio, embedders = text_params, 0, 0, 0
        if whole:
            with torch.device("meta"):
                full = Gemma3nForConditionalGeneration(Gemma3nConfig(text_config=text.to_dict()))
            params = sum(p.numel() for p in full.parameters())
            vision = part(full, "model.vision_tower.")
            audio = part(full, "model.audio_tower.")
            embedders = part(full, "model.embed_vision.") + part(full, "model.embed_audio.")
        storage = logical = decode = 0
        held = ""
        if batch:
            torch.manual_seed(0)
            model = Gemma3nForCausalLM(text).to(torch.bfloat16).eval()
            storage, logical, decode, held = cache_bytes(model, batch, seq)
        print(f"{name},{params},{text_params},{vision},{audio},{embedders},{batch},{seq},"
              f"{storage},{logical},{decode},{held},"
              f"{transformers.__version__},{torch.__version__.split('+')[0]}")


if __name__ == "__main__":
    main()
