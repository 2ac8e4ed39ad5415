"""A game as one caller may see it (RULES.md 8), and the schema of that view.

Built from the engine's `observe(state, seat)` only, so it cannot show what the
observation hides; once the game has ended (however it ended) everything is public
and the view adds every hand, follower pile, the draw pile and the deck.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection

import orjson
from flask import Response
from marshmallow import Schema, fields

from service.domain import Card, Observation, Result, RoundRecord, State, observe, unplayable
from service.games import OPEN, RUNNING, Game, RatingChange, ending_body, rating_change

CARD = fields.String(metadata={"example": "GO3"})
CARDS = fields.List(CARD)
NULLABLE_CARD = fields.String(allow_none=True, metadata={"description": "null: hidden"})


def codes(cards) -> list[str]:
    return [card.code for card in cards]


def _code(card: Card | None) -> str | None:
    return None if card is None else card.code


def _plays(plays) -> list[dict]:
    return [{"seat": play.seat, "card": play.card.code} for play in plays]


def _acquired(acquired) -> list[dict]:
    return [{"seat": a.seat, "card": _code(a.card), "source": a.source} for a in acquired]


def round_account(record: RoundRecord) -> dict:
    """A finished round as the view shows it (already redacted by `observe`)."""
    return {
        "phase": record.phase,
        "number": record.number,
        "leader": record.leader,
        "plays": _plays(record.plays),
        "winner": record.winner,
        "prizes": codes(record.prizes),
        "acquired": _acquired(record.acquired),
        "peek": None if record.peek is None else _plays([record.peek])[0],
        "removed": _plays(record.removed),
    }


def game_view(
    game: Game,
    seat: int | None,
    reveal: bool = False,
    rematch: str | None = None,
    ratings: tuple[RatingChange, ...] | None = None,
    bots: Collection[str] = (),
) -> dict:
    """What `seat` (None: anybody) may see of `game`; everything once it has ended,
    or with `reveal` (a past step of a game that has ended since); `rematch` and
    `ratings` as `Seen` tells them; `bots`: which of its seats' players are bots."""
    over = reveal or game.ending is not None
    observation = observe(game.state, seat)
    return {
        "game_id": game.id,
        "status": game.status,
        "version": game.version,
        "head": head_body(game),
        "decisions": game.decisions,
        "players": game.settings.players,
        "factions": [faction.code for faction in game.settings.factions],
        "first_leader": game.settings.first_leader,
        "seats": [
            {
                "seat": n,
                "kind": s.kind,
                "level": s.level,
                "name": s.name,
                "bot": s.player is not None and s.player in bots,
                "taken": s.taken,
                "takeover": s.takeover,
                "ai_decisions": s.ai_decisions,
                "timeouts": s.timeouts,
                "timeouts_in_a_row": s.timeouts_in_a_row,
                "break_until": s.break_until,
                "break_days_used": s.break_days_used,
                "break_days_allowed": s.break_days_allowed,
            }
            for n, s in enumerate(game.seats)
        ],
        "move_time_limit": game.creation.move_time_limit,
        "timeout_policy": game.creation.timeout_policy,
        "timeout_limit": game.creation.timeout_limit,
        "final_timeout_policy": game.creation.final_timeout_policy,
        "on_timeout": game.on_timeout,
        "join_time_limit": game.creation.join_time_limit,
        "deadline_at": game.deadline,
        "commitment": game.creation.commitment,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "you": None if seat is None else _own(game, observation, over),
        "table": None if game.status == OPEN else _table(game, observation, over),
        "revealed": _revealed(game.state) if over else None,
        "result": None if game.result is None else result_body(game.result),
        "rematch": rematch,
        "rated": game.creation.rated,
        "public": game.public,
        "ratings": None if ratings is None else [rating_change(c) for c in ratings],
        "ending": ending_body(game),
    }


def head_body(game: Game) -> dict:
    """The game's head: its version and the hash of its log up to it (docs/design.md,
    Events: the hash chain)."""
    version, chain = game.head
    return {"version": version, "hash": chain}


