/**
 * Whether an address a webhook host resolves to is on the public Internet. Everything else (private,
 * loopback, link-local with the cloud metadata address 169.254.169.254, carrier-grade NAT, unique-local
 * IPv6 with fd00:ec2::254, documentation, multicast, reserved) would let a tenant make this service
 * call inside a network and read the answer's first KiB in the delivery log.
 */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIpv4(address);
  if (v4 !== null) return isPublicIpv4(v4);
  const v6 = parseIpv6(address);
  return v6 !== null && isPublicIpv6(v6);
}

/** IPv4 ranges that are not public (RFC 6890 and the IANA special-purpose registry), as [first octets, prefix length]. */
const NON_PUBLIC_V4: readonly [number[], number][] = [
  [[0], 8], // "this network"
  [[10], 8], // private
  [[100, 64], 10], // carrier-grade NAT
  [[127], 8], // loopback
  [[169, 254], 16], // link-local, cloud metadata
  [[172, 16], 12], // private
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2], 24], // documentation
  [[192, 88, 99], 24], // 6to4 relay anycast
  [[192, 168], 16], // private
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24], // documentation
  [[203, 0, 113], 24], // documentation
  [[224], 4], // multicast
  [[240], 4], // reserved, broadcast
];

function parseIpv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return null;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function isPublicIpv4(value: number): boolean {
  return !NON_PUBLIC_V4.some(([octets, bits]) => {
    const base = [...octets, 0, 0, 0, 0].slice(0, 4).reduce((sum, octet) => sum * 256 + octet, 0);
    const size = 2 ** (32 - bits);
    return value >= base && value < base + size;
  });
}

/** Eight 16-bit groups, or null when the text is not an IPv6 address. */
function parseIpv6(text: string): number[] | null {
  let rest = text
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  let tail: number[] = [];
  // A dotted IPv4 tail (`::ffff:10.0.0.1`) stands for the last two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (dotted !== null) {
    const v4 = parseIpv4(dotted[2]!);
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    rest = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = rest.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]!);
  const back = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...head, ...back].some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return null;
  const explicit = head.length + back.length + tail.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return null;
  const zeros = halves.length === 2 ? new Array<number>(8 - explicit).fill(0) : [];
  return [...head.map((group) => parseInt(group, 16)), ...zeros, ...back.map((group) => parseInt(group, 16)), ...tail];
}

function isPublicIpv6(groups: number[]): boolean {
  const [a, b] = groups as [number, number];
  const embeddedV4 = (high: number, low: number) => groups[high]! * 65536 + groups[low]!;
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the IPv4 address they carry.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return isPublicIpv4(embeddedV4(6, 7));
  if (a === 0x64 && b === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return isPublicIpv4(embeddedV4(6, 7));
  // 6to4 (2002::/16) carries its IPv4 address in the next 32 bits.
  if (a === 0x2002) return isPublicIpv4(embeddedV4(1, 2));
  // Only global unicast (2000::/3) is public: this excludes ::, ::1, unique-local fc00::/7 (and with it
  // fd00:ec2::254), link-local fe80::/10, multicast ff00::/8 and the rest of the reserved space.
  if ((a & 0xe000) !== 0x2000) return false;
  // Within it: Teredo 2001::/32, ORCHID and other IETF assignments 2001::/23, documentation 2001:db8::/32, 3fff::/20.
  if (a === 0x2001 && b < 0x0200) return false;
  if (a === 0x2001 && b === 0x0db8) return false;
  if (a === 0x3fff && b < 0x1000) return false;
  return true;
}
