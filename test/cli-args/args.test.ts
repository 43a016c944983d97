/** The argument reader shared by `karta inspect`, `compile` and `interpret`. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { commandLine } from "../../src/cli/args.js";

/** Reads the arguments as a command would: flags taking a value (and `--patch` a second operand). */
function read(args: string[]): (string | undefined)[][] {
  const out: (string | undefined)[][] = [];
  for (const arg of commandLine(args)) {
    if (arg.flag === "--pods" || arg.flag === "-o" || arg.flag === "--output") out.push([arg.flag, arg.value()]);
    else if (arg.flag === "--patch") out.push([arg.flag, arg.value(), arg.operand()]);
    else out.push([arg.text]);
  }
  return out;
}

describe("commandLine", () => {
  test("a long flag's value inline or as the next argument", () => {
    assert.deepEqual(read(["--pods=pods.yaml", "--pods", "more/", "--output=json"]), [
      ["--pods", "pods.yaml"],
      ["--pods", "more/"],
      ["--output", "json"],
    ]);
  });

  test("an inline value keeps its own '=' and may be empty", () => {
    assert.deepEqual(read(["--patch=set-label", "training.kubeflow.org/job-role=master", "--pods="]), [
      ["--patch", "set-label", "training.kubeflow.org/job-role=master"],
      ["--pods", ""],
    ]);
  });

  test("short flags take no inline value; a value that looks like a flag is still the value", () => {
    assert.deepEqual(read(["-o=json", "-o", "--help"]), [["-o=json"], ["-o", "--help"]]);
  });

  test("a missing value or operand is undefined, and ends the arguments", () => {
    assert.deepEqual(read(["--help", "--pods"]), [["--help"], ["--pods", undefined]]);
    assert.deepEqual(read(["--patch", "set-scheduler"]), [["--patch", "set-scheduler", undefined]]);
  });
});