def view_json(game: Game, seat: int | None, bots: frozenset[str] = frozenset()) -> bytes:
    """`game_view(game, seat, bots=bots)` as JSON, made once per version and seat for
    all the live streams of this process: a change watched by a thousand streams is
    rendered once per seat, not a thousand times."""
    key = (game.creation.commitment, game.version, seat, bots)  # the commitment: this game
    with _rendered_lock:
        rendered = _rendered.get(key)
    if rendered is None:
        rendered = orjson.dumps(game_view(game, seat, bots=bots))
        with _rendered_lock:
            _rendered[key] = rendered
            while len(_rendered) > RENDERED:
                _rendered.popitem(last=False)
    return rendered


RENDERED = 512  # views kept rendered (a game at a version never changes)
_rendered: OrderedDict[tuple[str, int, int | None, frozenset[str]], bytes] = OrderedDict()
_rendered_lock = threading.Lock()


def json_response(body: dict, status: int = 200, headers: dict | None = None) -> Response:
    """`body` as JSON. Views are built of plain values already (times in ISO 8601, as
    the schemas write them), so they skip the schemas' dump, a fifth of the time of a
    move (bench/api.py); tests/api/test_openapi.py checks that they keep to them.
    orjson writes a view of mid-game (5 kB) in a tenth of the time of `json.dumps`."""
    return Response(orjson.dumps(body), status, headers, mimetype="application/json")


def acting_seat(game: Game) -> int | None:
    """The seat to decide now, or None if the game is not running."""
    return game.state.to_act if game.status == RUNNING else None


def _own(game: Game, observation: Observation, over: bool) -> dict:
    started = game.status != OPEN
    acts = not over and started and not game.seats[observation.seat].takeover
    return {
        "seat": observation.seat,
        "hand": codes(observation.hand) if started else [],
        "follower_pile": codes(observation.follower_pile) if started else [],
        "peek": _code(observation.peek),
        "legal": [str(d) for d in observation.legal] if acts else [],
        "unplayable": {c.code: why for c, why in unplayable(observation).items()} if acts else {},
    }


def _table(game: Game, observation: Observation, over: bool) -> dict:
    state = game.state
    return {
        "phase": observation.phase,
        "round": observation.round,
        "leader": observation.leader,
        "to_act": acting_seat(game),
        "prizes": codes(observation.prizes),
        "trick": _plays(observation.trick),
        "acquired": _acquired(state.acquired if over else observation.acquired),
        "hand_sizes": list(observation.hand_sizes),
        "follower_pile_sizes": list(observation.follower_pile_sizes),
        "draw_pile_size": observation.draw_pile_size,
        "discard": codes(observation.discard),
        "score_piles": [codes(pile) for pile in observation.score_piles],
        "gnomes_in_front": [codes(gnomes) for gnomes in observation.gnomes_in_front],
        "trolls_aside": codes(observation.trolls_aside),
        "removed": codes(observation.removed),
        "rounds": [round_account(r) for r in (state.rounds if over else observation.rounds)],
    }


def _revealed(state: State) -> dict:
    return {
        "hands": [codes(hand) for hand in state.hands],
        "follower_piles": [codes(pile) for pile in state.follower_piles],
        "draw_pile": codes(state.draw_pile),
        "deck": codes(state.deck),
    }


def result_body(outcome: Result) -> dict:
    return {
        "faction_winners": {faction.code: side for faction, side in outcome.faction_winners},
        "side_keys": [list(key) for key in outcome.side_keys],
        "winner": outcome.winner,
    }


