/**
 * Where the API server is and how to authenticate to it, found as kubectl finds it: `--kubeconfig`, else
 * the files of KUBECONFIG (merged, the first to set a name or the current context wins), else
 * ~/.kube/config, else the pod's service account (in-cluster). `--context` picks a context. Users may
 * authenticate with a client certificate, a bearer token (inline or a file, re-read as the kubelet rotates
 * it), basic auth, an exec credential plugin (client.authentication.k8s.io, as EKS, GKE and AKS
 * kubeconfigs use), or an oidc auth-provider's id-token, refreshed as client-go refreshes it
 * (src/controller/oidc.ts). A cluster's `proxy-url` (http or https), else
 * the proxy the environment names for the server (HTTPS_PROXY, NO_PROXY...), is used as client-go uses it.
 * Relative file paths are relative to the kubeconfig that names them.
 *
 * The controller and the live commands (`get`, `describe`, `inspect KIND/NAME`) read it without
 * @kubernetes/client-node, whose generated models take ~70 MiB of a process that should fit in 150 MiB
 * with 50,000 pods cached, and ~0.6 s of CPU to load.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { readTextFile } from "../files/read.js";
import { homedir } from "node:os";
import path from "node:path";
import { parseAllDocuments, parseDocument } from "yaml";
import { readErrorReason } from "../files/read-error.js";
import { findUnreadableText, yamlDocumentValue } from "../input/index.js";
import { lfLineBreaks } from "../input/yaml.js";
import { isDNS1123Label } from "../names/index.js";
import type { OidcProvider } from "./oidc.js";
import { proxyFromEnvironment } from "./proxy-env.js";

/** An exec credential plugin (kubeconfig `users[].user.exec`). */
export interface ExecPlugin {
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  apiVersion: string;
  provideClusterInfo: boolean;
  /** Whether it may prompt (client.authentication.k8s.io: Never, IfAvailable, Always; unset: IfAvailable). */
  interactiveMode?: string;
  /** The kubeconfig's directory: a relative command runs from there, as client-go runs it. */
  dir: string;
}

/** One cluster and user, ready to connect with. */
export interface ClusterAccess {
  /** The API server's base URL (no trailing slash). */
  server: string;
  /** An HTTP proxy the connections tunnel through (CONNECT), as kubeconfig's `proxy-url`. */
  proxyUrl?: string;
  /** PEM CA bundle to trust; undefined: the system's roots. */
  ca?: Buffer;
  insecureSkipTLSVerify: boolean;
  tlsServerName?: string;
  /** Client certificate and key (PEM). */
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  /** Read at most every minute (a projected service account token is rotated by the kubelet). */
  tokenFile?: string;
  basic?: { username: string; password: string };
  exec?: ExecPlugin;
  /** An oidc auth-provider: its id-token, refreshed when it expires. */
  oidc?: OidcProvider;
  /** The user to act as (kubeconfig `as`, `as-uid`, `as-groups`, `as-user-extra`; kubectl's --as...): Impersonate-* headers. */
  impersonate?: Impersonation;
  /** The cluster's `disable-compression` (or kubectl's --disable-compression): do not ask for gzip answers. */
  disableCompression?: boolean;
  /** The context's namespace, if any. */
  namespace?: string;
  /** What it was loaded from (for messages). */
  source: string;
}

