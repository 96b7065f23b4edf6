import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call } from "./support/client.ts";
import { database } from "../../src/db/client.ts";
import { trustAnchorUpserts } from "../../src/storage/trust-anchors.ts";
import { rootFingerprints } from "../../shared/trust-anchors.ts";
import { FIXTURE_CHAIN_PEM, OTHER_ROOT_PEM } from "./fixtures/sealed-proof.ts";

describe("GET /v1/public/trust-anchors", () => {
  it("lists every root proofs were sealed under once, the latest of each kind and mode as current, with openssl's fingerprint", async () => {
    const db = database(env.DB);
    const [first] = await rootFingerprints(FIXTURE_CHAIN_PEM);
    const [second] = await rootFingerprints(OTHER_ROOT_PEM);
    await db.batch([...trustAnchorUpserts(db, [{ kind: "timestamp_authority", root: first! }], "live", "2026-01-01T00:00:00.000Z")] as never);
    await db.batch([...trustAnchorUpserts(db, [{ kind: "timestamp_authority", root: second! }], "live", "2026-02-01T00:00:00.000Z")] as never);
    // Seen again by an older proof sealed late: the first root does not become current by that.
    await db.batch([...trustAnchorUpserts(db, [{ kind: "timestamp_authority", root: first! }], "live", "2025-12-01T00:00:00.000Z")] as never);
    const response = await call("/v1/public/trust-anchors");
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Record<string, string>[] };
    expect(data.filter((row) => row.kind === "timestamp_authority" && row.mode === "live")).toEqual([
      expect.objectContaining({ sha256: second!.sha256, status: "current", first_sealed_at: "2026-02-01T00:00:00.000Z" }),
      expect.objectContaining({
        sha256: first!.sha256,
        status: "past",
        first_sealed_at: "2026-01-01T00:00:00.000Z",
        last_sealed_at: "2026-01-01T00:00:00.000Z",
      }),
    ]);
    const listed = data.find((row) => row.sha256 === first!.sha256)!;
    expect(listed.subject).toContain("CN=Simulated TSA Root");
    expect(listed.openssl_fingerprint).toBe(first!.sha256.toUpperCase().match(/../g)!.join(":"));
    const der = Uint8Array.from(atob(listed.pem!.replace(/-----[^-]+-----|\s/g, "")), (c) => c.charCodeAt(0));
    expect([...new Uint8Array(await crypto.subtle.digest("SHA-256", der))].map((b) => b.toString(16).padStart(2, "0")).join("")).toBe(first!.sha256);
  });
});
