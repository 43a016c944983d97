/**
 * Requests Node's HTTP parser refuses before any handler sees them: malformed (400), headers too large
 * (431), chunk extensions too large (413), or not received whole within the server's requestTimeout
 * (408). They are answered as Node answers them when nothing listens (the status line, then the
 * connection closed) and passed to `counted`, so that a server's request metrics include them.
 */
import { STATUS_CODES, type Server as HttpServer } from "node:http";
import type { Server as HttpsServer } from "node:https";
import type { Duplex } from "node:stream";

const STATUS: Record<string, number> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

export function answerClientErrors(server: HttpServer | HttpsServer, counted: (status: number) => void): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A client gone (reset, or a TLS socket closed) is not a request: nothing to answer or count.
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = STATUS[err.code ?? ""] ?? 400;
    counted(status);
    // No answer over one the handler has begun to send: the peer would read a corrupt response.
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (!answering) socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
    socket.destroy();
  });
}
