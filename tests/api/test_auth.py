"""The caller's credential is read from the `Authorization: Bearer` header only."""

from service.api.auth import bearer_token


def test_the_bearer_token_is_read_from_the_authorization_header(app):
    with app.test_request_context(headers={"Authorization": "Bearer abc"}):
        assert bearer_token() == "abc"
    with app.test_request_context(headers={"Authorization": "Basic abc"}):
        assert bearer_token() is None
    with app.test_request_context("/games?token=abc"):
        assert bearer_token() is None
    with app.test_request_context():
        assert bearer_token() is None
