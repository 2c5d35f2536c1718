"""Generated from proto/chessarbiter/v1/arbiter.proto by tools/generate_stubs.py."""