/** Who the requests act as, sent as client-go sends it (Impersonate-User, -Uid, -Group, -Extra-KEY). */
export interface Impersonation {
  user: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/**
 * kubectl's flags that override the kubeconfig (client-go's ConfigOverrides): the cluster and user entries
 * a context names, and fields of them. Paths are relative to the working directory.
 */
export interface KubeconfigOverrides {
  /** --cluster: the kubeconfig cluster entry to use instead of the context's. */
  cluster?: string;
  /** --user: the kubeconfig user entry to use instead of the context's. */
  user?: string;
  server?: string;
  certificateAuthority?: string;
  insecureSkipTLSVerify?: boolean;
  tlsServerName?: string;
  disableCompression?: boolean;
  token?: string;
  /** --username, --password: basic auth (each replaces the kubeconfig's own, as client-go merges them). */
  username?: string;
  password?: string;
  clientCertificate?: string;
  clientKey?: string;
  /** --as, --as-group, --as-uid. */
  as?: string;
  asGroups?: string[];
  asUid?: string;
}

const SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

type Named<T> = { name?: unknown } & { [k: string]: T };
type Raw = Record<string, unknown>;

function asRecord(v: unknown): Raw {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Raw) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** A kubeconfig file, parsed: its named entries (paths already absolute) and current context. */
interface KubeconfigFile {
  clusters: Map<string, Raw>;
  users: Map<string, Raw>;
  contexts: Map<string, Raw>;
  currentContext?: string;
}

const FILE_FIELDS: Record<string, string[]> = {
  cluster: ["certificate-authority"],
  user: ["client-certificate", "client-key", "tokenFile"],
};

function readKubeconfig(file: string): KubeconfigFile {
  let text: string;
  try {
    text = readTextFile(file);
  } catch (err) {
    throw new Error(`cannot read the kubeconfig ${file}: ${readErrorReason(err)}`);
  }
  text = lfLineBreaks(text);
  // As every other reader: nesting bounded before the parser (whose stack it would exhaust). Of several
  // documents the first is the kubeconfig, as client-go's YAML decoding reads it.
  const deep = findUnreadableText(text);
  if (deep !== undefined) throw new Error(`${file}:${deep.line}: not a kubeconfig: ${deep.message}`);
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const doc = (Array.isArray(docs) ? docs[0] : docs) ?? parseDocument("");
  if (doc.errors.length > 0) throw new Error(`${file}: not a kubeconfig: ${doc.errors[0]!.message.split("\n")[0]}`);
  const parsed = yamlDocumentValue(doc, text);
  if ("error" in parsed) throw new Error(`${file}: ${parsed.error}`);
  // An empty file is an empty kubeconfig (as client-go reads it); text that is not a mapping is none.
  const v = parsed.value;
  if (v !== null && v !== undefined && (typeof v !== "object" || Array.isArray(v))) throw new Error(`${file}: not a kubeconfig: expected a mapping (apiVersion: v1, kind: Config), found ${Array.isArray(v) ? "a list" : `a ${typeof v}`}`);
  const root = asRecord(v);
  const dir = path.dirname(path.resolve(file));
  const section = (list: string, field: string): Map<string, Raw> => {
    const out = new Map<string, Raw>();
    const items = root[list];
    if (items !== undefined && items !== null && !Array.isArray(items)) throw new Error(`${file}: ${list} must be a list`);
    for (const [i, item] of ((items as Named<unknown>[] | null) ?? []).entries()) {
      const name = str(asRecord(item).name);
      if (name === undefined) throw new Error(`${file}: ${list}[${i}].name is missing`);
      const body = { ...asRecord(asRecord(item)[field]) };
      for (const f of FILE_FIELDS[field] ?? []) {
        const p = str(body[f]);
        if (p !== undefined && !path.isAbsolute(p)) body[f] = path.join(dir, p);
      }
      if (field === "user" && body["exec"] !== undefined) body["exec"] = { ...asRecord(body["exec"]), dir };
      // Where an oidc auth-provider's new tokens are written: the file that defines the user.
      if (field === "user" && body["auth-provider"] !== undefined) body["auth-provider"] = { ...asRecord(body["auth-provider"]), file: path.resolve(file) };
      if (!out.has(name)) out.set(name, body);
    }
    return out;
  };
  const currentContext = str(root["current-context"]);
  return { clusters: section("clusters", "cluster"), users: section("users", "user"), contexts: section("contexts", "context"), ...(currentContext !== undefined ? { currentContext } : {}) };
}

/** Several kubeconfig files as one: the first to define a name, or the current context, wins. */
function merge(files: KubeconfigFile[]): KubeconfigFile {
  const out: KubeconfigFile = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const f of files) {
    for (const part of ["clusters", "users", "contexts"] as const) for (const [k, v] of f[part]) if (!out[part].has(k)) out[part].set(k, v);
    if (out.currentContext === undefined && f.currentContext !== undefined) out.currentContext = f.currentContext;
  }
  return out;
}

