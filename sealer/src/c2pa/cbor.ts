/** The small part of CBOR (RFC 8949) a COSE_Sign1 needs: integers, byte and text strings, arrays, maps, tags, null. */
export type CborValue = number | string | Uint8Array | null | CborValue[] | CborMap | CborTag;
export class CborMap {
  readonly entries: [number | string, CborValue][];
  constructor(entries: [number | string, CborValue][]) {
    this.entries = entries;
  }
}
export class CborTag {
  readonly tag: number;
  readonly value: CborValue;
  constructor(tag: number, value: CborValue) {
    this.tag = tag;
    this.value = value;
  }
}

function head(major: number, length: number): number[] {
  if (length < 24) return [(major << 5) | length];
  if (length < 0x100) return [(major << 5) | 24, length];
  if (length < 0x10000) return [(major << 5) | 25, length >> 8, length & 0xff];
  return [(major << 5) | 26, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
}

function encodeInto(value: CborValue, out: number[]): void {
  if (value === null) out.push(0xf6);
  else if (typeof value === "number") out.push(...(value >= 0 ? head(0, value) : head(1, -1 - value)));
  else if (typeof value === "string") {
    const bytes = new TextEncoder().encode(value);
    out.push(...head(3, bytes.length));
    for (const byte of bytes) out.push(byte);
  } else if (value instanceof Uint8Array) {
    out.push(...head(2, value.length));
    for (const byte of value) out.push(byte);
  } else if (Array.isArray(value)) {
    out.push(...head(4, value.length));
    for (const item of value) encodeInto(item, out);
  } else if (value instanceof CborMap) {
    out.push(...head(5, value.entries.length));
    for (const [key, item] of value.entries) {
      encodeInto(key, out);
      encodeInto(item, out);
    }
  } else {
    out.push(...head(6, value.tag));
    encodeInto(value.value, out);
  }
}

export function encodeCbor(value: CborValue): Uint8Array {
  const out: number[] = [];
  encodeInto(value, out);
  return Uint8Array.from(out);
}
