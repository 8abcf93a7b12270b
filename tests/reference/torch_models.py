"""The models of torch_peaks.py: each config as in the hub's config.json (written out here;
nothing is downloaded), with the hub checkpoint's parameter count, which build_model checks."""
from transformers import BertConfig, GPT2Config, LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config


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


# Models added for issue 31 (the held-out set and the wider regimes).
def cfg_gpt2_medium():
    return GPT2Config(n_embd=1024, n_layer=24, n_head=16)  # openai-community/gpt2-medium


def cfg_bert_large():
    return BertConfig(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                      num_labels=2)  # google-bert/bert-large-uncased


def cfg_qwen25_15b():
    return Qwen2Config(
        vocab_size=151936, hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
        num_attention_heads=12, num_key_value_heads=2, max_position_embeddings=131072,
        rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True, hidden_act="silu",
        use_sliding_window=False, sliding_window=131072, max_window_layers=28, attention_dropout=0.0,
        bos_token_id=151643, eos_token_id=151643)


def cfg_llama32_3b():
    return LlamaConfig(
        vocab_size=128256, hidden_size=3072, intermediate_size=8192, num_hidden_layers=28,
        num_attention_heads=24, num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
        rms_norm_eps=1e-5, rope_theta=500000.0, rope_scaling=_llama3_rope(32.0), tie_word_embeddings=True,
        attention_bias=False, mlp_bias=False, hidden_act="silu", bos_token_id=128000, eos_token_id=128001)


def cfg_qwen3_4b():
    return Qwen3Config(
        vocab_size=151936, hidden_size=2560, intermediate_size=9728, num_hidden_layers=36,
        num_attention_heads=32, num_key_value_heads=8, head_dim=128, max_position_embeddings=40960,
        rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True, hidden_act="silu",
        attention_bias=False, use_sliding_window=False, sliding_window=None, max_window_layers=36,
        attention_dropout=0.0, bos_token_id=151643, eos_token_id=151645)


def cfg_mistral_7b():
    return MistralConfig(
        vocab_size=32000, hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
        num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=32768, rope_theta=10000.0,
        rms_norm_eps=1e-5, sliding_window=4096, tie_word_embeddings=False, hidden_act="silu",
        bos_token_id=1, eos_token_id=2)


# name -> (kind, config, parameter count of the hub checkpoint, checked when the model is built)
MODELS = {
    "gpt2": ("causal", cfg_gpt2, 124_439_808),
    "Qwen/Qwen2.5-0.5B": ("causal", cfg_qwen25_05b, 494_032_768),
    "meta-llama/Llama-3.2-1B": ("causal", cfg_llama32_1b, 1_235_814_400),
    "meta-llama/Llama-3.1-8B": ("causal", cfg_llama31_8b, 8_030_261_248),
    "google-bert/bert-base-uncased": ("seqcls", cfg_bert_base, 109_483_778),
    "gpt2-medium": ("causal", cfg_gpt2_medium, 354_823_168),
    "google-bert/bert-large-uncased": ("seqcls", cfg_bert_large, 335_143_938),
    "Qwen/Qwen2.5-1.5B": ("causal", cfg_qwen25_15b, 1_543_714_304),
    "meta-llama/Llama-3.2-3B": ("causal", cfg_llama32_3b, 3_212_749_824),
    "Qwen/Qwen3-4B": ("causal", cfg_qwen3_4b, 4_022_468_096),
    "mistralai/Mistral-7B-v0.1": ("causal", cfg_mistral_7b, 7_241_732_096),
}