function fileOrData(entry: Raw, fileField: string, dataField: string, what: string): Buffer | undefined {
  const data = str(entry[dataField]);
  if (data !== undefined) return Buffer.from(data, "base64");
  const file = str(entry[fileField]);
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read the ${what} ${file}: ${readErrorReason(err)}`);
  }
}

/** A cluster entry with kubectl's flags over it, as client-go's getCluster merges them. */
function overrideCluster(cluster: Raw, o: KubeconfigOverrides): Raw {
  const c = { ...cluster };
  if (o.server !== undefined) c["server"] = o.server;
  if (o.disableCompression === true) c["disable-compression"] = true;
  // --insecure-skip-tls-verify or --certificate-authority replaces both the CA and the skip setting.
  if (o.insecureSkipTLSVerify === true || o.certificateAuthority !== undefined) {
    c["insecure-skip-tls-verify"] = o.insecureSkipTLSVerify === true;
    delete c["certificate-authority-data"];
    if (o.certificateAuthority !== undefined) c["certificate-authority"] = path.resolve(o.certificateAuthority);
    else delete c["certificate-authority"];
  }
  // --server takes --tls-server-name with it (the kubeconfig's names the old server).
  if (o.tlsServerName !== undefined || o.server !== undefined) {
    if (o.tlsServerName !== undefined) c["tls-server-name"] = o.tlsServerName;
    else delete c["tls-server-name"];
  }
  return c;
}

/** A user entry with kubectl's flags over it, as client-go's getAuthInfo merges them. */
function overrideUser(user: Raw, o: KubeconfigOverrides): Raw {
  const u = { ...user };
  if (o.token !== undefined) u["token"] = o.token;
  if (o.username !== undefined) u["username"] = o.username;
  if (o.password !== undefined) u["password"] = o.password;
  if (o.clientCertificate !== undefined) {
    u["client-certificate"] = path.resolve(o.clientCertificate);
    delete u["client-certificate-data"];
  }
  if (o.clientKey !== undefined) {
    u["client-key"] = path.resolve(o.clientKey);
    delete u["client-key-data"];
  }
  if (o.as !== undefined) u["as"] = o.as;
  if (o.asGroups !== undefined && o.asGroups.length > 0) u["as-groups"] = o.asGroups;
  if (o.asUid !== undefined) u["as-uid"] = o.asUid;
  return u;
}

function accessOf(config: KubeconfigFile, contextName: string | undefined, source: string, o: KubeconfigOverrides = {}): ClusterAccess {
  const name = contextName ?? config.currentContext;
  // With --server, no context is needed (kubectl --server URL --token T works without a kubeconfig).
  if (name === undefined && o.server === undefined) throw new Error(`${source}: no current-context (give --context)`);
  const context = name === undefined ? {} : config.contexts.get(name);
  // Worded as kubectl (client-go) words them.
  if (!context) throw new Error(`context was not found for specified context: ${name}`);
  const clusterName = o.cluster ?? str(context["cluster"]);
  const named = clusterName !== undefined ? config.clusters.get(clusterName) : undefined;
  if (!named && o.cluster !== undefined && o.server === undefined) throw new Error(`no server found for cluster "${o.cluster}"`);
  if (!named && o.server === undefined) throw new Error(`no cluster in the kubeconfig (context "${name}" names cluster "${clusterName ?? ""}", which is not defined)`);
  const cluster = overrideCluster(named ?? {}, o);
  const serverText = str(cluster["server"]);
  if (serverText === undefined) throw new Error(`cluster "${clusterName}" has no server`);
  const server = serverUrl(serverText);
  const userName = o.user ?? str(context["user"]);
  const namedUser = userName !== undefined ? config.users.get(userName) : undefined;
  if (!namedUser && o.user !== undefined) throw new Error(`auth info "${o.user}" does not exist`);
  const user = overrideUser(namedUser ?? {}, o);
  validateUser(user, userName ?? "");
  const access: ClusterAccess = { server, insecureSkipTLSVerify: false, source, ...(cluster["disable-compression"] === true ? { disableCompression: true } : {}) };
  const proxyUrl = str(cluster["proxy-url"]);
  if (proxyUrl !== undefined) {
    if (!/^https?:\/\/[^/]/.test(proxyUrl)) throw new Error(`cluster "${clusterName}": proxy-url ${proxyUrl}: ${HTTP_PROXY_ONLY}`);
    access.proxyUrl = proxyUrl;
  }
  const impersonate = impersonationOf(user, userName);
  if (impersonate) access.impersonate = impersonate;
  const namespace = str(context["namespace"]);
  // As clientcmd validates a context: its namespace becomes a segment of every request's path.
  if (namespace && isDNS1123Label(namespace).length > 0) throw new Error(`namespace ${JSON.stringify(namespace)} for context ${JSON.stringify(name ?? "")} does not conform to the kubernetes DNS_LABEL rules`);
  if (namespace !== undefined) access.namespace = namespace;
  // The files are read (and the entries checked) whatever the server, as client-go validates them...
  const ca = fileOrData(cluster, "certificate-authority", "certificate-authority-data", "certificate authority");
  const cert = fileOrData(user, "client-certificate", "client-certificate-data", "client certificate");
  const key = fileOrData(user, "client-key", "client-key-data", "client key");
  if ((cert && !key) || (key && !cert)) throw new Error(`user "${userName}": a client certificate needs its key, and a key its certificate`);
  const exec = user["exec"] === undefined ? undefined : execPlugin(asRecord(user["exec"]), userName);
  // ...but credentials and the server's identity are used only over TLS: client-go sends none to an http:// server.
  if (!server.startsWith("https://")) return access;
  access.insecureSkipTLSVerify = cluster["insecure-skip-tls-verify"] === true;
  if (ca) access.ca = ca;
  const tlsServerName = str(cluster["tls-server-name"]);
  if (tlsServerName !== undefined) access.tlsServerName = tlsServerName;
  if (cert && key) Object.assign(access, { cert, key });
  const token = str(user["token"]);
  if (token !== undefined) access.token = token;
  const tokenFile = str(user["tokenFile"]);
  if (tokenFile !== undefined && token === undefined) access.tokenFile = tokenFile;
  const username = str(user["username"]);
  if (username !== undefined) access.basic = { username, password: typeof user["password"] === "string" ? user["password"] : "" };
  // An exec plugin only when nothing else authenticates (client-go's exec authenticator stands aside for a
  // token, basic auth or a client certificate: `kubectl --token T` on an exec user sends T).
  if (exec && !access.token && !access.tokenFile && !access.basic && !access.cert) access.exec = exec;
  if (user["auth-provider"] !== undefined) {
    const oidc = oidcProvider(asRecord(user["auth-provider"]), userName ?? "");
    // Its round tripper stands aside when another has set Authorization (a token, a token file, basic auth).
    if (access.token === undefined && access.tokenFile === undefined && access.basic === undefined) access.oidc = oidc;
  }
  return access;
}

/**
 * A user's oidc auth-provider, checked as client-go checks it (idp-issuer-url and client-id are needed);
 * gcp and azure were removed from kubectl in 1.26 in favour of exec plugins, and are refused here too.
 */
function oidcProvider(provider: Raw, userName: string): OidcProvider {
  const name = str(provider["name"]) ?? "?";
  if (name !== "oidc") throw new Error(`user "${userName}": the ${name} auth-provider is not supported (kubectl removed it too); use an exec credential plugin`);
  const cfg = asRecord(provider["config"]);
  const value = (key: string): string | undefined => str(cfg[key]);
  const issuer = value("idp-issuer-url");
  const clientId = value("client-id");
  for (const [key, v] of [["idp-issuer-url", issuer], ["client-id", clientId]] as const) {
    if (v === undefined) throw new Error(`user "${userName}": the oidc auth-provider must provide ${key}`);
  }
  // A relative file is read from the working directory, as client-go reads it.
  const ca = fileOrData(cfg, "idp-certificate-authority", "idp-certificate-authority-data", "oidc idp-certificate-authority");
  const out: OidcProvider = { issuer: issuer!, clientId: clientId! };
  for (const [field, key] of [["clientSecret", "client-secret"], ["idToken", "id-token"], ["refreshToken", "refresh-token"]] as const) {
    const v = value(key);
    if (v !== undefined) out[field] = v;
  }
  if (ca) out.ca = ca;
  const file = str(provider["file"]);
  if (file !== undefined) out.persist = { file, user: userName };
  return out;
}

/** Why a proxy is refused: Karta's transport tunnels through http and https proxies only. */
const HTTP_PROXY_ONLY = "expected an http:// or https:// proxy (a socks proxy is not supported)";

/** A user's exec credential plugin (`users[].user.exec`). */
function execPlugin(e: Raw, userName: string | undefined): ExecPlugin {
  const command = str(e["command"]);
  const interactiveMode = str(e["interactiveMode"]);
  if (command === undefined) throw new Error(`user "${userName}": exec.command is missing`);
  return {
    command,
    args: Array.isArray(e["args"]) ? e["args"].map(String) : [],
    env: Array.isArray(e["env"]) ? e["env"].map((x) => ({ name: String(asRecord(x)["name"] ?? ""), value: String(asRecord(x)["value"] ?? "") })) : [],
    apiVersion: str(e["apiVersion"]) ?? "client.authentication.k8s.io/v1",
    provideClusterInfo: e["provideClusterInfo"] === true,
    ...(interactiveMode !== undefined ? { interactiveMode } : {}),
    dir: String(e["dir"]),
  };
}

/**
 * A server as client-go's DefaultServerURL takes it: a URL, or host[:port] read as http:// (kubectl -s
 * localhost:8001, the address of `kubectl proxy`); no trailing slash.
 */
function serverUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || url.host === "" || !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      url = new URL(`http://${text}`);
    } catch {
      throw new Error(`host must be a URL or a host:port pair: "${text}"`);
    }
    if (url.pathname !== "/" || url.search !== "" || url.hash !== "") throw new Error(`host must be a URL or a host:port pair: "${text}"`);
    return `http://${url.host}`;
  }
  // Go's url.Parse folds the scheme's case (HTTPS://... is https).
  return text.replace(/^[a-z][a-z0-9+.-]*:/i, (scheme) => scheme.toLowerCase()).replace(/\/+$/, "");
}

