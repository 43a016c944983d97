/**
 * The recorded operator runs of ../shared/conformance/recorded (README there: format, origin, comparison
 * rule), read where they are (never copied), and each recorded state run through `karta inspect -o json`
 * as a script reads it: the statuses it prints, compared as upstream's replay test compares them (the
 * recorded state must be among the statuses matched).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { runInspect } from "../../src/cli/inspect.js";
import { memoryIO } from "../../src/cli/io.js";
import { loadDefinitions } from "../../src/definition/index.js";

/** One recorded state: the object as the operator left it, and the state upstream's recorder judged. */
export interface RecordedState {
  index: number;
  expected: string;
  object: Record<string, unknown>;
}

/** One recorded flow of one kind (a scenario file). */
export interface Recording {
  file: string;
  id: string;
  kind: string;
  apiVersion: string;
  operator: string;
  operatorVersion: string;
  scenario: string;
  /** Upstream's definition for the kind, an absolute path. */
  upstreamDefinition: string;
  states: RecordedState[];
}

export function readRecordings(dir: string): Recording[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const raw = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as Omit<Recording, "file" | "upstreamDefinition"> & { upstreamDefinition: { file: string } };
      return { ...raw, file: f, upstreamDefinition: path.join(dir, raw.upstreamDefinition.file) };
    });
}

/** What `karta inspect` printed and returned for one object. */
export interface InspectRun {
  code: number;
  out: string;
  err: string;
  /** The statuses of the printed `-o json`, when something was printed. */
  statuses?: string[];
}

/** `karta inspect -f - -o json [-d definition]` on the object, in this process (the command's own entry point). */
export async function inspectStatuses(object: unknown, definition?: string): Promise<InspectRun> {
  const io = memoryIO(JSON.stringify(object));
  const args = ["-f", "-", "-o", "json", ...(definition ? ["-d", definition] : [])];
  const code = await runInspect(args, io);
  const run: InspectRun = { code, out: io.out, err: io.err };
  if (io.out !== "") run.statuses = (JSON.parse(io.out) as { status: { statuses: string[] } }).status.statuses;
  return run;
}

/** How one recorded state came out. */
export type Verdict =
  /** The recorded state is among the statuses printed. */
  | "agree"
  | "disagree"
  /** The recording makes no claim: upstream's recorder matched none of its states (README). */
  | "undefined-recorded"
  /** The definition makes no claim: it matched no status (counted apart for upstream's definitions only). */
  | "undefined-matched"
  /** Upstream's definition uses a status its published CRD does not list: Karta refuses it. */
  | "unpublished-status";

export interface Tally {
  agree: number;
  disagree: number;
  apart: Record<Exclude<Verdict, "agree" | "disagree">, number>;
  /** States where more than one status was printed. */
  several: number;
  misses: string[];
}

export function emptyTally(): Tally {
  return { agree: 0, disagree: 0, apart: { "undefined-recorded": 0, "undefined-matched": 0, "unpublished-status": 0 }, several: 0, misses: [] };
}

/** The status names the definition uses that its published CRD does not list (code unknown-status). */
export function unpublishedStatuses(file: string): string[] {
  const loaded = loadDefinitions(readFileSync(file, "utf8"), file);
  return loaded.diagnostics.filter((d) => d.code === "unknown-status").map((d) => d.path.split(".").at(-1)!);
}

/**
 * Judges one state. `upstream` marks a run of upstream's own definition, whose "matched nothing" is
 * counted apart as the recorder's is (neither side makes a claim); for the bundled definitions it is a
 * disagreement, as is a kind they do not cover.
 */
export function judge(expected: string, run: InspectRun, options: { upstream: boolean; unpublished: boolean }): Verdict {
  if (expected === "Undefined") return "undefined-recorded";
  if (options.unpublished) return "unpublished-status";
  const statuses = run.statuses ?? [];
  if (statuses.includes(expected)) return "agree";
  if (options.upstream && statuses.length === 1 && statuses[0] === "Undefined") return "undefined-matched";
  return "disagree";
}

export function add(t: Tally, verdict: Verdict, run: InspectRun, where: string, expected: string): void {
  if (verdict === "agree") t.agree++;
  else if (verdict === "disagree") {
    t.disagree++;
    const got = run.statuses ? run.statuses.join(",") : `exit ${run.code}: ${run.err.trim().split("\n").at(-1) ?? ""}`;
    t.misses.push(`${where}: recorded ${expected}, printed ${got}`);
  } else t.apart[verdict]++;
  if ((run.statuses?.length ?? 0) > 1) t.several++;
}

export function percent(n: number, of: number): string {
  return of === 0 ? "-" : `${((100 * n) / of).toFixed(1)}%`;
}

/** The per-kind table printed with the results. */
export function table(rows: [string, Tally][]): string[] {
  const head = ["kind", "agree", "scored", "%", "apart (recorded Undefined / matched nothing / unpublished status)", "several"];
  const body = rows.map(([k, t]) => [k, String(t.agree), String(t.agree + t.disagree), percent(t.agree, t.agree + t.disagree), `${t.apart["undefined-recorded"]} / ${t.apart["undefined-matched"]} / ${t.apart["unpublished-status"]}`, String(t.several)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  return [head, ...body].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
}
