"""Expectations of the SocialNav-SUB survey tests, written out by hand (independent of
:mod:`socialbench.construction.socialnav_survey.order`); the scripted annotators are in
:mod:`socialbench.testing.label_studio_survey`."""

from __future__ import annotations

from socialbench.benchmarks.socialnav_sub.bank_file import load_bank
from socialbench.testing.label_studio_survey import PERSON as PERSON  # the tests import them from here
from socialbench.testing.label_studio_survey import SCENE as SCENE

BANK = load_bank()
