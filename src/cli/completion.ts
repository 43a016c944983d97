/**
 * `karta completion bash|zsh|fish`: a shell completion script for the commands and their flags (flag
 * values from their choices, files elsewhere), generated from the same flag tables the commands parse with.
 */
import { parseCommand, usageError, type Flags } from "./args.js";
import type { CliIO } from "./io.js";

export const COMPLETION_HELP = `Usage: karta completion bash|zsh|fish

Prints a script that completes karta's commands, flags and flag values in the shell.

Example:
  source <(karta completion bash)                  # bash, now; add it to ~/.bashrc to keep it
  karta completion zsh > "\${fpath[1]}/_karta"       # zsh (then start a new shell)
  karta completion fish > ~/.config/fish/completions/karta.fish
`;

/** Each command's flags, --help included. */
async function flagTables(commands: readonly CommandSummary[]): Promise<Map<string, Flags>> {
  const out = new Map<string, Flags>();
  for (const c of commands) out.set(c.name, { ...(await c.flags()), help: { type: "boolean", short: "h" } });
  return out;
}

/** What the script completes of each command (the command table is passed in: it also runs this one). */
export interface CommandSummary {
  name: string;
  summary: string;
  flags(): Promise<Flags>;
}

/** Positional words a command takes (subcommands and shells), completed like flag choices. */
const WORDS: Record<string, string[]> = { completion: ["bash", "zsh", "fish"], definitions: ["list", "show"] };

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(commands: readonly CommandSummary[], tables: Map<string, Flags>): string {
  const lines = [
    "# bash completion for karta (karta completion bash)",
    "_karta() {",
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="${COMP_WORDS[1]}"',
    "  COMPREPLY=()",
    "  if [ \"$COMP_CWORD\" -eq 1 ]; then",
    `    COMPREPLY=( $(compgen -W ${quote(commands.map((c) => c.name).join(" "))} -- "$cur") )`,
    "    return 0",
    "  fi",
    '  case "$cmd:$prev" in',
  ];
  for (const [cmd, flags] of tables) {
    for (const [name, spec] of Object.entries(flags)) {
      if (spec.type === "boolean") continue;
      const forms = [`${cmd}:--${name}`, ...(spec.short ? [`${cmd}:-${spec.short}`] : [])].join("|");
      // A choice that ends in `=` takes text after it (`-o jsonpath=...`): no space after completing it.
      const nospace = spec.type === "string" && spec.choices?.some((c) => c.endsWith("=")) ? '; [[ "${COMPREPLY[0]}" == *= ]] && compopt -o nospace +o filenames 2>/dev/null' : "";
      const action = spec.type === "string" && spec.choices ? `COMPREPLY=( $(compgen -W ${quote(spec.choices.join(" "))} -- "$cur") )${nospace}` : spec.type === "integer" ? "COMPREPLY=()" : 'COMPREPLY=( $(compgen -f -- "$cur") )';
      lines.push(`    ${forms}) ${action}; return 0 ;;`);
    }
  }
  lines.push("  esac", '  case "$cmd" in');
  for (const [cmd, flags] of tables) {
    const names = Object.entries(flags).flatMap(([n, s]) => [`--${n}`, ...(s.short ? [`-${s.short}`] : [])]);
    const words = WORDS[cmd];
    lines.push(`    ${cmd})`);
    lines.push(`      if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W ${quote(names.join(" "))} -- "$cur") ); return 0; fi`);
    if (words) lines.push(`      if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=( $(compgen -W ${quote(words.join(" "))} -- "$cur") ); return 0; fi`);
    lines.push("      ;;");
  }
  lines.push("  esac", '  COMPREPLY=( $(compgen -f -- "$cur") )', "}", "complete -o filenames -o bashdefault -F _karta karta", "");
  return lines.join("\n");
}

/**
 * A zsh action completing a flag's choices: a plain list, or, with choices that take text after them
 * (`jsonpath=`), compadd without the space after those, so that the template follows in the same word.
 */
function zshChoices(choices: readonly string[]): string {
  const prefixed = choices.filter((c) => c.endsWith("="));
  if (prefixed.length === 0) return `(${choices.join(" ")})`;
  const plain = choices.filter((c) => !c.endsWith("="));
  return `{compadd -- ${plain.join(" ")}; compadd -S "" -- ${prefixed.join(" ")}}`;
}

