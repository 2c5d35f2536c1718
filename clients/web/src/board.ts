/**
 * A board that shows a position: lichess's chessground, view-only, with the
 * last move and a king in check highlighted. Pieces and board are the
 * style sheet's (data URIs bundled into pages.css): no network, no font.
 */

import { Chessground } from "@lichess-org/chessground";
import type { Api } from "@lichess-org/chessground/api";
import type { Key } from "@lichess-org/chessground/types";

export interface Position {
  fen: string;
  /** The last move in UCI ("e2e4", "e7e8q"); empty before the first. */
  lastUci: string;
  whiteToMove: boolean;
  inCheck: boolean;
}

const SQUARE = /^[a-h][1-8]$/;

function squares(uci: string): Key[] | undefined {
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  return SQUARE.test(from) && SQUARE.test(to) ? [from as Key, to as Key] : undefined;
}

export class Board {
  private readonly api: Api;

  constructor(element: HTMLElement, options: { coordinates: boolean }) {
    this.api = Chessground(element, {
      viewOnly: true,
      coordinates: options.coordinates,
      animation: { enabled: true, duration: 150 },
      drawable: { enabled: false, visible: false },
      highlight: { lastMove: true, check: true },
    });
  }

  /** Unbinds the board's listeners (before its element is reused). */
  destroy(): void {
    this.api.destroy();
  }

  show(position: Position): void {
    const color = position.whiteToMove ? "white" : "black";
    this.api.set({
      fen: position.fen.split(" ")[0] ?? "",
      turnColor: color,
      lastMove: squares(position.lastUci) ?? [],
      check: position.inCheck ? color : false,
    });
  }
}
