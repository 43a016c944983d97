/** The error of a server that cannot start (its own module, so that the library entry loads without the server). */

/** Thrown by startServer for a configuration or certificate that cannot be served (the caller exits 1); `details` lists each problem. */
export class ServeError extends Error {
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
    this.name = "ServeError";
  }
}
