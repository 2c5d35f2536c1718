"""Generates the chessarbiter.v1 stubs inside the package, or checks them.

grpcio-tools writes `chessarbiter/v1/arbiter_pb2.py` (messages),
`arbiter_pb2.pyi` (their typing) and `arbiter_pb2_grpc.py` (the services).
The gRPC module imports the messages absolutely (`from chessarbiter.v1 import
arbiter_pb2`), which only works with the generated tree at the top of
sys.path. Here that import is rewritten to a relative one, so the stubs live
at `chessarbiter_client/_proto/chessarbiter/v1/` and import from there,
without adding a top-level `chessarbiter` package to anyone's path. The
descriptors keep their file name, `chessarbiter/v1/arbiter.proto`.

    python tools/generate_stubs.py --write   # regenerate the committed copy
    python tools/generate_stubs.py --check   # fail when it is stale

Run it with the interpreter that has the pinned grpcio-tools (see
scripts/check-python-client).
"""

from __future__ import annotations

import argparse
import difflib
import pathlib
import sys
import tempfile

from grpc_tools import protoc

HERE = pathlib.Path(__file__).resolve().parent
CLIENT = HERE.parent
REPO = CLIENT.parent.parent
PROTO_ROOT = REPO / "proto"
PROTO = "chessarbiter/v1/arbiter.proto"
TARGET = CLIENT / "src" / "chessarbiter_client" / "_proto"
GENERATED = (
    "chessarbiter/v1/arbiter_pb2.py",
    "chessarbiter/v1/arbiter_pb2.pyi",
    "chessarbiter/v1/arbiter_pb2_grpc.py",
)
ABSOLUTE_IMPORT = "from chessarbiter.v1 import arbiter_pb2 as "
RELATIVE_IMPORT = "from . import arbiter_pb2 as "


def generate(out: pathlib.Path) -> dict[str, str]:
    """Runs protoc into `out` and returns the files' fixed-up texts by path."""
    well_known = pathlib.Path(protoc.__file__).resolve().parent / "_proto"
    status = protoc.main(
        [
            "grpc_tools.protoc",
            f"--proto_path={PROTO_ROOT}",
            f"--proto_path={well_known}",
            f"--python_out={out}",
            f"--pyi_out={out}",
            f"--grpc_python_out={out}",
            str(PROTO_ROOT / PROTO),
        ]
    )
    if status != 0:
        raise SystemExit(f"generate_stubs: protoc failed with status {status}")
    texts: dict[str, str] = {}
    for name in GENERATED:
        text = (out / name).read_text(encoding="utf-8")
        if name.endswith("_grpc.py"):
            if ABSOLUTE_IMPORT not in text:
                raise SystemExit(
                    f"generate_stubs: {name} no longer imports its messages as "
                    f"{ABSOLUTE_IMPORT!r}; update the rewrite in {pathlib.Path(__file__).name}"
                )
            text = text.replace(ABSOLUTE_IMPORT, RELATIVE_IMPORT)
        if "from chessarbiter" in text:
            raise SystemExit(f"generate_stubs: {name} still imports the top-level chessarbiter package")
        texts[name] = text
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the committed stubs")
    mode.add_argument("--check", action="store_true", help="fail when the committed stubs are stale")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(pathlib.Path(tmp))

    if args.write:
        for name, text in fresh.items():
            path = TARGET / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        print(f"generate_stubs: wrote {len(fresh)} files under {TARGET.relative_to(REPO)}")
        return 0

    stale = []
    for name, text in fresh.items():
        path = TARGET / name
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if current != text:
            stale.append(name)
            diff = difflib.unified_diff(
                current.splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile=f"committed/{name}",
                tofile=f"generated/{name}",
                n=1,
            )
            sys.stderr.writelines(list(diff)[:40])
    if stale:
        print(
            "generate_stubs: the committed stubs are stale (" + ", ".join(stale) + "); run "
            "clients/python/.venv/bin/python clients/python/tools/generate_stubs.py --write "
            "and commit the result",
            file=sys.stderr,
        )
        return 1
    print(f"generate_stubs: {len(fresh)} committed stubs match {PROTO}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
