"""The schema of the lobby's pages (`GET /games?status=...`): public facts only."""

from __future__ import annotations

from marshmallow import Schema, fields


class LobbySeatSchema(Schema):
    kind = fields.String()
    level = fields.String(allow_none=True)
    name = fields.String(allow_none=True, metadata={"description": "null while open"})


class GameSummarySchema(Schema):
    game_id = fields.String()
    status = fields.String()
    version = fields.Integer()
    players = fields.Integer()
    factions = fields.List(fields.String())
    seats = fields.List(fields.Nested(LobbySeatSchema))
    open_seats = fields.List(fields.Integer())
    created_at = fields.String()
    ending = fields.String(allow_none=True)
    rated = fields.Boolean()
    public = fields.Boolean(metadata={"description": "open seats are for anybody: no invite"})


class LobbyPageSchema(Schema):
    total = fields.Integer(metadata={"description": "games with this status"})
    offset = fields.Integer()
    games = fields.List(fields.Nested(GameSummarySchema))
