"""Speed of ``socialbench report`` (and ``compare``) on 10,000 items.

An *item* here is one scored question (the unit of every table, analysis and viewer card).
The script writes a label-only SocialNav-SUB dataset with enough samples for ``--items``
questions (people per sample cycle 1, 2, 3: 27 questions per 3 samples on average, about
the density of the official set), fakes ``--runs`` complete run directories (seeded random
answers, ~3% invalid replies, scored by the real scorer), then times:

* ``build_report`` with every format (md, csv, tex, html: tables, bootstrap CIs with
  ``--n-boot`` replicates, failure analyses, figures, the §7.6-ordered viewer with up to
  ``--max-items`` cards, images skipped: the dataset has none);
* ``compare_runs`` on all runs (paired bootstrap, permutation, McNemar, Holm, ranks).

Setup (dataset, runs) is not timed. Target: the report in under 30 s on 2 cores.

    .venv/bin/python perf/report_speed.py                 # 10,000 items, 3 runs
    .venv/bin/python perf/report_speed.py --items 50000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_S = 30.0


def write_labels(root: Path, n_questions: int, seed: int) -> Path:
    """A SocialNav-SUB label folder (no images) with at least ``n_questions`` questions."""
    from socialbench.benchmarks.socialnav_sub.bank import BASE_KEYS, GLOBAL_KEYS
    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.benchmarks.socialnav_sub.synthetic import write_synthetic_dataset

    # One real synthetic sample gives the file layout; the rest are label copies.
    tmpl = write_synthetic_dataset(root.parent / "template", n_samples=1, people=[1], seed=seed, frame_size=(16, 16))
    rng = random.Random(seed)
    base = load_socialnav(tmpl)
    questions_of = {q.base_key: q for q in base.items[0].questions}
    samples, goals, total, k = [], {}, 0, 0
    (root / "human_labels").mkdir(parents=True, exist_ok=True)
    while total < n_questions:
        people = 1 + k % 3
        sid = f"{100 + k // 5000}_Spot_{1 + (k // 100) % 50}_{1000 + k}"
        seq, f0 = sid.rsplit("_", 1)
        labels: dict[str, Any] = {}
        for bk in BASE_KEYS:
            q = questions_of[bk]
            keys = [bk] if bk in GLOBAL_KEYS else [f"{bk}_p{p}" for p in range(1, people + 1)]
            for key in keys:
                n = rng.randint(7, 14)
                picks = [rng.choice(q.choices) for _ in range(n)]
                counts: dict[Any, int] = {}
                for c in picks:
                    counts[c] = counts.get(c, 0) + 1
                answers = list(counts)
                labels[key] = [list(a) if isinstance(a, tuple) else a for a in answers]
                labels[f"{key}_probabilities"] = [counts[a] / n for a in answers]
                labels[f"{key}_n_answers"] = n
                total += 1
        d = root / "human_labels" / sid
        d.mkdir(parents=True, exist_ok=True)
        (d / "common_answers.json").write_text(json.dumps(labels))
        (root / "prompts" / sid).mkdir(parents=True, exist_ok=True)
        samples.append({"folderpath": sid, "n_people": people})
        goals[f"{seq}/{f0}.jpg"] = [
            f"{seq}/{int(f0) + 40}.jpg",
            f"[{rng.randint(2000, 9000)}, {rng.randint(-4000, 4000)}]",
        ]
        k += 1
    info = {"samples": samples}
    (root / "sample_info.json").write_text(json.dumps(info))
    (root / "human_labels" / "sample_info.json").write_text(json.dumps(info))
    (root / "goal_info.json").write_text(json.dumps(goals))
    for name in ("dataset_cfg.yaml",):
        if (tmpl / name).exists():
            (root / name).write_text((tmpl / name).read_text())
    meta = {s["folderpath"]: {"indoors": i % 4 == 0, "blind_corner": i % 7 == 0} for i, s in enumerate(samples)}
    (root / "sample_metadata.json").write_text(json.dumps(meta))
    return root


def write_run(data: Path, out: Path, name: str, seed: int, skill: float) -> Path:
    """A complete run directory: answers agree with the human mode with probability ``skill``."""
    from socialbench.benchmarks.socialnav_sub.benchmark import SocialNavSub
    from socialbench.benchmarks.socialnav_sub.loader import load_socialnav
    from socialbench.runner.store import RunStore
    from socialbench.types import SampleRecord

    rng = random.Random(seed)
    ds = load_socialnav(data)
    records = []
    for item in ds.items:
        for q in item.questions:
            if rng.random() < 0.03:
                raw, parsed = "I am not sure <b>at all</b>.", None
            else:
                a = item.votes[q.key].mode(q.choices) if rng.random() < skill else rng.choice(q.choices)
                parsed = list(a) if isinstance(a, tuple) else a
                raw = json.dumps({"answer": parsed})
            records.append(
                SampleRecord(
                    item.item_id,
                    q.key,
                    raw,
                    parsed,
                    "json" if parsed else None,
                    None,
                    round(rng.uniform(0.2, 2.0), 3),
                    {"prompt_tokens": 1000, "completion_tokens": 20},
                )
            )
    store = RunStore(out / name)
    (out / name / "samples.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n" for r in records))
    metrics = SocialNavSub().score(ds, records, "paper").to_json()
    metrics["run"] = {"questions": len(records), "answered": len(records), "model_errors": 0}
    store.write_metrics(metrics)
    store.write_run(
        {
            "benchmark": "socialnav-sub",
            "model": f"openai:{name}",
            "method": "independent",
            "images": "img-with-bev",
            "strategy": "standard",
            "perturb": None,
            "data": str(data),
            "protocol": "paper",
            "limit": None,
            "status": "complete",
        }
    )
    return out / name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=10_000, help="scored questions per run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--max-items", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="write the timings here")
    args = ap.parse_args()

    from socialbench.report.build import build_report
    from socialbench.report.compare import compare_runs
    from socialbench.report.loading import load_runs

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        data = write_labels(root / "data", args.items, args.seed)
        paths = [write_run(data, root / "runs", f"model-{i}", args.seed + i, 0.3 + 0.15 * i) for i in range(args.runs)]
        setup = time.perf_counter() - t0

        t0 = time.perf_counter()
        runs = load_runs(paths)
        res = build_report(
            runs,
            root / "report",
            formats=["md", "csv", "tex", "html"],
            n_boot=args.n_boot,
            max_items=args.max_items,
            images="none",
            seed=args.seed,
        )
        report_s = time.perf_counter() - t0
        html_mb = (root / "report" / "index.html").stat().st_size / 2**20

        t0 = time.perf_counter()
        cmp = compare_runs(load_runs(paths), seed=args.seed, n_boot=args.n_boot, n_perm=10_000)
        compare_s = time.perf_counter() - t0

    n = cmp["n"]
    out = {
        "items": n,
        "samples": cmp["n_clusters"],
        "runs": args.runs,
        "n_boot": args.n_boot,
        "setup_s": round(setup, 2),
        "report_s": round(report_s, 2),
        "compare_s": round(compare_s, 2),
        "report_files": len(res["files"]),
        "index_html_mib": round(html_mb, 2),
        "target_s": TARGET_S,
        "ok": report_s < TARGET_S,
    }
    print(
        f"{n} items ({cmp['n_clusters']} samples) x {args.runs} runs: report {report_s:.2f} s "
        f"({len(res['files'])} files, index.html {html_mb:.1f} MiB), compare {compare_s:.2f} s "
        f"[setup {setup:.1f} s, not timed] -> {'OK' if out['ok'] else 'SLOW'} (target < {TARGET_S:.0f} s)"
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
