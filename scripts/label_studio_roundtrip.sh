#!/usr/bin/env bash
# Label Studio round trips for `socialbench build annotate` and `build socialnav-survey` / `socialnav-answers`:
#   1. install label-studio into its own virtual environment (it pins openai<2 and pyarrow<25,
#      which conflict with socialbench's own dependencies), unless that venv already has it;
#   2. start it on 127.0.0.1 with a fresh data folder, an admin user and a legacy API token;
#   3. run tests/integration/test_label_studio.py (RobotEQ) and test_label_studio_survey.py
#      (SocialNav-SUB survey) against it (project from the exported
#      config, task import, annotations posted through the API, JSON export, import, aggregate);
#   4. stop it and remove the data folder.
#
# Environment: LS_VENV (default /tmp/ls-venv), LS_PORT (default 8089), PYTHON (the
# socialbench interpreter, default .venv/bin/python), LS_START_TIMEOUT (seconds, default 300).
# A cold start (database migrations) takes about 50 s; the first install a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

LS_VENV=${LS_VENV:-/tmp/ls-venv}
LS_PORT=${LS_PORT:-8089}
PYTHON=${PYTHON:-.venv/bin/python}
LS_START_TIMEOUT=${LS_START_TIMEOUT:-300}

if [ ! -x "$LS_VENV/bin/label-studio" ]; then
  echo "installing label-studio into $LS_VENV ..."
  started=$(date +%s)
  python3 -m venv "$LS_VENV"
  "$LS_VENV/bin/pip" install --quiet --disable-pip-version-check label-studio
  echo "installed in $(( $(date +%s) - started )) s"
fi

DATA=$(mktemp -d "${TMPDIR:-/tmp}/socialbench-ls.XXXXXX")
TOKEN=$("$PYTHON" -c 'import secrets; print(secrets.token_hex(20))')
PASSWORD=$("$PYTHON" -c 'import secrets; print(secrets.token_hex(16))')  # hex: never starts with "-", which the CLI would read as an option
LOG="$DATA/label-studio.log"

# its own session, so the whole process group (server and any children) can be stopped
setsid "$LS_VENV/bin/label-studio" start --no-browser --internal-host 127.0.0.1 --port "$LS_PORT" \
  --data-dir "$DATA/data" --username admin@example.org --password="$PASSWORD" \
  --user-token "$TOKEN" --enable-legacy-api-token >"$LOG" 2>&1 &
LS_PID=$!

cleanup() {
  if kill -0 "$LS_PID" 2>/dev/null; then
    kill -TERM -- "-$LS_PID" 2>/dev/null || kill -TERM "$LS_PID" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$LS_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$LS_PID" 2>/dev/null || true
  fi
  rm -rf "$DATA"
}
trap cleanup EXIT

echo "waiting for Label Studio on 127.0.0.1:$LS_PORT ..."
started=$(date +%s)
until "$PYTHON" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$LS_PORT/health', timeout=2)" 2>/dev/null; do
  if ! kill -0 "$LS_PID" 2>/dev/null; then
    echo "Label Studio exited during start-up; its log:" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
  if [ $(( $(date +%s) - started )) -ge "$LS_START_TIMEOUT" ]; then
    echo "Label Studio did not answer within $LS_START_TIMEOUT s; its log:" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
  sleep 1
done
echo "Label Studio is up after $(( $(date +%s) - started )) s"

SOCIALBENCH_LABEL_STUDIO_URL="http://127.0.0.1:$LS_PORT" SOCIALBENCH_LABEL_STUDIO_TOKEN="$TOKEN" \
  "$PYTHON" -m pytest tests/integration/test_label_studio.py tests/integration/test_label_studio_survey.py \
  -m label_studio -q -p no:cacheprovider
