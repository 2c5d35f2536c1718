"""The installed package: its stubs import inside it, next to python-chess."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import chess

import chessarbiter_client
from chessarbiter_client import pb, pb_grpc


def test_python_chess_and_the_client_import_side_by_side() -> None:
    assert hasattr(chess, "Board"), chess.__file__  # python-chess, not a generated package
    board = chess.Board()
    board.push_san("e4")
    request = pb.MakeMoveRequest(game_id="g", move=board.peek().uci(), ply=board.ply() - 1)
    assert pb.MakeMoveRequest.FromString(request.SerializeToString()).move == "e2e4"


def test_in_a_fresh_interpreter_either_import_order_works(tmp_path: pathlib.Path) -> None:
    # From an empty directory, so that only installed packages are found.
    for first, second in (("chess", "chessarbiter_client"), ("chessarbiter_client", "chess")):
        code = (
            f"import {first}, {second}, sys\n"
            "assert chess.Board().is_valid()\n"
            "assert chessarbiter_client.pb.DESCRIPTOR.package == 'chessarbiter.v1'\n"
            "assert 'chessarbiter' not in sys.modules, 'a top-level chessarbiter package was imported'\n"
            "print(chessarbiter_client.__file__)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert "site-packages" in done.stdout, done.stdout


def test_stubs_keep_the_contract_names() -> None:
    assert pb.DESCRIPTOR.name == "chessarbiter/v1/arbiter.proto"
    assert set(pb.DESCRIPTOR.services_by_name) == {"ArbiterService", "AdminService"}
    assert hasattr(pb_grpc, "ArbiterServiceStub") and hasattr(pb_grpc, "AdminServiceStub")
    assert pb_grpc.chessarbiter_dot_v1_dot_arbiter__pb2 is pb


def test_typing_files_are_installed() -> None:
    package = pathlib.Path(chessarbiter_client.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_proto" / "chessarbiter" / "v1" / "arbiter_pb2.pyi").is_file()
