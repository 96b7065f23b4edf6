import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { sealedPackage } from "./support/sealed-package.ts";
import { pathWithProofVerify } from "./support/proof-verify-on-path.ts";
import { ensureLocalPki, localCrl } from "../../sealer/src/pki/ensure-local-pki.ts";

let stack: Stack;
let sealed: Awaited<ReturnType<typeof sealedPackage>>;
beforeAll(async () => {
  stack = await startStack();
  sealed = await sealedPackage(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const sha256 = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");
const section = (markdown: string, heading: string) => markdown.split(/^## /m).find((part) => part.startsWith(heading))!;
const blocks = (markdown: string) => [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
const hasC2patool = spawnSync("sh", ["-c", "command -v c2patool"]).status === 0;

const PATH = pathWithProofVerify();

/** Runs a block of VERIFY.md as written, in the package's folder; c2patool lines only when the tool is there (optional). */
function run(block: string, cwd: string) {
  const script = hasC2patool
    ? block
    : block
        .split("\n")
        .filter((line) => !line.startsWith("c2patool "))
        .join("\n");
  return spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], { cwd, encoding: "utf8", env: { ...process.env, PATH } });
}

/** The verifier's own copy of the authority's root: here taken from the service's public list by the fingerprint VERIFY.md prints. */
async function saveIndependentRoot(folder: string, markdown: string) {
  const pinned = markdown.match(/^tsa_root_sha256: `([0-9a-f]{64})`/m)![1]!;
  const listed = await request(`${stack.baseUrl}/v1/public/trust-anchors`);
  const root = listed.body.data.find((anchor: { sha256: string }) => anchor.sha256 === pinned);
  writeFileSync(join(folder, "tsa-root.pem"), root.pem);
  return pinned;
}

describe("VERIFY.md of a package sealed on npm run dev", () => {
  it("has the same steps and the very same commands in English and French", () => {
    const markdown = readFileSync(join(sealed.folder, "VERIFY.md"), "utf8");
    const [en, fr] = [section(markdown, "English"), section(markdown, "Français")];
    const shape = (text: string) => [...text.matchAll(/^(#{3,}) (\d*)/gm)].map((m) => `${m[1]}${m[2]}`);
    expect(shape(fr)).toEqual(shape(en));
    expect(blocks(fr)).toEqual(blocks(en));
    expect(blocks(en).length).toBeGreaterThanOrEqual(8);
    for (const text of [en, fr]) expect(text).toContain("com.proofseal.capture");
    expect(en).toContain("proves nothing by itself");
    expect(fr).toContain("ne prouve rien à lui seul");
  });

  it("runs every command as written, reads gen_time and the authority from the token, and gives back the JPEG original", async () => {
    const markdown = readFileSync(join(sealed.folder, "VERIFY.md"), "utf8");
    const pinned = await saveIndependentRoot(sealed.folder, markdown);
    const outputs = blocks(section(markdown, "English")).map((block) => {
      const result = run(block, sealed.folder);
      expect(result.status, `${block}\n${result.stdout}${result.stderr}`).toBe(0);
      return result.stdout;
    });
    const all = outputs.join("");
    expect(all).toContain("manifest.json: OK");
    expect(all).toMatch(/^Time stamp: .+ GMT$/m);
    expect(all).toMatch(/^TSA: .+/m);
    expect(all.match(/Verification: OK/g)).toHaveLength(2);
    // The root's fingerprint as openssl prints it is the one VERIFY.md pins.
    expect(all).toContain(`sha256 Fingerprint=${pinned.toUpperCase().match(/../g)!.join(":")}`);
    const manifest = JSON.parse(readFileSync(join(sealed.folder, "manifest.json"), "utf8"));
    for (const file of manifest.files) expect(all).toContain(`files/${file.id}.`);
    const jpeg = manifest.files.find((file: { id: string; content_type?: string }) => all.includes(`original-${file.id}.jpg: OK`));
    expect(jpeg).toBeDefined();
    expect(sha256(readFileSync(join(sealed.folder, `original-${jpeg.id}.jpg`)))).toBe(jpeg.sha256);
    // Step 7: both chains' certificates checked against the CRLs captured at sealing, at gen_time.
    expect(all).toContain("revocation/tsa-1.pem: OK");
    expect(all).toContain("revocation/c2pa-1.pem: OK");
    expect(all).toMatch(/^lastUpdate=.+\nnextUpdate=.+$/m);
    // Step 8: proof-verify in this folder, the roots pinned (no evidence record yet, a minute after sealing).
    expect(all).toContain("No evidence record (evidence-record.ers) in this package");
    expect(all).toMatch(/\nVERIFIED\n/);
  });

  it("prints the same root fingerprints as the public JSON and the public list of roots", async () => {
    const markdown = readFileSync(join(sealed.folder, "VERIFY.md"), "utf8");
    const printed = (name: string) => markdown.match(new RegExp(`^${name}: \`([0-9a-f]{64})\``, "m"))![1];
    const publicProof = await request(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}`);
    expect(publicProof.body.trust_anchors).toEqual({
      timestamp_authority_root_sha256: printed("tsa_root_sha256"),
      c2pa_root_sha256: printed("c2pa_root_sha256"),
    });
    const listed = (await request(`${stack.baseUrl}/v1/public/trust-anchors`)).body.data.map(
      (anchor: { kind: string; sha256: string }) => `${anchor.kind}:${anchor.sha256}`,
    );
    expect(listed).toEqual(expect.arrayContaining([`timestamp_authority:${printed("tsa_root_sha256")}`, `c2pa:${printed("c2pa_root_sha256")}`]));
  });

  it("fails where it must: an edited manifest, a replaced file, a forged chain against the genuine root", async () => {
    const markdown = readFileSync(join(sealed.folder, "VERIFY.md"), "utf8");
    const en = blocks(section(markdown, "English"));
    const copy = () => {
      const dir = mkdtempSync(join(tmpdir(), "tampered-"));
      cpSync(sealed.folder, dir, { recursive: true });
      return dir;
    };
    const edited = copy();
    writeFileSync(
      join(edited, "manifest.json"),
      readFileSync(join(edited, "manifest.json"), "utf8").replace(/"external_reference":"/, '"external_reference":"X'),
    );
    expect(run(en[0]!, edited).status).not.toBe(0);
    const verify = en.find((block) => block.startsWith("openssl ts -verify"))!;
    expect(run(verify, edited).status).not.toBe(0);
    const replaced = copy();
    const firstFile = execFileSync("ls", [join(replaced, "files")])
      .toString()
      .split("\n")[0]!;
    writeFileSync(join(replaced, "files", firstFile), "other bytes");
    const filesBlock = en.find((block) => block.includes("files/") && block.includes("sha256sum -c"))!;
    expect(run(filesBlock, replaced).status).not.toBe(0);
    // A self-made root standing in for the genuine one: the token does not chain to it.
    const forged = copy();
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "k.pem",
        "-out",
        "tsa-root.pem",
        "-subj",
        "/CN=Forged",
        "-days",
        "2",
      ],
      { cwd: forged, stdio: "pipe" },
    );
    expect(run(verify, forged).status).not.toBe(0);
    // A CRL by a CA of the same name but another key, in place of the one captured at sealing.
    const [genuineCrl, forgedCrl] = [copy(), copy()];
    for (const folder of [genuineCrl, forgedCrl]) await saveIndependentRoot(folder, markdown);
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "crl-forger-")), "pki"));
    writeFileSync(join(forgedCrl, "revocation", "tsa-1.crl"), localCrl(forger, "tsa-test-root"));
    const revocationBlock = en.find((block) => block.includes("-crl_check"))!;
    expect(run(revocationBlock, genuineCrl).status).toBe(0);
    expect(run(revocationBlock, forgedCrl).status).not.toBe(0);
  });
});
