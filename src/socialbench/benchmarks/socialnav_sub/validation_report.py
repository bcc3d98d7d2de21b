"""The problems found in a SocialNav-SUB dataset folder, split into errors and warnings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from socialbench.errors import Problem


@dataclass
class ValidationReport:
    """Errors (data unusable) and warnings (oddities) found in a dataset folder."""

    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def problems(self) -> list[Problem]:
        return self.errors + self.warnings

    def error(self, file: Path | str, fld: str, message: str, fix: str = "", line: int | None = None) -> None:
        self.errors.append(Problem(str(file), fld, message, fix, line))

    def warn(self, file: Path | str, fld: str, message: str, fix: str = "") -> None:
        self.warnings.append(Problem(str(file), fld, f"warning: {message}", fix))
