/**
 * A signed JPEG without its APP11 (0xFFEB) segments, where C2PA stores its manifest, up to the image data:
 * the bytes the device sent (the same operation as the python3 command of VERIFY.md).
 */
export function jpegWithoutApp11(signed: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [signed.subarray(0, 2)];
  let at = 2;
  while (at + 4 <= signed.length && signed[at] === 0xff && signed[at + 1] !== 0xda) {
    const size = 2 + ((signed[at + 2]! << 8) | signed[at + 3]!);
    if (signed[at + 1] !== 0xeb) parts.push(signed.subarray(at, at + size));
    at += size;
  }
  parts.push(signed.subarray(at));
  return Buffer.concat(parts);
}
