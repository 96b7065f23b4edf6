import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startStack, type Stack } from "./support/stack.ts";
import { request } from "./support/http.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";

/** Each report's pages as pdftoppm draws them, to be looked at (test-results/report-<name>-<page>.png). */
const pictures = resolve(import.meta.dirname, "../../test-results");
const work = mkdtempSync(join(tmpdir(), "report-content-"));

let stack: Stack;
/** The same template in each mode (a template belongs to one). */
const templates: Record<"test" | "live", string> = { test: "", live: "" };
beforeAll(async () => {
  stack = await startStack();
  const label = (en: string, fr: string, es: string, de: string) => ({ en, fr, es, de });
  for (const mode of ["test", "live"] as const) {
    const template = await request(`${stack.baseUrl}/v1/capture-templates`, {
      token: mode === "test" ? stack.testKey : stack.liveKey,
      body: {
        name: "Car handover",
        default_locale: "en",
        welcome: { title: "Hello" },
        steps: [
          {
            id: "front",
            label: label("Front of the car", "Avant du véhicule", "Parte delantera", "Fahrzeugfront"),
            instruction: "The whole front",
            max_count: 3,
          },
          { id: "meter", label: label("Mileage", "Kilométrage", "Kilometraje", "Kilometerstand"), instruction: "The odometer", max_count: 2 },
        ],
      },
    });
    expect(template.status).toBe(201);
    templates[mode] = template.body.id;
  }
});
afterAll(async () => {
  await stack?.stop();
});

/** A PDF from a public route, polled while it answers `report_not_ready` (made just after sealing). */
async function downloaded(url: string): Promise<Buffer> {
  // Made within seconds; a try that fails on a loaded machine is retried after 20 s, then 1 min.
  const deadline = Date.now() + 200_000;
  for (;;) {
    const response = await fetch(url);
    if (response.status === 200) {
      expect(response.headers.get("content-type")).toBe("application/pdf");
      return Buffer.from(await response.arrayBuffer());
    }
    expect((await response.json()).code).toBe("report_not_ready");
    if (Date.now() > deadline) throw new Error(`${url}: still not ready`);
    await new Promise((done) => setTimeout(done, 1_000));
  }
}

/** The named entry of the proof's package as downloaded now. */
async function fromPackage(packageUrl: string, entry: string): Promise<Buffer> {
  const zip = join(work, `${crypto.randomUUID()}.zip`);
  writeFileSync(zip, Buffer.from(await (await fetch(packageUrl)).arrayBuffer()));
  return execFileSync("unzip", ["-p", zip, entry], { maxBuffer: 64 << 20 });
}

/** The report written down, its text as pdftotext reads it (spacing folded), its page count, and its pages drawn for the eye. */
function read(pdf: Buffer, name: string) {
  const path = join(work, `${name}.pdf`);
  writeFileSync(path, pdf);
  const text = (page?: number) =>
    execFileSync("pdftotext", [...(page === undefined ? [] : ["-f", String(page), "-l", String(page)]), path, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [path], { encoding: "utf8" }))![1]);
  mkdirSync(pictures, { recursive: true });
  execFileSync("pdftoppm", ["-r", "60", "-png", path, join(work, `report-${name}`)]);
  for (const file of readdirSync(work).filter((file) => file.startsWith(`report-${name}-`) && file.endsWith(".png")))
    renameSync(join(work, file), join(pictures, file));
  return { path, text, pages };
}

/** The QR code of the first page, as zbarimg decodes it from pdftoppm's picture. */
function qrOf(path: string): string {
  const prefix = join(work, `qr-${crypto.randomUUID()}`);
  execFileSync("pdftoppm", ["-r", "150", "-f", "1", "-l", "1", "-png", path, prefix]);
  const [page] = readdirSync(work).filter((file) => join(work, file).startsWith(prefix));
  return execFileSync("zbarimg", ["--quiet", "--raw", join(work, page!)], { encoding: "utf8" }).trim();
}

const utc = (iso: string, language: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: "long", timeStyle: "long", timeZone: "UTC" }).format(new Date(iso)).replace(/\s+/g, " ");

