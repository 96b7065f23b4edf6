import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { packagedArtifactKey } from "../../src/storage/objects/bucket.ts";
import { unsafeEntryName } from "../../src/lib/zip/entry-name.ts";
import { call, callJson } from "./support/client.ts";
import { sealedWithBoundRecord } from "./support/sealed-fixture.ts";

/**
 * Forger session 7's G16 (zip-slip): the package's revocation entries are named by revocation/index.json, an object an
 * insider with write access to the bucket can replace. A name sealing never writes makes the index unreadable: the
 * package carries no file named by it, the `revocation` check fails, never a 5xx.
 */

afterEach(() => vi.restoreAllMocks());

/** Every entry name of a ZIP's central directory, in order, repeats included (a Map of entries would merge them). */
function centralDirectoryNames(zip: Uint8Array): string[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = zip.length - 22;
  expect(view.getUint32(end, true)).toBe(0x06054b50);
  const names: string[] = [];
  let offset = view.getUint32(end + 16, true);
  for (let index = 0; index < view.getUint16(end + 10, true); index++) {
    const nameLength = view.getUint16(offset + 28, true);
    names.push(new TextDecoder().decode(zip.subarray(offset + 46, offset + 46 + nameLength)));
    offset += 46 + nameLength + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  return names;
}

const entry = (chain: "tsa" | "c2pa", certificate: string, crl: string | null = null) => ({
  chain,
  position: 1,
  subject: `${chain} signer`,
  serial: "01",
  status: "unavailable",
  source: null,
  captured_at: "2026-01-01T00:00:00.000Z",
  this_update: null,
  next_update: null,
  reason: "r",
  certificate,
  crl,
});

async function packageOf(proofId: string) {
  const answer = await call(`/v1/public/proofs/${proofId}/package`);
  expect(answer.status).toBe(200);
  return centralDirectoryNames(new Uint8Array(await answer.arrayBuffer()));
}

async function verdictOf(proofId: string) {
  const json = await callJson(`/v1/public/proofs/${proofId}?fresh=${crypto.randomUUID()}`);
  expect(json.status).toBe(200);
  return json.body as { verification: { verdict: string; checks: { name: string; result: string }[] }; revocation: unknown };
}

const GENUINE_REVOCATION = ["revocation/index.json", "revocation/tsa-1.pem", "revocation/c2pa-1.pem"];

describe("the package's entry names from the revocation index (G16)", () => {
  it("a genuine package: its revocation files under their names, each name once, verified", async () => {
    const { proofId } = await sealedWithBoundRecord();
    const names = await packageOf(proofId);
    expect(names.filter((name) => name.startsWith("revocation/"))).toEqual(GENUINE_REVOCATION);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("manifest.json");
    expect(names).toContain("VERIFY.md");
    expect((await verdictOf(proofId)).verification.verdict).toBe("verified");
  });

  const forged: [string, ReturnType<typeof entry>[], string][] = [
    ["a path traversal", [entry("tsa", "../../../../evil.sh"), entry("c2pa", "revocation/c2pa-1.pem")], "../../../../evil.sh"],
    ["an absolute path", [entry("tsa", "/tmp/evil.sh"), entry("c2pa", "revocation/c2pa-1.pem")], "/tmp/evil.sh"],
    ["a Windows traversal", [entry("tsa", "revocation/..\\..\\evil.bat"), entry("c2pa", "revocation/c2pa-1.pem")], "revocation/..\\..\\evil.bat"],
    ["the package's manifest.json", [entry("tsa", "manifest.json"), entry("c2pa", "revocation/c2pa-1.pem")], "manifest.json"],
    ["the package's VERIFY.md", [entry("tsa", "revocation/tsa-1.pem"), entry("c2pa", "VERIFY.md")], "VERIFY.md"],
    ["a NUL", [entry("tsa", "revocation/tsa-1.pem\u0000.sh"), entry("c2pa", "revocation/c2pa-1.pem")], "revocation/tsa-1.pem\u0000.sh"],
    [
      "a CRL under another entry's name",
      [entry("tsa", "revocation/tsa-1.pem", "revocation/c2pa-1.pem"), entry("c2pa", "revocation/c2pa-1.pem")],
      "revocation/c2pa-1.pem",
    ],
    [
      "the same certificate twice",
      [entry("tsa", "revocation/tsa-1.pem"), entry("tsa", "revocation/tsa-1.pem"), entry("c2pa", "revocation/c2pa-1.pem")],
      "revocation/tsa-1.pem",
    ],
  ];
  it.each(forged)("%s: the index is unreadable, the package carries no file it names, the revocation check fails", async (_label, index, name) => {
    const { proofId, run } = await sealedWithBoundRecord();
    await env.FILES.put(packagedArtifactKey(proofId, run, "revocation/index.json"), JSON.stringify(index));
    // manifest.json's key is the sealed manifest's own: replacing it is another attack, refused by the seal.
    if (name !== "manifest.json") await env.FILES.put(packagedArtifactKey(proofId, run, name), "#!/bin/sh\necho owned\n");
    const names = await packageOf(proofId);
    expect(names.filter((one) => one.startsWith("revocation/"))).toEqual(["revocation/index.json"]);
    expect(new Set(names).size).toBe(names.length);
    if (!["manifest.json", "VERIFY.md"].includes(name)) expect(names).not.toContain(name);
    const body = await verdictOf(proofId);
    expect(body.verification.verdict).toBe("not_verified");
    expect(body.verification.checks.find((check) => check.name === "revocation")).toMatchObject({ result: "fail" });
    expect(body.revocation).toBeNull();
    const page = await call(`/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } });
    expect(page.status).toBe(200);
  });
});

describe("unsafeEntryName: what no ZIP entry written from stored data may be named", () => {
  const taken = new Set(["manifest.json", "VERIFY.md", "revocation/tsa-1.pem"]);
  it.each([
    ["../../../../evil.sh", "an empty, `.` or `..` segment"],
    ["revocation/../evil.sh", "an empty, `.` or `..` segment"],
    ["revocation//tsa-1.pem", "an empty, `.` or `..` segment"],
    ["./evil.sh", "an empty, `.` or `..` segment"],
    ["/tmp/evil.sh", "an absolute path"],
    ["revocation/..\\..\\evil.bat", "a backslash"],
    ["C:evil.bat", "a drive letter"],
    ["c:/evil.bat", "a drive letter"],
    ["revocation/tsa-1.pem\u0000.sh", "a control character"],
    ["revocation/tsa\n1.pem", "a control character"],
    ["manifest.json", "the name of another entry"],
    ["MANIFEST.JSON", "the name of another entry"],
    ["revocation/TSA-1.pem", "the name of another entry"],
  ])("%j: refused (%s)", (name, problem) => {
    expect(unsafeEntryName(name, taken)).toBe(problem);
  });

  it.each(["revocation/tsa-2.pem", "revocation/c2pa-1.crl", "files/file_1.jpg", "report.pdf"])("%j: safe", (name) => {
    expect(unsafeEntryName(name, taken)).toBeNull();
  });
});
