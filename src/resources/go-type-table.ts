/** How Go's encoding/json sees the Go types Karmada decodes into: the shape of the table in go-types.ts. */

/** How encoding/json sees one Go type. */
export type GoType =
  | { kind: "struct"; fields: GoField[] }
  | { kind: "pointer" | "slice" | "map"; elem: string }
  | { kind: "string" | "bool" | "int32" | "int64" | "quantity" | "intOrString" | "time" | "raw" };

/**
 * A struct field: JSON name, Go type, the tag's options ("omitempty", "omitzero", both comma-separated,
 * or ""), and the Go names of the embedded structs it is promoted from.
 */
export type GoField = [name: string, type: string, options: string, via?: string];

/**
 * Go types by the name reflect prints (`v1.Container`). Pointers, slices, string-keyed maps and the basic
 * types need no entry: `*T`, `[]T`, `map[string]T`, string, bool, int32 and int64 say what they are.
 */
export type GoTypeTable = Readonly<Record<string, GoType>>;
