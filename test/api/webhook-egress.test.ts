import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { dnsStandIn, PUBLIC_ADDRESS } from "./support/dns-stand-in.ts";
import { WEBHOOK_RETRY_DELAYS_SECONDS } from "../../src/webhooks/retry-schedule.ts";
import { attemptDelivery } from "../../src/webhooks/attempt.ts";
import { publishEvents } from "../../src/webhooks/publish-events.ts";
import { isPublicAddress } from "../../src/webhooks/public-address.ts";
import { database } from "../../src/db/client.ts";
import { eventInsert } from "../../src/storage/events.ts";
import { sampleEvent } from "./support/events.ts";
import { workerContext } from "../../src/domain/context.ts";

afterEach(() => vi.unstubAllGlobals());

/** A fresh endpoint on its own host (verdicts are cached per host) and one delivery to it. */
async function deliveryTo(host: string, key?: string) {
  const org = await createOrganization({ rateLimit: 1000 });
  const endpoint = await callJson("/v1/webhook-endpoints", { key: key ?? org.testKey, body: { url: `https://${host}/hook`, events: ["proof.sealed"] } });
  expect(endpoint.status).toBe(201);
  const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  await eventInsert(
    database(env.DB),
    sampleEvent({ organizationId: org.id, mode: "test", createdAt: new Date().toISOString() }, "proof.sealed", { proof_id: "prf_egress" }),
    eventId,
  );
  await publishEvents(workerContext(env), [eventId], new Date(), async () => undefined);
  const row = await env.DB.prepare("SELECT id FROM webhook_deliveries WHERE event_id = ?").bind(eventId).first<{ id: string }>();
  return { org, endpointId: endpoint.body.id as string, deliveryId: row!.id };
}

const unique = (name: string) => `${crypto.randomUUID().slice(0, 8)}.${name}`;

