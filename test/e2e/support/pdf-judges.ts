import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The outside judges of a sealed PDF (docs/adr/0048), as the issue names them: poppler's pdfsig, qpdf, and
 * Apache PDFBox 2 with Bouncy Castle from Debian run on ValidatePdf.java (a single-file `java` program).
 */
const VALIDATOR = resolve(import.meta.dirname, "pdf-validator/ValidatePdf.java");
const CLASSPATH = ["pdfbox2", "fontbox2", "bcprov", "bcpkix", "bcutil", "commons-logging"].map((jar) => `/usr/share/java/${jar}.jar`).join(":");

/** PDFBox and Bouncy Castle: every signature, both timestamps, each chain to its root with the DSS's CRLs. Exit 0: all valid. */
export const validatePdf = (path: string, sealRootPath: string, tsaRootPath: string) =>
  spawnSync("java", ["-cp", CLASSPATH, VALIDATOR, path, sealRootPath, tsaRootPath], { encoding: "utf8" });

export const pdfsig = (path: string) => spawnSync("pdfsig", [path], { encoding: "utf8" });

/**
 * pdfsig with an NSS database of its own (libnss3-tools' certutil) that trusts `rootPath` alone, as a reader
 * given the service root: its "Certificate Validation" line then says whether NSS accepts the seal's certificate.
 */
export function pdfsigTrusting(path: string, rootPath: string) {
  const nss = `sql:${mkdtempSync(join(tmpdir(), "nss-"))}`;
  for (const args of [
    ["-N", "--empty-password"],
    ["-A", "-n", "service root", "-t", "C,C,C", "-i", rootPath],
  ]) {
    const made = spawnSync("certutil", ["-d", nss, ...args], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`certutil ${args.join(" ")}: ${made.stderr || made.error}`);
  }
  return spawnSync("pdfsig", ["-nssdir", nss, path], { encoding: "utf8" });
}

/** pdfsig's lines for signature `n` (1-based); empty when there is no such signature. */
export const signatureReport = (report: string, n: number) => report.split(/^Signature #/m)[n] ?? "";

export const qpdfCheck = (path: string) => spawnSync("qpdf", ["--check", path], { encoding: "utf8" });
