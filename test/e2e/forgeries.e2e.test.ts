import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { canonicalJson } from "../../shared/canonical-json.ts";
import { signWithC2pa } from "../../sealer/src/c2pa/c2pa.ts";
import { loadSigningKey } from "../../sealer/src/c2pa/cose.ts";
import { ensureLocalPki } from "../../sealer/src/pki/ensure-local-pki.ts";
import { issueCertificate } from "../../sealer/src/pki/issue-certificate.ts";
import { fixture } from "./support/capture.ts";
import { request } from "./support/http.ts";
import { pathWithProofVerify } from "./support/proof-verify-on-path.ts";
import { packageOnceReady, publishedRoots, type SealedPackage, sealedPackage } from "./support/sealed-package.ts";
import { startStack, type Stack } from "./support/stack.ts";

/**
 * Issue 24, "Judged by": every forgery a party to a dispute would try, built from genuine proofs sealed on
 * `npm run dev` (live, and one test proof), refused by each verdict: `proof-verify` with the genuine roots
 * pinned, every step of the package's VERIFY.md run as written, and the public JSON (and page) of the proof the
 * forged package names. Each forgery asserts the exact checks that fail, so removing the check that guards it
 * (named in a comment) makes its assertion fail.
 */

const root = resolve(import.meta.dirname, "../..");
/** The sweeps (re-hash, evidence records) run every few seconds here (production: every minute). */
const SWEEP_INTERVAL_SECONDS = 5;
/** The stack's own folder: its local PKI (the authorities and the seal) and its local R2 are reached there. */
const stateDir = mkdtempSync(join(tmpdir(), "forgeries-stack-"));
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");
const DIGITAL_CAPTURE = "http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture";
const PATH = pathWithProofVerify();
const hasC2patool = spawnSync("sh", ["-c", "command -v c2patool"]).status === 0;

let stack: Stack;
/** A genuine live proof (JPEG, PNG, MP4), downloaded once its evidence record exists. */
let genuine: SealedPackage;
/** A genuine live proof whose JPEG arrived with its own Content Credentials (a camera maker's), and a PNG. */
let credentialed: SealedPackage;
/** A genuine test proof. */
let testProof: SealedPackage;
/** A copy of the stack's local PKI: the authority "any customer" gets tokens from, and the keys of the leaks below. */
let pki: string;
let livePins: string[];
let testPins: string[];

/** A JPEG signed with c2pa-wasm by a camera maker's own CA: it arrives with earlier Content Credentials. */
async function cameraJpeg(): Promise<Uint8Array> {
  const maker = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "camera-maker-")), "pki"));
  const pem = (name: string) => readFileSync(join(maker, name), "utf8");
  const actions = { actions: [{ action: "c2pa.created", digitalSourceType: DIGITAL_CAPTURE }] };
  return signWithC2pa(
    new Uint8Array(fixture("photo.jpg")),
    { title: "camera.jpg", format: "image/jpeg", assertions: [{ label: "c2pa.actions", data: actions, created: true }] },
    { key: loadSigningKey(pem("c2pa-signer.pk8")), chainDer: [new Uint8Array(new X509Certificate(pem("c2pa-signer.pem")).raw)], timestamp: null },
  );
}

