import { describe, expect, it } from "vitest";
import { parseRightsOption } from "../../scripts/lib/rights-option.ts";
import { callJson } from "./support/client.ts";
import { createKey, createOrganization } from "./support/factories.ts";

/** What `npm run admin -- create-key --rights <value>` sends, issued through the operator API, then read back with GET /v1/me. */
async function rightsIssuedFor(value: string | undefined) {
  const org = await createOrganization();
  const rights = parseRightsOption(value);
  const key = await createKey(org.id, { mode: "test", ...(rights === undefined ? {} : { rights }) });
  return (await callJson("/v1/me", { key: key.key })).body.rights as string[];
}

describe("the admin CLI's --rights option", () => {
  // Issue 28: `--rights ""` was taken for an absent option and issued a key with all five rights.
  it('issues no rights for --rights "", as the API does for rights: []', async () => {
    expect(await rightsIssuedFor("")).toEqual([]);
    expect(await rightsIssuedFor("  ")).toEqual([]);
  });

  it("issues the API's default, all five rights, when the option is absent", async () => {
    expect((await rightsIssuedFor(undefined)).sort()).toEqual(["create_proof", "manage_settings", "manage_templates", "manage_webhooks", "read_proof"]);
  });

  it("issues the rights named, and refuses an empty name between commas", async () => {
    expect(await rightsIssuedFor("read_proof, create_proof")).toEqual(["read_proof", "create_proof"]);
    expect(() => parseRightsOption("read_proof,,create_proof")).toThrow(/empty name/);
    expect(() => parseRightsOption("read_proof,")).toThrow(/empty name/);
  });
});
