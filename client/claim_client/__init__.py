"""A client of the Claim game server: every call of its API (openapi.yaml), typed.

    from claim_client import Client

    client = Client("http://127.0.0.1:8000")
    client.register("my bot", bot=True)  # the key is held from now on
    for event in client.my_events():  # your turns, challenges... resumed if cut
        ...

See docs/bots.md of the server's repository.
"""

from .client import Client, SeatToken
from .errors import ProblemError, Unreachable
from .streams import StreamEvent

__all__ = ["Client", "ProblemError", "SeatToken", "StreamEvent", "Unreachable"]
__version__ = "0.1.0"
