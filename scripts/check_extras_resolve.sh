#!/usr/bin/env bash
# Check with pip's resolver, installing nothing, that socialbench's documented extras
# combinations resolve and that the combination declared as conflicting (vllm with serve:
# vLLM 0.34 pins transformers<5.23 and fastapi<0.137, `transformers serve` needs
# transformers>=5.25 and fastapi>=0.165) does not.
#
# Default: offline, against a local index of metadata-only wheels built from pyproject.toml
# and vLLM's pins (scripts/extras_stub_index.py): it checks socialbench's declared ranges
# against each other and against vLLM's. `--online`: the same combinations against PyPI
# (real metadata of every package, transitive requirements included; downloads metadata only).
#
# Usage: bash scripts/check_extras_resolve.sh [--online]      (PY=python to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
[ -x "$PY" ] || PY=python
INDEX="$(mktemp -d)"
trap 'rm -rf "$INDEX"' EXIT
VERSION="$("$PY" scripts/extras_stub_index.py "$INDEX")"

# what README.md, docs/models.md and `make extras` tell users to install
RESOLVE=(
  "vllm"
  "vllm,hf"
  "vllm,hf,anthropic,hub,nav,rag"
  "test,nav,anthropic,hf,rag,dense,hub,ray,train,inspect,serve,record"
  "hf,serve"
)
# declared as conflicting ([tool.uv] conflicts in pyproject.toml; docs/models.md)
CONFLICT=(
  "vllm,serve"
)

where=(--no-index --find-links "$INDEX")
if [ "${1:-}" = "--online" ]; then
  where=(--find-links "$INDEX")
fi

resolves() {
  # vLLM's wheels need Python >= 3.11: every combination is resolved for 3.11
  "$PY" -m pip install --dry-run --quiet --ignore-installed --disable-pip-version-check \
    --python-version 3.11 --only-binary=:all: "${where[@]}" "socialbench[$1]==$VERSION" >"$INDEX/log" 2>&1
}

failed=0
for extras in "${RESOLVE[@]}"; do
  if resolves "$extras"; then
    echo "ok: socialbench[$extras] resolves"
  else
    echo "FAIL: socialbench[$extras] does not resolve:"; tail -5 "$INDEX/log"; failed=1
  fi
done
for extras in "${CONFLICT[@]}"; do
  if resolves "$extras"; then
    echo "FAIL: socialbench[$extras] resolves, but it is declared as conflicting"; failed=1
  else
    echo "ok: socialbench[$extras] does not resolve, as declared"
  fi
done
exit "$failed"