/**
 * client-go's checks of a user entry (validateAuthInfo): at most one of a token and basic auth, an exec
 * plugin not beside an auth-provider, and impersonation's uid, groups or extra only with a user.
 */
function validateUser(user: Raw, userName: string): void {
  const methods = [str(user["token"]) !== undefined && "token", (str(user["username"]) !== undefined || str(user["password"]) !== undefined) && "basicAuth"].filter((m) => m);
  if (methods.length > 1) throw new Error(`more than one authentication method found for ${userName}; found [${methods.join(" ")}], only one is allowed`);
  if (user["exec"] !== undefined && user["auth-provider"] !== undefined) throw new Error(`authProvider cannot be provided in combination with an exec plugin for ${userName}`);
}

/** A user entry's impersonation (`as`...); uid, groups or extra without `as` are refused, as by client-go. */
function impersonationOf(user: Raw, userName: string | undefined): Impersonation | undefined {
  const as = str(user["as"]);
  const uid = str(user["as-uid"]);
  const groups = Array.isArray(user["as-groups"]) ? user["as-groups"].map(String) : [];
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(asRecord(user["as-user-extra"]))) extra[k] = Array.isArray(v) ? v.map(String) : [String(v)];
  if (as === undefined) {
    if (uid !== undefined || groups.length > 0 || Object.keys(extra).length > 0) throw new Error(`requesting uid, groups or user-extra for ${userName ?? ""} without impersonating a user`);
    return undefined;
  }
  return { user: as, ...(uid !== undefined ? { uid } : {}), groups, extra };
}

