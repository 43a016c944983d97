/**
 * Watching files and directories for changes, robust to the way Kubernetes updates a mounted
 * ConfigMap or Secret (a new timestamped directory, then an atomic rename of the `..data` symlink):
 * the directories are watched, not the files (a watch on a file follows the old inode), events are
 * debounced, and the caller re-reads everything and compares. Directories are re-listed after every
 * change, so new sub-directories are watched too (recursive fs.watch is not available on Linux in
 * every Node 20). A slow poll catches what the events miss (e.g. a file system without inotify).
 */
import { watch, statSync, readdirSync, type FSWatcher } from "node:fs";
import path from "node:path";

/** Options of a watcher. */
export interface WatchOptions {
  /** Quiet time before `onChange` runs, ms (default 200). */
  debounceMs?: number;
  /** Poll interval, ms (default 10 s; 0 disables). */
  pollMs?: number;
}

function directoriesOf(p: string, out: Set<string>, depth = 0): void {
  let isDir = false;
  try {
    isDir = statSync(p).isDirectory();
  } catch {
    // A path that does not exist yet: its parent tells when it appears.
    out.add(path.dirname(p));
    return;
  }
  if (!isDir) {
    out.add(path.dirname(p));
    return;
  }
  out.add(p);
  if (depth > 16) return;
  let names: string[] = [];
  try {
    names = readdirSync(p);
  } catch {
    return;
  }
  for (const n of names) {
    if (n.startsWith(".")) continue;
    const child = path.join(p, n);
    try {
      if (statSync(child).isDirectory()) directoriesOf(child, out, depth + 1);
    } catch {
      // Gone meanwhile.
    }
  }
}

/** Watches `paths`; `onChange` runs (debounced, never concurrently) after something under them changed. */
export class PathWatcher {
  private watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private closed = false;
  private readonly debounceMs: number;

  constructor(
    private readonly paths: readonly string[],
    private readonly onChange: () => Promise<void>,
    options: WatchOptions = {},
  ) {
    this.debounceMs = options.debounceMs ?? 200;
    this.rewatch();
    const pollMs = options.pollMs ?? 10_000;
    if (pollMs > 0) {
      this.poll = setInterval(() => this.trigger(), pollMs);
      this.poll.unref();
    }
  }

  private rewatch(): void {
    const dirs = new Set<string>();
    for (const p of this.paths) directoriesOf(path.resolve(p), dirs);
    for (const [d, w] of this.watchers) {
      if (!dirs.has(d)) {
        w.close();
        this.watchers.delete(d);
      }
    }
    for (const d of dirs) {
      if (this.watchers.has(d)) continue;
      try {
        const w = watch(d, { persistent: false }, () => this.trigger());
        w.on("error", () => {
          w.close();
          this.watchers.delete(d);
          this.trigger();
        });
        this.watchers.set(d, w);
      } catch {
        // Not watchable (gone, or no permission): the poll covers it.
      }
    }
  }

  /** Schedules a check. */
  trigger(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), this.debounceMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      this.rewatch();
      await this.onChange();
    } finally {
      this.running = false;
      if (this.again && !this.closed) {
        this.again = false;
        this.trigger();
      }
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.poll) clearInterval(this.poll);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}
