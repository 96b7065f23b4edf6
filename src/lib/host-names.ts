/** Whether a host name has an empty label (`.example.com`, `a..b`): it parses as a URL but resolves nowhere (RFC 1035). */
export function hasEmptyLabel(host: string): boolean {
  return host.replace(/\.$/, "").split(".").includes("");
}

/**
 * The only hosts that count as loopback, written exactly (URL.hostname brackets IPv6). A prefix such as
 * `127.` would let `127.evil.example`, a public name, pass as local.
 */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}
