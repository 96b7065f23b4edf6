import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call } from "./support/client.ts";
import { issueDeleteUrl, issueDownloadUrl } from "../../src/storage/objects/signed-urls.ts";

describe("the sealer's discard URL (local stand-in for a presigned DELETE)", () => {
  it("deletes the one signed copy it names, again without error, and a read URL cannot delete", async () => {
    const key = `proofs/prf_discard/runs/run_${crypto.randomUUID()}/files/med_1.jpg`;
    const other = `${key}.other`;
    await env.FILES.put(key, "signed copy");
    await env.FILES.put(other, "another copy");

    const readUrl = await issueDownloadUrl(env, key, 60);
    const refused = await call(readUrl.url, { method: "DELETE" });
    expect(refused.status).toBe(403);
    await refused.body?.cancel();
    expect(await env.FILES.head(key)).not.toBeNull();

    const discard = await issueDeleteUrl(env, key, 60);
    expect(discard.method).toBe("DELETE");
    for (const attempt of [1, 2]) {
      const response = await call(discard.url, { method: "DELETE" });
      expect(response.status, `attempt ${attempt}`).toBe(204);
      await response.body?.cancel();
    }
    expect(await env.FILES.head(key)).toBeNull();
    expect(await env.FILES.head(other)).not.toBeNull();
    await env.FILES.delete(other);
  });
});
