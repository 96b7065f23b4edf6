import { DEFAULT_DNS_RESOLVER_URL } from "../../../src/webhooks/destination-check.ts";

/** A public address (documentation ranges would be refused): what every name not listed resolves to. */
export const PUBLIC_ADDRESS = "93.184.215.14";

export interface DnsStandIn {
  fetch: (input: RequestInfo, init?: RequestInit) => Promise<Response>;
  /** The DNS-over-HTTPS questions asked, as `name type`. */
  questions: string[];
}

/**
 * A stand-in for the DNS-over-HTTPS resolver (the JSON API), in front of `receiver`, which gets every
 * other request (the deliveries). `records` maps names to their addresses (A or AAAA by their form);
 * a name mapped to null does not exist (NXDOMAIN).
 */
export function dnsStandIn(
  receiver: (input: RequestInfo, init?: RequestInit) => Promise<Response> = async () => new Response("ok"),
  records: Record<string, string[] | null> = {},
  ttl = 300,
): DnsStandIn {
  const questions: string[] = [];
  return {
    questions,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (`${url.origin}${url.pathname}` !== DEFAULT_DNS_RESOLVER_URL) return receiver(input, init);
      const name = url.searchParams.get("name") ?? "";
      const type = url.searchParams.get("type");
      questions.push(`${name} ${type}`);
      if (request.headers.get("accept") !== "application/dns-json") return new Response("accept application/dns-json", { status: 400 });
      const addresses = name in records ? records[name] : [PUBLIC_ADDRESS];
      if (addresses === null) return Response.json({ Status: 3, Authority: [{ name, type: 6, TTL: ttl, data: "ns.example. hostmaster.example. 1 1 1 1 1" }] });
      const wanted = addresses!.filter((address) => (type === "AAAA") === address.includes(":"));
      return Response.json({ Status: 0, Answer: wanted.map((data) => ({ name, type: type === "AAAA" ? 28 : 1, TTL: ttl, data })) });
    },
  };
}
