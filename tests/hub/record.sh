#!/bin/sh
# Records a repo's real headers into tests/hub/fixtures/OWNER/NAME where a network reaches the
# hub (this project's build machines reach none): config.json, the safetensors index, and of each
# safetensors file its JSON header alone (8 bytes by Range, then the N bytes they announce).
#   sh tests/hub/record.sh Qwen/Qwen2.5-0.5B-Instruct-AWQ model.safetensors
# GGUF headers are kept as specs (`*.gguf.header.txt`, see fixtures/write.py); record one with
# `vramfit estimate --model OWNER/NAME --hub --json` and compare its checkpoint instead.
set -eu
repo="$1"; shift
hub="${HF_ENDPOINT:-https://huggingface.co}"
dir="$(dirname "$0")/fixtures/$repo"
mkdir -p "$dir"
curl -fsSL "$hub/$repo/resolve/main/config.json" -o "$dir/config.json"
curl -fsSL "$hub/$repo/resolve/main/model.safetensors.index.json" -o "$dir/model.safetensors.index.json" 2>/dev/null \
  || rm -f "$dir/model.safetensors.index.json"
for file in "$@"; do
  n=$(curl -fsSL -r 0-7 "$hub/$repo/resolve/main/$file" | od -An -tu8 -N8 | tr -d ' ')
  curl -fsSL -r "8-$((8 + n - 1))" "$hub/$repo/resolve/main/$file" -o "$dir/$file.header.json"
done
