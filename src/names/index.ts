/**
 * Kubernetes name formats, for object names wherever Karta checks them (group names in interpretation,
 * the Workload API's objects). The string formats the Workload API uses (`k8s-short-name` = DNS-1123 label,
 * `k8s-long-name` = DNS-1123 subdomain, `k8s-label-key`), each returning the list of
 * upstream detail messages (empty when the value is valid), worded as apimachinery's
 * `validate/content` package words them.
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

/** Longest DNS-1123 label. */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** Longest DNS-1123 subdomain (and object name). */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const LABEL_KEY_NAME_MAX_LENGTH = 63;

const labelRe = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const subdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const labelKeyNameRe = new RegExp(`^${LABEL_KEY_FMT}$`);

/** `must be no more than N characters`. */
export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
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

/** DNS-1123 label (`k8s-short-name`): template names, claim names. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!labelRe.test(value)) {
    if (subdomainRe.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

/** DNS-1123 subdomain (`k8s-long-name`): object names, priority class names, claim references. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!subdomainRe.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** Label key (`k8s-label-key`): an optional DNS subdomain prefix and `/`, then a name part. */
export function isLabelKey(value: string): string[] {
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
  else if (name.length > LABEL_KEY_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(LABEL_KEY_NAME_MAX_LENGTH)}`);
  if (!labelKeyNameRe.test(name)) errs.push(`name part ${regexError(LABEL_KEY_ERR, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}
