"""Fleiss' kappa and Krippendorff's alpha against textbook examples and small cases worked by hand."""

import math

import pytest

from socialbench.metrics.reliability import fleiss_kappa, krippendorff_alpha_nominal

# Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories; kappa = 0.210.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_textbook_example():
    assert fleiss_kappa(FLEISS_TABLE) == pytest.approx(0.20993, abs=1e-5)


def test_fleiss_kappa_by_hand_small_case():
    # 2 items, 3 raters: [2 yes, 1 no], [3 yes]. P_i = 1/3, 1; P_bar = 2/3; p = 5/6, 1/6;
    # P_e = 26/36; kappa = (2/3 - 26/36) / (1 - 26/36) = -0.2
    assert fleiss_kappa([[2, 1], [3, 0]]) == pytest.approx(-0.2)


def test_krippendorff_alpha_textbook_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders, 12 units,
    # missing values; nominal alpha = 0.743.
    n = None
    coders = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]
    assert krippendorff_alpha_nominal(list(zip(*coders))) == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_alpha_by_hand_small_case():
    # units (a, a), (a, b): o_aa = 2, o_ab = o_ba = 1, n_a = 3, n_b = 1, n = 4;
    # alpha = 1 - (n - 1) * 2 / (2 * 3 * 1) = 0
    assert krippendorff_alpha_nominal([("a", "a"), ("a", "b")]) == pytest.approx(0.0)


def test_perfect_agreement_on_one_category_is_undefined():
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))
