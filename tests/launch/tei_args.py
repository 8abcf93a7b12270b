"""TEI's router flags from its clap `Args` (router/src/main.rs): each field under a
`#[clap(... long ...)]` attribute is `--field-name` (clap's kebab case), `short` adds `-f`.

Run: python3 tests/launch/tei_args.py MAIN_RS TAG COMMIT > tests/data/tei-router-args.txt
(MAIN_RS read from huggingface/text-embeddings-inference at TAG, commit COMMIT).
"""
import re
import sys

path, tag, commit = sys.argv[1:4]
text = open(path, encoding="utf-8").read()
body = text[text.index("struct Args {"):]
body = body[: body.index("\n}\n")]
names = set()
attrs = []
for line in body.splitlines():
    s = line.strip()
    if s.startswith("#[clap("):
        attrs.append(s)
        continue
    m = re.match(r"(\w+): ", s)
    if m and attrs:
        field = m.group(1)
        joined = " ".join(attrs)
        if re.search(r"\blong\b", joined):
            names.add("--" + field.replace("_", "-"))
        if re.search(r"\bshort\b", joined):
            names.add("-" + field[0])
        attrs = []
    elif m:
        attrs = []
print(f"# text-embeddings-router flags: router/src/main.rs of huggingface/text-embeddings-inference {tag} ({commit}), read 2026-12-07 by tests/launch/tei_args.py")
for n in sorted(names):
    print(n)
