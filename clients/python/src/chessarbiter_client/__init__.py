"""A Python client for the chess arbiter (gRPC package ``chessarbiter.v1``).

    from chessarbiter_client import ArbiterClient, pb

    with ArbiterClient("127.0.0.1:50051", admin_token="...") as client:
        created = client.create_game("Carlsen", "Ding")
        client.make_move(created.game_id, created.white_token, "e4", ply=0)

``pb`` holds the generated messages and enums (``pb.Game``,
``pb.COLOR_WHITE``, ...), ``pb_grpc`` the generated service stubs. The
import name is ``chessarbiter_client``, so python-chess (``chess``) imports
next to it.
"""

from ._proto.chessarbiter.v1 import arbiter_pb2 as pb
from ._proto.chessarbiter.v1 import arbiter_pb2_grpc as pb_grpc
from .client import ActionResult, ArbiterClient, ClaimResult, CreatedGame, MoveLike, PlayerLike
from .errors import ArbiterError, FieldViolation, PreconditionViolation
from .retry import NO_RETRY, RetryPolicy
from .watch import GameWatch, WatchUpdate, ends_game

__version__ = "0.1.0"

__all__ = [
    "ActionResult",
    "ArbiterClient",
    "ArbiterError",
    "ClaimResult",
    "CreatedGame",
    "FieldViolation",
    "GameWatch",
    "MoveLike",
    "NO_RETRY",
    "PlayerLike",
    "PreconditionViolation",
    "RetryPolicy",
    "WatchUpdate",
    "ends_game",
    "pb",
    "pb_grpc",
]
