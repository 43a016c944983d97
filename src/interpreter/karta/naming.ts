/**
 * Names of the components the Karta layer reports to Karmada. A Karmada Component name is required,
 * at most 32 characters and unique within the workload; a Karta names components freely and names the
 * instances of a multi-instance component by their ids. The rule, in order:
 *
 *   1. a single-instance component is named after the Karta component (`master`, `ray-head`);
 *   2. an instance of a multi-instance component is named after its instance id (`small-group`);
 *      an instance without an id (the id path yields null or "") is `<component>-<position>`,
 *      1-based (`worker-2`), as Karmada's bundled Ray script names unnamed worker groups;
 *   3. a name already taken becomes `<component>-<name>`, then `<name>-2`, `<name>-3`...;
 *   4. a name over 32 characters keeps its first 23 and ends in `-` and 8 hex digits of a hash of
 *      the whole name, so that long ids stay distinct and stable.
 */

/** Karmada's limit on a Component name (work/v1alpha2). */
export const MAX_COMPONENT_NAME = 32;

/** 32-bit FNV-1a of a string's UTF-16 code units, as 8 hex digits. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** A name shortened to Karmada's limit (rule 4). */
export function fitComponentName(name: string): string {
  if (name.length <= MAX_COMPONENT_NAME) return name;
  return `${name.slice(0, MAX_COMPONENT_NAME - 9)}-${fnv1a(name)}`;
}

/** What a reported component stands for: a Karta component, and the instance id when it has instances. */
export interface ComponentSlot {
  component: string;
  /** The instance id, for an instance of a multi-instance component. */
  instance?: string;
}

/** The names of the slots, in order, following the rule above. */
export function componentNames(slots: readonly ComponentSlot[]): string[] {
  const taken = new Set<string>();
  return slots.map((slot) => {
    const base = slot.instance ?? slot.component;
    let name = fitComponentName(base);
    if (taken.has(name) && slot.instance !== undefined) name = fitComponentName(`${slot.component}-${base}`);
    for (let n = 2; taken.has(name); n++) name = fitComponentName(`${base}-${n}`);
    taken.add(name);
    return name;
  });
}

/** The instance id of an instance without one (rule 2). */
export function positionalInstanceId(component: string, position: number): string {
  return `${component}-${position}`;
}
