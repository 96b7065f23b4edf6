import { ApiError } from "../errors/api-error.ts";
import { isLoopbackHost } from "../middleware/https-only.ts";

/** An allowed return origin: `https://host[:port]`, or `http://` on a loopback host for development. */
export function normaliseReturnOrigin(value: string, index: number): string {
  const field = `/allowed_return_origins/${index}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError("validation_failed", { field, detail: "Not a URL." });
  }
  const secure = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  if (!secure) throw new ApiError("validation_failed", { field, detail: "Origins use https (http only on loopback hosts)." });
  if (url.username || url.password) throw new ApiError("validation_failed", { field, detail: "No credentials in an origin." });
  const bare = `${url.protocol}//${url.host}`;
  if (value.replace(/\/$/, "").toLowerCase() !== bare.toLowerCase()) {
    throw new ApiError("validation_failed", { field, detail: "An origin is a scheme, a host and an optional port: no path, query or fragment." });
  }
  return url.origin;
}

/** The origin of a `return_url` is allowed when it is in the organization's list. */
export function isReturnUrlAllowed(returnUrl: URL, allowedOrigins: readonly string[]): boolean {
  return allowedOrigins.includes(returnUrl.origin);
}