/** The pod's service account, when running in a cluster; undefined elsewhere. */
function inCluster(root = SA_DIR): ClusterAccess | undefined {
  const host = process.env["KUBERNETES_SERVICE_HOST"];
  const port = process.env["KUBERNETES_SERVICE_PORT"];
  if (!host || !port || !existsSync(path.join(root, "token"))) return undefined;
  const h = host.includes(":") ? `[${host}]` : host;
  const access: ClusterAccess = { server: `https://${h}:${port}`, insecureSkipTLSVerify: false, tokenFile: path.join(root, "token"), source: "the pod's service account" };
  if (existsSync(path.join(root, "ca.crt"))) access.ca = readFileSync(path.join(root, "ca.crt"));
  if (existsSync(path.join(root, "namespace"))) access.namespace = readFileSync(path.join(root, "namespace"), "utf8").trim();
  return access;
}

/** Finds the cluster as kubectl does (see the module comment); throws an Error saying what is missing. */
export function loadClusterAccess(options: { kubeconfig?: string; context?: string; overrides?: KubeconfigOverrides } = {}): ClusterAccess {
  return withEnvironmentProxy(findClusterAccess(options, options.overrides ?? {}), process.env);
}

/**
 * The access with the environment's proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY: src/controller/proxy-env.ts)
 * when the kubeconfig names none, as client-go's transport takes it.
 */
