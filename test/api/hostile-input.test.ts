import { describe, expect, it } from "vitest";
import { call, callJson, CAPTURE } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { tokenOf } from "./support/capture.ts";

const METHODS = ["post", "put", "patch"] as const;

/** Bodies no client should send; whatever the route, each must get a problem answer, never a 500. */
const hostileBodies = (properties: string[]): string[] => [
  "null",
  "[]",
  '"text"',
  "42",
  "{",
  '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
  "[".repeat(5000) + "]".repeat(5000),
  '{"a": "\\ud800"}',
  ...properties.flatMap((name) => [
    JSON.stringify({ [name]: {} }),
    JSON.stringify({ [name]: [1, 2] }),
    JSON.stringify({ [name]: null }),
    JSON.stringify({ [name]: "x".repeat(100_000) }),
    `{"${name}": 1e309}`,
    JSON.stringify({ [name]: -1 }),
  ]),
];

async function expectProblem(response: Response, label: string) {
  const text = await response.text();
  expect(response.status, `${label}: ${text.slice(0, 200)}`).toBeLessThan(500);
  if (response.status >= 400) expect(response.headers.get("Content-Type"), label).toContain("application/problem+json");
}

describe("hostile input never gets a 500", () => {
  it("on every documented route with a body", { timeout: 120_000 }, async () => {
    const org = await createOrganization({ rateLimit: 10_000 });
    const document = (await callJson("/openapi.json")).body;
    let sent = 0;
    const statuses = new Set<number>();
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        const schema = operation?.requestBody?.content?.["application/json"]?.schema;
        if (!schema) continue;
        const resolved = schema.$ref ? document.components.schemas[schema.$ref.split("/").pop()] : schema;
        const properties = Object.keys(resolved?.properties ?? {});
        const concrete = path.replaceAll(/\{[^}]+\}/g, "xyz_0000000000");
        for (const body of hostileBodies(properties)) {
          const response = await call(concrete, {
            key: org.testKey,
            method: method.toUpperCase(),
            rawBody: body,
            headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
          });
          statuses.add(response.status);
          await expectProblem(response, `${method} ${path} ${body.slice(0, 60)}`);
          sent++;
        }
      }
    }
    expect(sent).toBeGreaterThan(100);
    // The key works: answers come from the routes themselves, not from authentication.
    expect([...statuses]).not.toContain(401);
    expect([...statuses]).toContain(422);
  });

  it("on list filters and cursors", async () => {
    const org = await createOrganization({ rateLimit: 10_000 });
    const queries = [
      "limit=abc",
      "limit=-1",
      "limit=1e9",
      "cursor=%25%25%25",
      "cursor=eyJ4IjoxfQ",
      "created_after=not-a-date",
      "linked=maybe",
      "status=sealed&status=failed",
      "party=%00",
    ];
    for (const path of ["/v1/proofs", "/v1/events", "/v1/webhook-deliveries", "/v1/capture-templates"]) {
      for (const query of queries) {
        const response = await call(`${path}?${query}`, { key: org.testKey });
        expect(response.status, `${path}?${query}`).not.toBe(401);
        await expectProblem(response, `${path}?${query}`);
      }
    }
  });

  it("on the capture page's own routes", async () => {
    const org = await createOrganization({ rateLimit: 10_000 });
    const created = await createSession(org.testKey, baseSession());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const token = tokenOf(created.body.capture_url);
    for (const [path, properties] of [
      ["/files", ["step_id", "content_type", "size", "sha256", "capture"]],
      ["/complete", []],
    ] as const) {
      for (const body of hostileBodies([...properties])) {
        const response = await call(`${CAPTURE}/c/${token}${path}`, { method: "POST", rawBody: body, headers: { "Content-Type": "application/json" } });
        await expectProblem(response, `${path} ${body.slice(0, 60)}`);
      }
    }
  });
});
