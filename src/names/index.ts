/**
 * Kubernetes name formats, for object names wherever Karta checks them (group names in interpretation,
 * the Workload API's objects), each returning the list of upstream detail messages (empty when the value
 * is valid). Lengths are Go's `len`: UTF-8 bytes.
 *
 * apimachinery words a too-long value in two ways, and each check here comes in both:
 * - the declarative validation's formats (`k8s-short-name` = DNS-1123 label, `k8s-long-name` = DNS-1123
 *   subdomain, `k8s-label-key`; package `k8s.io/apimachinery/pkg/api/validate/content`) say "bytes":
 *   {@link isDNS1123Label}, {@link isDNS1123Subdomain}, {@link isLabelKey};
 * - the handwritten validation (`k8s.io/apimachinery/pkg/util/validation`: object names in
 *   `metadata.name`, what the API server checks of the names Karta generates) says "characters" for
 *   DNS-1123 names: {@link handwritten}.
 */

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** Longest DNS-1123 label, in bytes. */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** Longest DNS-1123 subdomain (and object name), in bytes. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const LABEL_KEY_NAME_MAX_LENGTH = 63;

const labelRe = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const subdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const labelKeyNameRe = new RegExp(`^${LABEL_KEY_FMT}$`);

const encoder = new TextEncoder();

/** Go's `len` of a string: its UTF-8 bytes. */
export function byteLength(value: string): number {
  return encoder.encode(value).length;
}

/** The regex explanation with examples, including upstream's double space after each example comma. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) s += " or ";
    s += `'${ex}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

/** The name checks of one apimachinery package, which differ only in how a length is worded. */
export interface NameFormats {
  /** `must be no more than N bytes` (or `characters`). */
  maxLenError(n: number): string;
  /** DNS-1123 label: template names, claim names. */
  isDNS1123Label(value: string): string[];
  /** DNS-1123 subdomain: object names, priority class names, claim references. */
  isDNS1123Subdomain(value: string): string[];
  /** Label key: an optional DNS subdomain prefix and `/`, then a name part. */
  isLabelKey(value: string): string[];
}

function nameFormats(unit: "bytes" | "characters"): NameFormats {
  const maxLenError = (n: number) => `must be no more than ${n} ${unit}`;
  const isDNS1123Label = (value: string): string[] => {
    const errs: string[] = [];
    if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
    if (!labelRe.test(value)) {
      // A valid subdomain is not a label only because of its dots (the length was checked above).
      if (subdomainRe.test(value)) errs.push("must not contain dots");
      else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"));
    }
    return errs;
  };
  const isDNS1123Subdomain = (value: string): string[] => {
    const errs: string[] = [];
    if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
    if (!subdomainRe.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
    return errs;
  };
  const isLabelKey = (value: string): string[] => {
    const errs: string[] = [];
    const parts = value.split("/");
    let name: string;
    if (parts.length === 1) {
      name = parts[0]!;
    } else if (parts.length === 2) {
      const prefix = parts[0]!;
      name = parts[1]!;
      if (prefix.length === 0) errs.push("prefix part must be non-empty");
      else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
    } else {
      return [
        `a valid label key ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}` +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ];
    }
    if (name.length === 0) errs.push("name part must be non-empty");
    else if (byteLength(name) > LABEL_KEY_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(LABEL_KEY_NAME_MAX_LENGTH)}`);
    if (!labelKeyNameRe.test(name)) errs.push(`name part ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
    return errs;
  };
  return { maxLenError, isDNS1123Label, isDNS1123Subdomain, isLabelKey };
}

/** The declarative validation's formats (`validate/content`): lengths worded in bytes. */
export const declarative: NameFormats = nameFormats("bytes");
/**
 * The handwritten validation's checks (`util/validation`, object names): DNS-1123 lengths worded in
 * characters (its label-key check is the declarative one).
 */
export const handwritten: NameFormats = { ...nameFormats("characters"), isLabelKey: declarative.isLabelKey };

/** `k8s-short-name`, as declarative validation words it. */
export const isDNS1123Label = declarative.isDNS1123Label;
/** `k8s-long-name`, as declarative validation words it. */
export const isDNS1123Subdomain = declarative.isDNS1123Subdomain;
/** `k8s-label-key`, as declarative validation words it. */
export const isLabelKey = declarative.isLabelKey;

const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX_LENGTH = 63;
const labelValueRe = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** Label value (`k8s-label-value`, as declarative validation words it): empty, or a name part of at most 63 bytes. */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(declarative.maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/**
 * What apimachinery's `path.IsValidPathSegmentName` says of a value that becomes one segment of an API
 * path (a namespace, a name, a resource): empty when it is safe. client-go refuses such a namespace or
 * name before sending a request (`invalid namespace "../x": [may not contain '/']`).
 */
export function isValidPathSegmentName(value: string): string[] {
  const msgs: string[] = [];
  if (value === ".") msgs.push("may not be '.'");
  else if (value === "..") msgs.push("may not be '..'");
  if (value.includes("/")) msgs.push("may not contain '/'");
  if (value.includes("%")) msgs.push("may not contain '%'");
  return msgs;
}
