"""Named credentials through the client: an arbiter of one event intervenes in its games under
its own name, is refused everywhere else, and every act shows in the event's audit log."""

from __future__ import annotations

import pytest

from chessarbiter_client import ArbiterClient, ArbiterError, pb

from arbiter_server import ArbiterServer

TEN_MINUTES = pb.TimeControl(periods=[pb.TimeControlPeriod(time_millis=600_000)])


def game_in(client: ArbiterClient, event: str) -> str:
    created = client.create_game(
        "White", "Black", pairing=pb.Pairing(event_id=event, round=1, board=1), time_control=TEN_MINUTES
    )
    return created.game.game_id


def test_an_arbiter_of_one_event_cannot_touch_another(client: ArbiterClient, server: ArbiterServer) -> None:
    in_a, in_b = game_in(client, "python-cup-a"), game_in(client, "python-cup-b")
    created = client.admin.CreateCredential(
        pb.CreateCredentialRequest(name="Anna, chief arbiter", role=pb.ROLE_ARBITER, event_id="python-cup-a"),
        metadata=(("authorization", f"Bearer {server.admin_token}"),),
    )
    with ArbiterClient(server.target, admin_token=created.token) as anna:
        paused = anna.pause_clock(in_a, reason="arbiter call", request_id="python-pause")
        assert [e.clock_paused.by for e in paused.events if e.HasField("clock_paused")] == ["Anna, chief arbiter"]
        with pytest.raises(ArbiterError) as refused:
            anna.pause_clock(in_b, reason="not mine")
        assert refused.value.code.name == "PERMISSION_DENIED"
        assert refused.value.reason == "OUT_OF_SCOPE"
        assert client.get_game(in_b).clock.paused is False
        log = anna.admin.ListAuditEntries(
            pb.ListAuditEntriesRequest(event_id="python-cup-a"),
            metadata=(("authorization", f"Bearer {created.token}"),),
        )
        assert [(e.kind, e.principal, e.request_id) for e in log.entries][-1] == (
            pb.AUDIT_KIND_CLOCK_PAUSED,
            "Anna, chief arbiter",
            "python-pause",
        )
        with pytest.raises(ArbiterError) as out_of_scope:
            anna.set_game_result(in_b, reason="not mine", outcome=pb.OUTCOME_DRAW)
        assert out_of_scope.value.reason == "OUT_OF_SCOPE"
