/**
 * Listening as a Go server given the same address listens: Go's net.Listen("tcp", "0.0.0.0:8443") (and
 * "[::]:8443", ":8443") opens one IPv6 socket that also takes IPv4 connections, falling back to IPv4
 * when the host has no IPv6. Node.js listens so only when given no host: told 0.0.0.0 it takes IPv4
 * alone, so a pod of an IPv6 single-stack cluster would be unreachable (kube-apiserver's
 * `--bind-address=0.0.0.0` serves both families). Every server of `karta serve` and `karta controller`
 * listens through here.
 */
import { isIPv6, type AddressInfo, type Server } from "node:net";

/** Whether `host` is empty or an unspecified address (0.0.0.0, ::, 0:0:0:0:0:0:0:0): every address of the host. */
export function isUnspecifiedHost(host: string): boolean {
  return host === "" || host === "0.0.0.0" || (isIPv6(host) && /^[0:]+$/.test(host));
}

/**
 * The host to give Node.js's listen(): none for an unspecified address (Node.js then listens on `::`,
 * dual-stack, or on 0.0.0.0 where the host has no IPv6, as Go does), else the host as given.
 */
export function listenHost(host: string): string | undefined {
  return isUnspecifiedHost(host) ? undefined : host;
}

/** Listens on port and host ("" or an unspecified address: every address of both families); resolves with the bound port. */
export function listen(s: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    s.once("error", reject);
    s.listen(port, listenHost(host), () => {
      s.off("error", reject);
      resolve((s.address() as AddressInfo).port);
    });
  });
}
