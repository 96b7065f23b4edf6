import { z } from "zod";
import { MAX_CHAIN_CERTIFICATES } from "./timestamp-check.ts";

/**
 * Revocation data captured at sealing (issue 14 point 5, docs/adr/0022): for each certificate of the
 * timestamp authority's chain (`tsa`, the manifest's token), of the C2PA signer's chain (`c2pa`) and of the
 * proof seal's chain (`seal`, manifest.p7s) below its root, the CRL its issuer published, as the sealer
 * fetched it from the certificate's CRL distribution point, or why none could be had. The sealer answers with
 * these entries; the Worker stores them beside the token and puts them in the package under the names below,
 * which stay stable (an evidence record covers them, and manifest.p7s lists their hashes: docs/adr/0049);
 * the offline verifier reads them back.
 */
export const REVOCATION_CHAINS = ["tsa", "c2pa", "seal"] as const;
export type RevocationChain = (typeof REVOCATION_CHAINS)[number];

const instant = z.iso.datetime({ offset: true });

/** What one entry says about one certificate, without the bytes (the package's `revocation/index.json`). */
const revocationFacts = {
  chain: z.enum(REVOCATION_CHAINS),
  /**
   * 1: the signer's certificate; 2: the intermediate that issued it, and so on up to (not including) the root. No
   * chain is read past its tenth certificate, so neither is an entry past position 10.
   */
  position: z.number().int().positive().max(MAX_CHAIN_CERTIFICATES),
  subject: z.string(),
  /** Upper-case hex, as `openssl crl -text` lists revoked serials. */
  serial: z.string().regex(/^[0-9A-F]+$/),
  /** `captured`: the issuer's CRL, its signature checked, not listing the certificate. `unavailable`: see `reason`. */
  status: z.enum(["captured", "unavailable"]),
  /** The CRL distribution point the certificate names (where the CRL was fetched); null when it names none. */
  source: z.string().nullable(),
  /** When the sealer fetched the CRL (or from its cache, until the CRL's nextUpdate), or gave up. */
  captured_at: instant,
  this_update: instant.nullable(),
  next_update: instant.nullable(),
  /** Why no CRL was captured (unreachable, none published, not signed by the issuer); null when captured. */
  reason: z.string().nullable(),
};

/** One entry of the sealer's answer: the facts plus the certificate and the CRL, DER in base64. */
export const RevocationEntrySchema = z.strictObject({
  ...revocationFacts,
  certificate_base64: z.base64().min(1),
  crl_base64: z.base64().nullable(),
});
export type RevocationEntry = z.infer<typeof RevocationEntrySchema>;

/**
 * One entry of `revocation/index.json`: the facts, and the package's file names of the certificate and its CRL.
 * The names become ZIP entry names of the service's own package and are read back by the verifiers, while the stored
 * index is an object an insider can replace (forger session 7, G16: `../../../../evil.sh`, `/tmp/evil.sh`,
 * `manifest.json`): so an index holds only the names sealing writes for the entry's chain and position
 * (revocationNames), each (chain, position) once; anything else is not an index.
 */
export const RevocationIndexEntrySchema = z
  .strictObject({
    ...revocationFacts,
    certificate: z.string(),
    crl: z.string().nullable(),
  })
  .refine((entry) => entry.certificate === revocationNames(entry).certificate && (entry.crl === null || entry.crl === revocationNames(entry).crl), {
    message: "not the names sealing gives the entry's files",
  });
export type RevocationIndexEntry = z.infer<typeof RevocationIndexEntrySchema>;
/**
 * Each (chain, position) once, so at most 30 entries: a longer index is refused before any entry is parsed, since every
 * entry it names is a file read on each public request (forger session 8, I1: 3,000 entries, 6,000 reads a request).
 */
export const MAX_REVOCATION_ENTRIES = REVOCATION_CHAINS.length * MAX_CHAIN_CERTIFICATES;
export const RevocationIndexSchema = z
  .array(RevocationIndexEntrySchema)
  .max(MAX_REVOCATION_ENTRIES)
  .refine((entries) => new Set(entries.map((entry) => revocationNames(entry).certificate)).size === entries.length, {
    message: "a certificate listed twice",
  });

/**
 * The signed attribute of manifest.p7s listing every revocation file with its SHA-256 (docs/adr/0049):
 * SEQUENCE OF SEQUENCE { name UTF8String, sha256 OCTET STRING }. An OID of the UUID arc (ITU-T X.667, no
 * registration): fd611ca5-ff2d-4585-b8cf-8be3689ddc52.
 */
export const SEALED_REVOCATION_FILES_OID = "2.25.336798916787950718701365164931207257170";

/** The package's (and storage's, under the run's prefix) index of the revocation data. */
export const REVOCATION_INDEX = "revocation/index.json";

/**
 * Stable names: `revocation/tsa-1.pem` is the authority's signing certificate and `revocation/tsa-1.crl` the
 * CRL (DER) of its issuer that covers it; `c2pa-1.*` the same for the C2PA signing certificate; `-2` for
 * the intermediate above, if any.
 */
export const revocationNames = (entry: Pick<RevocationEntry, "chain" | "position">) => ({
  certificate: `revocation/${entry.chain}-${entry.position}.pem`,
  crl: `revocation/${entry.chain}-${entry.position}.crl`,
});

/** The index the Worker stores and packages for the sealer's entries. */
export function revocationIndex(entries: RevocationEntry[]): RevocationIndexEntry[] {
  return entries.map(({ certificate_base64: _certificate, crl_base64, ...facts }) => ({
    ...facts,
    certificate: revocationNames(facts).certificate,
    crl: crl_base64 === null ? null : revocationNames(facts).crl,
  }));
}

/** A DER certificate as PEM, the form `openssl verify` reads. */
export function certificatePem(base64: string): string {
  return `-----BEGIN CERTIFICATE-----\n${base64.replace(/.{64}/g, "$&\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`;
}

const base64Bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));

/**
 * Every file of the revocation data as the package holds it, by its package name, the index first: what the
 * Worker stores and what the sealer lists in manifest.p7s (docs/adr/0049), so both write the same bytes.
 */
export function revocationFiles(entries: RevocationEntry[]): { name: string; body: string | Uint8Array; contentType: string }[] {
  return [
    { name: REVOCATION_INDEX, body: JSON.stringify(revocationIndex(entries), null, 2), contentType: "application/json" },
    ...entries.flatMap((entry) => {
      const names = revocationNames(entry);
      return [
        { name: names.certificate, body: certificatePem(entry.certificate_base64), contentType: "application/x-pem-file" },
        ...(entry.crl_base64 === null ? [] : [{ name: names.crl, body: base64Bytes(entry.crl_base64), contentType: "application/pkix-crl" }]),
      ];
    }),
  ];
}
