/**
 * The upstream Karta oracle (tools/karta-upstream, built by scripts/go-tool): every request as one JSON
 * line in, one answer line out, in one process per run. What each op answers: tools/karta-upstream/main.go.
 */
import path from "node:path";
import { askJsonLines, goTool } from "../support/go-tool.js";

export type UpstreamOp = "validate" | "components" | "status" | "pods" | "gang" | "canonical";

export interface UpstreamRequest {
  id: string;
  op: UpstreamOp;
  karta?: unknown;
  object?: unknown;
  pods?: readonly unknown[];
  /** canonical only: the core/v1 type to decode `value` into. */
  kind?: "PodTemplateSpec" | "PodSpec" | "ObjectMeta";
  value?: unknown;
}

export interface UpstreamAnswer {
  id: string;
  result?: any;
  panic?: string;
}

/** The oracle's binary, or the reason it is missing (printed by the caller as a notice). */
export function upstreamOracle(): { bin: string } | { skip: string } {
  const tool = goTool("karta-upstream");
  if ("skip" in tool) return tool;
  return { bin: path.join(tool.dir, "karta-upstream-oracle") };
}

/** Runs the requests through the oracle: answers by request id. */
export async function askUpstream(bin: string, requests: readonly UpstreamRequest[]): Promise<Map<string, UpstreamAnswer>> {
  return askJsonLines<UpstreamAnswer>(bin, requests);
}
