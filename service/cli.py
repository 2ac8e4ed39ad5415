"""The `claim` command line: `claim serve`, `claim worker`, `claim rebuild`,
`claim archive [--check]`, `claim export --all`, `claim import FILE`, `claim verify FILE`,
`claim verify-export FILE`, `claim simulate ...`, `claim ladder`, `claim openapi`.

The entry point composes the layers: it reads the `Config` once (the environment and
its own options) and hands it to the API, the worker or the application.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator

from tqdm import tqdm

from .config import Config, ConfigError
from .conformance import first_difference, read_games
from .domain import PRESETS, ClaimError, check_factions
from .simulation import Tally, simulate

DEFAULTS = Config()


def verify(path: str) -> int:
    """Check every game of a conformance file; print failures and `N passed, M failed`."""
    passed = failed = 0
    try:
        games = list(read_games(path))
    except OSError as error:
        print(f"cannot read {path}: {error.strerror}", file=sys.stderr)
        return 2
    for game in tqdm(games, desc="verifying", unit="game", file=sys.stderr, leave=False):
        difference = first_difference(game)
        if difference is None:
            passed += 1
        else:
            failed += 1
            print(f"{game.get('id', '?')}: {difference}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


KEYS_DEADLINE = 10.0  # seconds for the whole answer of `verify-export --key URL`
KEYS_LIMIT = 1 << 20  # bytes of a listing of keys: a key takes about 120 bytes


def verify_export(path: str, keys_from: str) -> int:
    """Check an export of `GET /games/{id}/export` with the public keys of `keys_from`
    (a file, or the URL of a server's `/.well-known/claim-keys`): 0 when the chain, the
    seal, the deck's commitment and every decision replayed hold; 1 naming the first
    bad line otherwise; 2 when a file or the keys cannot be read."""
    from .games import verify_export as check
    from .games.export import LONGEST_EXPORT, LONGEST_LINE
    from .games.lines import BadLine, read_lines

    try:
        if keys_from.startswith(("http://", "https://")):
            keys = _keys_in(_fetched(keys_from))
        else:
            keys = _keys_in(_read_capped(keys_from))
    except (OSError, ValueError) as error:
        print(f"cannot read the keys of {keys_from}: {_words(error)}", file=sys.stderr)
        return 2
    try:
        with open(path, "rb") as file:
            lines = read_lines(file, LONGEST_LINE, LONGEST_EXPORT)
            # split at \r too, as the browser does (verify.js): the lines it numbers
            verdict = check((part for line in lines for part in line.splitlines()), keys)
    except OSError as error:
        print(f"cannot read the export {path}: {_words(error)}", file=sys.stderr)
        return 2
    except BadLine as error:
        print(f"{path}:{error.line}: {error}")
        return 1
    if verdict.ok:
        print(f"ok: {verdict.reason}, as {keys_from} lists it")
        return 0
    print(f"{path}:{verdict.line}: {verdict.reason}")
    return 1


def _keys_in(text: bytes) -> list:
    """The public keys of a listing as `/.well-known/claim-keys` answers it, or of one
    of its entries (ValueError if it is neither)."""
    import orjson

    from .events import PublicKey

    try:
        listed = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise ValueError(f"not JSON: {error}") from None
    entries = listed.get("keys") if isinstance(listed, dict) and "keys" in listed else [listed]
    if not isinstance(entries, list):
        raise ValueError("its 'keys' are not a list")
    return [PublicKey.parse(entry) for entry in entries]


def _read_capped(path: str) -> bytes:
    """The file at `path`, of at most KEYS_LIMIT bytes (ValueError if longer)."""
    with open(path, "rb") as file:
        return _capped(file.read(KEYS_LIMIT + 1))


def _capped(body: bytes) -> bytes:
    if len(body) > KEYS_LIMIT:
        raise ValueError(f"it goes on past {KEYS_LIMIT >> 20} MiB: not a listing of keys")
    return body


def _fetched(url: str) -> bytes:
    """The body that `url` answers (200) within KEYS_DEADLINE seconds in all, of at
    most KEYS_LIMIT bytes, no redirect followed (OSError or ValueError otherwise). It is
    read in a thread of its own, left behind if late: no socket timeout bounds a whole
    answer (a server may send a byte a second)."""
    import http.client
    import queue
    import threading
    import urllib.request

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, request, answer, code, message, headers, to):
            raise ValueError(f"it answered {code} {message}, a redirect to {to}: not followed")

    answers = queue.Queue(maxsize=1)

    def fetch():
        try:
            opener = urllib.request.build_opener(NoRedirects())
            with opener.open(url, timeout=KEYS_DEADLINE) as answer:
                answers.put(answer.read(KEYS_LIMIT + 1))
        except (OSError, ValueError, http.client.HTTPException) as error:
            answers.put(error)

    threading.Thread(target=fetch, name="keys", daemon=True).start()
    try:
        answer = answers.get(timeout=KEYS_DEADLINE)
    except queue.Empty:
        raise TimeoutError(f"no whole answer within {KEYS_DEADLINE:g} s") from None
    if isinstance(answer, http.client.HTTPException):
        raise OSError("its answer is not whole HTTP")
    if isinstance(answer, Exception):
        raise answer
    return _capped(answer)


def _words(error: Exception) -> str:
    """What went wrong with a file or a request, without the exception's own form."""
    import urllib.error

    if isinstance(error, urllib.error.HTTPError):
        return f"it answered {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return _words(error.reason) if isinstance(error.reason, OSError) else str(error.reason)
    return getattr(error, "strerror", None) or str(error)


def run_simulation(players: int, games: int, seed: int, factions, first_leader: int) -> int:
    """Play random games with a progress bar and print a summary."""
    tally = Tally()
    start = time.perf_counter()
    runs = simulate(players, games, seed, factions, first_leader)
    for state, decisions in tqdm(runs, total=games, unit="game", file=sys.stderr):
        tally.add(state, decisions)
    seconds = time.perf_counter() - start
    side = "team" if players == 4 else "seat"
    sides = 2 if players == 4 else players
    print(f"{tally.games} games of {players} players, seed {seed}")
    for number in range(sides):
        wins = tally.wins[number]
        print(f"  {side} {number} won {wins:7d}  ({100 * wins / tally.games:5.1f}%)")
    print(f"  draws     {tally.draws:7d}  ({100 * tally.draws / tally.games:5.1f}%)")
    print("factions won (by side; '-' nobody):")
    for code, sides_won in sorted(tally.factions.items()):
        counts = "  ".join(
            f"{'-' if s is None else s}:{n}" for s, n in sorted(sides_won.items(), key=str)
        )
        print(f"  {code}  {counts}")
    print(
        f"{tally.games / seconds:.0f} games/s, {tally.decisions / seconds:.0f} decisions/s"
        f" ({seconds:.1f} s)"
    )
    return 0


def rebuild(config: Config) -> int:
    """`claim rebuild`: every projection of the games written again from the streams,
    the index of the players' email addresses from the players, and every analysis
    dropped and asked for again (the workers compute it anew)."""
    from . import games
    from .events import connect
    from .events.shards import delete_unsharded

    claim = games.Claim.connect(config)
    game_ids = tqdm(claim.store.game_ids(), desc="rebuild", unit="game", file=sys.stderr)
    archived = claim.archive.every_id(rated=True)
    archived = tqdm(archived, desc="archived ratings", unit="game", file=sys.stderr)
    count = games.rebuild(claim, game_ids, archived)
    print(f"{count} game{'s' * (count != 1)} rebuilt", file=sys.stderr)
    analysed = games.requeue_analyses(claim)
    noun = "analysis" if analysed == 1 else "analyses"
    print(f"{analysed} {noun} dropped and asked for again", file=sys.stderr)
    indexed = games.index_emails(claim)
    print(f"{indexed} email address{'es' * (indexed != 1)} indexed", file=sys.stderr)
    client = connect(config)
    delete_unsharded(client, config.prefix)
    client.close()
    return 0


def archive(config: Config, older_than: float | None, check: bool) -> int:
    """`claim archive`: move every game ended more than `older_than` seconds ago
    (default CLAIM_ARCHIVE_AFTER) from Redis to the archive, now. With `check`, check
    every archived game's row instead (exit 1 if one is wrong, each named)."""
    from datetime import timedelta

    from . import games

    claim = games.Claim.connect(config, jobs=False)
    if check:
        return check_archive(claim)
    older_than = config.archive_after if older_than is None else older_than
    ended_by = claim.clock() - timedelta(seconds=older_than)
    moved = left = 0
    with tqdm(desc="archive", unit="game", file=sys.stderr) as progress:
        for looked, report in games.archive_ended(claim, claim.store.game_ids(), ended_by):
            moved, left = moved + len(report.archived), left + len(report.left)
            progress.update(looked)
    print(f"{moved} game{'s' * (moved != 1)} archived, {left} ended left in Redis", file=sys.stderr)
    claim.close()
    return 0


def check_archive(claim) -> int:
    """`claim archive --check`: every archived game's row checked (its log against its
    hash, its seal against the keys); the wrong ones named on standard output."""
    from . import games

    checked = wrong = 0
    total = claim.archive.count()
    with tqdm(total=total, desc="check", unit="game", file=sys.stderr) as progress:
        for game_id, problem in games.check_archive(claim, claim.archive.every_id()):
            checked, wrong = checked + 1, wrong + (problem is not None)
            if problem is not None:
                print(f"{game_id}: {problem}")
            progress.update(1)
    print(f"{checked} archived game{'s' * (checked != 1)} checked, {wrong} wrong", file=sys.stderr)
    claim.close()
    return 1 if wrong else 0


def export_all(config: Config, path: str | None) -> int:
    """`claim export --all`: a backup of the deployment to `path`, else to standard
    output, its owner's only (0600) either way when it is a file; the key that signed
    it said on standard error."""
    from . import games
    from .games.backup import export_all as lines

    claim = games.Claim.connect(config, jobs=False)
    try:
        with _private_output(path) as out:
            for line in tqdm(lines(claim), desc="export", unit="line", file=sys.stderr):
                out.write(line)
    except OSError as error:
        print(f"cannot write {path or 'the backup'}: {_words(error)}", file=sys.stderr)
        return 2
    finally:
        claim.close()
    print(f"backup signed with key {claim.signing_key.public.key_id}", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _private_output(path: str | None) -> Iterator:
    """The binary file `path`, made or emptied as its owner's only (0600, whatever the
    umask), or standard output, made its owner's only too when it is a regular file
    (`claim export --all > backup.jsonl`)."""
    import os
    import stat

    if path is not None:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(descriptor, 0o600)  # a file there already, or a umask that took bits
        with os.fdopen(descriptor, "wb") as file:
            yield file
        return
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by something without one
        descriptor = None
    if descriptor is not None and stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.fchmod(descriptor, 0o600)
    yield sys.stdout.buffer
    sys.stdout.buffer.flush()


def import_all(config: Config, path: str, trust: list[str]) -> int:
    """`claim import FILE`: a backup checked whole, then written into this deployment,
    if signed by its own key or one of `trust` (files of public keys, or ids of its
    seal keys): 0 when imported; 1 naming the first bad line (or the untrusted
    signature); 2 when a file cannot be read."""
    from . import games
    from .games.backup import LONGEST_LINE
    from .games.backup import import_all as imported
    from .games.lines import BadLine, read_lines

    passes = iter(("checked", "written"))

    def read():
        with open(path, "rb") as file:
            lines = read_lines(file, LONGEST_LINE)
            yield from tqdm(lines, desc=next(passes, "read"), unit=" lines", file=sys.stderr)

    claim = games.Claim.connect(config, jobs=False)
    try:
        trusted = _trusted(claim, trust)
        done = imported(claim, read, [key for key, _ in trusted.values()])
    except OSError as error:
        print(f"cannot read {error.filename or path}: {_words(error)}", file=sys.stderr)
        return 2
    except BadLine as error:
        print(f"{path}:{error.line}: {error}; nothing imported", file=sys.stderr)
        return 1
    except UntrustedKey as error:
        print(f"--trust {error}; nothing imported", file=sys.stderr)
        return 2
    finally:
        claim.close()
    own = done.signer == claim.signing_key.public
    named = (
        "this deployment's own" if own else f"trusted by --trust {trusted[done.signer.key_id][1]}"
    )
    print(f"signed by key {done.signer.key_id} ({named})", file=sys.stderr)
    print(
        f"{done.players} players and {done.games} games imported ({done.archived} ended, into"
        " the archive); those here already left as they were",
        file=sys.stderr,
    )
    return 0


class UntrustedKey(Exception):
    """A `--trust` that names no key."""


def _trusted(claim, given: list[str]) -> dict:
    """The keys named by `--trust`, by id, each with what named it: the id of one of
    this deployment's seal keys, or a file holding a key (or a listing of keys) as
    `/.well-known/claim-keys` lists them. UntrustedKey (or OSError) for one that is
    none."""
    from . import games

    known = {key.key_id: key for key in games.public_keys(claim)}
    trusted = {}
    for named in given:
        if named in known:
            keys = [known[named]]
        else:
            try:
                keys = _keys_in(_read_capped(named))
            except FileNotFoundError:
                raise UntrustedKey(
                    f"{named}: neither a file nor the id of a key among this deployment's"
                    " seal keys (/.well-known/claim-keys)"
                ) from None
            except ValueError as error:
                raise UntrustedKey(f"{named}: {error}") from None
        trusted |= {key.key_id: (key, named) for key in keys}
    return trusted


@contextlib.contextmanager
def _redis_of(config: Config) -> Iterator[None]:
    """Without REDIS_URL, the embedded Redis of the data directory: the one `claim
    serve` runs there, else one started for the command and stopped after it (a
    deployment stopped can be rebuilt, archived, exported and imported into)."""
    from .runtime.embedded_redis import EmbeddedRedis

    embedded = None if config.redis_url else EmbeddedRedis(config.data_dir, config.fsync)
    if embedded is not None and not embedded.answers():
        embedded.start()
    else:
        embedded = None
    try:
        yield
    finally:
        if embedded is not None:
            embedded.stop()


def run_cluster(directory: str, masters: int, replicas: int) -> int:
    """`claim cluster`: a Redis Cluster and a queue Redis on this machine, to try a
    deployment (docs/deployment.md), until Ctrl-C or SIGTERM."""
    import signal
    from pathlib import Path

    from .runtime.local_cluster import LocalCluster, RedisNode
    from .runtime.processes import ending_with_this_process

    root, ending = Path(directory).resolve(), ending_with_this_process()
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    queue = RedisNode(root / "queue", preexec_fn=ending)
    with LocalCluster(root / "cluster", masters, replicas, preexec_fn=ending) as cluster:
        try:
            queue.start()
            print(f"REDIS_URL={cluster.url}", f"CLAIM_QUEUE_URL=redis://127.0.0.1:{queue.port}")
            print("Ctrl-C to stop (nothing is kept)", file=sys.stderr, flush=True)
            signal.pause()
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: stop all the same
        finally:
            queue.stop()
    return 0


def write_openapi(path: str | None) -> int:
    """Print the OpenAPI document generated from the API's schemas, or write it."""
    from .api import openapi_document

    document = openapi_document()
    if path is None:
        sys.stdout.write(document)
    else:
        with open(path, "w", encoding="utf-8") as file:
            file.write(document)
    return 0


def _check_stores(config: Config) -> None:
    """ConfigError unless the job queues and the archive can be where `config` puts
    them: with a Redis Cluster, the queues on another Redis (`CLAIM_QUEUE_URL`: RQ does
    not support a cluster), and an archive that every host shares (`CLAIM_ARCHIVE_URL`,
    not the default file of each host's data directory)."""
    import redis

    from .events import StoreUnavailable, connect
    from .games.claim import queues

    try:
        games = connect(config)
        queues(config, games).close()
        cluster = isinstance(games, redis.RedisCluster)
        games.close()
    except StoreUnavailable as error:
        raise ConfigError(f"REDIS_URL or CLAIM_QUEUE_URL: {error}") from None
    if cluster and not config.archive_url:
        raise ConfigError("CLAIM_ARCHIVE_URL is required: a cluster's hosts share one archive")


def _factions(text: str | None):
    if text is None:
        return None
    return PRESETS.get(text) or tuple(code.strip() for code in text.split(","))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="claim", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("verify", help="check a conformance file against the engine")
    check.add_argument("file")

    play = commands.add_parser("simulate", help="play random legal games and summarise them")
    play.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    play.add_argument("--games", type=int, default=1000)
    play.add_argument("--seed", type=int, default=0)
    play.add_argument(
        "--factions",
        help="'claim', 'claim2' or codes like GO,KN,UN,DO,DW (default: random per game)",
    )
    play.add_argument("--first-leader", type=int, default=0)

    run = commands.add_parser("serve", help="run the API (on an embedded Redis without REDIS_URL)")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    run.add_argument(
        "--connections",
        type=int,
        default=10_000,
        help="open connections per gunicorn process (idle live streams included)",
    )
    run.add_argument(
        "--rq-worker",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="start one RQ worker too (default: only on the embedded Redis)",
    )

    work = commands.add_parser("worker", help="run an RQ worker: AI turns, deadlines, webhooks")
    work.add_argument("--burst", action="store_true", help="stop once the queues are empty")
    work.add_argument(
        "--sweep-every", type=float, default=DEFAULTS.sweep_every, help="seconds between sweeps"
    )
    work.add_argument(
        "--stuck-after",
        type=float,
        default=DEFAULTS.stuck_after,
        help="seconds an AI turn may wait before it is enqueued again",
    )

    commands.add_parser(
        "rebuild",
        help="write the lobby, the inboxes, the AI turns, the timers and the ratings again"
        " from the streams; drop the analyses and queue them again",
    )

    moving = commands.add_parser(
        "archive", help="move ended games from Redis to the archive now (the workers do it too)"
    )
    moving.add_argument(
        "--older-than",
        type=float,
        help="seconds since their end (default: CLAIM_ARCHIVE_AFTER; 0: every ended game)",
    )
    moving.add_argument(
        "--check",
        action="store_true",
        help="move nothing: check every archived game's log against its hash and seal",
    )

    backup = commands.add_parser(
        "export", help="a backup of the deployment (0600), on standard output or to a file"
    )
    backup.add_argument("--all", action="store_true", required=True, help="every game and player")
    backup.add_argument("--output", "-o", help="write it to this file (made 0600)")

    restore = commands.add_parser(
        "import", help="a backup checked, then written here, if signed by a key trusted here"
    )
    restore.add_argument("file", help="what claim export --all wrote")
    restore.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="FILE|KEY-ID",
        help="trust backups and seals by this key too: a file of a public key (or of"
        " keys) as /.well-known/claim-keys lists them, or the id of one of this"
        " deployment's seal keys; repeatable (this deployment's own key is trusted)",
    )

    ladder = commands.add_parser(
        "ladder", help="AI levels play rated games on a running server: its leaderboard filled"
    )
    ladder.add_argument("--url", default="http://127.0.0.1:8000", help="the server")
    ladder.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    ladder.add_argument("--games", type=int, default=30)
    ladder.add_argument(
        "--levels", default="random,greedy,expert", help="AI levels, comma-separated"
    )
    ladder.add_argument("--parallel", type=int, default=4, help="games at a time")

    local = commands.add_parser(
        "cluster", help="run a local Redis Cluster and a queue Redis, to try a deployment"
    )
    local.add_argument("--dir", default=".claim/cluster", help="where the servers' files go")
    local.add_argument("--masters", type=int, default=3)
    local.add_argument("--replicas", type=int, default=1, help="replicas of each master")

    exported = commands.add_parser(
        "verify-export", help="check a game's export: chain, seal, commitment, rules"
    )
    exported.add_argument("file", help="what GET /games/{id}/export answered")
    exported.add_argument(
        "--key",
        help="the public keys: a file, or a server's /.well-known/claim-keys URL"
        " (default: CLAIM_PUBLIC_URL's)",
    )

    spec = commands.add_parser("openapi", help="print the API's OpenAPI document (openapi.yaml)")
    spec.add_argument("--output", "-o", help="write it to this file instead")

    args = parser.parse_args(argv)
    if args.command == "verify":
        return verify(args.file)
    if args.command == "verify-export":
        keys = args.key or f"{Config.from_env().public_url}/.well-known/claim-keys"
        return verify_export(args.file, keys)
    if args.command in ("serve", "worker", "rebuild", "archive", "export", "import"):
        try:
            options = {}
            if args.command == "worker":
                options = {"sweep_every": args.sweep_every, "stuck_after": args.stuck_after}
            config = Config.from_env(**options)
            if config.redis_url:
                _check_stores(config)
        except ConfigError as error:
            parser.error(str(error))
    if args.command == "serve":
        from .runtime.serve import serve

        return serve(config, args.host, args.port, args.workers, args.connections, args.rq_worker)
    if args.command == "worker":
        from workers.worker import run

        return run(config, args.burst)
    if args.command in ("rebuild", "archive", "export", "import"):
        from .events import StoreUnavailable
        from .games import StoreUnavailable as Unavailable
        from .runtime.embedded_redis import EmbeddedRedisError

        commands = {
            "rebuild": lambda: rebuild(config),
            "archive": lambda: archive(config, args.older_than, args.check),
            "export": lambda: export_all(config, args.output),
            "import": lambda: import_all(config, args.file, args.trust),
        }
        try:
            with _redis_of(config):
                return commands[args.command]()
        except (StoreUnavailable, Unavailable, EmbeddedRedisError) as error:
            print(f"claim {args.command}: {error}", file=sys.stderr)
            return 2
    if args.command == "openapi":
        return write_openapi(args.output)
    if args.command == "cluster":
        return run_cluster(args.dir, args.masters, args.replicas)
    if args.command == "ladder":
        from .ladder import run as ladder_run

        levels = [level.strip() for level in args.levels.split(",") if level.strip()]
        if args.games < 1 or args.parallel < 1:
            parser.error("--games and --parallel must be at least 1")
        return ladder_run(args.url, args.players, args.games, levels, args.parallel)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        factions = _factions(args.factions)
        if factions is not None:
            factions = check_factions(args.players, factions)
        if args.first_leader not in range(args.players):
            parser.error(f"--first-leader must be a seat from 0 to {args.players - 1}")
    except ClaimError as error:
        parser.error(str(error))
    return run_simulation(args.players, args.games, args.seed, factions, args.first_leader)


if __name__ == "__main__":
    sys.exit(main())
