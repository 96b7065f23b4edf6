import { parse } from "tldts";
import { ApiError } from "../errors/api-error.ts";
import { hasEmptyLabel } from "../lib/host-names.ts";

/** Special-use names (RFC 6761 and later) that never reach a public host, though some sit under public suffixes. */
const SPECIAL_USE = ["arpa", "local", "localhost", "internal", "lan", "home", "corp", "test", "invalid", "onion", "alt", "example"];

const fail = (detail: string) => new ApiError("invalid_webhook_url", { field: "/url", detail });

/**
 * `scheme://authority` as typed, before the parser's repairs. The authority ends at the first `/`, `?` or
 * `#` (RFC 3986), as a reader sees it: a backslash is part of it.
 */
const TYPED_START = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;

/** An internationalised host typed in Unicode (`bücher.example`), which the parser writes in punycode. */
const UNICODE_HOST = /^[\p{L}\p{M}\p{N}.-]+(:[0-9]+)?$/u;

/**
 * The URL must say, as typed, the scheme and authority the WHATWG parser (the one deliveries use) reads in
 * it. The parser repairs what it is given: it drops surrounding spaces and control characters and any tab
 * or newline, reads `https:hooks.example.com/x` and `https:///hooks.example.com/x` as
 * `https://hooks.example.com/x`, and a backslash as a slash, so `https://hooks.example.com\@127.0.0.1/x`
 * goes to hooks.example.com. Lists, logs and allow-lists would read one host and deliveries reach another,
 * so such input is refused rather than repaired (issue 28). What the parser only normalises is accepted:
 * the case of scheme and host, a default port written out (`:443`), a host typed in Unicode.
 */
function checkTypedAsParsed(value: string, url: URL): void {
  const spaceOrControl = (index: number) => value.charCodeAt(index) <= 0x20;
  if (spaceOrControl(0) || spaceOrControl(value.length - 1) || /[\t\n\r]/.test(value)) {
    throw fail("No spaces, tabs, newlines or control characters around or inside the URL.");
  }
  const typed = TYPED_START.exec(value);
  const written = `https://${url.host}`;
  if (typed === null) throw fail(`Write the URL with its scheme, two slashes and its host: ${written}/….`);
  const [, scheme, authority] = typed as unknown as [string, string, string];
  if (`${scheme.toLowerCase()}:` !== url.protocol) throw fail(`Write the URL as ${written}/….`);
  const lower = authority.toLowerCase();
  const sameHost = lower === url.host || (url.port === "" && lower === `${url.hostname}:443`);
  const unicodeSpelling = /[^ -~]/.test(authority) && UNICODE_HOST.test(authority);
  if (!sameHost && !unicodeSpelling) {
    throw fail(`The URL reads as host "${authority}" but goes to "${url.host}": write it as ${written}/….`);
  }
}

/**
 * A webhook URL: HTTPS, a public domain name (no IP address in any spelling, no localhost, no name outside
 * the public suffix list such as `.local` or `.internal`), no credentials, no fragment, port 443 or above
 * 1023, at most 2048 characters, written as the parser reads it (`checkTypedAsParsed`). Answers the parsed
 * URL: its `href`, the WHATWG serialisation, is what is stored, shown and called.
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
  checkTypedAsParsed(value, url);
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

/** A stored URL as the parser serialises it: endpoints stored before URLs were stored serialised are shown and compared so. */
export function serialisedWebhookUrl(stored: string): string {
  return URL.canParse(stored) ? new URL(stored).href : stored;
}
