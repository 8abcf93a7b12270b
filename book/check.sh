#!/bin/sh
# Consistency checks of the book that mdBook does not do; run from the repository root:
#   sh book/check.sh [--no-mdbook]
# 1. Both books have the same chapter files.
# 2. Every test the book cites as "test `name`" (测试 `name`) exists as `fn name` in the code.
# 3. Both books build and their code blocks pass `mdbook test` (skipped with --no-mdbook:
#    `cargo xtask test` runs those as steps of their own, with their output).
# 4. Every relative link in the built books leads to a file (`book/links.mjs`; with 3).
set -eu
mdbook=1
if [ "${1:-}" = "--no-mdbook" ]; then
    mdbook=0
fi
cd "$(dirname "$0")/.."
fail=0

en=$(cd book/en/src && find . -name '*.md' | sort)
zh=$(cd book/zh/src && find . -name '*.md' | sort)
if [ "$en" != "$zh" ]; then
    echo "book/en/src and book/zh/src differ in their chapter files:" >&2
    tmp=$(mktemp -d)
    echo "$en" >"$tmp/en"
    echo "$zh" >"$tmp/zh"
    diff -u "$tmp/en" "$tmp/zh" >&2 || true
    rm -r "$tmp"
    fail=1
fi

for t in $(grep -rhoE '(tests?|测试) `[a-z0-9_]+`' book/en/src book/zh/src | grep -oE '`[a-z0-9_]+`' | tr -d '`' | sort -u); do
    if ! grep -rqE "fn $t\b" crates tests web; then
        echo "the book cites test \`$t\`, which no longer exists" >&2
        fail=1
    fi
done

if [ "$mdbook" = 1 ]; then
    for lang in en zh; do
        mdbook build "book/$lang" >/dev/null 2>&1 || { echo "mdbook build book/$lang failed" >&2; fail=1; }
        mdbook test "book/$lang" >/dev/null 2>&1 || { echo "mdbook test book/$lang failed" >&2; fail=1; }
    done
    # 4. Every relative link in the built books leads to a file.
    node book/links.mjs >/dev/null || { node book/links.mjs >&2 || true; fail=1; }
fi

exit $fail
