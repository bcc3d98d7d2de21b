"""check_fields: every wrong JSON kind is one problem naming the field."""

import pytest

from socialbench.files.schema import FieldRule, check_fields

RULES = (FieldRule("id", ("str",), required=True), FieldRule("n", ("int", "null")), FieldRule("x", ("number",)))


def test_a_fitting_object_has_no_problem() -> None:
    assert check_fields({"id": "a", "n": None, "x": 1.5, "other": []}, RULES, "f.json", "fix it") is None


@pytest.mark.parametrize(
    ("obj", "field"),
    [({"id": ["a"]}, "id"), ({"id": "a", "n": True}, "n"), ({"id": "a", "x": "1"}, "x"), ({"n": 1}, "id")],
)
def test_the_problem_names_the_field_the_file_and_the_line(obj, field) -> None:
    problem = check_fields(obj, RULES, "f.jsonl", "fix it", line=4)
    assert problem is not None and (problem.field, problem.file, problem.line, problem.fix) == (
        field,
        "f.jsonl",
        4,
        "fix it",
    )


def test_a_boolean_is_not_a_number() -> None:
    problem = check_fields({"id": "a", "x": False}, RULES, "f", "fix")
    assert problem is not None and "a boolean" in problem.message


def test_a_long_value_is_shown_short_and_escaped() -> None:
    problem = check_fields({"id": "\x1b[31m" + "a" * 500}, (FieldRule("id", ("int",)),), "f", "fix")
    assert problem is not None and len(problem.message) < 120 and "\x1b" not in problem.message


@pytest.mark.parametrize("value", [0, -3, True, 2.0])
def test_a_count_is_a_positive_integer(value) -> None:
    problem = check_fields({"n": value}, (FieldRule("n", ("count",)),), "run.json", "fix")
    assert problem is not None and "a positive integer" in problem.message
