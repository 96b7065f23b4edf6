import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { GENERATED_FILE, renderTypes } from "../scripts/generate-types.ts";
import { loadOpenApiDocument } from "../scripts/openapi-document.ts";

const sdkPackage = JSON.parse(readFileSync(resolve(import.meta.dirname, "../package.json"), "utf8")) as {
  name: string;
  version: string;
  proofSeal: { apiVersion: string };
};

/** Routes the SDK leaves out on purpose: the supervision token's health details (not an API key's). */
const WITHOUT_METHOD = new Set(["getHealthDetails"]);

describe("the SDK's generated types", () => {
  it("are what the API's current /openapi.json generates (run `npm run generate --prefix sdk` when this fails)", async () => {
    const committed = readFileSync(GENERATED_FILE, "utf8");
    assert.ok(committed === (await renderTypes(await loadOpenApiDocument())), "sdk/src/generated/openapi.ts is stale: run npm run generate --prefix sdk");
  });

  it("go stale when a schema changes: a new field of Proof makes the check fail until regenerated", async () => {
    const document = (await loadOpenApiDocument()) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
    document.components.schemas.Proof!.properties.sdk_drift_probe = { type: "string", description: "A field the committed types do not have." };
    const rendered = await renderTypes(document);
    assert.notEqual(rendered, readFileSync(GENERATED_FILE, "utf8"));
    assert.match(rendered, /sdk_drift_probe\??: string/);
  });

  it("are named by the document itself: info.description points integrators at the package", async () => {
    const document = (await loadOpenApiDocument()) as { info: { description: string } };
    assert.ok(document.info.description.includes(`\`${sdkPackage.name}\``), document.info.description);
  });

  it("cover every route of the document with a method, listed in sdk/README.md", async () => {
    const document = (await loadOpenApiDocument()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const client = readFileSync(resolve(import.meta.dirname, "../src/client.ts"), "utf8");
    const readme = readFileSync(resolve(import.meta.dirname, "../README.md"), "utf8");
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (WITHOUT_METHOD.has(operation.operationId)) continue;
        assert.ok(client.includes(`"${operation.operationId}"`), `no SDK method calls ${operation.operationId}`);
        assert.ok(readme.includes(`\`${method.toUpperCase()} ${path}`), `sdk/README.md does not list ${method.toUpperCase()} ${path}`);
      }
    }
  });

  it("tie the package's major version to the API version the document declares", async () => {
    const document = (await loadOpenApiDocument()) as { info: { version: string } };
    assert.equal(sdkPackage.proofSeal.apiVersion, document.info.version);
    assert.equal(sdkPackage.version.split(".")[0], document.info.version);
  });
});
