// Checks the chessarbiter.v1 contract from a TypeScript client's side: the
// code protoc-gen-es generates compiles under strict settings, lives next to
// chess.js in one program, keeps every clock, version and ply a plain JS
// number (never a bigint), and survives binary and JSON round trips.
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  ScalarType,
  create,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescField,
  type DescMessage,
} from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Chess } from "chess.js";

import {
  AdminService,
  ArbiterService,
  ClockStateSchema,
  Color,
  GameSchema,
  GameStatus,
  MakeMoveRequestSchema,
  WatchGameResponseSchema,
  file_chessarbiter_v1_arbiter,
} from "../gen/chessarbiter/v1/arbiter_pb.js";

// The only message allowed to carry 64-bit integers: its `seconds` is an
// int64 (a bigint in protobuf-es) and cannot be changed.
const ALLOWED_64_BIT_MESSAGES = new Set(["google.protobuf.Timestamp"]);

const SCALARS_64_BIT = new Set<ScalarType>([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

// Fields the contract promises to keep 32-bit, by name or by message.
const NAMES_KEPT_32_BIT = new Set(["version", "ply", "round", "board", "page_size"]);
const MESSAGES_KEPT_32_BIT = new Set([
  "chessarbiter.v1.ClockState",
  "chessarbiter.v1.TimeControlPeriod",
  "chessarbiter.v1.Timing",
]);

function promisedNot64Bit(message: DescMessage, field: DescField): boolean {
  return (
    field.name.endsWith("_millis") ||
    NAMES_KEPT_32_BIT.has(field.name) ||
    MESSAGES_KEPT_32_BIT.has(message.typeName)
  );
}

/** The scalar types a field holds: its own, a list's items, a map's key and values. */
function scalarsOf(field: DescField): ScalarType[] {
  switch (field.fieldKind) {
    case "scalar":
      return [field.scalar];
    case "list":
      return field.listKind === "scalar" ? [field.scalar] : [];
    case "map":
      return field.mapKind === "scalar" ? [field.mapKey, field.scalar] : [field.mapKey];
    case "enum":
    case "message":
      return [];
  }
}

/** The message a field refers to, if any, to walk into. */
function messageOf(field: DescField): DescMessage | undefined {
  switch (field.fieldKind) {
    case "message":
      return field.message;
    case "list":
      return field.listKind === "message" ? field.message : undefined;
    case "map":
      return field.mapKind === "message" ? field.message : undefined;
    case "scalar":
    case "enum":
      return undefined;
  }
}

/**
 * Every message of the file, nested ones included, and every message they or
 * the services reach in other files (well-known types), each once.
 */
function reachableMessages(): DescMessage[] {
  const seen = new Map<string, DescMessage>();
  const pending: DescMessage[] = [...file_chessarbiter_v1_arbiter.messages];
  for (const service of file_chessarbiter_v1_arbiter.services) {
    for (const method of service.methods) {
      pending.push(method.input, method.output);
    }
  }
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next.typeName)) continue;
    seen.set(next.typeName, next);
    pending.push(...next.nestedMessages);
    for (const field of next.fields) {
      const target = messageOf(field);
      if (target !== undefined) pending.push(target);
    }
  }
  return [...seen.values()];
}

function describe(message: DescMessage, field: DescField): string {
  const scalars = scalarsOf(field).map((s) => ScalarType[s]);
  return `${message.typeName}.${field.name} (${field.fieldKind} ${scalars.join(", ")})`;
}

test("no field of the contract is a 64-bit integer (a bigint in TypeScript)", () => {
  const messages = reachableMessages();
  assert.ok(
    messages.some((m) => m.typeName === "chessarbiter.v1.Game"),
    "the walk must reach the contract's messages",
  );

  const offenders: string[] = [];
  let promised = 0;
  for (const message of messages) {
    if (ALLOWED_64_BIT_MESSAGES.has(message.typeName)) continue;
    for (const field of message.fields) {
      if (promisedNot64Bit(message, field)) promised++;
      if (scalarsOf(field).some((s) => SCALARS_64_BIT.has(s))) {
        offenders.push(describe(message, field));
      }
    }
  }

  assert.ok(promised > 30, `expected the clock, version and ply fields to be found, found ${promised}`);
  assert.deepEqual(
    offenders,
    [],
    `64-bit integer fields (bigint in TypeScript, string in JSON) in the contract:\n  ${offenders.join("\n  ")}\n` +
      "Use int32 (e.g. *_millis) or google.protobuf.Timestamp instead.",
  );
});

