import { ApiError } from "../errors/api-error.ts";

export const MAX_LOGO_BYTES = 512 * 1024;

const startsWith = (bytes: Uint8Array, prefix: number[], offset = 0) => prefix.every((byte, i) => bytes[offset + i] === byte);

/**
 * The logo's real type, sniffed from its bytes (the declared Content-Type is not trusted). SVG is accepted
 * only without anything that could run or fetch: scripts, event handlers, foreignObject, entities,
 * external references.
 */
export function sniffLogo(bytes: Uint8Array): "image/png" | "image/jpeg" | "image/webp" | "image/svg+xml" {
  if (bytes.length > MAX_LOGO_BYTES) throw new ApiError("logo_too_large");
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  const text = new TextDecoder().decode(bytes);
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(text)) {
    const unsafe =
      /<script/i.test(text) ||
      /<foreignObject/i.test(text) ||
      /<!ENTITY|<!DOCTYPE/i.test(text) ||
      /\son[a-z]+\s*=/i.test(text) ||
      /javascript:/i.test(text) ||
      /(?:xlink:)?href\s*=\s*["'](?!#)/i.test(text) ||
      /url\(\s*["']?(?!#)/i.test(text) ||
      /@import/i.test(text);
    if (unsafe) throw new ApiError("logo_type_not_allowed", { detail: "The SVG contains scripts, event handlers or external references." });
    return "image/svg+xml";
  }
  throw new ApiError("logo_type_not_allowed");
}
