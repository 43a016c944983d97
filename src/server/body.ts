/**
 * Refusing a request body over a server's limit so that the client reads the refusal: a server that
 * answers and closes while the client is still sending resets the connection on the unread bytes, and
 * the client sees the reset instead of the 413 (Go's net/http reads on past its handler for the same
 * reason). Shared by `karta serve` and the controller's admission webhook.
 */
import type http from "node:http";

/** How much of a body over the limit is read and dropped before the answer, in multiples of the limit. */
export const DISCARDED_BODY_FACTOR = 4;

/**
 * Answers a body over `limit` (`read` bytes of it read so far, `declared` its Content-Length or NaN)
 * once the rest has arrived, read and dropped, and closes the connection after the answer; past
 * {@link DISCARDED_BODY_FACTOR} times the limit, it answers at once and closes. `answer` writes the
 * response (a 413); the connection is marked to close before it is called.
 */
export function refuseOversizedBody(req: http.IncomingMessage, res: http.ServerResponse, size: { read: number; declared: number; limit: number }, answer: () => void): void {
  const most = DISCARDED_BODY_FACTOR * size.limit;
  let dropped = size.read;
  let answered = false;
  const respond = (close: boolean): void => {
    if (answered) return;
    answered = true;
    if (!res.headersSent) res.setHeader("Connection", "close");
    answer();
    if (close) res.on("finish", () => req.destroy());
  };
  if (size.declared > most) return respond(true);
  req.on("data", (c: Buffer) => {
    dropped += c.length;
    if (dropped > most) respond(true);
  });
  req.on("end", () => respond(false));
  req.resume();
}