test("a MakeMoveRequest carries a move chosen by chess.js", () => {
  const board = new Chess();
  for (const san of ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6"]) board.move(san);
  const ply = board.history().length;
  const mate = board.moves({ verbose: true }).find((m) => m.san === "Qxf7#");
  assert.ok(mate, "chess.js must find Scholar's mate");

  const request = create(MakeMoveRequestSchema, {
    gameId: "game-1",
    move: mate.lan,
    ply,
  });
  const decoded = fromBinary(MakeMoveRequestSchema, toBinary(MakeMoveRequestSchema, request));
  assert.equal(decoded.move, "h5f7");
  assert.equal(decoded.ply, 6);
  assert.equal(typeof decoded.ply, "number");

  // The server's answer, as chess.js would describe the position.
  board.move(mate.san);
  const game = create(GameSchema, {
    gameId: "game-1",
    version: 8,
    status: GameStatus.FINISHED,
    fen: board.fen(),
    sideToMove: board.turn() === "w" ? Color.WHITE : Color.BLACK,
    ply: board.history().length,
    inCheck: board.inCheck(),
    legalMoves: board.moves({ verbose: true }).map((m) => m.lan),
  });
  assert.equal(game.sideToMove, Color.BLACK);
  assert.equal(game.inCheck, true);
  assert.deepEqual(game.legalMoves, []);
  assert.ok(new Chess(game.fen).isCheckmate(), "the FEN round-trips through chess.js");
});

test("clock readings stay JS numbers through binary and JSON", () => {
  const clock = create(ClockStateSchema, {
    readTime: timestampFromMs(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
    whiteMillis: 5_400_000,
    blackMillis: -250, // a fallen flag reads negative
    running: Color.WHITE,
    delayLeftMillis: 2_000,
  });
  const game = create(GameSchema, { gameId: "game-1", version: 3, ply: 2, clock });

  const viaBinary = fromBinary(GameSchema, toBinary(GameSchema, game));
  const json = toJson(GameSchema, game);
  const viaJson = fromJson(GameSchema, JSON.parse(JSON.stringify(json)));

  for (const [how, decoded] of [
    ["binary", viaBinary],
    ["JSON", viaJson],
  ] as const) {
    assert.ok(decoded.clock, `${how}: clock present`);
    assert.equal(typeof decoded.clock.whiteMillis, "number", `${how}: whiteMillis`);
    assert.equal(decoded.clock.whiteMillis, 5_400_000, `${how}: whiteMillis`);
    assert.equal(decoded.clock.blackMillis, -250, `${how}: blackMillis`);
    assert.equal(decoded.clock.running, Color.WHITE, `${how}: running`);
    assert.equal(typeof decoded.version, "number", `${how}: version`);
    assert.equal(decoded.clock.readTime?.nanos, 678_000_000, `${how}: readTime`);
  }

  // JSON shows the clock as plain numbers (an int64 would be a string) and
  // the time as RFC 3339.
  assert.deepEqual(json, {
    gameId: "game-1",
    version: 3,
    ply: 2,
    clock: {
      readTime: "2026-01-02T03:04:05.678Z",
      whiteMillis: 5400000,
      blackMillis: -250,
      running: "COLOR_WHITE",
      delayLeftMillis: 2000,
    },
  });

  // `optional` fields: absent stays absent.
  const stopped = fromBinary(ClockStateSchema, toBinary(ClockStateSchema, create(ClockStateSchema)));
  assert.equal(stopped.running, undefined);
});

test("a watch message's oneof narrows by case", () => {
  const message = create(WatchGameResponseSchema, {
    kind: { case: "heartbeat", value: { version: 7 } },
  });
  const decoded = fromBinary(WatchGameResponseSchema, toBinary(WatchGameResponseSchema, message));
  assert.equal(decoded.kind.case, "heartbeat");
  if (decoded.kind.case === "heartbeat") {
    assert.equal(decoded.kind.value.version, 7);
  }
});

test("both services are generated with their methods", () => {
  assert.equal(ArbiterService.typeName, "chessarbiter.v1.ArbiterService");
  assert.equal(AdminService.typeName, "chessarbiter.v1.AdminService");
  assert.equal(ArbiterService.method.makeMove.input.typeName, "chessarbiter.v1.MakeMoveRequest");
  assert.equal(ArbiterService.method.watchGame.methodKind, "server_streaming");
  assert.equal(AdminService.method.createGame.output.typeName, "chessarbiter.v1.CreateGameResponse");
});
