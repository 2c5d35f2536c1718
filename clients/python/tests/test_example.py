"""examples/play_to_mate.py plays to mate against the test server and exits 0."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from arbiter_server import ArbiterServer

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "play_to_mate.py"


def test_play_to_mate_example(server: ArbiterServer, tmp_path: pathlib.Path) -> None:
    env = dict(os.environ, ARBITER_TARGET=server.target, ARBITER_ADMIN_TOKEN=server.admin_token)
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "[watcher] v1 snapshot" in out
    assert "[watcher] v8 White plays Qxf7# (h5f7)" in out
    assert "[watcher] v9 game over: WHITE_WINS by CHECKMATE (1-0)" in out
    assert out.rstrip().endswith("ending in checkmate")
