/**
 * The types of jq values and path components: the bottom of the engine, which the runtime's shapes
 * and the value semantics (values.ts) both build on.
 */

/** A jq value: a JSON value (null, boolean, number, string, array, plain object), never mutated. */
export type JqValue = null | boolean | number | string | JqValue[] | { [key: string]: JqValue };
export type JqObject = { [key: string]: JqValue };
/** One step of a path: an object key, an array index, a slice (`{start, end}`) or null. */
export type PathComponent = string | number | JqObject | null;
