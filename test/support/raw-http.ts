/**
 * An HTTP/1.1 request written byte for byte on a socket (plain or TLS), for what a client library would
 * not send: request targets no URL parser reads, a body sent in pieces.
 */
import type net from "node:net";

/**
 * Writes `GET TARGET` with `Connection: close` on `socket` (a socket being opened: `net.connect`,
 * `tls.connect`) and resolves with everything the server answered.
 */
export function rawGet(socket: net.Socket, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString()));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  });
}
