#!/usr/bin/env python3
"""Plays the scholar's mate through both seats while a second client watches.

    python examples/play_to_mate.py --target 127.0.0.1:50051 --admin-token <token>

The platform's client creates a game (AdminService, admin token) and relays
each player's moves with that player's seat token; python-chess chooses
nothing here but keeps the board, so each move carries the ply at which it
was chosen. A spectator's client, with a channel of its own, watches the game
in another thread and prints every update. The script exits 0 once the
spectator has seen the game end in checkmate, 1 otherwise.

The target and admin token may also come from ARBITER_TARGET and
ARBITER_ADMIN_TOKEN (leave the token out for a server in open mode).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading

import chess

from chessarbiter_client import ArbiterClient, WatchUpdate, pb

SCHOLARS_MATE = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


def describe(update: WatchUpdate) -> str:
    """One line for a watch update."""
    if update.snapshot is not None:
        game = update.snapshot
        status = pb.GameStatus.Name(game.status).removeprefix("GAME_STATUS_")
        return f"v{update.version} snapshot: {status}, ply {game.ply}, {game.fen}"
    event = update.event
    if event is None:
        return f"v{update.version} heartbeat"
    kind = update.event_kind
    if kind == "move_made":
        move = event.move_made.move
        side = "White" if move.color == pb.COLOR_WHITE else "Black"
        return f"v{update.version} {side} plays {move.san} ({move.uci})"
    if kind == "game_ended":
        result = event.game_ended.result
        return (
            f"v{update.version} game over: {pb.Outcome.Name(result.outcome).removeprefix('OUTCOME_')} "
            f"by {pb.Termination.Name(result.termination).removeprefix('TERMINATION_')} "
            f"({result.score.white_points}-{result.score.black_points})"
        )
    return f"v{update.version} {kind}"


def watch(target: str, game_id: str, seen: list[WatchUpdate], started: threading.Event) -> None:
    """The spectator: its own client, printing every update until the game ends."""
    with ArbiterClient(target) as spectator:
        with spectator.watch_game(game_id) as updates:
            for update in updates:
                seen.append(update)
                print(f"  [watcher] {describe(update)}", flush=True)
                started.set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default=os.environ.get("ARBITER_TARGET", "127.0.0.1:50051"))
    parser.add_argument("--admin-token", default=os.environ.get("ARBITER_ADMIN_TOKEN"))
    args = parser.parse_args()

    with ArbiterClient(args.target, admin_token=args.admin_token) as platform:
        created = platform.create_game(
            pb.Player(id="p-1", name="White, Walter"),
            pb.Player(id="p-2", name="Black, Bella"),
        )
        print(f"created game {created.game_id}", flush=True)

        seen: list[WatchUpdate] = []
        started = threading.Event()
        spectator = threading.Thread(
            target=watch, args=(args.target, created.game_id, seen, started), daemon=True
        )
        spectator.start()
        # Let the spectator receive its snapshot first, so the output reads in order.
        started.wait(timeout=10)

        board = chess.Board()
        tokens = {chess.WHITE: created.white_token, chess.BLACK: created.black_token}
        for san in SCHOLARS_MATE:
            move = board.parse_san(san)
            result = platform.make_move(created.game_id, tokens[board.turn], move, board.ply())
            board.push(move)
            if result.game.fen != board.fen():
                print(f"the arbiter's position {result.game.fen} is not {board.fen()}", file=sys.stderr)
                return 1
            print(f"played {san}", flush=True)

        spectator.join(timeout=30)
        if spectator.is_alive():
            print("the watcher did not see the game end", file=sys.stderr)
            return 1

    last = seen[-1] if seen else None
    mated = (
        last is not None
        and last.event_kind == "game_ended"
        and last.message.event.game_ended.result.termination == pb.TERMINATION_CHECKMATE
    )
    if not mated:
        print("the watcher did not see a checkmate", file=sys.stderr)
        return 1
    print(f"the watcher saw {len(seen)} updates, ending in checkmate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
