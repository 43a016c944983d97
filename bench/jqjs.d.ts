// The baseline package ships no types; only `compile` is used.
declare module "@michaelhomer/jqjs" {
  export function compile(program: string): (input: unknown) => Iterable<unknown>;
}
