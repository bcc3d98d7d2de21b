#!/usr/bin/env bash
# GPU checks of the local-model backends in one run on a CUDA machine (~4 min on one H200):
# the hf: tests with device auto (-> cuda); perf/hf_batching.py on cuda and on cpu; and
# `socialbench eval -m hf:` with a tiny LLaVA built here (nothing downloaded) on the bundled
# socialnav-sim scenes at cuda fp32, cpu fp32 and cuda bf16, with how many replies cuda and cpu
# fp32 share. It also prints whether vLLM is importable (the vllm: backend and
# perf/vllm_vs_hf.py need it, and a real checkpoint). Results go to $OUT (default ./gpu-check);
# PYTHON names the interpreter (default python3). Not part of CI.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT="${OUT:-$PWD/gpu-check}"; mkdir -p "$OUT"
PY="${PYTHON:-python3}"
W="${TMPDIR:-/tmp}/socialbench-gpu-check"; rm -rf "$W"; mkdir -p "$W"
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  "$PY" -c "import sys,torch,transformers,typer;print('python',sys.version.split()[0],'torch',torch.__version__,'transformers',transformers.__version__,'typer',typer.__version__,'cuda',torch.cuda.is_available())"
  "$PY" -c "import vllm;print('vllm',vllm.__version__)" 2>&1 | tail -1
} 2>&1 | tee "$OUT/env.txt"
echo "== 1. hf: tests on the GPU (device auto -> cuda)"
timeout 240 "$PY" -m pytest -p no:cacheprovider -rfEs tests/models/test_hf_local.py 2>&1 | tail -15 | tee "$OUT/hf_tests.txt"
echo "== 2. hf_batching, cuda then cpu"
timeout 120 "$PY" perf/hf_batching.py --device cuda --json "$OUT/hf_batching_cuda.json" 2>&1 | tail -8
timeout 120 "$PY" perf/hf_batching.py --device cpu --json "$OUT/hf_batching_cpu.json" 2>&1 | tail -8
echo "== 3. socialbench eval -m hf: on the bundled socialnav-sim scenes: cuda fp32, cpu fp32, cuda bf16"
"$PY" -c "from socialbench.testing.tiny_vlm import build_tiny_vlm; build_tiny_vlm('llava', '$W/tiny', seed=0, width=64, layers=2)"
for v in "cuda float32" "cpu float32" "cuda bfloat16"; do
  set -- $v
  timeout 200 "$PY" -m socialbench eval -b socialnav-sim -m "hf:$W/tiny" \
    --model-opt "device=$1" --model-opt "dtype=$2" --model-opt batch_size=16 --limit 3 --concurrency 16 \
    --no-progress --no-cache --out "$W/run-$1-$2" 2>&1 | tail -2
done
"$PY" - "$W" <<'PY' 2>&1 | tee "$OUT/hf_eval.txt"
import json, sys
from pathlib import Path
w = Path(sys.argv[1]); runs = {}
for d in sorted(w.glob("run-*")):
    recs = [json.loads(l) for l in (d / "samples.jsonl").read_text().splitlines() if l.strip()]
    m = json.loads((d / "metrics.json").read_text())
    runs[d.name] = {(r["item_id"], r["question_key"]): (r.get("raw"), r.get("parsed"), r.get("error")) for r in recs}
    print(d.name, "questions", m["run"]["questions"], "answered", m["run"]["answered"], "errors", m["run"]["error_kinds"],
          "wall_s", m["run"]["wall_time_s"])
a, b = runs.get("run-cuda-float32", {}), runs.get("run-cpu-float32", {})
same = sum(1 for k in a if k in b and a[k] == b[k])
print(f"cuda fp32 vs cpu fp32: {same}/{len(a)} identical replies")
PY
