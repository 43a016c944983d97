/**
 * Output shared by the commands: buffered writes, so that streaming many small outputs stays cheap.
 * kubectl's template formats, shared by the commands that print objects, are in output-templates.ts.
 */
import type { CliIO } from "./io.js";

/** Collects writes and hands them to the IO in large chunks. */
export class OutputBuffer {
  private parts: string[] = [];
  private size = 0;
  constructor(
    private readonly io: CliIO,
    private readonly chunk = 1 << 16,
  ) {}

  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= this.chunk) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    this.io.stdout(this.parts.join(""));
    this.parts = [];
    this.size = 0;
  }
}