describe("which resolved addresses are public", () => {
  it("refuses private, loopback, link-local, CGNAT, unique-local, metadata and reserved addresses, in every spelling", () => {
    for (const address of [
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "127.0.0.1",
      "127.255.0.9",
      "0.0.0.0",
      "169.254.169.254",
      "100.64.0.1",
      "100.127.255.254",
      "192.0.0.170",
      "198.18.0.1",
      "224.0.0.1",
      "255.255.255.255",
      "192.0.2.1",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd00:ec2::254",
      "ff02::1",
      "::ffff:10.0.0.1",
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "64:ff9b::127.0.0.1",
      "2002:7f00:1::1",
      "2001:db8::1",
      "2001::1",
      "not an address",
      "1.2.3",
      "::g",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of [
      PUBLIC_ADDRESS,
      "1.1.1.1",
      "8.8.8.8",
      "100.128.0.1",
      "172.32.0.1",
      "2606:4700:4700::1111",
      "2a00:1450:4007:80e::200e",
      "::ffff:1.1.1.1",
      "2002:0808:0808::1",
    ]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });
});

describe("webhook egress", () => {
  it("refuses a host whose DNS answer is internal, sends nothing and says why in the delivery log", async () => {
    const cases: [string, string[]][] = [
      [unique("169.254.169.254.nip.io"), ["169.254.169.254"]],
      [unique("127.0.0.1.nip.io"), ["127.0.0.1"]],
      [unique("localtest.me"), ["127.0.0.1", "::1"]],
      [unique("cgnat.example.com"), ["100.64.12.1"]],
      [unique("ula.example.com"), [PUBLIC_ADDRESS, "fd00:ec2::254"]],
      [unique("mixed.example.com"), [PUBLIC_ADDRESS, "10.0.0.8"]],
    ];
    for (const [host, addresses] of cases) {
      const sent: string[] = [];
      const dns = dnsStandIn(
        async (input) => {
          sent.push(new Request(input).url);
          return new Response("secret metadata");
        },
        { [host]: addresses },
      );
      vi.stubGlobal("fetch", dns.fetch);
      const { org, deliveryId } = await deliveryTo(host);
      expect(await attemptDelivery(workerContext(env), deliveryId)).toEqual({ kind: "retry", delaySeconds: 60 });
      expect(sent, host).toEqual([]);
      expect(dns.questions).toEqual(expect.arrayContaining([`${host} A`, `${host} AAAA`]));
      const log = await callJson(`/v1/webhook-deliveries/${deliveryId}`, { key: org.testKey });
      expect(log.body).toMatchObject({ status: "retrying", response_status: null, response_body_start: null });
      expect(log.body.failure_reason).toMatch(new RegExp(`^refused: ${host.replaceAll(".", "\\.")} resolves to .*non-public address$`));
      expect(log.body.attempts_log[0].failure_reason).toBe(log.body.failure_reason);
    }
  });

  it("refuses a name that does not exist, and sends to a public one", async () => {
    const missing = unique("gone.example.com");
    const good = unique("hooks.example.com");
    const sent: string[] = [];
    vi.stubGlobal(
      "fetch",
      dnsStandIn(
        async (input) => {
          sent.push(new Request(input).url);
          return new Response("ok");
        },
        { [missing]: null },
      ).fetch,
    );
    const refused = await deliveryTo(missing);
    await attemptDelivery(workerContext(env), refused.deliveryId);
    expect((await callJson(`/v1/webhook-deliveries/${refused.deliveryId}`, { key: refused.org.testKey })).body.failure_reason).toBe(
      `refused: ${missing} has no address in DNS`,
    );
    const delivered = await deliveryTo(good);
    expect(await attemptDelivery(workerContext(env), delivered.deliveryId)).toEqual({ kind: "done" });
    expect(sent).toEqual([`https://${good}/hook`]);
  });

  it("asks the resolver once per answer's TTL", async () => {
    const host = unique("cached.example.com");
    const dns = dnsStandIn(async () => new Response("ok"), {}, 120);
    vi.stubGlobal("fetch", dns.fetch);
    const first = await deliveryTo(host);
    const second = await deliveryTo(host);
    const now = Date.now();
    await attemptDelivery(workerContext(env), first.deliveryId, new Date(now));
    await attemptDelivery(workerContext(env), second.deliveryId, new Date(now + 119_000));
    expect(dns.questions).toEqual([`${host} A`, `${host} AAAA`]);
    const third = await deliveryTo(host);
    await attemptDelivery(workerContext(env), third.deliveryId, new Date(now + 121_000));
    expect(dns.questions).toHaveLength(4);
  });

  it("does not send when the resolver cannot answer, retries later, and asks again then", async () => {
    const host = unique("unresolvable.example.com");
    let resolverUp = false;
    const sent: string[] = [];
    const dns = dnsStandIn(async (input) => {
      sent.push(new Request(input).url);
      return new Response("ok");
    });
    vi.stubGlobal("fetch", async (input: RequestInfo, init?: RequestInit) =>
      !resolverUp && new Request(input).url.startsWith("https://cloudflare-dns.com/") ? new Response("busy", { status: 503 }) : dns.fetch(input, init),
    );
    const { org, deliveryId } = await deliveryTo(host);
    expect((await attemptDelivery(workerContext(env), deliveryId)).kind).toBe("retry");
    expect((await callJson(`/v1/webhook-deliveries/${deliveryId}`, { key: org.testKey })).body.failure_reason).toBe(
      `DNS resolution failed for ${host}: resolver answered HTTP 503`,
    );
    expect(sent).toEqual([]);
    resolverUp = true;
    // At the retry's due time (a message well before it sends nothing, ADR 0050).
    expect(await attemptDelivery(workerContext(env), deliveryId, new Date(Date.now() + WEBHOOK_RETRY_DELAYS_SECONDS[0] * 1000))).toEqual({ kind: "done" });
    expect(sent).toEqual([`https://${host}/hook`]);
  });

  it("uses WEBHOOK_DNS_RESOLVER_URL when set", async () => {
    const host = unique("other-resolver.example.com");
    const asked: string[] = [];
    vi.stubGlobal("fetch", async (input: RequestInfo) => {
      const url = new URL(new Request(input).url);
      if (url.origin === "https://dns.internal-resolver.example") {
        asked.push(url.searchParams.get("type")!);
        return Response.json({ Status: 0, Answer: [{ name: host, type: 1, TTL: 60, data: "10.9.9.9" }] });
      }
      return new Response("ok");
    });
    const { org, deliveryId } = await deliveryTo(host);
    await attemptDelivery(workerContext({ ...env, WEBHOOK_DNS_RESOLVER_URL: "https://dns.internal-resolver.example/resolve" }), deliveryId);
    expect(asked.sort()).toEqual(["A", "AAAA"]);
    expect((await callJson(`/v1/webhook-deliveries/${deliveryId}`, { key: org.testKey })).body.failure_reason).toMatch(/resolves to 10\.9\.9\.9/);
  });

  it("keeps WEBHOOK_RESOLVE working for local receivers: no DNS question, plain HTTP to the loopback address given", async () => {
    const host = unique("hooks-dev.example.com");
    const dns = dnsStandIn(
      async (input) => {
        sent.push(new Request(input).url);
        return new Response("ok");
      },
      { [host]: ["127.0.0.1"] },
    );
    const sent: string[] = [];
    vi.stubGlobal("fetch", dns.fetch);
    const { deliveryId } = await deliveryTo(host);
    expect(await attemptDelivery(workerContext({ ...env, WEBHOOK_RESOLVE: `${host}:443=127.0.0.1:9999` }), deliveryId)).toEqual({ kind: "done" });
    expect(dns.questions).toEqual([]);
    expect(sent).toEqual(["http://127.0.0.1:9999/hook"]);
  });
});

describe("manual retries of a delivery", () => {
  const retry = (key: string, id: string) => callJson(`/v1/webhook-deliveries/${id}/retry`, { key, method: "POST" });
  const setStatus = (id: string, status: string) => env.DB.prepare("UPDATE webhook_deliveries SET status = ? WHERE id = ?").bind(status, id).run();

  it("are refused for a pending or succeeded delivery, and allowed for an abandoned or retrying one", async () => {
    vi.stubGlobal("fetch", dnsStandIn(async () => new Response("down", { status: 500 })).fetch);
    const { org, deliveryId } = await deliveryTo(unique("retry-states.example.com"));
    expect((await retry(org.testKey, deliveryId)).body).toMatchObject({ status: 409, code: "webhook_delivery_not_retryable" });
    await setStatus(deliveryId, "succeeded");
    expect((await retry(org.testKey, deliveryId)).body).toMatchObject({
      status: 409,
      code: "webhook_delivery_not_retryable",
      detail: "The delivery is succeeded.",
    });
    await setStatus(deliveryId, "abandoned");
    const queued = await retry(org.testKey, deliveryId);
    expect(queued.status).toBe(202);
    expect(queued.body.status).toBe("pending");
    await setStatus(deliveryId, "retrying");
    expect((await retry(org.testKey, deliveryId)).status).toBe(202);
  });

  // Issue 28: a retry to a disabled endpoint was answered 202, then abandoned at once as endpoint_disabled.
  it("are refused with 409 when the endpoint is disabled or deleted, and leave the delivery as it was", async () => {
    vi.stubGlobal("fetch", dnsStandIn(async () => new Response("down", { status: 500 })).fetch);
    const { org, endpointId, deliveryId } = await deliveryTo(unique("retry-disabled.example.com"));
    await setStatus(deliveryId, "abandoned");
    await callJson(`/v1/webhook-endpoints/${endpointId}`, { key: org.testKey, method: "PATCH", body: { status: "disabled" } });
    expect((await retry(org.testKey, deliveryId)).body).toMatchObject({ status: 409, code: "webhook_endpoint_disabled" });
    const row = await env.DB.prepare("SELECT status FROM webhook_deliveries WHERE id = ?").bind(deliveryId).first<{ status: string }>();
    expect(row?.status).toBe("abandoned");
    await callJson(`/v1/webhook-endpoints/${endpointId}`, { key: org.testKey, method: "PATCH", body: { status: "active" } });
    expect((await retry(org.testKey, deliveryId)).status).toBe(202);
    await setStatus(deliveryId, "abandoned");
    expect((await callJson(`/v1/webhook-endpoints/${endpointId}`, { key: org.testKey, method: "DELETE" })).status).toBe(204);
    expect((await retry(org.testKey, deliveryId)).body).toMatchObject({ status: 409, code: "webhook_endpoint_deleted" });
  });

  it("queue a delivery once when two retries race", async () => {
    vi.stubGlobal("fetch", dnsStandIn(async () => new Response("down", { status: 500 })).fetch);
    const { org, deliveryId } = await deliveryTo(unique("retry-race.example.com"));
    await setStatus(deliveryId, "abandoned");
    const answers = await Promise.all([retry(org.testKey, deliveryId), retry(org.testKey, deliveryId)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
  });

  it("are limited to 20 per endpoint per hour, whatever the key's own rate", async () => {
    vi.stubGlobal("fetch", dnsStandIn(async () => new Response("down", { status: 500 })).fetch);
    const { org, endpointId, deliveryId } = await deliveryTo(unique("retry-flood.example.com"));
    for (let i = 0; i < 20; i++) {
      await setStatus(deliveryId, "abandoned");
      expect((await retry(org.testKey, deliveryId)).status, `retry ${i + 1}`).toBe(202);
    }
    await setStatus(deliveryId, "abandoned");
    const refused = await retry(org.testKey, deliveryId);
    expect(refused.body).toMatchObject({ status: 429, code: "rate_limited" });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(60);
    // The budget is the endpoint's: another endpoint's deliveries can still be retried.
    const other = await deliveryTo(unique("retry-other.example.com"));
    expect(other.endpointId).not.toBe(endpointId);
    await setStatus(other.deliveryId, "abandoned");
    expect((await retry(other.org.testKey, other.deliveryId)).status).toBe(202);
  });
});