/** A proof sealed through the API in `locale`: a camera shot of the front, a file from the gallery for the meter. */
async function sealedProof(mode: "test" | "live", locale: string, extra: Record<string, unknown> = { template_id: templates[mode] }) {
  const key = mode === "test" ? stack.testKey : stack.liveKey;
  const session = { external_reference: `LEASE-${Date.now()}`, party: "provider", stage: "handover", locale, ...extra };
  const { completed } = await captureOverHttp(stack, key, session, [
    { file: "photo.jpg", type: "image/jpeg", step: "front" },
    { file: "photo.png", type: "image/png", step: "meter", capture: { method: "file", device_time: new Date().toISOString() } },
  ]);
  expect(completed.status).toBe(200);
  const proof = await waitForProof(stack, key, completed.body.proof_id, (p) => p.status !== "pending", 90_000);
  expect(proof.status).toBe("sealed");
  return proof;
}

/** What the issue asks pdftotext to find: the verdict, the reference, the party, the certified time and every fingerprint. */
function saysTheFacts(text: string, proof: any, words: { verdict: string; party: string }, language: string) {
  expect(text).toContain(words.verdict);
  expect(text).toContain(proof.external_reference);
  expect(text).toContain(words.party);
  expect(text).toContain(utc(proof.timestamp.gen_time, language));
  for (const file of proof.files) {
    expect(text).toContain(file.sha256);
    expect(text).toContain(file.signed_sha256);
  }
}

describe("the PDF reports' content, for proofs made through the API (ADR 0044)", () => {
  let testProof: any;

  it("a test proof in French: from its route and its package alike, TEST on every page, the facts, the QR code", async () => {
    testProof = await sealedProof("test", "fr");
    const pdf = await downloaded(`${stack.baseUrl}/v1/public/proofs/${testProof.id}/report.pdf`);
    expect(Buffer.compare(await fromPackage(testProof.package_url, "report.pdf"), pdf)).toBe(0);
    const report = read(pdf, "test-fr");
    saysTheFacts(report.text(), testProof, { verdict: "VÉRIFIÉE, TEST SEULEMENT", party: "prestataire" }, "fr");
    for (let page = 1; page <= report.pages; page++) expect(report.text(page)).toContain("PREUVE DE TEST");
    // The gallery file is a warning on the first page, before the facts; the steps keep the template's French labels.
    expect(report.text(1)).toContain("Choisi parmi les fichiers de l'appareil");
    expect(report.text()).toContain("Kilométrage");
    expect(qrOf(report.path)).toBe(testProof.verification_url);
  }, 300_000);

  it("a live proof in German: no TEST anywhere, the authority said not qualified, the QR code", async () => {
    const proof = await sealedProof("live", "de");
    const pdf = await downloaded(`${stack.baseUrl}/v1/public/proofs/${proof.id}/report.pdf`);
    expect(Buffer.compare(await fromPackage(proof.package_url, "report.pdf"), pdf)).toBe(0);
    const report = read(pdf, "live-de");
    saysTheFacts(report.text(), proof, { verdict: "GEPRÜFT", party: "Anbieter" }, "de");
    expect(report.text()).not.toMatch(/TEST|NICHT GEPRÜFT/);
    expect(report.text(1)).toContain("nicht qualifiziert");
    expect(qrOf(report.path)).toBe(proof.verification_url);
  }, 300_000);

  it("a before/after pair in Spanish: pair-report.pdf from either proof and the after's package, both sides' facts", async () => {
    const after = await sealedProof("test", "es", { compare_to: testProof.id, external_reference: testProof.external_reference });
    const url = (id: string) => `${stack.baseUrl}/v1/public/proofs/${id}/pair-report.pdf`;
    const pdf = await downloaded(url(after.id));
    expect(Buffer.compare(await downloaded(url(testProof.id)), pdf)).toBe(0);
    expect(Buffer.compare(await fromPackage(after.package_url, "pair-report.pdf"), pdf)).toBe(0);
    const report = read(pdf, "pair-es");
    const text = report.text();
    saysTheFacts(text, testProof, { verdict: "Antes: VERIFICADA, SOLO TEST", party: "proveedor" }, "es");
    saysTheFacts(text, after, { verdict: "Después: VERIFICADA, SOLO TEST", party: "proveedor" }, "es");
    // The same photo sealed again: named in the warnings as the after's, aligned under the step in both columns.
    expect(report.text(1)).toContain("Después: Foto 1");
    for (let page = 1; page <= report.pages; page++) expect(report.text(page)).toContain("PRUEBA DE TEST");
    expect(qrOf(report.path)).toBe(after.verification_url);
  }, 300_000);
});