class SeatSchema(Schema):
    seat = fields.Integer()
    kind = fields.String(metadata={"enum": ["human", "ai"]})
    level = fields.String(allow_none=True)
    name = fields.String(allow_none=True)
    bot = fields.Boolean(metadata={"description": "the seat's player is a bot's account"})
    taken = fields.Boolean()
    takeover = fields.String(
        allow_none=True, metadata={"description": "the level of the AI playing for the seat"}
    )
    ai_decisions = fields.Integer(
        metadata={
            "description": "decisions an AI made for the seat's person because their move"
            " time ran out (timeout policies ai and takeover)"
        }
    )
    timeouts = fields.Integer(metadata={"description": "times the person's move time ran out"})
    timeouts_in_a_row = fields.Integer(
        metadata={
            "description": "the same since the person last decided or took the seat back:"
            " at the game's `timeout_limit`, a takeover policy's final policy applies"
        }
    )
    break_until = fields.DateTime(
        allow_none=True,
        metadata={
            "description": "the end of the last break the seat's person took (their clock"
            " stands still until then); null: none in this game"
        },
    )
    break_days_used = fields.Integer(
        metadata={"description": "days of breaks the person took this year, as at their last"}
    )
    break_days_allowed = fields.Integer(metadata={"description": "days of breaks a year"})


class PlaySchema(Schema):
    seat = fields.Integer()
    card = CARD


class AcquisitionSchema(Schema):
    seat = fields.Integer()
    card = NULLABLE_CARD
    source = fields.String(metadata={"enum": ["prize", "deck", "draw"]})


class RoundSchema(Schema):
    phase = fields.Integer()
    number = fields.Integer(metadata={"description": "0-based within its phase"})
    leader = fields.Integer()
    plays = fields.List(fields.Nested(PlaySchema))
    winner = fields.Integer()
    prizes = CARDS
    acquired = fields.List(fields.Nested(AcquisitionSchema))
    peek = fields.Nested(PlaySchema, allow_none=True, metadata={"description": "own Seer peek"})
    removed = fields.List(fields.Nested(PlaySchema), metadata={"description": "Gnomes removed"})


class OwnSchema(Schema):
    seat = fields.Integer()
    hand = CARDS
    follower_pile = CARDS
    peek = NULLABLE_CARD
    legal = fields.List(
        fields.String(),
        metadata={"description": "decisions, when to act (none while an AI plays the seat)"},
    )
    unplayable = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={
            "description": "when to act, each card of the hand that may not be played now"
            " and why (empty otherwise, while an AI plays the seat, and once over)",
            "example": {"KN5": "must follow Goblins (or play a Doppelganger)"},
        },
    )


class TableSchema(Schema):
    phase = fields.Integer()
    round = fields.Integer(metadata={"description": "0-based within the phase"})
    leader = fields.Integer()
    to_act = fields.Integer(allow_none=True)
    prizes = CARDS
    trick = fields.List(fields.Nested(PlaySchema))
    acquired = fields.List(fields.Nested(AcquisitionSchema))
    hand_sizes = fields.List(fields.Integer())
    follower_pile_sizes = fields.List(fields.Integer())
    draw_pile_size = fields.Integer()
    discard = CARDS
    score_piles = fields.List(CARDS)
    gnomes_in_front = fields.List(CARDS)
    trolls_aside = CARDS
    removed = CARDS
    rounds = fields.List(fields.Nested(RoundSchema))


class RevealedSchema(Schema):
    hands = fields.List(CARDS)
    follower_piles = fields.List(CARDS)
    draw_pile = CARDS
    deck = CARDS


class ResultSchema(Schema):
    faction_winners = fields.Dict(
        keys=fields.String(), values=fields.Integer(allow_none=True), metadata={"example": {}}
    )
    side_keys = fields.List(fields.List(fields.Integer()))
    winner = fields.Integer(allow_none=True, metadata={"description": "side; null: a draw"})


class EndingSchema(Schema):
    reason = fields.String(metadata={"enum": ["completed", "resigned", "forfeited", "aborted"]})
    seat = fields.Integer(
        allow_none=True, metadata={"description": "the seat that resigned or forfeited"}
    )
    winners = fields.List(
        fields.Integer(),
        metadata={
            "description": "the winning sides: a side is a seat with 2 or 3 players, a team"
            " with 4 (team 0: seats 0 and 2, team 1: seats 1 and 3); empty: a draw or an"
            " abort; with 3 players a resignation leaves both others winning"
        },
    )
    winning_seats = fields.List(
        fields.Integer(), metadata={"description": "the seats of the winning sides, ascending"}
    )