export function withEnvironmentProxy(access: ClusterAccess, env: Readonly<Record<string, string | undefined>>): ClusterAccess {
  if (access.proxyUrl !== undefined) return access;
  const proxy = proxyFromEnvironment(access.server, env);
  if (!proxy) return access;
  if (proxy.url.protocol !== "http:" && proxy.url.protocol !== "https:") throw new Error(`${proxy.variable} ${env[proxy.variable]}: ${HTTP_PROXY_ONLY}`);
  return { ...access, proxyUrl: proxy.url.href };
}

function findClusterAccess(options: { kubeconfig?: string; context?: string }, o: KubeconfigOverrides): ClusterAccess {
  if (options.kubeconfig !== undefined) return accessOf(readKubeconfig(options.kubeconfig), options.context, options.kubeconfig, o);
  const env = process.env["KUBECONFIG"];
  if (env) {
    const files = env.split(path.delimiter).filter((f) => f !== "");
    // kubectl skips KUBECONFIG entries that do not exist.
    const present = files.filter((f) => existsSync(f));
    if (present.length > 0) return accessOf(merge(present.map(readKubeconfig)), options.context, present.join(path.delimiter), o);
  }
  const home = path.join(homedir(), ".kube", "config");
  if (existsSync(home)) return accessOf(readKubeconfig(home), options.context, home, o);
  // No kubeconfig: --server and the other flags alone, as kubectl takes them.
  if (o.server !== undefined) return accessOf({ clusters: new Map(), users: new Map(), contexts: new Map() }, options.context, "the command line", o);
  const pod = inCluster();
  if (pod) {
    for (const [what, name] of [["context", options.context], ["cluster", o.cluster], ["user", o.user]] as const) {
      if (name !== undefined) throw new Error(`${what} "${name}" is not in the kubeconfig (running in a pod with no kubeconfig)`);
    }
    // client-go's in-cluster config takes only --token and --certificate-authority of the flags.
    if (o.token !== undefined) {
      delete pod.tokenFile;
      pod.token = o.token;
    }
    if (o.certificateAuthority !== undefined) pod.ca = fileOrData({ file: path.resolve(o.certificateAuthority) }, "file", "data", "certificate authority")!;
    return pod;
  }
  // No file at all (not a file without the cluster): say which paths were looked at, as kubectl's
  // "no configuration has been provided" does, and what would give one.
  const looked = [...(env ? env.split(path.delimiter).filter((f) => f !== "").map((f) => `KUBECONFIG ${f}`) : []), home];
  throw new Error(`no kubeconfig found (looked at ${looked.join(", ")}: none exists); give --kubeconfig or --server, set KUBECONFIG, or run in a pod`);
}

