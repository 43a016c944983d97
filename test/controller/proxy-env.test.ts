/**
 * The proxy Karta's client takes from the environment for an API server, against client-go's own choice
 * (tools/kubeprint: net/http's ProxyFromEnvironment behind apimachinery's NewProxierWithNoProxyCIDR, the
 * environment set per case): every server address below with every environment, exactly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { proxyFromEnvironment } from "../../src/controller/proxy-env.js";
import { kubeprint, kubeprintSkip as skip } from "../support/kubeprint.js";

const SERVERS = [
  "https://kube.example:6443",
  "https://kube.example",
  "http://kube.example:8080",
  "https://api.kube.example:6443",
  "https://xkube.example:6443",
  "https://KUBE.Example:6443",
  "https://kube.example.evil:443",
  "https://token@kube.example:6443/prefix",
  "https://10.1.2.3:6443",
  "https://10.1.2.3",
  "http://10.1.2.3:80",
  "https://192.168.7.1:6443",
  "https://127.0.0.1:6443",
  "https://127.5.5.5",
  "https://localhost:6443",
  "https://LOCALHOST:6443",
  "https://[::1]:6443",
  "https://[fd00::5]:6443",
  "https://[fd00:0:0::5]:443",
  "https://[::ffff:10.1.2.3]:6443",
  "https://[2001:db8::1]:6443",
];

const PROXIES: Record<string, string>[] = [
  {},
  { HTTPS_PROXY: "http://proxy.corp:3128" },
  { https_proxy: "proxy.corp:3128" },
  { HTTPS_PROXY: "", https_proxy: "http://lower.corp:1" },
  { HTTPS_PROXY: "http://upper.corp:1", https_proxy: "http://lower.corp:1" },
  { HTTP_PROXY: "http://plain.corp:8080" },
  { http_proxy: "plain.corp:8080", HTTPS_PROXY: "https://team:s3cret@secure.corp:8443" },
  { HTTPS_PROXY: "10.0.0.1:3128" },
  { HTTPS_PROXY: "socks5://socks.corp:1080" },
  { HTTPS_PROXY: "::not a url" },
  { HTTPS_PROXY: "http://[fd00::9]:3128" },
];

const NO_PROXY = [
  "*",
  "kube.example",
  ".kube.example",
  "*.kube.example",
  "KUBE.EXAMPLE",
  "kube.example:6443",
  "kube.example:443",
  "example",
  "ample.example",
  " other.example , kube.example ",
  "10.0.0.0/8",
  "10.1.2.3/8",
  "10.1.2.3",
  "10.1.2.3:6443",
  "10.1.2.3:443",
  "192.168.0.0/16,fd00::/8",
  "fd00::5",
  "[fd00::5]:6443",
  "fd00:0::5",
  "2001:db8::/32",
  ":6443",
  "*,kube.example",
  "other,*",
  "010.1.2.3",
  "10.1.2.3/40",
  "[kube.example]:6443",
];

test("the environment's proxy for an API server is client-go's, for every server and environment", { skip }, async () => {
  const envs: Record<string, string>[] = [...PROXIES];
  for (const n of NO_PROXY) {
    envs.push({ HTTPS_PROXY: "http://proxy.corp:3128", HTTP_PROXY: "http://plain.corp:8080", NO_PROXY: n });
    envs.push({ https_proxy: "http://proxy.corp:3128", no_proxy: n });
  }
  envs.push({ HTTPS_PROXY: "http://proxy.corp:3128", NO_PROXY: "", no_proxy: "kube.example" });
  const cases = envs.flatMap((env) => SERVERS.map((url) => ({ env, url })));
  const want = await kubeprint(cases.map((proxy) => ({ proxy })));
  let proxied = 0;
  cases.forEach((c, i) => {
    const go = want[i]!;
    assert.equal(go.error, undefined, `${JSON.stringify(c)}: client-go refused it: ${go.error}`);
    const got = proxyFromEnvironment(c.url, c.env)?.url;
    if (got) proxied++;
    assert.equal(got ? goString(got) : "", go.text, JSON.stringify(c));
  });
  // The cases are worth their number: both answers occur often.
  assert.ok(proxied > cases.length / 4 && proxied < (cases.length * 3) / 4, `${proxied} of ${cases.length} proxied`);
});

/** A proxy URL as Go's url.URL.String() prints one that names no path. */
function goString(u: URL): string {
  const auth = u.username ? `${u.username}${u.password ? `:${u.password}` : ""}@` : "";
  return `${u.protocol}//${auth}${u.host}${u.pathname === "/" ? "" : u.pathname}`;
}
