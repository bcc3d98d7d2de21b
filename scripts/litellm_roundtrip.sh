#!/usr/bin/env bash
# socialbench behind a real LiteLLM proxy (issue 42):
#   1. install 'litellm[proxy]' into its own virtual environment (about a hundred packages,
#      not socialbench dependencies), unless that venv already has it;
#   2. start three scripted servers on 127.0.0.1 (socialbench.testing.openai_server): one that
#      answers (and ignores `stream`, as some servers do), one answering 429 with
#      Retry-After: 1, one answering 500; and a LiteLLM proxy serving them as the models
#      fnone, f429 and f500 (its default retries);
#   3. run tests/integration/test_litellm.py against it (the lost stream learnt, Retry-After
#      through LiteLLM's llm_provider- renaming, a bounded number of requests for a dead backend);
#   4. with BENCH=1 also perf/retry_amplification.py against this LiteLLM (a few minutes);
#   5. stop every server.
#
# Environment: LITELLM_VENV (default /tmp/litellm-venv), PYTHON (the socialbench interpreter,
# default .venv/bin/python), LITELLM_START_TIMEOUT (seconds, default 180). The proxy starts
# in about 25 s on 2 cores (it cannot fetch its model-cost map offline and keeps its copy).
set -euo pipefail
cd "$(dirname "$0")/.."

LITELLM_VENV=${LITELLM_VENV:-/tmp/litellm-venv}
PYTHON=${PYTHON:-.venv/bin/python}
LITELLM_START_TIMEOUT=${LITELLM_START_TIMEOUT:-180}

if [ ! -x "$LITELLM_VENV/bin/litellm" ]; then
  echo "installing litellm[proxy] into $LITELLM_VENV ..."
  started=$(date +%s)
  python3 -m venv "$LITELLM_VENV"
  "$LITELLM_VENV/bin/pip" install --quiet --disable-pip-version-check 'litellm[proxy]'
  echo "installed in $(( $(date +%s) - started )) s"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/socialbench-litellm.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_upstream() {  # VAR ARGS...: start a scripted server; its port goes in $VAR
  local var=$1; shift
  local port; port=$(free_port)
  "$PYTHON" -m socialbench.testing.openai_server --port "$port" "$@" >"$WORK/$var.log" 2>&1 &
  PIDS+=($!)  # in this shell (not a $(...) subshell), so that cleanup stops it
  printf -v "$var" '%s' "$port"
}
start_upstream P_NONE
start_upstream P_429 --fail-with 429 --fail-header Retry-After:1
start_upstream P_500 --fail-with 500

KEY="sk-socialbench-$("$PYTHON" -c 'import secrets; print(secrets.token_hex(8))')"
PORT=$(free_port)
{
  echo "model_list:"
  for pair in "none:$P_NONE" "429:$P_429" "500:$P_500"; do
    echo "  - model_name: f${pair%%:*}"
    echo "    litellm_params: {model: openai/scripted-model, api_base: 'http://127.0.0.1:${pair##*:}/v1', api_key: none}"
  done
  echo "general_settings: {master_key: $KEY}"
} >"$WORK/config.yaml"
(cd "$WORK" && exec "$LITELLM_VENV/bin/litellm" --config config.yaml --host 127.0.0.1 --port "$PORT") \
  >"$WORK/litellm.log" 2>&1 &
LITELLM_PID=$!
PIDS+=("$LITELLM_PID")

echo "waiting for LiteLLM on 127.0.0.1:$PORT ..."
started=$(date +%s)
until "$PYTHON" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/health/liveliness', timeout=2)" 2>/dev/null; do
  if ! kill -0 "$LITELLM_PID" 2>/dev/null; then
    echo "LiteLLM exited during start-up; its log:" >&2
    tail -n 40 "$WORK/litellm.log" >&2
    exit 1
  fi
  if [ $(( $(date +%s) - started )) -ge "$LITELLM_START_TIMEOUT" ]; then
    echo "LiteLLM did not answer within $LITELLM_START_TIMEOUT s; its log:" >&2
    tail -n 40 "$WORK/litellm.log" >&2
    exit 1
  fi
  sleep 1
done
echo "LiteLLM $("$LITELLM_VENV/bin/pip" show litellm 2>/dev/null | sed -n 's/^Version: //p') is up after $(( $(date +%s) - started )) s"

SOCIALBENCH_LITELLM_URL="http://127.0.0.1:$PORT/v1" SOCIALBENCH_LITELLM_KEY="$KEY" \
  SOCIALBENCH_LITELLM_STATS="none=http://127.0.0.1:$P_NONE/stats 429=http://127.0.0.1:$P_429/stats 500=http://127.0.0.1:$P_500/stats" \
  "$PYTHON" -m pytest tests/integration/test_litellm.py -m litellm -q -p no:cacheprovider

if [ "${BENCH:-0}" = 1 ]; then
  "$PYTHON" perf/retry_amplification.py --litellm "$LITELLM_VENV/bin/litellm" --no-litellm-retries
fi
