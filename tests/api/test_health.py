"""`/healthz` and `/readyz` over HTTP."""

import pytest

from service import games
from service.events import StoreUnavailable


def test_readyz_says_what_answers_and_how_many_workers_are_alive(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    body = {"status": "ready", "store": "ok", "queues": "off", "workers": 0, "expert": "none"}
    assert response.json == body


@pytest.mark.parametrize(
    ("workers", "experts", "expert"), [(0, 0, "none"), (2, 0, "loading"), (2, 1, "ready")]
)
def test_readyz_says_whether_a_worker_plays_the_expert_yet(
    client, monkeypatch, workers, experts, expert
):
    ready = games.Readiness(store=True, queues=True, workers=workers, experts=experts)
    monkeypatch.setattr(games, "readiness", lambda claim: ready)
    answer = client.get("/readyz").json
    assert (answer["workers"], answer["expert"]) == (workers, expert)


def test_readyz_is_a_503_problem_when_the_store_does_not_answer(client, claim, monkeypatch):
    def down():
        raise StoreUnavailable("Redis failed: gone")

    monkeypatch.setattr(claim.store, "ping", down)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.json["detail"] == "not ready: store unreachable"
    assert "Retry-After" in response.headers
