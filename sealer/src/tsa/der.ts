/**
 * The little DER (X.690) the simulated authorities write their tokens with: definite lengths, the parts
 * given already encoded. Writing a token this way costs a few allocations where pkijs's object model cost
 * about 2.5 ms of CPU and 1.4 MB of garbage per token, 11 tokens per proof (issue 17).
 */
export function tlv(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const head =
    length < 0x80
      ? [tag, length]
      : length < 0x100
        ? [tag, 0x81, length]
        : length < 0x10000
          ? [tag, 0x82, length >> 8, length & 0xff]
          : [tag, 0x83, length >> 16, (length >> 8) & 0xff, length & 0xff];
  const out = new Uint8Array(head.length + length);
  out.set(head);
  let at = head.length;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export const sequence = (...parts: Uint8Array[]) => tlv(0x30, ...parts);
export const set = (...parts: Uint8Array[]) => tlv(0x31, ...parts);
export const octetString = (bytes: Uint8Array) => tlv(0x04, bytes);
/** A context-specific constructed tag: `[n]` EXPLICIT, or an IMPLICIT SET/SEQUENCE re-tagged. */
export const context = (n: number, ...parts: Uint8Array[]) => tlv(0xa0 | n, ...parts);

/** An INTEGER from its big-endian two's-complement bytes, shortened to the minimal form DER requires. */
export function integer(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && ((bytes[start] === 0 && bytes[start + 1]! < 0x80) || (bytes[start] === 0xff && bytes[start + 1]! >= 0x80))) start++;
  return tlv(0x02, bytes.subarray(start));
}

export const smallInteger = (value: number) => integer(new Uint8Array([value]));

export function objectIdentifier(dotted: string): Uint8Array {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const base128 = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) base128.unshift((value & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, new Uint8Array(bytes));
}

/**
 * GeneralizedTime in UTC with milliseconds, written as RFC 3161 §2.4.2 requires: trailing zeros of the
 * fraction omitted, and the fraction wholly omitted when it is zero.
 */
export function generalizedTime(date: Date): Uint8Array {
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const fraction = date.getUTCMilliseconds() === 0 ? "" : `.${pad(date.getUTCMilliseconds(), 3).replace(/0+$/, "")}`;
  const text = `${pad(date.getUTCFullYear(), 4)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}${fraction}Z`;
  return tlv(0x18, new TextEncoder().encode(text));
}