class RatingChangeSchema(Schema):
    seat = fields.Integer()
    player_id = fields.String(metadata={"description": "a player's id, or ai:<level>"})
    rating_before = fields.Float(metadata={"description": "skill (mu) before the game"})
    rating_after = fields.Float()
    change = fields.Float()
    uncertainty_after = fields.Float(metadata={"description": "sigma after the game"})
    weight = fields.Float(
        metadata={
            "description": "how much the game counted for this seat: 1 fully; less from the"
            " 4th game within a day with the same other player or AI level; 0 not at all"
            " (then nothing changed)"
        }
    )
    note = fields.String(
        allow_none=True,
        metadata={
            "description": "why the game counted less than fully (a resignation or forfeit"
            " too early to rate, a pair's games within a day); null when it counted fully"
        },
    )


class HeadSchema(Schema):
    """What a client may keep of a game it saw: a later export of the game must chain
    to it (`claim verify-export`)."""

    version = fields.Integer()
    hash = fields.String(
        metadata={"description": "sha256 (hex) of the game's log up to `version`, chained"}
    )


class GameViewSchema(Schema):
    """A game as the caller may see it: `you` with a seat token, `table` once dealt,
    `revealed` and `result` once over."""

    game_id = fields.String()
    status = fields.String(metadata={"enum": ["open", "running", "finished", "aborted"]})
    version = fields.Integer()
    head = fields.Nested(HeadSchema)
    decisions = fields.Integer(metadata={"description": "decisions made: the last replay step"})
    players = fields.Integer()
    factions = fields.List(fields.String())
    first_leader = fields.Integer()
    seats = fields.List(fields.Nested(SeatSchema))
    move_time_limit = fields.Integer(allow_none=True, metadata={"description": "seconds"})
    timeout_policy = fields.String(metadata={"example": "ai:greedy"})
    timeout_limit = fields.Integer(
        metadata={"description": "with a takeover policy: the timeouts in a row it forgives"}
    )
    final_timeout_policy = fields.String(
        metadata={
            "enum": ["takeover", "forfeit"],
            "description": "with a takeover policy: what applies at `timeout_limit`",
        }
    )
    on_timeout = fields.String(
        allow_none=True,
        metadata={
            "example": "ai:greedy",
            "description": "what happens if the acting person's time runs out now: the"
            " timeout policy that applies at this timeout (`ai:<level>`: an AI makes this"
            " one decision; `takeover:<level>`: an AI plays the seat until its person takes"
            " it back; `forfeit`); null when no move time runs",
        },
    )
    join_time_limit = fields.Integer(allow_none=True, metadata={"description": "seconds"})
    deadline_at = fields.DateTime(
        allow_none=True,
        metadata={"description": "when the acting person's (or an open game's joining) time ends"},
    )
    commitment = fields.String(metadata={"description": "sha256(salt || deck), hex"})
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
    you = fields.Nested(OwnSchema, allow_none=True)
    table = fields.Nested(TableSchema, allow_none=True)
    revealed = fields.Nested(RevealedSchema, allow_none=True)
    result = fields.Nested(ResultSchema, allow_none=True)
    ending = fields.Nested(EndingSchema, allow_none=True)
    rematch = fields.String(allow_none=True, metadata={"description": "the next game's id"})
    rated = fields.Boolean(metadata={"description": "whether its result moves the ratings"})
    public = fields.Boolean(metadata={"description": "open seats are for anybody: no invite"})
    ratings = fields.List(
        fields.Nested(RatingChangeSchema),
        allow_none=True,
        metadata={
            "description": "what the game did to each seat's rating, once a rated game has"
            " ended and the ratings have taken it in (moments later); null otherwise, and"
            " in live stream events"
        },
    )
