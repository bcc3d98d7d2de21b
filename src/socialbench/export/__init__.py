"""Exports of benchmark data for other tools (``socialbench export``)."""
