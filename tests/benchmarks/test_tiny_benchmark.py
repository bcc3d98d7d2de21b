"""Adding a benchmark is one package: a tiny one, written here and installed by an entry
point, runs through ``socialbench eval`` (with its own option), ``score`` and ``report``
with no edit to the command line, the runner or the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = {
    "__init__.py": '''
        """Tiny: say which of two words a sentence ends with."""
        from dataclasses import dataclass

        from socialbench.benchmarks.base import register_benchmark
        from socialbench.benchmarks.options import option, with_perturbation


        @dataclass(frozen=True)
        class TinyOptions:
            case: str = option("lower", choices=("lower", "upper"), help="how the question is written")

            def variant(self, perturbation=None):
                return with_perturbation(f"case-{self.case}", perturbation)


        register_benchmark("tiny", title="Tiny", options=TinyOptions, factory="tiny_bench.benchmark:Tiny")
    ''',
    "benchmark.py": """
        import json
        from dataclasses import dataclass
        from pathlib import Path

        from tiny_bench import TinyOptions
        from socialbench.benchmarks.base import BaseBenchmark, scoring_summary
        from socialbench.metrics.results import PlainResult
        from socialbench.prompting.parsing import parse_answer
        from socialbench.records import fingerprint_files
        from socialbench.solving.solvers import answer, each_independently
        from socialbench.types import HumanVotes, Item, Question, Request


        @dataclass(frozen=True)
        class TinyDataset:
            root: Path
            items: tuple


        def build_prompt(q, case):
            text = q.text.upper() if case == "upper" else q.text
            return text + "\\nPossible answers: " + ", ".join(f'"{o}"' for o in q.options) + '\\nReply {"answer": ...}'


        def parse(q):
            def read(text):
                res = parse_answer(text, q.options)
                return res.value, res.method
            return read


        def accuracy(golds, preds):
            return sum(g == p for g, p in zip(golds, preds)) / len(golds) if golds else None


        class Tiny(BaseBenchmark[TinyOptions]):
            name = "tiny"
            options_type = TinyOptions

            def load(self, data, *, require_images, limit):
                rows = json.loads((data / "items.json").read_text())[:limit]
                items = tuple(Item(r["id"], (Question("q", "q", "tiny", "single", r["text"], tuple(r["options"])),),
                                   {"q": HumanVotes((r["gold"],), (1.0,), 1)}) for r in rows)
                return TinyDataset(data, items)

            def validate(self, data):
                return []

            def fingerprint(self, data):
                return fingerprint_files([data / "items.json"], data)

            async def solve(self, item, dataset, ctx):
                async def ask(q, earlier):
                    request = Request(prompt=build_prompt(q, ctx.options.case), images=(), config=ctx.generation,
                                      item=item, question=q)
                    return await answer(ctx, request, parse(q))
                await each_independently([q for q in item.questions if ctx.finished(item.item_id, q.key) is None], ask)

            def score(self, dataset, records, protocol):
                by_key = {(r.item_id, r.question_key): r for r in records}
                pairs = [(it.votes["q"].answers[0], by_key[(it.item_id, "q")].parsed)
                         for it in dataset.items if (it.item_id, "q") in by_key]
                header = scoring_summary(self.name, protocol, dataset, by_key, len(pairs))
                return PlainResult(header, {"overall": {"accuracy": {
                    "value": accuracy([g for g, _ in pairs], [p for _, p in pairs]), "n": len(pairs)}}})
    """,
}
ENTRY_POINTS = "[socialbench.benchmarks]\ntiny = tiny_bench\n"
ITEMS = [
    {"id": "i1", "text": "It ends with cat.", "options": ["cat", "dog"], "gold": "cat"},
    {"id": "i2", "text": "It ends with dog.", "options": ["cat", "dog"], "gold": "dog"},
]


@pytest.fixture()
def tiny(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The tiny benchmark's package and its installed metadata (an entry point) on a
    PYTHONPATH folder, and its data folder."""
    site = tmp_path / "site"
    pkg = site / "tiny_bench"
    pkg.mkdir(parents=True)
    for name, text in PACKAGE.items():
        (pkg / name).write_text(textwrap.dedent(text))
    dist = site / "tiny_bench-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-bench\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    data = tmp_path / "data"
    data.mkdir()
    (data / "items.json").write_text(json.dumps(ITEMS))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    return data, env


def socialbench(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "socialbench", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_a_benchmark_package_runs_through_eval_with_its_own_option(tiny, tmp_path):
    data, env = tiny
    res = socialbench(
        env,
        tmp_path,
        "eval",
        "-b",
        "tiny",
        "-d",
        str(data),
        "-m",
        "mock:first-option",
        "--case",
        "upper",
        "--no-cache",
        "--no-progress",
    )
    assert res.returncode == 0, res.stderr
    run = tmp_path / "runs" / "tiny" / "mock_first-option" / "case-upper"
    record = json.loads((run / "run.json").read_text())
    assert (record["case"], record["variant"]) == ("upper", "case-upper")
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    assert [s["parsed"] for s in samples] == ["cat", "cat"]
    assert json.loads((run / "metrics.json").read_text())["overall"]["accuracy"]["value"] == 0.5


def test_its_option_is_listed_in_eval_help(tiny, tmp_path):
    data, env = tiny
    res = socialbench(env, tmp_path, "eval", "--help")
    assert res.returncode == 0 and "--case" in res.stdout


def test_its_option_is_refused_for_another_benchmark(tiny, tmp_path):
    data, env = tiny
    res = socialbench(env, tmp_path, "eval", "-b", "socialnav-sim", "-m", "mock:first-option", "--case", "upper")
    assert res.returncode == 1
    assert "--case is a Tiny option: it applies to tiny only" in res.stderr


def test_a_benchmark_package_is_scored_and_reported(tiny, tmp_path):
    data, env = tiny
    run = tmp_path / "run"
    assert (
        socialbench(
            env,
            tmp_path,
            "eval",
            "-b",
            "tiny",
            "-d",
            str(data),
            "-m",
            "mock:first-option",
            "-o",
            str(run),
            "--no-cache",
            "--no-progress",
        ).returncode
        == 0
    )
    scored = socialbench(
        env,
        tmp_path,
        "score",
        "-b",
        "tiny",
        "-d",
        str(data),
        "-p",
        str(run / "samples.jsonl"),
        "-o",
        str(tmp_path / "scored"),
    )
    assert scored.returncode == 0, scored.stderr
    assert json.loads((tmp_path / "scored" / "metrics.json").read_text())["overall"]["accuracy"]["value"] == 0.5
    report = socialbench(env, tmp_path, "report", str(run), "-o", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "report" / "index.html").is_file()
