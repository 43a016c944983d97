/** The README's `$ karta ...` examples: their command lines and expected output, as the README tests read them. */

/** Commands whose examples read a cluster: test/cluster/cli-get.test.ts runs them against the test cluster. */
const CLUSTER_COMMANDS: ReadonlySet<string> = new Set(["get", "describe"]);

/** The examples that run without a cluster (every command but get and describe), or only those that need one. */
export function readmeExamples(readme: string, which: "offline" | "cluster"): Example[] {
  return examples(readme).filter((e) => CLUSTER_COMMANDS.has(words(e.command)[1]!) === (which === "cluster"));
}

export interface Example {
  command: string;
  expected: string[];
  /** The exit code the example shows (`$ karta ...  # exit 4`); without one, 0 or 1. */
  exitCode?: number;
}

export function examples(readme: string): Example[] {
  const out: Example[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let current: Example | undefined;
    for (const line of block[1]!.split("\n")) {
      if (line.startsWith("$ ")) {
        const code = /\s+# exit (\d+)$/.exec(line);
        current = { command: line.slice(2, code ? code.index : undefined), expected: [], ...(code ? { exitCode: Number(code[1]) } : {}) };
        if (line.startsWith("$ karta ")) out.push(current);
      } else if (current && line !== "") current.expected.push(line);
    }
  }
  return out;
}

/** Splits a command line as a POSIX shell would for these examples: single and double quotes, backslashes in double quotes. */
export function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " ") {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; line[j] !== '"'; j++) s += line[j] === "\\" && '"\\$`'.includes(line[j + 1]!) ? line[++j] : line[j];
      word = (word ?? "") + s;
      i = j;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The expected lines, with `...` matching any number of lines, appear in the output in order. */
export function matches(actual: string[], expected: string[]): boolean {
  const go = (a: number, e: number): boolean => {
    if (e === expected.length) return a === actual.length;
    if (expected[e] === "...") {
      for (let k = a; k <= actual.length; k++) if (go(k, e + 1)) return true;
      return false;
    }
    return a < actual.length && actual[a] === expected[e] && go(a + 1, e + 1);
  };
  return go(0, 0);
}
