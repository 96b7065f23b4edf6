/** Whether a host name has an empty label (`.example.com`, `a..b`): it parses as a URL but resolves nowhere (RFC 1035). */
export function hasEmptyLabel(host: string): boolean {
  return host.replace(/\.$/, "").split(".").includes("");
}