function zsh(commands: readonly CommandSummary[], tables: Map<string, Flags>): string {
  const esc = (s: string): string => s.replace(/[[\]:'\\]/g, (c) => `\\${c}`);
  const lines = [
    "#compdef karta",
    "# zsh completion for karta (karta completion zsh)",
    "_karta() {",
    "  local -a commands",
    `  commands=(${commands.map((c) => quote(`${c.name}:${esc(c.summary)}`)).join(" ")})`,
    "  if (( CURRENT == 2 )); then",
    "    _describe -t commands 'karta command' commands",
    "    return",
    "  fi",
    "  local cmd=$words[2]",
    "  shift words",
    "  (( CURRENT-- ))",
    "  case $cmd in",
  ];
  for (const [cmd, flags] of tables) {
    const specs: string[] = [];
    for (const [name, spec] of Object.entries(flags)) {
      const forms = spec.short ? `{-${spec.short},--${name}}` : `--${name}`;
      const exclusive = spec.short && !spec.multiple ? `'(-${spec.short} --${name})'` : "";
      const repeat = spec.multiple ? "'*'" : "";
      const arg = spec.type === "boolean" ? "" : spec.type === "string" && spec.choices ? `:${name}:${zshChoices(spec.choices)}` : spec.type === "integer" ? `:${name}: ` : `:${name}:_files`;
      specs.push(`${exclusive}${repeat}${forms}'${arg}'`);
    }
    const words = WORDS[cmd];
    specs.push(words ? `'1:${cmd}:(${words.join(" ")})' '*:file:_files'` : "'*:file:_files'");
    lines.push(`    ${cmd}) _arguments -s ${specs.join(" ")} ;;`);
  }
  lines.push("    *) _files ;;", "  esac", "}", "", 'if [ "$funcstack[1]" = "_karta" ]; then _karta "$@"; else compdef _karta karta; fi', "");
  return lines.join("\n");
}

function fish(commands: readonly CommandSummary[], tables: Map<string, Flags>): string {
  const lines = ["# fish completion for karta (karta completion fish)", "complete -c karta -f"];
  for (const c of commands) lines.push(`complete -c karta -n __fish_use_subcommand -a ${c.name} -d ${quote(c.summary)}`);
  for (const [cmd, flags] of tables) {
    const when = `-n ${quote(`__fish_seen_subcommand_from ${cmd}`)}`;
    for (const [name, spec] of Object.entries(flags)) {
      const parts = [`complete -c karta ${when}`, spec.short ? `-s ${spec.short}` : "", `-l ${name}`];
      if (spec.type === "string" && spec.choices) parts.push(`-x -a ${quote(spec.choices.join(" "))}`);
      else if (spec.type === "integer") parts.push("-x");
      else if (spec.type === "string") parts.push("-r -F");
      lines.push(parts.filter((p) => p !== "").join(" "));
    }
    const words = WORDS[cmd];
    if (words) lines.push(`complete -c karta ${when} -a ${quote(words.join(" "))}`);
    else lines.push(`complete -c karta ${when} -F`);
  }
  return lines.join("\n") + "\n";
}

/** Runs `karta completion`. */
export async function runCompletion(args: string[], io: CliIO, commands: readonly CommandSummary[]): Promise<number> {
  const p = parseCommand(io, "completion", args, {}, COMPLETION_HELP, { positionals: true });
  if (typeof p === "number") return p;
  const [shell, ...rest] = p.positionals;
  if (shell === undefined) return usageError(io, "completion", "say which shell: bash, zsh or fish");
  if (rest.length > 0) return usageError(io, "completion", `unexpected argument '${rest[0]}'`);
  if (shell !== "bash" && shell !== "zsh" && shell !== "fish") return usageError(io, "completion", `invalid shell '${shell}': expected bash, zsh or fish`);
  const tables = await flagTables(commands);
  io.stdout(shell === "bash" ? bash(commands, tables) : shell === "zsh" ? zsh(commands, tables) : fish(commands, tables));
  return 0;
}
