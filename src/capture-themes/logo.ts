import { ApiError } from "../errors/api-error.ts";

export const MAX_LOGO_BYTES = 512 * 1024;

export type LogoType = "image/png" | "image/jpeg" | "image/webp" | "image/svg+xml";
const LOGO_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/webp", "image/svg+xml"];

const startsWith = (bytes: Uint8Array, prefix: number[], offset = 0) => prefix.every((byte, i) => bytes[offset + i] === byte);

/**
 * Reads the upload with a hard cap, whatever `Content-Length` says (a chunked body has none), and cancels
 * the rest of the stream when refusing it.
 */
export async function readLogoBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > MAX_LOGO_BYTES) {
    await request.body?.cancel();
    throw new ApiError("logo_too_large");
  }
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_LOGO_BYTES) {
      await reader.cancel();
      throw new ApiError("logo_too_large");
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The logo's real type, read from its bytes: PNG, JPEG and WebP by their magic numbers, SVG by its root
 * element and only when `isSafeSvg` accepts it. Anything else is refused.
 */
export function sniffLogo(bytes: Uint8Array): LogoType {
  if (bytes.length > MAX_LOGO_BYTES) throw new ApiError("logo_too_large");
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  const text = new TextDecoder().decode(bytes);
  if (/^\s*(<\?xml\s[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>/]/i.test(text)) {
    if (!isSafeSvg(text)) {
      throw new ApiError("logo_type_not_allowed", {
        detail: "The SVG contains scripts, event handlers, a DOCTYPE or entities, or references outside itself (only `#` links are allowed).",
      });
    }
    return "image/svg+xml";
  }
  throw new ApiError("logo_type_not_allowed");
}

/**
 * The declared `Content-Type`, when it names an image type, must agree with the bytes: a PNG sent as
 * `image/svg+xml` is a client bug or a trick, and is refused rather than silently relabelled. Other
 * declarations (none, `application/octet-stream`, the form type curl sends by default) say nothing about
 * the image, and the sniffed type stands.
 */
export function checkDeclaredLogoType(declared: string | null | undefined, sniffed: LogoType): void {
  const type = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  if (!type.startsWith("image/")) return;
  if (type !== sniffed) {
    const detail = LOGO_TYPES.includes(type)
      ? `The bytes are ${sniffed} but the Content-Type says ${type}.`
      : `${type} is not an accepted logo type (PNG, JPEG, WebP or SVG).`;
    throw new ApiError("logo_type_not_allowed", { detail });
  }
}

/** Numeric character references decoded, so that `&#106;avascript:` is seen for what it is. */
function decodeCharacterReferences(text: string): string {
  return text.replace(/&#(x[0-9a-f]+|[0-9]+);?/gi, (_, code: string) => {
    const point = code[0] === "x" || code[0] === "X" ? parseInt(code.slice(1), 16) : parseInt(code, 10);
    return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : "";
  });
}

// An element or attribute name may carry any namespace prefix (`<x:script xmlns:x="…svg">` is a script).
const P = String.raw`(?:[\w.-]+:)?`;
const UNSAFE_SVG: readonly RegExp[] = [
  new RegExp(String.raw`<${P}(script|foreignObject|iframe|embed|object|handler|listener)\b`, "i"),
  /<!(DOCTYPE|ENTITY)/i,
  /<\?xml-stylesheet/i,
  // Event handlers: `onload=`, `onclick =`, wherever the attribute starts.
  /(^|[\s"'/:])on[a-z]+\s*=/i,
  // Any link that is not to a fragment of the document itself (`href`, `xlink:href`, `src`), however its
  // value is written: double-quoted, single-quoted or unquoted (`href=https://…`, which an HTML parser
  // takes), with or without spaces around `=`. Whatever the value starts with, after an optional quote and
  // spaces, must be `#`.
  new RegExp(String.raw`(^|[\s"'/])${P}(href|src)\s*=\s*(?!["']?\s*#)`, "i"),
  // Animations that rewrite a link or a handler after the checks above, their value quoted or not.
  new RegExp(String.raw`attributeName\s*=\s*["']?\s*(${P}href|on)`, "i"),
  /xml:base/i,
  /javascript:|vbscript:|data:/i,
  // CSS: only `url(#fragment)`, no imports, no escapes that could spell either: not only hex ones
  // (`u\72 l(`), any backslash, since CSS reads `u\rl(` as `url(` and `@\import` as `@import`.
  /url\(\s*(?!["']?\s*#)/i,
  /@import|expression\s*\(/i,
  /\\/,
  // CSS functions that fetch a URL written as a plain string, without `url(`: `image-set("…" 1x)` (and its
  // `-webkit-` form) and `src("…")`.
  /image-set\s*\(|(^|[^\w-])src\s*\(/i,
];

/**
 * A deliberately strict allow-nothing-risky check rather than a rewriting sanitiser: a logo needs
 * shapes, paths, gradients and text, never code, entities or fetches, so refusing is simpler and safer
 * than cleaning. The capture page also serves logos with `nosniff` and a sandboxing CSP.
 */
export function isSafeSvg(text: string): boolean {
  const decoded = decodeCharacterReferences(text);
  return !UNSAFE_SVG.some((pattern) => pattern.test(decoded));
}
