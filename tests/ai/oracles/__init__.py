"""The Python restatements that hold the compiled engine (`service/ai/compiled.py`,
`compiled_endgame.py`) to the domain's rules: `compact.py` (the rules on ints),
`compact_greedy.py` (greedy on it, each seat's knowledge kept), `rollout.py` and
`endgame.py` (the rollouts and the 2-player endgame searches on it). Each is held to
the one before it and the compiled engine to them, step by step, by the differential
tests of tests/ai/ and bench/differential.py; nothing at run time imports them.
"""
