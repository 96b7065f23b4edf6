import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { API, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";

/*
 * Adding a webhook event touches one file: src/events/catalogue.ts. Here that file gets one more entry (the
 * mock below is the whole change), and a freshly loaded Worker records it, publishes it, samples it as a
 * test event, accepts it in subscriptions and the event log, and documents it in /openapi.json's webhooks.
 */
vi.mock(import("../../src/events/catalogue.ts"), async (importOriginal) => {
  const catalogue = await importOriginal();
  const { z } = await import("@hono/zod-openapi");
  const { t } = await import("../../src/openapi/translations.ts");
  const { defineEvent } = await import("../../src/events/define.ts");
  const fictitiousHappened = defineEvent({
    type: "fictitious.happened",
    summary: t("Something fictitious happened", "Quelque chose de fictif est arrivé"),
    description: t("Only in this test.", "Seulement dans ce test."),
    fields: z.object({
      thing_id: z.string().openapi({ description: t("The fictitious thing.", "La chose fictive.") }),
      count: z
        .number()
        .int()
        .openapi({ description: t("How many times.", "Combien de fois.") }),
      happened_at: z.string().openapi({ description: t("When it happened.", "Quand c'est arrivé.") }),
    }),
    sample: (now) => ({ thing_id: "fic_sample", count: 3, happened_at: now }),
  });
  return { ...catalogue, EVENT_CATALOGUE: [...catalogue.EVENT_CATALOGUE, fictitiousHappened] as unknown as typeof catalogue.EVENT_CATALOGUE };
});

/** The Worker and the modules it uses, loaded again so that every one of them sees the extended catalogue. */
async function freshWorker() {
  vi.resetModules();
  // The API host's app, not src/index.ts: loading the Worker's entry again would reset its Durable Objects.
  const app = (await import("../../src/routes/index.ts")).createApiApp();
  const fetch = (request: Request) => app.fetch(request, env, createExecutionContext());
  const call = async (path: string, key: string, body?: unknown) => {
    const init: RequestInit = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${key}`);
    const response = await fetch(new Request(`${API}${path}`, { ...init, headers }));
    return { status: response.status, body: (await response.json()) as any };
  };
  return {
    call,
    openapi: async (lang: "en" | "fr") => (await fetch(new Request(`${API}/openapi.json${lang === "fr" ? "?lang=fr" : ""}`))).json<any>(),
    catalogue: await import("../../src/events/catalogue.ts"),
    record: await import("../../src/storage/events.ts"),
    publish: await import("../../src/webhooks/publish-events.ts"),
    db: (await import("../../src/db/client.ts")).database(env.DB),
  };
}

const subscription = { url: "https://hooks.example.com/fictitious", events: ["fictitious.happened"] };

// The tests that read the unmodified Worker run first: once modules are reset, every later load sees the mock.
describe("the event catalogue", () => {
  it("knows nothing of an event that is not in it", async () => {
    const org = await createOrganization();
    const refused = await callJson("/v1/webhook-endpoints", { key: org.testKey, body: subscription });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "validation_failed", field: "/events/0" });
  });

  it("documents every event it sends as a webhook, and no reserved one", async () => {
    const { EVENT_CATALOGUE, RESERVED_EVENTS } = await vi.importActual<typeof import("../../src/events/catalogue.ts")>("../../src/events/catalogue.ts");
    const document = (await callJson("/openapi.json")).body;
    expect(Object.keys(document.webhooks)).toEqual(EVENT_CATALOGUE.map((definition) => definition.type));
    for (const reserved of RESERVED_EVENTS) expect(document.webhooks[reserved]).toBeUndefined();
    expect(Object.keys(document.components.schemas.ProofSealedEvent.properties)).toEqual([
      "event",
      "proof_id",
      "session_id",
      "external_reference",
      "party",
      "stage",
      "compare_to",
      "manifest_sha256",
      "timestamp",
      "sealed_at",
      "signals",
      "test",
    ]);
  });

  it("has a sample for each event that its own body schema accepts", async () => {
    const { EVENT_CATALOGUE } = await vi.importActual<typeof import("../../src/events/catalogue.ts")>("../../src/events/catalogue.ts");
    for (const definition of EVENT_CATALOGUE)
      expect(definition.fields.safeParse(definition.sample(new Date().toISOString())).success, definition.type).toBe(true);
  });
  it("is the only place an event is declared: one more entry is recorded, published, sampled, subscribable and documented", async () => {
    const fresh = await freshWorker();
    // Made after the reset: a Durable Object first called before it would be invalidated by it.
    const org = await createOrganization();
    const fictitious = fresh.catalogue.EVENT_CATALOGUE.find((definition) => definition.type === ("fictitious.happened" as string));
    expect(fictitious).toBeDefined();

    const endpoint = await fresh.call("/v1/webhook-endpoints", org.testKey, subscription);
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.events).toEqual(["fictitious.happened"]);

    // A test event carries the catalogue's sample.
    const test = await fresh.call(`/v1/webhook-endpoints/${endpoint.body.id}/test`, org.testKey, { event: "fictitious.happened" });
    expect(test.status).toBe(202);
    const sampled = await fresh.call(`/v1/webhook-deliveries/${test.body.delivery_id}`, org.testKey);
    expect(JSON.parse(sampled.body.request_body)).toEqual({
      event: "fictitious.happened",
      thing_id: "fic_sample",
      count: 3,
      happened_at: expect.any(String),
      test: true,
    });

    // Recorded through its builder, published to the subscribed endpoint with its body in the declared order.
    const createdAt = new Date().toISOString();
    const event = fictitious!.build({ organizationId: org.id, mode: "test", createdAt }, { happened_at: createdAt, count: 7, thing_id: "fic_1" } as never);
    const eventId = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
    await fresh.record.eventInsert(fresh.db, event as never, eventId);
    const queued: string[] = [];
    await fresh.publish.publishEvents({ env, db: fresh.db }, [eventId], new Date(), async (ids) => queued.push(...ids));
    expect(queued).toHaveLength(1);
    const delivered = await fresh.call(`/v1/webhook-deliveries/${queued[0]}`, org.testKey);
    expect(delivered.body.request_body).toBe(`{"event":"fictitious.happened","thing_id":"fic_1","count":7,"happened_at":"${createdAt}"}`);
    const log = await fresh.call("/v1/events?type=fictitious.happened", org.testKey);
    expect(log.status).toBe(200);
    expect(log.body.data.map((entry: any) => entry.id)).toEqual([eventId]);

    // Documented in both languages as a webhook of the OpenAPI 3.1 document.
    for (const lang of ["en", "fr"] as const) {
      const document = await fresh.openapi(lang);
      const webhook = document.webhooks["fictitious.happened"].post;
      expect(webhook.summary).toBe(lang === "en" ? "Something fictitious happened" : "Quelque chose de fictif est arrivé");
      expect(webhook.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/FictitiousHappenedEvent" });
      const body = document.components.schemas.FictitiousHappenedEvent;
      expect(Object.keys(body.properties)).toEqual(["event", "thing_id", "count", "happened_at", "test"]);
      expect(body.properties.thing_id.description).toBe(lang === "en" ? "The fictitious thing." : "La chose fictive.");
      expect(body.required).toEqual(["event", "thing_id", "count", "happened_at"]);
    }
  });
});
