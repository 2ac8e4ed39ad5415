"""How big the long tests are: the kill-and-restart cycles, the differential tests, the
floods and the fuzzing. The suite runs them smaller, showing the same thing; `bin/test
--full` runs them at full size (the root conftest sets `FULL` before collecting)."""

FULL = False


def sized(suite, full):
    """`full` with `--full`, else `suite`."""
    return full if FULL else suite
