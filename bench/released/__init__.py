"""The expert as released (main at 2bdc64e, before issue 31), frozen for
bench/ladder.py's `released` level: the new expert is measured against it at equal
time. Its greedy, knowledge and compact engine are the service's (their decisions
are unchanged: tests/ai/test_compact_greedy.py, bench/differential.py)."""

from .expert import Expert

__all__ = ["Expert"]
