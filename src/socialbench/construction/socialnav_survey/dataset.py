"""What the survey reads from a SocialNav-SUB dataset folder (release layout): the sample
list, the prompt bank and the survey's fingerprint. Human labels are not needed (a dataset
built from a lab's own recordings has none before its survey); every problem is reported
at once as a :class:`~socialbench.errors.DataError`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from socialbench.benchmarks.socialnav_sub.bank import PromptBank
from socialbench.benchmarks.socialnav_sub.dataset_files import read_dataset_bank
from socialbench.benchmarks.socialnav_sub.file_checks import Containment
from socialbench.benchmarks.socialnav_sub.layout import N_FRAMES, SAMPLE_INFO_CANDIDATES
from socialbench.benchmarks.socialnav_sub.sample_list import sample_list
from socialbench.benchmarks.socialnav_sub.validation_report import ValidationReport
from socialbench.construction.socialnav_survey.order import survey_id
from socialbench.construction.socialnav_survey.tasks import composite_path
from socialbench.errors import DataError, UsageError
from socialbench.files.safe_read import file_kind

__all__ = ["SurveyDataset", "read_survey_dataset", "check_composites"]


@dataclass(frozen=True)
class SurveyDataset:
    """A dataset folder as the survey sees it."""

    root: Path
    samples: tuple[tuple[str, int], ...]  # (sample id, n_people), in the sample list's order
    bank: PromptBank
    survey_id: str
    sample_info: Path  # the sample list that was read

    @property
    def n_people(self) -> dict[str, int]:
        return dict(self.samples)


def read_survey_dataset(data: Path) -> SurveyDataset:
    """Read ``data``'s sample list and prompt bank; :class:`DataError` for every problem."""
    root = Path(data).expanduser().absolute()
    if not root.is_dir():
        what = "is a file, not a folder" if root.exists() else "does not exist"
        raise UsageError(f"--data {root} {what} (fix: pass a SocialNav-SUB dataset folder in the release layout)")
    report = ValidationReport()
    inside = Containment(root)
    bank = read_dataset_bank(root, report, inside)
    entries = sample_list(root, report, inside)
    if report.errors or bank is None:
        raise DataError(report.errors)
    info = next(root / c for c in SAMPLE_INFO_CANDIDATES if file_kind(root / c) != "missing")
    samples = tuple((sid, n) for sid, n, _ in entries)
    return SurveyDataset(root, samples, bank, survey_id(samples, bank), info)


def check_composites(ds: SurveyDataset) -> None:
    """Every sample's ten composites are regular files inside the folder; one
    :class:`DataError` line per kind of problem, naming the first file and the count."""
    inside = Containment(ds.root)
    missing: list[Path] = []
    outside: list[Path] = []
    for sid, _ in ds.samples:
        for t in range(N_FRAMES):
            path = ds.root / composite_path(sid, t)
            kind = file_kind(path)
            if kind != "file":
                missing.append(path)
            elif not inside(path):
                outside.append(path)
    problems = []
    if missing:
        samples = len({p.parent.name for p in missing})
        problems.append(
            DataError.single(
                missing[0],
                "",
                f"{len(missing)} composite image(s) of {samples} sample(s) missing or not a regular file "
                "(the survey shows annotators the composites the models get)",
                f"render them with `socialbench data render --data {ds.root}`",
            ).problems[0]
        )
    if outside:
        problems.append(
            DataError.single(
                outside[0],
                "",
                f"{len(outside)} composite image(s) resolve outside the dataset folder (a symbolic link)",
                "replace the links by the image files",
            ).problems[0]
        )
    if problems:
        raise DataError(problems)
