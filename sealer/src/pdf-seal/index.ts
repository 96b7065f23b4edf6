import { pemCertificatesDer } from "../../../shared/timestamp-check.ts";
import { captureRevocation } from "../revocation/capture-revocation.ts";
import type { SealContext } from "../seal-job.ts";
import { type CheckedTimestamp, obtainTimestamp, obtainTimestampOfDigest } from "../tsa/obtain-timestamp.ts";
import { placeholders, signedUpdate } from "./byte-range.ts";
import { appendUpdate, streamBody, type UpdatedObject } from "./incremental-update.ts";
import { padesSignedData } from "./pades-cms.ts";
import { catalogNumber, objectText, type PdfRevision, readRevision } from "./pdf-revision.ts";
import { dictionaryEntries } from "./pdf-syntax.ts";
import { CERTIFIES_NO_CHANGES_BUT_SIGNATURES, catalogWith, signatureFieldObjects } from "./signature-field.ts";

/**
 * What sealing a PDF takes from the sealer: the proof's sealing identity of its mode (`seal`, the one that
 * signs manifest.p7s, docs/adr/0027: the test identity for a test proof), the service root that issued it
 * (`trustAnchorPem`), the proof's timestamp authority (`authority`) and the CRL source (`crls`).
 */
export type PdfSealContext = Pick<SealContext, "seal" | "trustAnchorPem" | "authority" | "crls"> & {
  /** The job was aborted: no timestamp or CRL is asked for after it fires. */
  signal?: AbortSignal;
};

/**
 * Room for the CMS (the seal's chain and the signature timestamp with its authority's chain; 2.5 KB with the
 * local PKI) and for the document timestamp (1.2 KB): a public authority's chain of a few RSA certificates
 * fits several times over, and both stay under the 32,767 bytes PDF/A allows a string (ISO 32000-1, C.2).
 */
const SIGNATURE_CAPACITY = 16_000;
const DOCUMENT_TIMESTAMP_CAPACITY = 12_000;

/** A PDF date (ISO 32000-1, 7.9.4) in UTC. */
const pdfDate = (date: Date) => `D:${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}+00'00'`;

const hexOf = (der: Uint8Array) => Buffer.from(der).toString("hex");
const distinct = (items: Uint8Array[]) => [...new Map(items.map((item) => [hexOf(item), item])).values()];

/**
 * The DSS (ETSI EN 319 142-1, 5.4.2): every certificate of both chains (the seal's up to the service root,
 * the signature timestamp's up to its authority's roots) and the CRLs captured for them at sealing, so that
 * the signature can be validated long after, offline (B-LT). A CRL that could not be had is left out, never
 * replaced (a validator then says it lacks it).
 */
async function dssUpdate(revision: PdfRevision, context: PdfSealContext, signatureTimestamp: CheckedTimestamp): Promise<Uint8Array> {
  const roots = pemCertificatesDer(context.trustAnchorPem);
  const tsaPool = [...signatureTimestamp.certificates, ...pemCertificatesDer(context.authority.chainPem)];
  const [sealRevocation, tsaRevocation] = await Promise.all([
    captureRevocation(context.crls, "c2pa", context.seal.certificateDer, [...context.seal.intermediatesDer, ...roots], context.signal, "proof seal"),
    captureRevocation(context.crls, "tsa", signatureTimestamp.signerCertificate, tsaPool, context.signal),
  ]);
  const certificates = distinct([context.seal.certificateDer, ...context.seal.intermediatesDer, ...roots, ...tsaPool]);
  const crls = distinct(
    [...sealRevocation, ...tsaRevocation].flatMap(({ crl_base64 }) => (crl_base64 === null ? [] : [new Uint8Array(Buffer.from(crl_base64, "base64"))])),
  );
  let next = Number(revision.trailer.get("/Size"));
  const streams = (items: Uint8Array[]) => items.map((der): UpdatedObject => ({ number: next++, body: streamBody(der) }));
  const certificateObjects = streams(certificates);
  const crlObjects = streams(crls);
  const references = (objects: UpdatedObject[]) => `[${objects.map(({ number }) => `${number} 0 R`).join(" ")}]`;
  const dss: UpdatedObject = { number: next++, body: `<</Type /DSS /Certs ${references(certificateObjects)} /CRLs ${references(crlObjects)}>>` };
  return appendUpdate(revision, [...certificateObjects, ...crlObjects, dss, catalogWith(revision, "/DSS", `${dss.number} 0 R`)]);
}

/**
 * Seals `pdf` (a complete, unsigned PDF with a classic cross-reference table, as pdfkit writes it) as PAdES
 * B-LTA (docs/adr/0048) in three incremental updates that never rewrite the bytes before them:
 * 1. a signature field whose /ETSI.CAdES.detached signature by `context.seal` carries a signature timestamp
 *    from `context.authority` (B-T) and certifies the document with DocMDP P=2 (docs/adr/0057) unless it is
 *    certified already;
 * 2. a DSS with the chains and their CRLs (B-LT);
 * 3. a document timestamp (/ETSI.RFC3161) from the same authority over the whole document (B-LTA), the last
 *    signature, covering every byte of the file.
 * Throws as the seal job does when the authority cannot be had (TimestampUnavailableError) or a certificate
 * is revoked (CertificateRevokedError).
 */
export async function sealPdf(pdf: Uint8Array, context: PdfSealContext): Promise<Uint8Array> {
  const { authority, signal } = context;
  signal?.throwIfAborted();
  const unsigned = readRevision(pdf);
  let signatureTimestamp: CheckedTimestamp | undefined;
  // The first seal certifies the document (docs/adr/0057); a document already certified gets an approval seal.
  const certifies = !dictionaryEntries(objectText(unsigned, catalogNumber(unsigned)), 0).entries.has("/Perms");
  const signatureDictionary = `<</Type /Sig /Filter /Adobe.PPKLite /SubFilter /ETSI.CAdES.detached /M (${pdfDate(new Date())}) ${certifies ? `${CERTIFIES_NO_CHANGES_BUT_SIGNATURES} ` : ""}${placeholders(SIGNATURE_CAPACITY)}>>`;
  const signed = await signedUpdate(unsigned, signatureFieldObjects(unsigned, "Seal", signatureDictionary, certifies), (digest) =>
    padesSignedData(digest, context.seal, async (signatureValue) => {
      signatureTimestamp = await obtainTimestamp(authority, signatureValue, signal);
      return signatureTimestamp.token;
    }),
  );
  const withValidationData = readRevision(await dssUpdate(readRevision(signed), context, signatureTimestamp!));
  const documentTimestamp = `<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 ${placeholders(DOCUMENT_TIMESTAMP_CAPACITY)}>>`;
  return signedUpdate(
    withValidationData,
    signatureFieldObjects(withValidationData, "Document timestamp", documentTimestamp),
    async (digest) => (await obtainTimestampOfDigest(authority, "SHA-256", digest, signal)).token,
  );
}
