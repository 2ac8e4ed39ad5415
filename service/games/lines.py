"""JSON-lines files that may be hostile (an export to verify, a backup to import): each
line and the whole file read up to a cap, and what is wrong said in words with the
number of its line (each line's fields are checked by `service.events.shapes`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO


class BadLine(ValueError):
    """A file that does not hold: `line` (from 1) says where."""

    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line = line


def read_lines(file: BinaryIO, longest: int, most: int | None = None) -> Iterator[bytes]:
    """The lines of `file`, each with its end; BadLine at a line of more than `longest`
    bytes, or where the file passes `most` bytes: neither is read whole."""
    number = total = 0
    while line := file.readline(longest + 1):
        number, total = number + 1, total + len(line)
        if len(line) > longest:
            raise BadLine(number, f"longer than {_size(longest)}")
        if most is not None and total > most:
            raise BadLine(number, f"the file goes on past {_size(most)}")
        yield line


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 else f"{count >> 10} KiB"
