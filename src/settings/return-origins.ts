import { ApiError } from "../errors/api-error.ts";
import { hasEmptyLabel, isLoopbackHost } from "../lib/host-names.ts";

export const MAX_RETURN_ORIGINS = 20;

/**
 * An allowed return origin: `https://host[:port]`, or `http://` on a loopback host (local development;
 * whether a session may use it is decided at creation, where only test keys may send `http://localhost`).
 * Normalised to `URL.origin`: lowercase, punycode host, default port dropped. A trailing `/` is tolerated,
 * any other path, a query, a fragment, credentials or a wildcard host (`https://*.example.com`) are refused.
 */
export function normaliseReturnOrigin(value: string, index: number): string {
  const field = `/allowed_return_origins/${index}`;
  const refuse = (detail: string) => new ApiError("validation_failed", { field, detail });
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) throw refuse("An origin is written scheme://host[:port], such as https://shop.example.");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse("Not a URL.");
  }
  if (hasEmptyLabel(url.hostname)) throw refuse("A host name has no empty label.");
  // The URL parser takes `*` as an ordinary host character: `https://*.example.com` would be stored as is
  // and match nothing, while it reads as a wildcard (issue 28). Only DNS host characters are taken.
  if (!url.hostname.startsWith("[") && !/^[a-z0-9._-]+$/.test(url.hostname)) {
    throw refuse("A host name is letters, digits, hyphens and dots: wildcards such as https://*.example.com are not supported, list each origin.");
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  if (!secure) throw refuse("Origins use https (http only on loopback hosts).");
  if (url.username !== "" || url.password !== "" || value.includes("@")) {
    throw refuse("No credentials in an origin.");
  }
  if (url.pathname !== "/" || /[?#]/.test(value) || !/^[^/]+\/\/[^/]+\/?$/.test(value)) {
    throw refuse("An origin is a scheme, a host and an optional port: no path, query or fragment.");
  }
  return url.origin;
}

/** The origin of a `return_url` is allowed when it is in the organization's list. */
export function isReturnUrlAllowed(returnUrl: URL, allowedOrigins: readonly string[]): boolean {
  return allowedOrigins.includes(returnUrl.origin);
}
