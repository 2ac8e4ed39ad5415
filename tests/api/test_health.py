"""`/healthz` and `/readyz` over HTTP."""

from service.events import StoreUnavailable


def test_readyz_says_what_answers_and_how_many_workers_are_alive(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json == {"status": "ready", "store": "ok", "queues": "off", "workers": 0}


def test_readyz_is_a_503_problem_when_the_store_does_not_answer(client, claim, monkeypatch):
    def down():
        raise StoreUnavailable("Redis failed: gone")

    monkeypatch.setattr(claim.store, "ping", down)
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.headers["Content-Type"] == "application/problem+json"
    assert response.json["detail"] == "not ready: store unreachable"
    assert "Retry-After" in response.headers
