import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, spawnSync } from "node:child_process";
import { cpSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { zipStream } from "../../src/lib/zip/zip-stream.ts";
import { simulatedAuthority } from "../../sealer/src/tsa/simulated-authority.ts";
import { readZip } from "../../verifier/src/read-zip.ts";
import { firstContentStream, withDocumentTimestamp, withoutLastRevision } from "./support/pdf-forgeries.ts";
import { downloadedReport } from "./support/report-download.ts";
import {
  withAddedPage,
  withAttachmentReplaced,
  withContentRewrittenAsIs,
  withDocumentTimestampOverXrefStream,
  firstImage,
  withFilledTextField,
  withGenerationShadow,
  withHiddenObjectAndFreedRow,
  withObjectAliased,
  withOpenActionToLastPage,
  withStampAppearance,
  withXrefStreamShadow,
} from "./support/report-forgeries-3.ts";
import { pinnedProofVerify } from "./support/package-verdicts.ts";
import { publishedRoots, sealedPackage } from "./support/sealed-package.ts";
import { startStack, type Stack } from "./support/stack.ts";

/**
 * Forger session 3 on a live proof made through the API of `npm run dev`: updates after the report's seal that
 * a DocMDP P=2 certification does not allow (docs/adr/0057), each stamped again by the proof's own authority
 * (any of its customers gets a token over any hash), are refused by `proof-verify` pinned to the published
 * roots (its `report` check, docs/adr/0056) and by the PDFBox judge; names a ZIP can give a second report
 * (another case, a ./ or a folder, the same name twice) are refused by `package_contents` or the ZIP reader.
 */

const root = resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(join(tmpdir(), "forgeries-3-stack-"));
const work = mkdtempSync(join(tmpdir(), "forgeries-3-"));
const VALIDATOR = join(root, "test/e2e/support/pdf-validator/ValidatePdf.java");
const CLASSPATH = ["pdfbox2", "fontbox2", "bcprov", "bcpkix", "bcutil", "commons-logging"].map((jar) => `/usr/share/java/${jar}.jar`).join(":");
/** The PDFBox judge's refusal of what an update after the seal writes (docs/adr/0057). */
const REFUSED_UPDATE = /^FAIL the updates after the seal write only what PAdES allows after it: /m;

let stack: Stack;
let folder: string;
let report: Uint8Array;
let otherReport: Uint8Array;
let livePins: string[];
const roots = { seal: "", tsa: "" };
/** ValidatePdf.java compiled once (a JVM compiling it for each run costs seconds on a loaded machine). */
const classes = join(work, "classes");

beforeAll(async () => {
  stack = await startStack({ stateDir });
  const sealed = await sealedPackage(stack, "live");
  report = new Uint8Array(await downloadedReport(`${stack.baseUrl}/v1/public/proofs/${sealed.proof.id}/report.pdf`));
  folder = join(work, "genuine");
  cpSync(sealed.folder, folder, { recursive: true });
  writeFileSync(join(folder, "report.pdf"), report);
  // Another report than the package's: the genuine one stamped once more, as a forger's second copy would be.
  otherReport = await withDocumentTimestamp(report, liveAuthority());
  const published = await publishedRoots(stack, "live");
  livePins = published.pins;
  roots.seal = join(work, "seal-root.pem");
  roots.tsa = join(work, "tsa-root.pem");
  writeFileSync(roots.seal, published.seal.pem);
  writeFileSync(roots.tsa, published.tsa.pem);
  const compiled = spawnSync("javac", ["-nowarn", "-cp", CLASSPATH, "-d", classes, VALIDATOR], { encoding: "utf8" });
  if (compiled.status !== 0) throw new Error(`javac ValidatePdf.java: ${compiled.stderr}`);
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** The stack's live authority, in process: the authority any of its customers gets tokens from. */
const liveAuthority = () => simulatedAuthority(join(stateDir, "local", "pki"), "tsa-live", "Local Timestamp Authority");

/** `proof-verify <path> --json` pinned to the published live roots: exit status and the failed checks with their details. */
function proofVerify(path: string) {
  const { status, report } = pinnedProofVerify(path, livePins);
  return { status, failed: Object.fromEntries(report.checks.filter((check) => check.result === "fail").map((check) => [check.name, check.detail])) };
}

/** The PDFBox judge on `pdf` with the published live roots, run beside the others (a JVM each). */
async function judged(name: string, pdf: Uint8Array): Promise<{ status: number; output: string }> {
  const path = join(work, `${name}.pdf`);
  writeFileSync(path, pdf);
  try {
    const { stdout } = await promisify(execFile)("java", ["-cp", `${classes}:${CLASSPATH}`, "ValidatePdf", path, roots.seal, roots.tsa], { encoding: "utf8" });
    return { status: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

/** The genuine package's folder with `pdf` as its report.pdf. */
function packageWithReport(name: string, pdf: Uint8Array): string {
  const forged = join(work, name);
  cpSync(folder, forged, { recursive: true });
  writeFileSync(join(forged, "report.pdf"), pdf);
  return forged;
}

/** A ZIP of the genuine package's entries, with `extra` entries written first (their names as given, duplicates kept). */
async function zipWith(name: string, extra: { name: string; bytes: Uint8Array }[]): Promise<string> {
  const genuine = readZip(readFileSync(packageZip()));
  const entries = [...extra, ...[...genuine].map(([entry, bytes]) => ({ name: entry, bytes }))].map(({ name: entry, bytes }) => ({
    name: entry,
    body: async () => bytes,
  }));
  const path = join(work, `${name}.zip`);
  await zipStream(entries, new Date()).pipeTo(Writable.toWeb(createWriteStream(path)));
  return path;
}

/** The genuine package's folder zipped as the service lays it out (with `zip`, no extra entry). */
function packageZip(): string {
  const path = join(work, "genuine.zip");
  if (!existsSync(path)) spawnSync("zip", ["-qr", path, "."], { cwd: folder });
  return path;
}

const REPORT_UPDATES: [string, (pdf: Uint8Array) => Uint8Array, RegExp][] = [
  [
    "a Stamp annotation whose appearance stream hides the verdict and warnings",
    withStampAppearance,
    /annotations added to the first page are not the signature fields/,
  ],
  ["a page added to the page tree", withAddedPage, /object \d+, written before the seal, was written again/],
  ["a visible text field filled in, added to the form and the first page", withFilledTextField, /after its seal/],
  ["the first page's content stream written again, byte for byte", withContentRewrittenAsIs, /object \d+, written before the seal, was written again/],
  ["the catalog opening on the annex page (/OpenAction)", withOpenActionToLastPage, /the catalog's \/OpenAction changed/],
  [
    "the attached manifest.json replaced by a relabelled one (party recipient)",
    (pdf) =>
      withAttachmentReplaced(
        pdf,
        "manifest.json",
        new Uint8Array(Buffer.from(readFileSync(join(folder, "manifest.json"), "latin1").replace('"provider"', '"recipient"'), "latin1")),
      ),
    /object \d+, written before the seal, was written again/,
  ],
];

describe("updates after the report's seal that DocMDP P=2 does not allow, stamped again by the same authority", () => {
  it("the genuine report passes proof-verify's report check and the PDFBox judge", async () => {
    const { status, failed } = proofVerify(folder);
    expect(failed).toEqual({});
    expect(status).toBe(0);
    const judge = await judged("genuine", report);
    expect(judge.output).not.toMatch(/^FAIL/m);
    expect(judge.status).toBe(0);
  });

  it("each is refused by proof-verify (report) and by the PDFBox judge (the update rule)", async () => {
    const forged = await Promise.all(
      REPORT_UPDATES.map(async ([, forge], index) => ({ index, pdf: await withDocumentTimestamp(forge(withoutLastRevision(report)), liveAuthority()) })),
    );
    const judges = await Promise.all(forged.map(({ index, pdf }) => judged(`forged-${index}`, pdf)));
    for (const { index, pdf } of forged) {
      const [what, , reason] = REPORT_UPDATES[index]!;
      const verdict = proofVerify(packageWithReport(`forged-${index}`, pdf));
      expect({ what, failed: Object.keys(verdict.failed), status: verdict.status }).toEqual({ what, failed: ["report"], status: 1 });
      expect(verdict.failed.report, what).toMatch(reason);
      expect(judges[index]!.output, what).toMatch(REFUSED_UPDATE);
      expect(judges[index]!.status, what).toBe(1);
    }
  }, 240_000);
});

describe("a second report beside the package's, under a name a ZIP allows", () => {
  it("the genuine package zipped again: VERIFIED", () => {
    expect(proofVerify(packageZip())).toEqual({ status: 0, failed: {} });
  });

  it.each([["Report.PDF"], ["./report.pdf"], ["docs/report.pdf"], ["/report.pdf"], ["report.pdf "]])("%j: package_contents names it", async (name) => {
    const { status, failed } = proofVerify(await zipWith(`extra-${encodeURIComponent(name)}`, [{ name, bytes: otherReport }]));
    expect(Object.keys(failed)).toEqual(["package_contents"]);
    expect(failed.package_contents).toContain(name);
    expect(status).toBe(1);
  });

  it("another picture as original-<id>.jpg, a name VERIFY.md's step 6 writes: package_contents names it (H6)", async () => {
    const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8"));
    const name = `original-${manifest.files[0].id}.jpg`;
    const { status, failed } = proofVerify(await zipWith("original", [{ name, bytes: otherReport }]));
    expect(Object.keys(failed)).toEqual(["package_contents"]);
    expect(failed.package_contents).toContain(name);
    expect(status).toBe(1);
  });

  it("report.pdf twice in the ZIP, the forged one first: the package cannot be read", async () => {
    const { status, failed } = proofVerify(await zipWith("twice", [{ name: "report.pdf", bytes: otherReport }]));
    expect(failed.package_complete).toContain("report.pdf: twice in the ZIP");
    expect(status).toBe(1);
  });
});

describe("rows after the seal that make a reader show other content than a classic-table reader sees", () => {
  /** An object whose number ends with the digits of the first page's content stream ("6 0 obj" inside "16 0 obj"). */
  const alias = (pdf: Uint8Array) => {
    const content = firstContentStream(pdf);
    const other = [...Array(200).keys()].find(
      (number) => number !== content && String(number).endsWith(String(content)) && Buffer.from(pdf).includes(`\n${number} 0 obj`),
    );
    if (other === undefined) throw new Error(`no object number ending with ${content}`);
    return withObjectAliased(pdf, content, other);
  };
  /** What each forgery is, how to make it from the report without its document timestamp, and what proof-verify and the judge say. */
  const stamped = (forge: (pdf: Uint8Array) => Uint8Array) => (pdf: Uint8Array) => withDocumentTimestamp(forge(pdf), liveAuthority());
  const ROWS: [string, (pdf: Uint8Array) => Promise<Uint8Array>, RegExp, RegExp][] = [
    [
      "a content stream redefined only in a hybrid /XRefStm",
      (pdf) => withDocumentTimestampOverXrefStream(withXrefStreamShadow(pdf), liveAuthority()),
      /\/XRefStm/,
      /names \/XRefStm/,
    ],
    [
      "the first page's content pointed at another sealed object's body",
      stamped(alias),
      /pointed at bytes before the seal/,
      /pointed at bytes before the seal/,
    ],
    ["a sealed object freed and hidden again in a new stream", stamped(withHiddenObjectAndFreedRow), /freed/, /freed after the seal/],
    [
      "a sealed photo shadowed by a row under generation 1 that the DSS names",
      stamped((pdf) => withGenerationShadow(pdf, firstImage(pdf))),
      /generation|written again|before the seal|not one/,
      /written again under generation 1/,
    ],
  ];

  it("each, stamped again by the same authority, is refused by proof-verify (report) and the PDFBox judge (ADR 0057 rule 2)", async () => {
    const forged = await Promise.all(ROWS.map(([, forge]) => forge(withoutLastRevision(report))));
    const judges = await Promise.all(forged.map((pdf, index) => judged(`rows-${index}`, pdf)));
    ROWS.forEach(([what, , verifierReason, judgeReason], index) => {
      const verdict = proofVerify(packageWithReport(`rows-${index}`, forged[index]!));
      expect({ what, failed: Object.keys(verdict.failed), status: verdict.status }).toEqual({ what, failed: ["report"], status: 1 });
      expect(verdict.failed.report, what).toMatch(verifierReason);
      expect(judges[index]!.output, what).toMatch(REFUSED_UPDATE);
      expect(judges[index]!.output, what).toMatch(judgeReason);
      expect(judges[index]!.status, what).toBe(1);
    });
  }, 120_000);

  it("a further document timestamp whose widget carries a JavaScript action: refused by proof-verify and the judge", async () => {
    const pdf = await withDocumentTimestamp(report, liveAuthority(), "Document timestamp 2", "[0 0 0 0] /AA <</PO <</S /JavaScript /JS (app.alert\\(1\\))>>>>");
    const verdict = proofVerify(packageWithReport("action", pdf));
    expect(Object.keys(verdict.failed)).toEqual(["report"]);
    expect(verdict.failed.report).toContain("/AA");
    const judge = await judged("action", pdf);
    expect(judge.output).toMatch(/^FAIL .*has \/AA/m);
    expect(judge.status).toBe(1);
  }, 60_000);
});
