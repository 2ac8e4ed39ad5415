"""The global projections (the lobby, the timers, the games waiting on an AI) spread
over `SHARDS` hash tags, `{<name>:<n>}`: on a Redis Cluster each shard lives on the
master of its tag's slot, so that no one master holds them all, while every script
and transaction still touches the keys of one shard, hence one slot. A game's entry
is in shard `shard_of(game id)`, always the same; a read merges the shards.
"""

from __future__ import annotations

import zlib

SHARDS = 8


def shard_of(game_id: str) -> int:
    """The shard of a game's entries: the same in every process (CRC-32, not `hash`)."""
    return zlib.crc32(game_id.encode()) % SHARDS


def tags(name: str) -> list[str]:
    """The hash tags of the shards of `name`, shard 0 first: `{name:0}` ..."""
    return [f"{{{name}:{n}}}" for n in range(SHARDS)]


UNSHARDED = ("lobby", "deadlines", "reminders", "turns")  # their tags before the shards


def delete_unsharded(client, prefix: str) -> None:
    """Delete the keys these projections had before they were sharded, `{lobby}`...:
    `claim rebuild` has written them again in their shards."""
    for name in UNSHARDED:
        for key in client.scan_iter(match=f"{prefix}:{{{name}}}:*"):
            client.delete(key)