/** The credentials an exec plugin printed (ExecCredential status). */
export interface ExecCredential {
  token?: string;
  cert?: Buffer;
  key?: Buffer;
  /** ms since the epoch; undefined: valid until the server refuses it. */
  expires?: number;
}

/**
 * Where an exec plugin may talk to a person, as client-go lets it: the terminal of a command someone runs
 * (`karta get`), or nobody (the controller, whose standard error is its JSON log).
 */
export interface ExecTerminal {
  /** Whether standard input is a terminal the plugin may prompt on (its interactiveMode permitting). */
  stdin: boolean;
  /** Where the plugin's standard error goes as it writes it (a login URL, a warning). */
  stderr: (chunk: Buffer) => void;
}

/** Output of a plugin kept: an ExecCredential is a few KiB. */
const PLUGIN_OUTPUT_MAX = 1 << 20;

/**
 * Runs an exec credential plugin, as client-go does: KUBERNETES_EXEC_INFO and the plugin's env; given a
 * terminal, its standard error passed through and, when standard input is a terminal and its
 * interactiveMode is not Never, that input too (`interactive: true`; interactiveMode Always needs it). At
 * most 30 s, or 5 minutes when interactive (a login in a browser).
 */
export function runExecPlugin(plugin: ExecPlugin, server: string, ca?: Buffer, terminal?: ExecTerminal): Promise<ExecCredential> {
  const interactive = terminal?.stdin === true && plugin.interactiveMode !== "Never";
  if (plugin.interactiveMode === "Always" && !interactive) return Promise.reject(new Error(`the exec credential plugin ${plugin.command} needs a terminal (interactiveMode: Always) and standard input is not one`));
  const info = {
    apiVersion: plugin.apiVersion,
    kind: "ExecCredential",
    spec: { interactive, ...(plugin.provideClusterInfo ? { cluster: { server, ...(ca ? { "certificate-authority-data": ca.toString("base64") } : {}) } } : {}) },
  };
  const env = { ...process.env, ...Object.fromEntries(plugin.env.map((e) => [e.name, e.value])), KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  const command = plugin.command.includes("/") && !path.isAbsolute(plugin.command) ? path.join(plugin.dir, plugin.command) : plugin.command;
  return new Promise((resolve, reject) => {
    const child = spawn(command, plugin.args, { env, stdio: [interactive ? "inherit" : "ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let failure: string | undefined;
    const stop = (why: string): void => {
      failure ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop(interactive ? "no credential within 5 minutes" : "no credential within 30 s"), interactive ? 300_000 : 30_000);
    child.stdout!.on("data", (c: Buffer) => {
      stdout += c.toString();
      if (stdout.length > PLUGIN_OUTPUT_MAX) stop("more than 1 MiB of output");
    });
    child.stderr!.on("data", (c: Buffer) => {
      terminal?.stderr(c);
      stderr = (stderr + c.toString()).slice(-65_536);
    });
    child.on("error", (err) => stop(err.message));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (failure !== undefined || code !== 0) {
        const why = failure ?? (stderr.trim().split("\n").slice(-1)[0] || `exit ${code ?? signal}`);
        return reject(new Error(`the exec credential plugin ${plugin.command} failed: ${why}`));
      }
      let status: Raw;
      try {
        status = asRecord(asRecord(JSON.parse(stdout))["status"]);
      } catch {
        return reject(new Error(`the exec credential plugin ${plugin.command} did not print an ExecCredential`));
      }
      const out: ExecCredential = {};
      const token = str(status["token"]);
      if (token !== undefined) out.token = token;
      const cert = str(status["clientCertificateData"]);
      const key = str(status["clientKeyData"]);
      if (cert && key) Object.assign(out, { cert: Buffer.from(cert), key: Buffer.from(key) });
      const expires = str(status["expirationTimestamp"]);
      if (expires !== undefined && Number.isFinite(Date.parse(expires))) out.expires = Date.parse(expires);
      if (out.token === undefined && out.cert === undefined) return reject(new Error(`the exec credential plugin ${plugin.command} printed neither a token nor a client certificate`));
      resolve(out);
    });
  });
}
