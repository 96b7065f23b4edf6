import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { call, callJson } from "./support/client.ts";
import { storedGenuineV2Proof } from "./support/sealed-fixture.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { PAGE_MESSAGES } from "../../src/verification/page/messages.ts";
import { V2_FILES } from "./fixtures/sealed-proof-v2.ts";
import { workerContext } from "../../src/domain/context.ts";

const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";
const bytes = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

let proofId: string;
let sealedAt: string;
let alteredKey: string;

/**
 * The genuine version-2 package of fixtures/sealed-proof-v2.ts stored as sealing stores it, its files' rows
 * in D1 and its two roots published (GET /v1/public/trust-anchors), as sealing records them.
 */
beforeAll(async () => {
  const stored = await storedGenuineV2Proof();
  ({ proofId, sealedAt } = stored);
  alteredKey = stored.keys[V2_FILES.findIndex((file) => file.position === 1)]!;
});

afterEach(() => vi.restoreAllMocks());

const byName = (checks: { name: string; result: string }[]) => Object.fromEntries(checks.map((check) => [check.name, check.result]));

describe("the public verdict rests on the stored objects as they are", () => {
  it("says verified for a genuine proof, with the core's checks and when its files were last checked", async () => {
    const before = await callJson(`/v1/public/proofs/${proofId}`);
    expect(before.status).toBe(200);
    expect(before.body.verification).toMatchObject({ status: "valid", verdict: "verified", test_mode: true, files_checked_at: sealedAt });
    const checks = byName(before.body.verification.checks);
    for (const name of ["package_complete", "manifest_seal", "timestamp_imprint", "timestamp_chain", "tsa_root_pinned", "service_root_pinned", "files_listed"])
      expect(checks[name], name).toBe("pass");
    for (const file of V2_FILES) expect(checks[`file_hash:${file.id}`]).toBe("pass");
    // After a re-hash, the files were last checked then; the answer's ETag changes with it.
    const rehashedAt = new Date();
    await rehashSealedObjects(workerContext(env), rehashedAt);
    const after = await callJson(`/v1/public/proofs/${proofId}`);
    expect(after.body.verification).toMatchObject({ verdict: "verified", files_checked_at: rehashedAt.toISOString() });
    expect(after.headers.get("ETag")).not.toBe(before.headers.get("ETag"));
    const response = await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } });
    // Kept by browsers one sweep interval at most, as the public JSON: an altered verdict shows at the next re-hash.
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=60");
    expect(after.headers.get("Cache-Control")).toBe("public, max-age=60");
    const html = await response.text();
    expect(html).toContain('data-verdict="verified"');
    // A test proof says so in the verdict line itself; when the files were last checked is shown.
    expect(html).toContain(`>${PAGE_MESSAGES.en.verdict_verified_test!.replaceAll("'", "&#39;")}</p>`);
    expect(html).toMatch(new RegExp(`data-testid="files-checked-at"><time datetime="${rehashedAt.toISOString()}"`));
    // "Check it yourself" takes the roots from the published list, never the package's chain.pem as a root.
    const command = html.slice(html.indexOf('<code id="command">'), html.indexOf("</code>", html.indexOf('<code id="command">')));
    expect(command).toContain("/v1/public/trust-anchors");
    expect(command).toContain("-CAfile service-root.pem");
    expect(command).toContain("-CAfile tsa-root.pem -untrusted chain.pem");
    expect(command).not.toContain("-CAfile chain.pem");
  });

  it("turns altered at the re-hash after one byte of a stored signed file changed (same size), in the JSON, the page and the operator's list", async () => {
    const genuine = bytes(V2_FILES[0].signed_base64);
    const altered = genuine.slice();
    altered[10] = altered[10]! ^ 0x01;
    await env.FILES.put(alteredKey, altered);
    // Until the sweep re-hashes it, the verdict is what the latest re-hash found (the JSON reads no file's bytes).
    expect((await callJson(`/v1/public/proofs/${proofId}`)).body.verification.verdict).toBe("verified");
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await rehashSealedObjects(workerContext(env), new Date(Date.now() + 60_000));
    expect(logged.mock.calls.some((args) => String(args[0]).includes('"alert":"sealed_object_altered"'))).toBe(true);
    const { body } = await callJson(`/v1/public/proofs/${proofId}`);
    expect(body.verification).toMatchObject({ status: "invalid", verdict: "altered" });
    const checks = byName(body.verification.checks);
    expect(checks[`file_hash:${V2_FILES[0].id}`]).toBe("fail");
    expect(checks[`file_hash:${V2_FILES[1].id}`]).toBe("pass");
    const page = await (await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } })).text();
    expect(page).toContain('data-verdict="altered"');
    expect(page).not.toContain('data-verdict="verified"');
    expect(page).not.toMatch(/Verified/);
    expect(page).toContain(PAGE_MESSAGES.en.testSuffix);
    // The altered file is not offered as the sealed one; the intact one still is.
    expect(page).not.toContain(`data-testid="open-${V2_FILES[0].id}"`);
    expect(page).toContain(`data-testid="altered-${V2_FILES[0].id}"`);
    expect(page).toContain(`data-testid="open-${V2_FILES[1].id}"`);
    // The public file route still serves what is stored, as evidence, but not as the sealed file.
    const file = await call(`/v1/public/proofs/${proofId}/files/${V2_FILES[0].id}`);
    expect(file.headers.get("Sealed-File-Status")).toBe("altered");
    expect(file.headers.get("Cache-Control")).toBe("no-store");
    expect(file.headers.get("ETag")).toBeNull();
    expect(file.headers.get("Content-Disposition")).toContain(`altered-${V2_FILES[0].id}.jpg`);
    await file.arrayBuffer();
    const intact = await call(`/v1/public/proofs/${proofId}/files/${V2_FILES[1].id}`);
    expect(intact.headers.get("Sealed-File-Status")).toBeNull();
    expect(intact.headers.get("ETag")).toBe(`"${V2_FILES[1].signed_sha256}"`);
    await intact.arrayBuffer();
    const listed = await callJson("/admin/v1/altered-objects?limit=100", { key: ADMIN_TOKEN });
    expect(listed.body.data).toContainEqual(expect.objectContaining({ proof_id: proofId, file_id: V2_FILES[0].id }));
    // Restored from a backup: verified again at its next re-hash.
    await env.FILES.put(alteredKey, genuine);
    await rehashSealedObjects(workerContext(env), new Date(Date.now() + 120_000));
    expect((await callJson(`/v1/public/proofs/${proofId}`)).body.verification.verdict).toBe("verified");
  });
});
