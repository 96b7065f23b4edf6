import { parse } from "tldts";
import { ApiError } from "../errors/api-error.ts";
import { hasEmptyLabel } from "../lib/host-names.ts";

/** Special-use names (RFC 6761 and later) that never reach a public host, though some sit under public suffixes. */
const SPECIAL_USE = ["arpa", "local", "localhost", "internal", "lan", "home", "corp", "test", "invalid", "onion", "alt", "example"];

const fail = (detail: string) => new ApiError("invalid_webhook_url", { field: "/url", detail });

/**
 * A webhook URL: HTTPS, a public domain name (no IP address in any spelling, no localhost, no name outside
 * the public suffix list such as `.local` or `.internal`), no credentials, no fragment, port 443 or above
 * 1023, at most 2048 characters.
 */
export function checkWebhookUrl(value: string): URL {
  if (value.length > 2048) throw fail("At most 2048 characters.");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail("Not a URL.");
  }
  if (url.protocol !== "https:") throw fail("HTTPS only.");
  if (url.username || url.password) throw fail("No credentials in the URL.");
  if (url.hash || value.includes("#")) throw fail("No fragment.");
  const port = url.port === "" ? 443 : Number(url.port);
  if (port !== 443 && port <= 1023) throw fail("Port 443 or above 1023.");
  const host = url.hostname;
  if (hasEmptyLabel(host)) throw fail("A domain name has no empty label.");
  if (host.startsWith("[") || /^[0-9.]+$/.test(host) || /^0x/i.test(host)) throw fail("A domain name, not an IP address.");
  const topLevel = host.replace(/\.$/, "").split(".").pop()?.toLowerCase() ?? "";
  if (SPECIAL_USE.includes(topLevel)) throw fail("A public domain name (not a special-use name such as .local or .home.arpa).");
  const parsed = parse(host, { allowPrivateDomains: false });
  if (parsed.isIp) throw fail("A domain name, not an IP address.");
  if (!parsed.isIcann || parsed.domain === null || parsed.domainWithoutSuffix === "" || !host.includes(".")) {
    throw fail("A public domain name (not localhost or an internal name).");
  }
  return url;
}
