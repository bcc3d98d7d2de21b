"""Plain one-line messages for the command line.

Errors, warnings and notes go to stderr exactly as written: never wrapped at a terminal
width, never styled, whether stderr is a terminal, a pipe, a file or a CI log. A long path
therefore stays whole, and what a test or a script reads is what the code wrote.
"""

from __future__ import annotations

import sys


def say(text: str) -> None:
    """Write ``text`` and a newline to stderr, unwrapped and unstyled."""
    print(text, file=sys.stderr, flush=True)
