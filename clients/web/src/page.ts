/**
 * What every page shares: its elements, where the API is (this page's own
 * origin, or the server named by `?server=`), the connection line, and
 * what a failed call says.
 */

import { Code, ConnectError } from "@connectrpc/connect";

export const $ = (id: string): HTMLElement => {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`no #${id} in the page`);
  return element;
};

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className = "", text = ""): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  if (className !== "") made.className = className;
  if (text !== "") made.textContent = text;
  return made;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits before reconnecting: 0.25 s, doubling up to 5 s. */
export function backoff(attempt: number): Promise<void> {
  return sleep(Math.min(5000, 250 * 2 ** Math.min(attempt, 5)));
}


export const params = new URLSearchParams(location.search);
/** The server named with ?server=, or this page's own origin. */
export const server = (params.get("server") ?? "").trim() || location.origin;
/** Whether `base` is another origin than this page's. */
function crossOrigin(base: string): boolean {
  try {
    return new URL(base).origin !== location.origin;
  } catch {
    return true;
  }
}

/** A link to another view of the same server. */
export function viewLink(key: "game" | "event", id: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  if (params.get("server")) query.set("server", server);
  query.set(key, id);
  for (const [k, v] of Object.entries(extra)) query.set(k, v);
  return `?${query.toString()}`;
}

export function setConnection(text: string, state: "ok" | "waiting" | "error"): void {
  const line = $("connection");
  // Written only when it changes: the line is a live region.
  if (line.textContent !== text) line.textContent = text;
  if (line.dataset["state"] !== state) line.dataset["state"] = state;
}

/**
 * What the page says when a call failed. A request the browser could not
 * make at all (no gRPC status: Unknown) is a server that is not running or
 * cannot be reached, or, for a page hosted elsewhere, one that does not
 * allow this page's origin.
 */
export function failure(error: ConnectError, base = server): string {
  if (error.code === Code.Unknown || error.code === Code.Unavailable) {
    if (crossOrigin(base)) {
      return `Cannot reach the server at ${base}: it is not running, or it does not allow this page's origin (start it with --cors-allowed-origins ${location.origin}). Retrying…`;
    }
    return "Cannot reach the server: it is not running or the network is down. Retrying…";
  }
  if (error.code === Code.DeadlineExceeded) return "The server did not answer in time. Retrying…";
  if (error.code === Code.ResourceExhausted) return `The server is busy (${error.rawMessage}). Retrying…`;
  return `The connection failed (${Code[error.code]}: ${error.rawMessage}). Retrying…`;
}

/** Errors that no retry can mend: the page says so and stops. */
/** Sets an element's text only when it changes (live regions are announced on every write). */
export function setText(target: HTMLElement, text: string): void {
  if (target.textContent !== text) target.textContent = text;
}

export function final(error: ConnectError): boolean {
  return error.code === Code.NotFound || error.code === Code.InvalidArgument || error.code === Code.PermissionDenied || error.code === Code.Unauthenticated;
}