beforeAll(async () => {
  stack = await startStack({
    stateDir,
    env: { DEV_SWEEP_INTERVAL_SECONDS: String(SWEEP_INTERVAL_SECONDS), EVIDENCE_FIRST_STAMP_WITHIN_MINUTES: "0" },
  });
  const jpeg = Buffer.from(await cameraJpeg());
  [genuine, credentialed, testProof] = await Promise.all([
    sealedPackage(stack, "live"),
    sealedPackage(stack, "live", [
      { file: "camera.jpg", type: "image/jpeg", bytes: jpeg },
      { file: "photo.png", type: "image/png" },
      { file: "clip.mp4", type: "video/mp4", step: "walkaround" },
    ]),
    sealedPackage(stack, "test", [
      { file: "photo.jpg", type: "image/jpeg" },
      { file: "clip.mp4", type: "video/mp4", step: "walkaround" },
    ]),
  ]);
  // The evidence record's first archive timestamp (the sweep, within seconds here) and the sealed report: the
  // genuine package as a court receives it, downloaded again with both.
  genuine = await packageOnceReady(stack, genuine, { evidenceRecord: true, timeoutMs: 60_000 });
  // The stack's PKI, copied so that stamping here does not touch the serials of the running authorities.
  pki = join(mkdtempSync(join(tmpdir(), "forgeries-pki-")), "pki");
  cpSync(join(stateDir, "local", "pki"), pki, { recursive: true });
  for (const name of ["tsa-live.cnf", "tsa-test.cnf"])
    writeFileSync(join(pki, name), readFileSync(join(pki, name), "utf8").replace(/^dir = .*$/m, `dir = ${pki}`));
  livePins = (await publishedRoots(stack, "live")).pins;
  testPins = (await publishedRoots(stack, "test")).pins;
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// The three verdicts

type Check = { name: string; result: string; detail: string };
type Report = { verdict: string; verdict_line: string; test_mode: boolean; checks: Check[] };

/** proof-verify as a stranger runs it from a clone (its own bin), optionally under faketime. */
function proofVerify(target: string, args: string[], fakeTime?: string) {
  const command = [process.execPath, join(root, "verifier/bin/proof-verify.ts"), target, ...args];
  const result = spawnSync(fakeTime ? "faketime" : command[0]!, fakeTime ? [fakeTime, ...command] : command.slice(1), { encoding: "utf8", cwd: tmpdir() });
  return { status: result.status, stdout: result.stdout, report: (args.includes("--json") ? JSON.parse(result.stdout) : null) as Report };
}
const failed = (report: Report) => report.checks.filter((check) => check.result === "fail").map((check) => check.name);
const detail = (report: Report, name: string) => report.checks.find((check) => check.name === name)?.detail ?? "";

/** The blocks of VERIFY.md's English step `n`, as printed. */
function stepBlocks(english: string, n: number): string[] {
  const from = english.search(new RegExp(`^### ${n}\\. `, "m"));
  const rest = english.slice(from + 4);
  const to = rest.search(/^### \d+\. /m);
  return [...(to === -1 ? rest : rest.slice(0, to)).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/**
 * Every step of the package's VERIFY.md run as written, in order, in the package's folder (c2patool lines only
 * when the optional tool is installed), optionally under faketime: the numbers of the steps that fail, and what
 * each step printed.
 */
function verifyMd(folder: string, fakeTime?: string) {
  const english = readFileSync(join(folder, "VERIFY.md"), "utf8")
    .split(/^## /m)
    .find((part) => part.startsWith("English"))!;
  const steps = [...english.matchAll(/^### (\d+)\. /gm)].map((match) => Number(match[1]));
  const failing: number[] = [];
  const output: Record<number, string> = {};
  const blocks: { step: number; script: string; status: number | null }[] = [];
  for (const n of steps) {
    output[n] = "";
    for (const block of stepBlocks(english, n)) {
      const script = hasC2patool
        ? block
        : block
            .split("\n")
            .filter((line) => !line.startsWith("c2patool "))
            .join("\n");
      const bash = ["bash", "-e", "-o", "pipefail", "-c", script];
      const result = spawnSync(fakeTime ? "faketime" : "bash", fakeTime ? [fakeTime, ...bash] : bash.slice(1), {
        cwd: folder,
        encoding: "utf8",
        env: { ...process.env, PATH },
      });
      output[n] += `${result.stdout}${result.stderr}`;
      blocks.push({ step: n, script, status: result.status });
      if (result.status !== 0 && !failing.includes(n)) failing.push(n);
    }
  }
  return { steps, failing, output, blocks };
}

/**
 * A GET of the public API, tried again once when the connection fails: between two tests the local server may
 * close an idle kept-alive connection just as it is reused.
 */
async function get(url: string) {
  try {
    return await request(url);
  } catch {
    return request(url);
  }
}

/** The verification page of a proof, in English. */
async function pageHtml(proofId: string): Promise<string> {
  const once = async () => (await fetch(`${stack.baseUrl}/p/${proofId}?lang=en`, { headers: { Accept: "text/html" } })).text();
  try {
    return await once();
  } catch {
    return once();
  }
}

/**
 * The genuine live proof's verification page's "check it yourself" commands, as the page prints them (roots
 * fetched from the published list by the fingerprints the page shows; the seal; the token): run in a package's
 * folder, their exit status.
 */
async function pageCommands(folder: string): Promise<number | null> {
  const html = await pageHtml(genuine.proof.id);
  const entities: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
  const script = html.match(/<code id="command">([\s\S]*?)<\/code>/)![1]!.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => entities[entity]!);
  return spawnSync("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: folder, encoding: "utf8" }).status;
}

/** The token's serial number, as openssl prints it (null when proof.tsr holds none). */
function tokenSerial(folder: string): string | null {
  const text = spawnSync("openssl", ["ts", "-reply", "-in", join(folder, "proof.tsr"), "-text"], { encoding: "utf8" }).stdout ?? "";
  return text.match(/^Serial number: (\S+)$/m)?.[1]?.toLowerCase() ?? null;
}

/**
 * Whether the public JSON vouches for this package: the proof its manifest names is public and verified, with
 * this very manifest and token, sealed as a whole if and only if the package holds manifest.p7s, its evidence
 * record and revocation data in the package when the service has them, and exactly these signed files.
 */
async function publicVouches(folder: string): Promise<boolean> {
  const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8"));
  const answer = await get(`${stack.baseUrl}/v1/public/proofs/${encodeURIComponent(String(manifest.proof_id))}`);
  if (answer.status !== 200) return false;
  const proof = answer.body;
  const held = readdirSync(join(folder, "files")).sort();
  const published = new Map<string, string>(proof.files.map((file: { id: string; signed_sha256: string }) => [file.id, file.signed_sha256]));
  const filesMatch =
    held.length === published.size &&
    held.every((name) => {
      const path = join(folder, "files", name);
      return statSync(path).isFile() && published.get(name.replace(/\.[^.]+$/, "")) === sha256(readFileSync(path));
    });
  return (
    proof.verification.verdict === "verified" &&
    proof.manifest_sha256 === sha256(readFileSync(join(folder, "manifest.json"))) &&
    proof.timestamp?.serial?.toLowerCase() === tokenSerial(folder) &&
    (proof.seal !== null) === existsSync(join(folder, "manifest.p7s")) &&
    (proof.evidence_record === null || existsSync(join(folder, "evidence-record.ers"))) &&
    (!proof.revocation?.length || existsSync(join(folder, "revocation"))) &&
    filesMatch
  );
}

// ---------------------------------------------------------------------------------------------------------
// The forger's tools

interface Forged {
  folder: string;
  zip: string;
}

/** A copy of `base`'s unzipped package changed by `change`, zipped again (entries in `order` first, when given). */
function forge(change: (dir: string) => void, base: SealedPackage = genuine, order: (dir: string) => string[] = () => []): Forged {
  const dir = mkdtempSync(join(tmpdir(), "forged-"));
  const folder = join(dir, "package");
  cpSync(base.folder, folder, { recursive: true });
  change(folder);
  const zip = join(dir, "package.zip");
  const first = order(folder);
  if (first.length > 0) execFileSync("zip", ["-q", zip, ...first], { cwd: folder });
  execFileSync("zip", ["-qr", zip, ...readdirSync(folder)], { cwd: folder });
  return { folder, zip };
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
/** manifest.json written as the sealer writes it (canonical JSON, sorted keys): only the changed fields differ. */
const writeManifest = (dir: string, manifest: unknown) => writeFileSync(join(dir, "manifest.json"), canonicalJson(manifest));

/**
 * A new token over the package's manifest.json from the same authority as the genuine live proofs' (the local
 * live authority), as any of its customers gets one for any bytes; at `fakeTime` when given (a back-dated
 * token: the authority's key used with its clock set back), with `config` another signer of that authority.
 */
function restamp(dir: string, options: { fakeTime?: string; config?: string } = {}) {
  const openssl = (...args: string[]) =>
    execFileSync(options.fakeTime ? "faketime" : "openssl", options.fakeTime ? [options.fakeTime, "openssl", ...args] : args, { cwd: dir, stdio: "pipe" });
  const query = join(mkdtempSync(join(tmpdir(), "tsq-")), "request.tsq");
  openssl("ts", "-query", "-data", "manifest.json", "-sha256", "-cert", "-out", query);
  openssl("ts", "-reply", "-config", join(pki, options.config ?? "tsa-live.cnf"), "-queryfile", query, "-out", "proof.tsr");
}

/**
 * What a forger who strips the CRLs captured at sealing writes in their place: an index saying none could be
 * captured. manifest.p7s lists the revocation files (docs/adr/0049): under the genuine seal, `revocation_sealed`
 * refuses it; under a seal of the forger's own, it is the forger's word, reported `not_checked`, never `pass`.
 */
function revocationNotCaptured(dir: string) {
  const index = JSON.parse(readFileSync(join(dir, "revocation", "index.json"), "utf8")) as Record<string, unknown>[];
  for (const name of readdirSync(join(dir, "revocation")).filter((entry) => entry.endsWith(".crl"))) rmSync(join(dir, "revocation", name));
  const notCaptured = { status: "unavailable", crl: null, this_update: null, next_update: null, reason: "the distribution point did not answer" };
  writeFileSync(join(dir, "revocation", "index.json"), JSON.stringify(index.map((entry) => ({ ...entry, ...notCaptured }))));
}

const fileIds = (dir: string): string[] => readManifest(dir).files.map((file: { id: string }) => file.id);
const fileOf = (sealed: SealedPackage, type: string) => readManifest(sealed.folder).files.find((file: { content_type: string }) => file.content_type === type);
const ext = { "image/jpeg": "jpg", "image/png": "png", "video/mp4": "mp4" } as const;
const signedFile = (sealed: SealedPackage, type: keyof typeof ext) => join(sealed.folder, "files", `${fileOf(sealed, type).id}.${ext[type]}`);

/** faketime's absolute form, a day after the latest notAfter of every certificate the package holds (roots included). */
function afterEveryExpiry(folder: string): string {
  const pems = [join(folder, "chain.pem"), join(folder, "c2pa-trust-anchor.pem")];
  for (const name of readdirSync(join(folder, "revocation")).filter((entry) => entry.endsWith(".pem"))) pems.push(join(folder, "revocation", name));
  const fromPem = pems.flatMap((file) =>
    (readFileSync(file, "utf8").match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) =>
      Date.parse(new X509Certificate(block).validTo),
    ),
  );
  const p7s = execFileSync("openssl", ["pkcs7", "-inform", "DER", "-in", join(folder, "manifest.p7s"), "-print_certs"]).toString();
  const sealCertificates = (p7s.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((block) =>
    Date.parse(new X509Certificate(block).validTo),
  );
  const latest = Math.max(...fromPem, ...sealCertificates);
  expect(Number.isFinite(latest)).toBe(true);
  return new Date(latest + 86_400_000).toISOString().slice(0, 19).replace("T", " ");
}

// ---------------------------------------------------------------------------------------------------------

describe("forgeries of a live proof, refused by every verdict (issue 24, Judged by)", () => {
  it("the genuine live package: VERIFIED pinned, every VERIFY.md step passes, the public JSON vouches for it", async () => {
    const { status, report } = proofVerify(genuine.zip, [...livePins, "--json"]);
    expect(failed(report)).toEqual([]);
    expect(report).toMatchObject({ verdict: "verified", verdict_line: "VERIFIED", test_mode: false });
    expect(status).toBe(0);
    expect(detail(report, "evidence_record")).toMatch(/archive timestamp/);
    // c2pa-rs reads every signed file as Trusted under the pinned service root.
    expect(report.checks.filter((check) => check.name.startsWith("file_c2pa:")).map((check) => check.result)).toEqual(["pass", "pass", "pass"]);
    const copy = forge(() => {});
    const steps = verifyMd(copy.folder);
    expect(steps.steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(steps.failing).toEqual([]);
    expect(steps.output[8]).toMatch(/\nVERIFIED\n/);
    expect(await publicVouches(genuine.folder)).toBe(true);
    expect(await pageCommands(forge(() => {}).folder)).toBe(0);
  });

  it("1. relabelled (party, external_reference, proof_id) and re-stamped by the same authority: refused with manifest.p7s kept or dropped", async () => {
    const relabel = (dir: string) => {
      writeManifest(dir, { ...readManifest(dir), party: "recipient", external_reference: "FORGED-REF", proof_id: "prf_forgedforgedforged" });
      restamp(dir);
      // The genuine evidence record no longer covers it: a forger drops it (kept: below).
      rmSync(join(dir, "evidence-record.ers"));
    };
    const ids = fileIds(genuine.folder);
    const kept = forge(relabel);
    const dropped = forge((dir) => {
      relabel(dir);
      rmSync(join(dir, "manifest.p7s"));
    });
    const withRecord = forge((dir) => {
      writeManifest(dir, { ...readManifest(dir), party: "recipient" });
      restamp(dir);
    });
    // The token is genuine (same authority, pinned root): only the seal and the files' own assertions tell.
    // manifest_seal guards the manifest (the p7s was made over other bytes, or is gone: package_complete);
    // files_listed and file_names_proof (each file's signed capture assertion) guard the proof id, reference, party.
    const a = proofVerify(kept.zip, [...livePins, "--json"]);
    expect(failed(a.report)).toEqual(["manifest_seal", "files_listed", ...ids.map((id) => `file_names_proof:${id}`)]);
    expect(a.report.checks.filter((check) => check.name.startsWith("timestamp_") || check.name.endsWith("_pinned")).every((c) => c.result === "pass")).toBe(
      true,
    );
    expect(a.status).toBe(1);
    expect(detail(a.report, `file_names_proof:${ids[0]}`)).toContain('party "provider" (manifest: "recipient")');
    const b = proofVerify(dropped.zip, [...livePins, "--json"]);
    expect(failed(b.report)).toEqual(["package_complete", "manifest_seal", "files_listed", ...ids.map((id) => `file_names_proof:${id}`)]);
    expect(b.status).toBe(1);
    // The genuine evidence record kept: it covers the genuine manifest and token (evidence_record), not these.
    const c = proofVerify(withRecord.zip, [...livePins, "--json"]);
    expect(failed(c.report)).toEqual([...["manifest_seal"], ...ids.map((id) => `file_names_proof:${id}`), "evidence_record"]);
    // VERIFY.md: the token step passes (a genuine token of the same authority), the seal step (2) and proof-verify (8) fail.
    for (const forged of [kept, dropped]) {
      const steps = verifyMd(forged.folder);
      expect(steps.failing).toEqual(expect.arrayContaining([2, 8]));
      expect(steps.failing).not.toContain(3);
    }
    // The public JSON knows no such proof.
    expect(await publicVouches(kept.folder)).toBe(false);
    expect((await get(`${stack.baseUrl}/v1/public/proofs/prf_forgedforgedforged`)).status).toBe(404);
  });

  it("1. relabelled in what only the seal covers (a file's captured_at a day earlier, the category), re-stamped: manifest_seal alone refuses it", async () => {
    const forged = forge((dir) => {
      const manifest = readManifest(dir);
      manifest.files[0].captured_at = new Date(Date.parse(manifest.files[0].captured_at) - 86_400_000).toISOString();
      writeManifest(dir, { ...manifest, category: "vehicle" });
      restamp(dir);
      rmSync(join(dir, "evidence-record.ers"));
    });
    // manifest_seal: no file assertion or list repeats these fields; only the seal over the whole manifest does.
    const { status, report } = proofVerify(forged.zip, [...livePins, "--json"]);
    expect(failed(report)).toEqual(["manifest_seal"]);
    expect(detail(report, "manifest_seal")).toContain("not made over this manifest.json");
    expect(status).toBe(1);
    expect(verifyMd(forged.folder).failing).toEqual(expect.arrayContaining([2, 8]));
    expect(await publicVouches(forged.folder)).toBe(false);
    // The page's own commands (the seal against the root it names) refuse it too.
    expect(await pageCommands(forged.folder)).not.toBe(0);
  });

  // Five forged packages, each through proof-verify and every VERIFY.md step (step 9 runs pdfsig and qpdf on the
  // report): more than the default two minutes on a loaded machine.
  it("2. a file dropped (and removed from the manifest, re-stamped), dropped alone, added from another proof, swapped for another proof's", async () => {
    const png = fileOf(genuine, "image/png");
    const jpeg = fileOf(genuine, "image/jpeg");
    const theirs = fileOf(credentialed, "image/jpeg");
    const droppedListed = forge((dir) => {
      rmSync(join(dir, "files", `${png.id}.png`));
      const manifest = readManifest(dir);
      writeManifest(dir, { ...manifest, files: manifest.files.filter((file: { id: string }) => file.id !== png.id) });
      restamp(dir);
      rmSync(join(dir, "evidence-record.ers"));
    });
    // manifest_seal: the sealed list of files is the manifest's; dropping an entry breaks the seal.
    const a = proofVerify(droppedListed.zip, [...livePins, "--json"]);
    expect(failed(a.report)).toEqual(["manifest_seal"]);
    expect(a.status).toBe(1);
    expect(verifyMd(droppedListed.folder).failing).toEqual(expect.arrayContaining([2, 8]));
    expect(await pageCommands(droppedListed.folder)).not.toBe(0);

    // files_listed and file_hash: the sealed manifest lists a file the package lacks.
    const dropped = forge((dir) => rmSync(join(dir, "files", `${png.id}.png`)));
    const b = proofVerify(dropped.zip, [...livePins, "--json"]);
    expect(failed(b.report)).toEqual(["files_listed", `file_hash:${png.id}`]);
    expect(b.status).toBe(1);
    expect(verifyMd(dropped.folder).failing).toEqual(expect.arrayContaining([4, 8]));

    // files_listed: a genuine signed file of another proof, not in the sealed manifest (and naming that proof).
    const added = forge((dir) => cpSync(signedFile(credentialed, "image/jpeg"), join(dir, "files", `${theirs.id}.jpg`)));
    const c = proofVerify(added.zip, [...livePins, "--json"]);
    expect(failed(c.report)).toEqual(["files_listed"]);
    expect(detail(c.report, "files_listed")).toContain(`not in the sealed manifest: ${theirs.id}`);
    expect(c.status).toBe(1);
    expect(verifyMd(added.folder).failing).toEqual(expect.arrayContaining([4, 8]));

    // Added and listed in the manifest, re-stamped: manifest_seal, and the file's own assertion names the other
    // proof (files_listed: foreign; file_names_proof).
    const addedListed = forge((dir) => {
      cpSync(signedFile(credentialed, "image/jpeg"), join(dir, "files", `${theirs.id}.jpg`));
      const manifest = readManifest(dir);
      writeManifest(dir, { ...manifest, files: [...manifest.files, theirs] });
      restamp(dir);
      rmSync(join(dir, "evidence-record.ers"));
    });
    const d = proofVerify(addedListed.zip, [...livePins, "--json"]);
    expect(failed(d.report)).toEqual(["manifest_seal", "files_listed", `file_names_proof:${theirs.id}`]);
    expect(d.status).toBe(1);
    expect(verifyMd(addedListed.folder).failing).toEqual(expect.arrayContaining([2, 8]));

    // Swapped: another proof's genuine signed JPEG of the very same picture under this proof's file name. c2pa-rs
    // still trusts it (the service signed it) and its original is this one's (file_original passes), but file_hash
    // and file_names_proof (its signed assertion names the other proof), and files_listed (foreign), refuse it.
    const swapped = forge((dir) => cpSync(signedFile(credentialed, "image/jpeg"), join(dir, "files", `${jpeg.id}.jpg`)));
    const e = proofVerify(swapped.zip, [...livePins, "--json"]);
    expect(failed(e.report)).toEqual(["files_listed", `file_hash:${jpeg.id}`, `file_names_proof:${jpeg.id}`]);
    expect(detail(e.report, `file_names_proof:${jpeg.id}`)).toContain(`proof_id "${credentialed.proof.id}"`);
    expect(e.report.checks.find((check) => check.name === `file_c2pa:${jpeg.id}`)?.result).toBe("pass");
    expect(e.status).toBe(1);
    expect(verifyMd(swapped.folder).failing).toEqual(expect.arrayContaining([4, 8]));

    for (const forged of [droppedListed, dropped, added, addedListed, swapped]) expect(await publicVouches(forged.folder)).toBe(false);
  }, 300_000);

  it("2. an added file under a held file's id (files/<id>.png beside files/<id>.jpg, first in the ZIP): files_listed refuses it", async () => {
    const jpeg = fileOf(genuine, "image/jpeg");
    const forged = forge(
      (dir) => cpSync(signedFile(credentialed, "image/png"), join(dir, "files", `${jpeg.id}.png`)),
      genuine,
      () => [`files/${jpeg.id}.png`],
    );
    // files_listed: the package holds a file the sealed manifest does not list (FINDING F1 while it says VERIFIED).
    const { status, report } = proofVerify(forged.zip, [...livePins, "--json"]);
    expect(failed(report)).toContain("files_listed");
    expect(status).toBe(1);
    expect(proofVerify(forged.folder, [...livePins, "--json"]).status).toBe(1);
    // VERIFY.md step 4 finds two files for one entry.
    expect(verifyMd(forged.folder).failing).toEqual(expect.arrayContaining([4, 8]));
    expect(await publicVouches(forged.folder)).toBe(false);
  });

  it("2. an added file in a subfolder of files/ (another proof's signed PNG): files_listed refuses it", async () => {
    const forged = forge((dir) => {
      mkdirSync(join(dir, "files", "more"));
      cpSync(signedFile(credentialed, "image/png"), join(dir, "files", "more", "photo.png"));
    });
    // files_listed: files/ holds something the sealed manifest does not list (finding F2, fixed in 8cccb82).
    const { status, report } = proofVerify(forged.zip, [...livePins, "--json"]);
    expect(failed(report)).toEqual(["files_listed"]);
    expect(detail(report, "files_listed")).toContain("not in the sealed manifest: more/photo");
    expect(status).toBe(1);
    const steps = verifyMd(forged.folder);
    expect(steps.output[4]).toContain("files/more: FAILED, not in the sealed manifest");
    expect(steps.failing).toEqual(expect.arrayContaining([4, 8]));
    expect(await publicVouches(forged.folder)).toBe(false);
  });

  it("2. an added file as a symbolic link in the unzipped folder (files/damage.png -> another proof's PNG kept outside files/): files_listed refuses it", async () => {
    const forged = forge((dir) => {
      mkdirSync(join(dir, ".hidden"));
      cpSync(signedFile(credentialed, "image/png"), join(dir, ".hidden", "damage.png"));
      symlinkSync(join("..", ".hidden", "damage.png"), join(dir, "files", "damage.png"));
    });
    // files_listed, in folder mode too (VERIFY.md step 8 runs proof-verify in the folder): a file manager and step 4
    // show files/damage.png (FINDING F5 while the folder verifies).
    const { status, report } = proofVerify(forged.folder, [...livePins, "--json"]);
    expect(failed(report)).toContain("files_listed");
    expect(status).toBe(1);
    // The ZIP (zip stores the file the link points to) is refused the same way, and the hidden folder is no part of
    // a package (package_contents, docs/adr/0056).
    expect(failed(proofVerify(forged.zip, [...livePins, "--json"]).report)).toEqual(["package_contents", "files_listed"]);
    const steps = verifyMd(forged.folder);
    expect(steps.output[4]).toContain("files/damage.png: FAILED, not in the sealed manifest");
    expect(steps.failing).toEqual(expect.arrayContaining([4, 8]));
    expect(await publicVouches(forged.folder)).toBe(false);
  });

  it("3. stripped of manifest.p7s, or of it with the manifest downgraded to version 1 and re-stamped", async () => {
    const stripped = forge((dir) => rmSync(join(dir, "manifest.p7s")));
    // package_complete (a version-2 manifest requires its seal) and manifest_seal.
    const a = proofVerify(stripped.zip, [...livePins, "--json"]);
    expect(failed(a.report)).toEqual(["package_complete", "manifest_seal"]);
    expect(a.status).toBe(1);
    expect(verifyMd(stripped.folder).failing).toEqual(expect.arrayContaining([2, 8]));

    const downgraded = forge((dir) => {
      rmSync(join(dir, "manifest.p7s"));
      writeManifest(dir, { ...readManifest(dir), version: 1 });
      restamp(dir);
      rmSync(join(dir, "evidence-record.ers"));
    });
    // manifest_seal: a version-1 manifest is never sealed as a whole, so never VERIFIED.
    const b = proofVerify(downgraded.zip, [...livePins, "--json"]);
    expect(failed(b.report)).toEqual(["manifest_seal"]);
    expect(detail(b.report, "manifest_seal")).toContain("version-1");
    expect(b.status).toBe(1);
    expect(verifyMd(downgraded.folder).failing).toEqual(expect.arrayContaining([2, 8]));
    for (const forged of [stripped, downgraded]) {
      expect(await publicVouches(forged.folder)).toBe(false);
      expect(await pageCommands(forged.folder)).not.toBe(0);
    }
  });

  it("3. stripped of revocation/ (and of its evidence record): refused now (revocation), and under faketime after every certificate's expiry (long_term)", async () => {
    const fakeTime = afterEveryExpiry(genuine.folder);
    const withoutRecord = forge((dir) => rmSync(join(dir, "evidence-record.ers")));
    const stripped = forge((dir) => {
      rmSync(join(dir, "evidence-record.ers"));
      rmSync(join(dir, "revocation"), { recursive: true });
    });
    // revocation: a version-2 package always carries its revocation index (docs/adr/0040, finding O1).
    const now = proofVerify(stripped.zip, [...livePins, "--json"]);
    expect(failed(now.report)).toEqual(["revocation"]);
    expect(now.status).toBe(1);
    expect(verifyMd(stripped.folder).failing).toEqual(expect.arrayContaining([7, 8]));
    // long_term: once the authority's certificate has expired, only an evidence record proves the token was made
    // while it was valid.
    for (const [forged, failures] of [
      [withoutRecord, ["long_term"]],
      [stripped, ["revocation", "long_term"]],
    ] as const) {
      const { status, report } = proofVerify(forged.zip, [...livePins, "--json"], fakeTime);
      expect(failed(report)).toEqual(failures);
      expect(detail(report, "long_term")).toContain("no evidence record");
      expect(report.verdict_line).toBe("NOT VERIFIED");
      expect(status).toBe(1);
    }
    // VERIFY.md under the same clock: the token (3) and proof-verify (8) fail, the seal at today's date (2) too.
    const steps = verifyMd(forge((dir) => rmSync(join(dir, "evidence-record.ers"))).folder, fakeTime);
    expect(steps.failing).toEqual(expect.arrayContaining([2, 3, 8]));
    expect(steps.output[8]).toContain("\nNOT VERIFIED");
    expect(await publicVouches(stripped.folder)).toBe(false);
  });

  it("3. revocation/index.json edited to say the CRLs could not be captured (the CRLs removed), the genuine seal kept: revocation_sealed refuses it", async () => {
    // The evidence record covers the revocation data too: the forger drops it (a package downloaded early has none).
    const forged = forge((dir) => {
      revocationNotCaptured(dir);
      rmSync(join(dir, "evidence-record.ers"));
    });
    const { status, report } = proofVerify(forged.zip, [...livePins, "--json"]);
    // Before ADR 0049 the index was the package's word: revocation not_checked, and the package VERIFIED.
    expect(failed(report)).toEqual(["revocation"]);
    expect(detail(report, "revocation")).toContain("revocation_sealed the revocation data is not what manifest.p7s seals");
    expect(detail(report, "revocation")).toContain("altered: revocation/index.json");
    expect(status).toBe(1);
    // VERIFY.md: step 7 compares the revocation files with the list manifest.p7s seals, as proof-verify (8) does.
    const steps = verifyMd(forged.folder);
    expect(steps.failing).toEqual(expect.arrayContaining([7, 8]));
    expect(steps.output[7]).toContain("revocation/index.json: FAILED, not the file manifest.p7s seals");
    // The seal's own certificate has its entry too, naming manifest.p7s's signer (ADR 0049).
    const genuineReport = proofVerify(genuine.zip, [...livePins, "--json"]).report as Report & { revocation: { steps: Check[] } };
    expect(genuineReport.revocation.steps.map((step) => [step.name, step.result])).toEqual(
      expect.arrayContaining([
        ["revocation_sealed", "pass"],
        ["revocation:seal-1", "pass"],
      ]),
    );
  });

  it("5. a file signed under a forger's CA named exactly like the service root (its root put in chain.pem): file_c2pa refuses it by key, not by name", async () => {
    const jpeg = fileOf(genuine, "image/jpeg");
    const forger = mkdtempSync(join(tmpdir(), "forger-same-name-"));
    cpSync(join(pki, "extensions.cnf"), join(forger, "extensions.cnf"));
    const subjectOf = (file: string) => `/${new X509Certificate(readFileSync(file)).subject.split("\n").join("/")}`;
    const issue = (name: string, subject: string, issuer: string | null, extensions: string) =>
      issueCertificate(forger, { name, subject, issuer, days: 3650, config: "extensions.cnf", extensions });
    issue("service-root", subjectOf(join(genuine.folder, "c2pa-trust-anchor.pem")), null, "root");
    issue("c2pa-signer", subjectOf(join(pki, "c2pa-signer.pem")), "service-root", "c2pa_signer");
    const signed = await signWithC2pa(
      new Uint8Array(fixture("photo.jpg")),
      {
        title: "photo.jpg",
        format: "image/jpeg",
        assertions: [{ label: "c2pa.actions", data: { actions: [{ action: "c2pa.created", digitalSourceType: DIGITAL_CAPTURE }] }, created: true }],
      },
      {
        key: loadSigningKey(execFileSync("openssl", ["pkcs8", "-topk8", "-nocrypt", "-in", join(forger, "c2pa-signer.key")]).toString()),
        chainDer: [new Uint8Array(new X509Certificate(readFileSync(join(forger, "c2pa-signer.pem"))).raw)],
        timestamp: null,
      },
    );
    const forged = forge((dir) => {
      writeFileSync(join(dir, "files", `${jpeg.id}.jpg`), signed);
      writeFileSync(join(dir, "chain.pem"), `${readFileSync(join(dir, "chain.pem"), "utf8")}${readFileSync(join(forger, "service-root.pem"), "utf8")}`);
    });
    // Only the service root pinned: c2pa-rs is given every root of chain.pem, the forger's among them, and reads
    // the file Trusted; its signer's issuer reads exactly as the service root's name.
    const { report } = proofVerify(forged.zip, ["--service-root-sha256", livePins[3]!, "--json"]);
    const check = report.checks.find((one) => one.name === `file_c2pa:${jpeg.id}`)!;
    expect(check.result).toBe("fail");
    expect(check.detail).toContain("c2pa-rs: Trusted, but its signing certificate");
    expect(check.detail).toContain("does not verify under that root's key");
    expect(report.verdict).not.toBe("verified");
  });

  it("4. a token back-dated with the authority's key after its certificate expired: refused under faketime, with or without the genuine evidence record", async () => {
    const fakeTime = afterEveryExpiry(genuine.folder);
    // The genuine manifest (its seal holds), stamped by the genuine authority's key with its clock set to a date
    // when its certificate was valid: what a leaked expired key makes. The CRLs captured at sealing were not current
    // then: the forger says none could be captured.
    const backDated = (keepRecord: boolean) =>
      forge((dir) => {
        restamp(dir, { fakeTime: "2030-06-01 12:00:00" });
        revocationNotCaptured(dir);
        if (!keepRecord) rmSync(join(dir, "evidence-record.ers"));
      });
    const without = backDated(false);
    const kept = backDated(true);
    // long_term: nothing proves the token existed before the certificate expired.
    const a = proofVerify(without.zip, [...livePins, "--json"], fakeTime);
    expect(a.report).toMatchObject({ gen_time: expect.stringMatching(/^2030-06-01T12:00/) });
    // revocation too: the genuine seal lists the revocation files the forger rewrote (ADR 0049); report: the sealed
    // report carries the genuine token (ADR 0056).
    expect(failed(a.report)).toEqual(["revocation", "report", "long_term"]);
    expect(a.status).toBe(1);
    // evidence_record: the genuine record covers the genuine token, not this one; so long_term fails too.
    const b = proofVerify(kept.zip, [...livePins, "--json"], fakeTime);
    expect(failed(b.report)).toEqual(["revocation", "report", "evidence_record", "long_term"]);
    expect(b.status).toBe(1);
    for (const forged of [without, kept]) {
      const steps = verifyMd(forged.folder, fakeTime);
      expect(steps.failing).toEqual(expect.arrayContaining([3, 8]));
      expect(await publicVouches(forged.folder)).toBe(false);
    }
  });

  it("4. a token dated in the future (the authority's key with its clock set ahead) is refused today", async () => {
    const forged = forge((dir) => {
      restamp(dir, { fakeTime: "2030-06-01 12:00:00" });
      revocationNotCaptured(dir);
      rmSync(join(dir, "evidence-record.ers"));
    });
    // timestamp_chain: no authority can have made today a token dated years ahead (finding F4); the sealed report
    // carries the genuine token.
    const { status, report } = proofVerify(forged.zip, [...livePins, "--json"]);
    expect(failed(report)).toEqual(["timestamp_chain", "revocation", "report"]);
    expect(status).toBe(1);
    // VERIFY.md: openssl does not compare gen_time with today; proof-verify (8) refuses it.
    expect(verifyMd(forged.folder).failing).toContain(8);
    expect(await publicVouches(forged.folder)).toBe(false);
  });

  it("4. the seal key leaked after its certificate expired: a relabelled manifest sealed with it and freshly stamped is refused (manifest_seal at gen_time)", async () => {
    // Years on: the sealing certificate expired, its key leaked; the authority has a new signer under the same root.
    const sealExpiry = Date.parse(
      new X509Certificate(execFileSync("openssl", ["pkcs7", "-inform", "DER", "-in", join(genuine.folder, "manifest.p7s"), "-print_certs"]).toString()).validTo,
    );
    const fakeClock = (at: number) => new Date(at).toISOString().slice(0, 19).replace("T", " ");
    const then = fakeClock(sealExpiry + 30 * 86_400_000);
    // Issued the day before (a certificate issued in the same faked second could postdate the token).
    const issued = fakeClock(sealExpiry + 29 * 86_400_000);
    const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: pki, stdio: "pipe" });
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "tsa-live-2.key");
    openssl(
      "req",
      "-new",
      "-key",
      "tsa-live-2.key",
      "-subj",
      "/C=FR/O=Local Authority/CN=Local Timestamp Authority 2",
      "-config",
      "extensions.cnf",
      "-out",
      "tsa-live-2.csr",
    );
    execFileSync(
      "faketime",
      [
        issued,
        "openssl",
        "x509",
        "-req",
        "-in",
        "tsa-live-2.csr",
        "-CA",
        "tsa-live-root.pem",
        "-CAkey",
        "tsa-live-root.key",
        "-CAcreateserial",
        "-days",
        "3650",
      ].concat(["-sha256", "-extfile", "extensions.cnf", "-extensions", "tsa_signer", "-out", "tsa-live-2.pem"]),
      { cwd: pki, stdio: "pipe" },
    );
    writeFileSync(join(pki, "tsa-live-2.cnf"), readFileSync(join(pki, "tsa-live.cnf"), "utf8").replaceAll("tsa-live.", "tsa-live-2."));
    const forged = forge((dir) => {
      const manifest = readManifest(dir);
      manifest.files[0].captured_at = new Date(Date.parse(manifest.files[0].captured_at) - 86_400_000).toISOString();
      writeManifest(dir, manifest);
      execFileSync(
        "faketime",
        [then, "openssl", "cms", "-sign", "-binary", "-cades", "-md", "sha256", "-in", "manifest.json", "-signer", join(pki, "proof-seal.pem")].concat([
          "-inkey",
          join(pki, "proof-seal.key"),
          "-outform",
          "DER",
          "-out",
          "manifest.p7s",
        ]),
        { cwd: dir, stdio: "pipe" },
      );
      restamp(dir, { fakeTime: then, config: "tsa-live-2.cnf" });
      revocationNotCaptured(dir);
      rmSync(join(dir, "evidence-record.ers"));
    });
    // manifest_seal: the seal's certificate is judged at the token's gen_time, when it had expired.
    const { status, report } = proofVerify(forged.zip, [...livePins, "--json"], then);
    expect(failed(report)).toEqual(["manifest_seal"]);
    expect(detail(report, "manifest_seal")).toContain("does not chain to the service root at gen_time");
    expect(status).toBe(1);
    const steps = verifyMd(forged.folder, then);
    expect(steps.failing).toEqual(expect.arrayContaining([2, 8]));
    // Step 2's check "at gen_time" (what its text says to run once the seal's certificate has expired) must be at
    // this token's gen_time, when the certificate had expired (FINDING F6 while its -attime is a number written in
    // VERIFY.md, the genuine token's gen_time, instead of read from proof.tsr).
    const atGenTime = steps.blocks.find((block) => block.step === 2 && block.script.includes("-attime"));
    expect(atGenTime?.status).not.toBe(0);
    expect(await publicVouches(forged.folder)).toBe(false);
  });

  it("5. a package made with a forger's own CA and authority: never VERIFIED unpinned (exit 3), NOT VERIFIED with the genuine pins", async () => {
    const forger = ensureLocalPki(join(mkdtempSync(join(tmpdir(), "forger-")), "pki"));
    const pem = (name: string) => readFileSync(join(forger, name), "utf8");
    const jpeg = fileOf(genuine, "image/jpeg");
    const original = new Uint8Array(fixture("photo.jpg"));
    const claims = {
      proof_id: "prf_forgedbyownca",
      external_reference: "FORGED-REF",
      party: "recipient",
    };
    const manifest = { ...readManifest(genuine.folder), ...claims };
    const capture = {
      ...claims,
      session_id: manifest.session_id,
      organization_id: manifest.organization_id,
      mode: manifest.mode,
      stage: manifest.stage,
      step_id: jpeg.step_id,
      position: 1,
      compare_to: null,
    };
    // Its own C2PA signer, signing the file with a capture assertion naming the forged proof.
    const signed = await signWithC2pa(
      original,
      {
        title: "photo.jpg",
        format: "image/jpeg",
        assertions: [
          { label: "c2pa.actions", data: { actions: [{ action: "c2pa.created", digitalSourceType: DIGITAL_CAPTURE }] }, created: true },
          { label: "com.proofseal.capture", data: capture, created: true },
        ],
      },
      { key: loadSigningKey(pem("c2pa-signer.pk8")), chainDer: [new Uint8Array(new X509Certificate(pem("c2pa-signer.pem")).raw)], timestamp: null },
    );
    const forged = forge((dir) => {
      rmSync(join(dir, "files"), { recursive: true });
      revocationNotCaptured(dir);
      rmSync(join(dir, "evidence-record.ers"));
      // The genuine sealed report is not the forger's (its seal and attachments are the genuine proof's).
      rmSync(join(dir, "report.pdf"));
      mkdirSync(join(dir, "files"));
      writeFileSync(join(dir, "files", `${jpeg.id}.jpg`), signed);
      writeManifest(dir, { ...manifest, files: [{ ...jpeg, size: original.length, sha256: sha256(original), signed_sha256: sha256(signed) }] });
      // Its own seal (CAdES-B, documentSigning) and its own authority, with the genuine names.
      execFileSync(
        "openssl",
        ["cms", "-sign", "-binary", "-cades", "-md", "sha256", "-in", "manifest.json", "-signer", join(forger, "proof-seal.pem"), "-inkey"].concat([
          join(forger, "proof-seal.key"),
          "-outform",
          "DER",
          "-out",
          "manifest.p7s",
        ]),
        { cwd: dir, stdio: "pipe" },
      );
      const query = join(mkdtempSync(join(tmpdir(), "tsq-")), "request.tsq");
      execFileSync("openssl", ["ts", "-query", "-data", "manifest.json", "-sha256", "-cert", "-out", query], { cwd: dir, stdio: "pipe" });
      execFileSync("openssl", ["ts", "-reply", "-config", join(forger, "tsa-live.cnf"), "-queryfile", query, "-out", "proof.tsr"], { cwd: dir, stdio: "pipe" });
      writeFileSync(join(dir, "chain.pem"), pem("tsa-live-root.pem"));
      writeFileSync(join(dir, "c2pa-trust-anchor.pem"), pem("c2pa-root.pem"));
    });
    // Unpinned, the package is consistent with itself: nothing fails, yet it is only "origin not established".
    // (verdictOf: both pins required for verified; proof-verify's exit code 3.)
    const unpinned = proofVerify(forged.zip, ["--json"]);
    expect(failed(unpinned.report)).toEqual([]);
    expect(unpinned.report.checks.find((check) => check.name === `file_names_proof:${jpeg.id}`)?.result).toBe("pass");
    expect(unpinned.report.verdict).toBe("origin_not_established");
    expect(unpinned.status).toBe(3);
    const readable = proofVerify(forged.zip, []);
    expect(readable.stdout).not.toMatch(/^VERIFIED/m);
    expect(readable.stdout).toContain("\nORIGIN NOT ESTABLISHED");
    expect(readable.status).toBe(3);
    // Pinned to the genuine roots: tsa_root_pinned and service_root_pinned; the seal then has no trusted root
    // (manifest_seal), and c2pa-rs does not trust the file's signer (file_c2pa, so no assertion is read).
    const pinned = proofVerify(forged.zip, [...livePins, "--json"]);
    expect(failed(pinned.report)).toEqual(["tsa_root_pinned", "service_root_pinned", "manifest_seal", `file_c2pa:${jpeg.id}`, `file_names_proof:${jpeg.id}`]);
    expect(pinned.status).toBe(1);
    // VERIFY.md: step 1 finds no published root in the package's chains; the seal, token and proof-verify fail.
    const steps = verifyMd(forged.folder);
    expect(steps.output[1]).toContain("tsa-root.pem: FAILED, no root of chain.pem is one the service publishes");
    expect(steps.output[1]).toContain("service-root.pem: FAILED, no root of c2pa-trust-anchor.pem is one the service publishes");
    expect(steps.failing).toEqual(expect.arrayContaining([1, 2, 3, 8]));
    expect(await publicVouches(forged.folder)).toBe(false);
    // The genuine proof's page: its commands take the published roots by the fingerprints it shows.
    expect(await pageCommands(forged.folder)).not.toBe(0);
  });

  it("6. openssl cms -verify accepts the genuine seal against the published root only, and refuses it once relabelled", async () => {
    const anchors: { data: { kind: string; mode: string; pem: string }[] } = (await get(`${stack.baseUrl}/v1/public/trust-anchors`)).body;
    const dir = mkdtempSync(join(tmpdir(), "cms-roots-"));
    const saved = (name: string, pemText: string) => {
      writeFileSync(join(dir, name), pemText);
      return join(dir, name);
    };
    const published = saved("live-root.pem", anchors.data.find((anchor) => anchor.kind === "c2pa" && anchor.mode === "live")!.pem);
    const others = [
      saved("test-root.pem", anchors.data.find((anchor) => anchor.kind === "c2pa" && anchor.mode === "test")!.pem),
      saved("tsa-root.pem", anchors.data.find((anchor) => anchor.kind === "timestamp_authority" && anchor.mode === "live")!.pem),
      saved("forger-root.pem", readFileSync(join(ensureLocalPki(join(mkdtempSync(join(tmpdir(), "cms-forger-")), "pki")), "c2pa-root.pem"), "utf8")),
    ];
    const cms = (folder: string, caFile: string) =>
      spawnSync(
        "openssl",
        [
          "cms",
          "-verify",
          "-binary",
          "-inform",
          "DER",
          "-in",
          "manifest.p7s",
          "-content",
          "manifest.json",
          "-CAfile",
          caFile,
          "-purpose",
          "any",
          "-out",
          "/dev/null",
        ],
        { cwd: folder, encoding: "utf8" },
      );
    const accepted = cms(genuine.folder, published);
    expect(accepted.status, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain("CMS Verification successful");
    for (const other of others) expect(cms(genuine.folder, other).status).not.toBe(0);
    const relabelled = forge((folder) => writeManifest(folder, { ...readManifest(folder), party: "recipient" }));
    const refused = cms(relabelled.folder, published);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("content verify error");
  });

  it("8. a genuine proof whose JPEG arrived with its own Content Credentials passes proof-verify, VERIFY.md, the public JSON and the page", async () => {
    const jpeg = fileOf(credentialed, "image/jpeg");
    expect(jpeg.prior_credentials).toBe(true);
    const { status, report } = proofVerify(credentialed.zip, [...livePins, "--json"]);
    expect(failed(report)).toEqual([]);
    expect(report.verdict).toBe("verified");
    expect(status).toBe(0);
    // file_original: not recoverable by stripping APP11 (the earlier credentials are APP11 too), and says so.
    expect(report.checks.find((check) => check.name === `file_original:${jpeg.id}`)).toMatchObject({ result: "not_checked" });
    expect(report.checks.find((check) => check.name === `file_c2pa:${jpeg.id}`)?.result).toBe("pass");
    const copy = forge(() => {}, credentialed);
    expect(verifyMd(copy.folder).failing).toEqual([]);
    const answer = await get(`${stack.baseUrl}/v1/public/proofs/${credentialed.proof.id}`);
    expect(answer.body.verification).toMatchObject({ status: "valid", verdict: "verified" });
    const page = await pageHtml(credentialed.proof.id);
    expect(page).toContain('data-verdict="verified"');
  });

  it("9. a test proof says TEST in proof-verify's verdict line and test_mode in --json, and is refused under the live roots", async () => {
    const { status, report, stdout } = proofVerify(testProof.zip, [...testPins, "--json"]);
    expect(failed(report)).toEqual([]);
    // mode, test_mode and verdictLine: a test proof's line always says so.
    expect(report).toMatchObject({ verdict: "verified", test_mode: true, verdict_line: "VERIFIED (TEST PROOF, no legal value)" });
    expect(stdout).toContain('"test_mode": true');
    expect(status).toBe(0);
    expect(proofVerify(testProof.zip, testPins).stdout).toMatch(/\nVERIFIED \(TEST PROOF, no legal value\)\n$/);
    // Under the live roots: the test roots are never the live ones.
    const live = proofVerify(testProof.zip, [...livePins, "--json"]);
    expect(failed(live.report)).toEqual(expect.arrayContaining(["tsa_root_pinned", "service_root_pinned", "manifest_seal"]));
    expect(live.report.verdict_line).toBe("NOT VERIFIED (TEST PROOF, no legal value)");
    expect(live.status).toBe(1);
    expect((await get(`${stack.baseUrl}/v1/public/proofs/${testProof.proof.id}`)).body.verification).toMatchObject({ test_mode: true });
    expect(await pageHtml(testProof.proof.id)).toContain('data-testid="test-banner"');
  });

  // Last: it alters the genuine proof's stored object, which every test above downloaded before.
  it("10. one byte of a stored signed file changed (same size) in local R2: the public JSON and page stop saying verified within one sweep interval", async () => {
    const target = fileOf(genuine, "image/png") as { id: string };
    const publicJson = `${stack.baseUrl}/v1/public/proofs/${genuine.proof.id}`;
    expect((await get(publicJson)).body.verification.verdict).toBe("verified");
    const blobs = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? blobs(join(dir, entry.name)) : [join(dir, entry.name)]));
    /** Changes one byte (same size) of every object in the stack's local R2 holding exactly `content`. */
    const alterStored = (content: Buffer) => {
      const stored = blobs(join(stateDir, "state")).filter((path) => statSync(path).size === content.length && readFileSync(path).equals(content));
      expect(stored.length).toBeGreaterThan(0);
      for (const path of stored) {
        const bytes = readFileSync(path);
        bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0x01;
        writeFileSync(path, bytes);
      }
    };
    alterStored(readFileSync(signedFile(genuine, "image/png")));
    const changedAt = Date.now();
    // The re-hash sweep (file_hash from the stored object as it is now): one interval, plus the run and its tick.
    let verification = (await request(publicJson)).body.verification;
    while (verification.verdict === "verified" && Date.now() - changedAt < (SWEEP_INTERVAL_SECONDS + 10) * 1000) {
      await new Promise((done) => setTimeout(done, 500));
      verification = (await request(publicJson)).body.verification;
    }
    expect(Date.now() - changedAt).toBeLessThan((SWEEP_INTERVAL_SECONDS + 10) * 1000);
    expect(verification).toMatchObject({ status: "invalid", verdict: "altered" });
    expect(verification.checks.filter((check: Check) => check.result === "fail").map((check: Check) => check.name)).toEqual([`file_hash:${target.id}`]);
    const page = await pageHtml(genuine.proof.id);
    expect(page).not.toContain('data-verdict="verified"');
    expect(page).toContain('data-verdict="altered"');
    // Then one byte of the stored seal (manifest.p7s): manifest_seal, on the stored seal as it is now (not altered
    // alone: the seal no longer holds), within one sweep interval too (its re-hash renews what caches the verdict).
    alterStored(readFileSync(join(genuine.folder, "manifest.p7s")));
    const sealChangedAt = Date.now();
    while (verification.verdict === "altered" && Date.now() - sealChangedAt < (SWEEP_INTERVAL_SECONDS + 10) * 1000) {
      await new Promise((done) => setTimeout(done, 500));
      verification = (await get(publicJson)).body.verification;
    }
    expect(verification).toMatchObject({ status: "invalid", verdict: "not_verified" });
    expect(verification.checks).toContainEqual(expect.objectContaining({ name: "manifest_seal", result: "fail" }));
    expect(await pageHtml(genuine.proof.id)).toContain('data-verdict="not_verified"');
  }, 90_000);
});
