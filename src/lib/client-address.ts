/**
 * The part of a client address a per-address limit counts on. An IPv4 address is one client. An IPv6
 * client usually holds a whole /64 (RFC 6177; SLAAC and privacy addresses rotate within it), so keying on
 * the full address would let one client take a fresh budget with each address: IPv6 counts per /64.
 */
export function rateLimitAddressKey(address: string): string {
  const trimmed = address.trim().toLowerCase();
  if (!trimmed.includes(":")) return trimmed;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(trimmed);
  if (mapped) return mapped[1]!;
  const groups = expandIpv6(trimmed.split("%")[0]!);
  if (groups === null) return trimmed;
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros; null when it is not one. */
function expandIpv6(address: string): string[] | null {
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const part = (text: string | undefined) => (text ? text.split(":") : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  // An embedded IPv4 tail (e.g. 64:ff9b::192.0.2.1) stands for two groups; only the first four matter here.
  const last = tail.length > 0 ? tail : head;
  if (last.length > 0 && last[last.length - 1]!.includes(".")) last.splice(last.length - 1, 1, "0", "0");
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill("0"), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => group.replace(/^0+(?=.)/, ""));
}
