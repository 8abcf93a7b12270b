"""The decoder configs transformers ships, at their class defaults, as vramfit's corpus.

For every `model_type` with a causal-LM class (`MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`), the config
class is instantiated with no arguments and written with `to_json_string()` (what
`save_pretrained` writes), less the keys no shape depends on (labels, output switches, names).
`crates/vramfit/tests/transformers_defaults.rs` reads each one: it estimates, or is refused with
an error naming a field.

Run: python3 -m venv /tmp/tf && /tmp/tf/bin/pip install transformers==5.25.0 &&
/tmp/tf/bin/python tests/reference/transformers_defaults.py \
    > crates/vramfit/tests/corpus/transformers-defaults.json
(no torch needed: only the config classes are built).
"""

import json
import sys

import transformers
from transformers import CONFIG_MAPPING
from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

# Keys no memory figure depends on, dropped to keep the corpus small.
DROPPED = {
    "id2label", "label2id", "output_attentions", "output_hidden_states", "return_dict",
    "problem_type", "chunk_size_feed_forward", "_name_or_path", "transformers_version",
    "architectures", "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id",
    "decoder_start_token_id", "task_specific_params", "tokenizer_class", "prefix",
    "finetuning_task", "initializer_range",
}


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in DROPPED}
    return value


def main():
    configs, failed = {}, {}
    for model_type in sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES):
        try:
            config = CONFIG_MAPPING[model_type]()
        except Exception as e:  # a class whose defaults do not validate: listed, not written
            failed[model_type] = str(e).splitlines()[-1][:160]
            continue
        configs[model_type] = strip(json.loads(config.to_json_string(use_diff=False)))
    out = {"transformers": transformers.__version__, "not_instantiable": failed, "configs": configs}
    json.dump(out, sys.stdout, sort_keys=True, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
