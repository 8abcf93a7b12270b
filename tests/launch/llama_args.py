"""The flag names llama.cpp's argument parser takes, from its `common/arg.cpp`.

Writes tests/data/llama-cpp-args.txt, one name per line after a header naming the source, for
the test `llama_server_takes_every_flag_written` (tests/it/launch_parsed.rs). llama.cpp is C++
with no parser to import here; each option is declared as `common_arg({"-c", "--ctx-size"}, …)`.

    python3 tests/launch/llama_args.py PATH/TO/llama.cpp/common/arg.cpp "SOURCE DESCRIPTION"
"""

import re
import sys
from pathlib import Path

src, source = Path(sys.argv[1]), sys.argv[2]
names = set()
for group in re.findall(r"common_arg\(\s*\{([^}]*)\}", src.read_text()):
    names.update(re.findall(r'"(-[^"\s]+)"', group))
out = Path("tests/data/llama-cpp-args.txt")
out.write_text(f"# {source}\n" + "".join(f"{n}\n" for n in sorted(names)))
print(f"wrote {out}: {len(names)} names")
