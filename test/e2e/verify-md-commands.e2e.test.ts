import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { sealedPackage } from "./support/sealed-package.ts";
import { pathWithProofVerify } from "./support/proof-verify-on-path.ts";
import { ensureLocalPki, localCrl } from "../../sealer/src/pki/ensure-local-pki.ts";

/** The sweeps run every few seconds here, so that a re-hash comes within the test (production: every minute). */
const SWEEP_INTERVAL_SECONDS = 5;
let stack: Stack;
let sealed: Awaited<ReturnType<typeof sealedPackage>>;
// The stack's own folder, so that the test can reach its local R2 (under state/) as an intruder with storage access would.
const stateDir = mkdtempSync(join(tmpdir(), "verify-md-stack-"));
beforeAll(async () => {
  stack = await startStack({ stateDir, env: { DEV_SWEEP_INTERVAL_SECONDS: String(SWEEP_INTERVAL_SECONDS) } });
  sealed = await sealedPackage(stack);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
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
  const result = spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], { cwd, encoding: "utf8", env: { ...process.env, PATH } });
  return { ...result, output: `${result.stdout}${result.stderr}` };
}

/** The blocks of step `n` (its `### n.` heading to the next one). */
function step(markdown: string, n: number): string[] {
  const from = markdown.search(new RegExp(`^### ${n}\\. `, "m"));
  const rest = markdown.slice(from + 4);
  const to = rest.search(/^### \d+\. /m);
  return blocks(to === -1 ? rest : rest.slice(0, to));
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

  it("runs every command as written: the roots from the published list, the seal, the token, the files and originals against the sealed manifest", () => {
    const markdown = readFileSync(join(sealed.folder, "VERIFY.md"), "utf8");
    const printed = (name: string) => markdown.match(new RegExp(`^${name}: \`([0-9a-f]{64})\``, "m"))![1]!;
    const outputs = blocks(section(markdown, "English")).map((block) => {
      const result = run(block, sealed.folder);
      expect(result.status, `${block}\n${result.output}`).toBe(0);
      return result.output;
    });
    const all = outputs.join("");
    // Step 1: both roots taken from GET /v1/public/trust-anchors, the ones the package's chains name.
    expect(all).toContain(`tsa-root.pem: `);
    expect(all).toContain(`, test, SHA-256 ${printed("tsa_root_sha256")}`);
    expect(all).toContain(`, test, SHA-256 ${printed("c2pa_root_sha256")}`);
    const listed = JSON.parse(readFileSync(join(sealed.folder, "published-roots.json"), "utf8")).data.map((root: { pem: string }) => root.pem);
    expect(listed).toContain(readFileSync(join(sealed.folder, "service-root.pem"), "utf8"));
    // Step 2: the seal, at today's date and at gen_time, then what the sealed manifest states.
    expect(all.match(/CMS Verification successful/g)).toHaveLength(2);
    expect(all).toContain(`proof_id: "${sealed.proof.id}"`);
    expect(all).toContain('mode: "test"');
    // Step 3: the token read and verified, at today's date and at gen_time.
    expect(all).toMatch(/^Time stamp: .+ GMT$/m);
    expect(all).toMatch(/^TSA: .+/m);
    expect(all.match(/Verification: OK/g)).toHaveLength(2);
    // Step 4: every file the manifest lists, against its signed_sha256.
    const manifest = JSON.parse(readFileSync(join(sealed.folder, "manifest.json"), "utf8"));
    for (const file of manifest.files) expect(all).toMatch(new RegExp(`files/${file.id}\\.[a-z0-9]+: OK`));
    // Step 6: the JPEG original, against the manifest's sha256.
    const jpeg = manifest.files.find((file: { id: string }) => all.includes(`original-${file.id}.jpg: OK`));
    expect(jpeg).toBeDefined();
    expect(sha256(readFileSync(join(sealed.folder, `original-${jpeg.id}.jpg`)))).toBe(jpeg.sha256);
    // Step 7: the revocation files are those manifest.p7s lists (revocation_sealed), the index among them ...
    expect(all).toContain("revocation/index.json: sealed, OK");
    // ... both chains' certificates checked against the CRLs captured at sealing, at gen_time, with the roots of step 1.
    expect(all).toContain("revocation/tsa-1.pem: OK");
    expect(all).toContain("revocation/c2pa-1.pem: OK");
    // ... and the proof seal's certificate, taken out of manifest.p7s, against the service root's CRL.
    expect(all).toContain("seal-certificate.pem: OK");
    expect(all).toMatch(/^lastUpdate=.+\nnextUpdate=.+$/m);
    // Step 8: proof-verify in this folder, pinned to the roots of step 1 (no evidence record yet, a minute after sealing).
    expect(all).toContain("no evidence record (evidence-record.ers) in this package");
    expect(all).toMatch(/\nVERIFIED \(TEST PROOF, no legal value\)\n/);
    // ... as its last line, exactly what step 8 says it must be (step 9, the report, may follow it).
    const verified = outputs[blocks(section(markdown, "English")).findIndex((block) => block.includes("proof-verify ."))]!;
    expect(verified.trimEnd().split("\n").at(-1)).toBe("VERIFIED (TEST PROOF, no legal value)");
    expect(markdown).toContain("Its last line must be exactly `VERIFIED (TEST PROOF, no legal value)`.");
  });

  it("compares with no value only VERIFY.md states, and names the core's checks in every step", () => {
    const markdown = readFileSync(join(sealed.folder, "VERIFY.md"), "utf8");
    const en = section(markdown, "English");
    for (const block of blocks(en)) {
      expect(block).not.toMatch(/[0-9a-f]{64}/);
      expect(block).not.toContain("CAfile chain.pem");
      expect(block).not.toContain("c2pa-trust-anchor.pem -");
    }
    for (const name of [
      "tsa_root_pinned",
      "service_root_pinned",
      "manifest_seal",
      "timestamp_imprint",
      "timestamp_signature",
      "timestamp_signer",
      "timestamp_chain",
      "files_listed",
      "file_hash:",
      "file_c2pa:",
      "file_names_proof:",
      "file_original:",
      "revocation",
      "evidence_record",
      "long_term",
    ])
      expect(en).toContain(`\`${name}`);
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

  it("fails where it must: a relabelled manifest, a swapped file, a dropped file, a chain to a root the service does not publish", () => {
    const markdown = readFileSync(join(sealed.folder, "VERIFY.md"), "utf8");
    const en = section(markdown, "English");
    const copy = () => {
      const dir = mkdtempSync(join(tmpdir(), "tampered-"));
      cpSync(sealed.folder, dir, { recursive: true });
      return dir;
    };
    const [roots, seal, token, files] = [1, 2, 3, 4].map((n) => step(en, n)[0]!);
    for (const block of [roots, seal, token, files]) expect(run(block, sealed.folder).status).toBe(0);
    const manifestOf = (dir: string) => readFileSync(join(dir, "manifest.json"), "utf8");
    // Relabelled: the other party and another reference. The token no longer covers it.
    const relabelled = copy();
    const party = JSON.parse(manifestOf(relabelled)).party as string;
    writeFileSync(
      join(relabelled, "manifest.json"),
      manifestOf(relabelled)
        .replace(`"party":"${party}"`, `"party":"${party === "provider" ? "recipient" : "provider"}"`)
        .replace(/"external_reference":"/, '"external_reference":"X'),
    );
    expect(run(token, relabelled).status).not.toBe(0);
    // Stamped again by the same authority (the stack's simulated one, its key in the dev folder), as any customer
    // of an authority can: the token now holds, and only the seal, which no authority can give, refuses it.
    const authority = join(stateDir, "local", "pki", "tsa-test.cnf");
    execFileSync("openssl", ["ts", "-query", "-data", "manifest.json", "-sha256", "-cert", "-out", "restamp.tsq"], { cwd: relabelled, stdio: "pipe" });
    execFileSync("openssl", ["ts", "-reply", "-config", authority, "-queryfile", "restamp.tsq", "-out", "proof.tsr"], { cwd: relabelled, stdio: "pipe" });
    expect(run(token, relabelled).status, run(token, relabelled).output).toBe(0);
    const refused = run(seal, relabelled);
    expect(refused.status).not.toBe(0);
    expect(refused.output).not.toContain("CMS Verification successful");
    // Swapped: a genuine signed file in place of another. Step 4 refuses it against the sealed manifest.
    const swapped = copy();
    const [first, second] = readdirSync(join(swapped, "files"));
    cpSync(join(swapped, "files", second!), join(swapped, "files", first!));
    const swappedRun = run(files, swapped);
    expect(swappedRun.status).not.toBe(0);
    expect(swappedRun.output).toContain(`files/${first}: FAILED, not the file the manifest seals`);
    // Dropped: one file gone; and gone from the manifest too, which the seal then refuses.
    const dropped = copy();
    rmSync(join(dropped, "files", first!));
    expect(run(files, dropped).output).toMatch(/FAILED, missing/);
    expect(run(files, dropped).status).not.toBe(0);
    const manifest = JSON.parse(manifestOf(dropped));
    const droppedId = first!.replace(/\.[a-z0-9]+$/, "");
    // Parsed in its canonical (sorted) order, so serialised again exactly as sealed but for the file removed.
    writeFileSync(join(dropped, "manifest.json"), JSON.stringify({ ...manifest, files: manifest.files.filter((f: { id: string }) => f.id !== droppedId) }));
    expect(run(files, dropped).status).toBe(0);
    expect(run(seal, dropped).status).not.toBe(0);
    // An added file that the manifest does not list.
    const added = copy();
    cpSync(join(added, "files", first!), join(added, "files", `med_added.${first!.split(".").at(-1)}`));
    expect(run(files, added).output).toContain("FAILED, not in the sealed manifest");
    // A self-made root standing in for the genuine one in chain.pem: step 1 finds no published root.
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
        "forged-root.pem",
        "-subj",
        "/CN=Forged",
        "-days",
        "2",
      ],
      { cwd: forged, stdio: "pipe" },
    );
    const chain = readFileSync(join(forged, "chain.pem"), "utf8");
    const lastCertificate = chain.lastIndexOf("-----BEGIN CERTIFICATE-----");
    writeFileSync(join(forged, "chain.pem"), chain.slice(0, lastCertificate) + readFileSync(join(forged, "forged-root.pem"), "utf8"));
    const forgedRun = run(roots, forged);
    expect(forgedRun.status).not.toBe(0);
    expect(forgedRun.output).toContain("tsa-root.pem: FAILED, no root of chain.pem is one the service publishes");
    // A CRL by a CA of the same name but another key, in place of the one captured at sealing.
    const [genuineCrl, forgedCrl] = [copy(), copy()];
    for (const folder of [genuineCrl, forgedCrl]) expect(run(roots, folder).status).toBe(0);
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "crl-forger-")), "pki"));
    writeFileSync(join(forgedCrl, "revocation", "tsa-1.crl"), localCrl(forger, "tsa-test-root"));
    const revocationBlock = blocks(en).find((block) => block.includes("-crl_check"))!;
    expect(run(revocationBlock, genuineCrl).status).toBe(0);
    expect(run(revocationBlock, forgedCrl).status).not.toBe(0);
    // Stripped of revocation/: step 7 fails as proof-verify's revocation does (docs/adr/0040); a CRL the index
    // says could not be had at sealing is reported, not failed.
    const indexBlock = step(en, 7).find((block) => block.includes("revocation/index.json"))!;
    expect(run(indexBlock, sealed.folder).status).toBe(0);
    const stripped = copy();
    rmSync(join(stripped, "revocation"), { recursive: true });
    const strippedRun = run(indexBlock, stripped);
    expect(strippedRun.status).not.toBe(0);
    expect(strippedRun.output).toContain("revocation/index.json: FAILED, missing");
    const notCaptured = copy();
    const index = JSON.parse(readFileSync(join(notCaptured, "revocation", "index.json"), "utf8")) as { chain: string }[];
    const reason = "http://localhost/pki/c2pa-test-root.crl unreachable";
    writeFileSync(
      join(notCaptured, "revocation", "index.json"),
      JSON.stringify(index.map((entry) => (entry.chain === "c2pa" ? { ...entry, status: "unavailable", crl: null, reason } : entry))),
    );
    const reported = run(indexBlock, notCaptured);
    expect(reported.status, reported.output).toBe(0);
    expect(reported.output).toContain(`revocation/c2pa-1.pem: not captured at sealing (${reason}), not checked`);
    writeFileSync(join(notCaptured, "revocation", "index.json"), JSON.stringify(index.filter((entry) => entry.chain === "tsa")));
    expect(run(indexBlock, notCaptured).output).toContain("revocation/index.json: FAILED, no entry for the c2pa signer");
    // The index is the package's word only until the seal's list is read: the edited index fails the step's first
    // command (revocation_sealed, docs/adr/0049), as a removed or an added revocation file does.
    const sealedListBlock = step(en, 7).find((block) => block.includes("manifest.p7s") && block.includes("asn1parse"))!;
    expect(run(sealedListBlock, sealed.folder).status).toBe(0);
    const edited = run(sealedListBlock, notCaptured);
    expect(edited.status).not.toBe(0);
    expect(edited.output).toContain("revocation/index.json: FAILED, not the file manifest.p7s seals");
    const c2paCrl = (index as { chain: string; crl: string | null }[]).find((entry) => entry.chain === "c2pa" && entry.crl !== null)!.crl!;
    rmSync(join(notCaptured, c2paCrl));
    writeFileSync(join(notCaptured, "revocation", "extra.crl"), "");
    const changed = run(sealedListBlock, notCaptured).output;
    expect(changed).toContain(`${c2paCrl}: FAILED, missing, manifest.p7s seals it`);
    expect(changed).toContain("revocation/extra.crl: FAILED, not in the list manifest.p7s seals");
  });

  it("stops saying verified within one sweep interval once one byte of a stored signed file changes (same size)", async () => {
    // The previous tests leave the keep-alive connection idle for seconds: the dev server may close it just as
    // it is reused ("other side closed"), which says nothing of the service; such a request is sent again once.
    const again = async <T>(send: () => Promise<T>): Promise<T> => {
      try {
        return await send();
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        return send();
      }
    };
    const manifest = JSON.parse(readFileSync(join(sealed.folder, "manifest.json"), "utf8"));
    const target = manifest.files[0] as { id: string; signed_sha256: string };
    const publicJson = `${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}`;
    expect((await again(() => request(publicJson))).body.verification.verdict).toBe("verified");
    // Local R2 keeps each object's bytes in a blob file under the state folder: found by its content.
    const blobs = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? blobs(join(dir, entry.name)) : [join(dir, entry.name)]));
    const stored = blobs(join(stateDir, "state")).filter(
      (path) => statSync(path).size < 64 * 1024 * 1024 && sha256(readFileSync(path)) === target.signed_sha256,
    );
    expect(stored.length).toBeGreaterThan(0);
    for (const path of stored) {
      const bytes = readFileSync(path);
      const middle = Math.floor(bytes.length / 2);
      bytes[middle] = bytes[middle]! ^ 0x01;
      writeFileSync(path, bytes);
    }
    const changedAt = Date.now();
    let verification = (await again(() => request(publicJson))).body.verification;
    while (verification.verdict === "verified" && Date.now() - changedAt < (SWEEP_INTERVAL_SECONDS + 10) * 1000) {
      await new Promise((done) => setTimeout(done, 500));
      verification = (await again(() => request(publicJson))).body.verification;
    }
    // One sweep interval, plus the run itself and the tick that triggers it.
    expect(Date.now() - changedAt).toBeLessThan((SWEEP_INTERVAL_SECONDS + 10) * 1000);
    expect(verification).toMatchObject({ status: "invalid", verdict: "altered" });
    expect(verification.checks).toContainEqual(expect.objectContaining({ name: `file_hash:${target.id}`, result: "fail" }));
    const page = await again(async () => (await fetch(`${stack.baseUrl}/p/${sealed.proof.id}?lang=en`, { headers: { Accept: "text/html" } })).text());
    expect(page).toContain('data-verdict="altered"');
    expect(page).toContain(`data-testid="altered-${target.id}"`);
    const altered = await again(() => request(`${stack.baseUrl}/admin/v1/altered-objects`, { token: stack.adminToken }));
    expect(altered.body.data).toContainEqual(expect.objectContaining({ proof_id: sealed.proof.id, file_id: target.id }));
    expect(stack.output()).toContain('"alert":"sealed_object_altered"');
  }, 60_000);
});
