import { crlDistributionUrls, inspectCrl, parseCertificate } from "../crl-check.ts";
import { REVOCATION_CHAINS, REVOCATION_INDEX, RevocationIndexSchema, type RevocationChain, type RevocationIndexEntry } from "../revocation-data.ts";
import { pemCertificatesDer } from "../timestamp-check.ts";
import { sha256Hex } from "./digest.ts";
import { subjectText } from "../trust-anchors.ts";
import type { ChainRevocation, RevocationSummary, VerificationCheck } from "./types.ts";

export interface RevocationInput {
  genTime: string | null;
  /** The token's signer certificate, and the trusted root its chain ended at (checkTimestamp). */
  tsaSigner: Uint8Array | null;
  tsaRoot: Uint8Array | null;
  /** The package's C2PA roots (c2pa-trust-anchor.pem). */
  c2paRoots: Uint8Array[];
  /** The serial numbers of the certificates that signed the files' C2PA manifests (c2pa-rs), in decimal. */
  c2paSignerSerials: string[];
  /**
   * The package must carry `revocation/index.json` (a version-2 manifest: every proof sealed as a whole was
   * sealed with revocation data captured, docs/adr/0040).
   */
  indexRequired: boolean;
  /** The proof seal's certificate (manifest.p7s), when the seal held; null otherwise. */
  seal: Uint8Array | null;
  /**
   * The revocation files manifest.p7s lists (package name to SHA-256), when the seal held and lists them
   * (docs/adr/0049); null otherwise.
   */
  sealedFiles: ReadonlyMap<string, string> | null;
}

/** A CRL issued this long after gen_time still describes it: a seal takes minutes at most (docs/adr/0022). */
const ISSUED_AFTER_GEN_TIME_MS = 3600_000;
/** JSON, or undefined (which the index's schema refuses) when the bytes are not JSON. */
function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, index) => byte === b[index]);

const REVOCATION_FOLDER = "revocation/";

/**
 * revocation_sealed: the package's revocation files are exactly those manifest.p7s lists, byte for byte
 * (docs/adr/0049). Without it, whoever holds the package writes the index: a CRL stripped and its certificate
 * marked "not captured" turns a failure into not_checked.
 */
async function sealedFilesCheck(entries: ReadonlyMap<string, Uint8Array>, input: RevocationInput): Promise<VerificationCheck | null> {
  const name = "revocation_sealed";
  // No seal that holds, or one made before it listed them (docs/adr/0040's limit then stands: the index is the package's word).
  if (input.seal === null || input.sealedFiles === null) return null;
  const held = [...entries.keys()].filter((entry) => entry.startsWith(REVOCATION_FOLDER) && !entry.endsWith("/"));
  const altered: string[] = [];
  for (const entry of held) {
    const sealed = input.sealedFiles.get(entry);
    if (sealed !== undefined && sealed !== (await sha256Hex(entries.get(entry)!))) altered.push(entry);
  }
  const missing = [...input.sealedFiles.keys()].filter((entry) => !entries.has(entry));
  const extra = held.filter((entry) => !input.sealedFiles!.has(entry));
  const problems = [
    altered.length ? `altered: ${altered.join(", ")}` : "",
    missing.length ? `missing: ${missing.join(", ")}` : "",
    extra.length ? `not sealed: ${extra.join(", ")}` : "",
  ].filter(Boolean);
  return problems.length === 0
    ? { name, result: "pass", detail: `the ${input.sealedFiles.size} revocation files are those manifest.p7s lists, byte for byte` }
    : { name, result: "fail", detail: `the revocation data is not what manifest.p7s seals (${problems.join("; ")})` };
}

/**
 * Checks the revocation data the package holds (`revocation/`, captured at sealing), trusting nothing in it
 * but what manifest.p7s seals: the files must be those the seal lists (`revocation_sealed`, docs/adr/0049);
 * each CRL signed by the CA that issued the certificate (the next certificate up, or the root the chain was
 * validated to), current at gen_time, about the certificate actually used (the token's signer; the files'
 * C2PA signer; manifest.p7s's signer), which it does not list as revoked before gen_time (revocation or
 * invalidity date). A certificate the index says could not be captured at sealing is reported (`not_checked`,
 * with the reason), not failed: the sealed index makes that the service's word, not the package holder's. A
 * missing index when it is required (docs/adr/0040), or an index that names no entry for a chain's signer,
 * fails: nothing else tells a stripped package from one whose CRLs could not be had.
 */
export async function checkRevocation(
  entries: ReadonlyMap<string, Uint8Array>,
  input: RevocationInput,
): Promise<{ checks: VerificationCheck[]; summary: RevocationSummary }> {
  const checks: VerificationCheck[] = [];
  const absent = (chain: RevocationChain): ChainRevocation => ({ status: "absent", detail: `no revocation data for the ${chain} chain in this package` });
  const summary: RevocationSummary = { tsa: absent("tsa"), c2pa: absent("c2pa"), seal: absent("seal") };
  const sealed = await sealedFilesCheck(entries, input);
  if (sealed) checks.push(sealed);
  const indexBytes = entries.get(REVOCATION_INDEX);
  if (!indexBytes) {
    if (input.indexRequired)
      checks.push({
        name: "revocation_index",
        result: "fail",
        detail: `${REVOCATION_INDEX} is missing: every proof sealed as a whole carries it (the CRLs captured at sealing, or why none could be), so this package was stripped of it`,
      });
    return { checks, summary };
  }
  const parsed = RevocationIndexSchema.safeParse(parseJson(indexBytes));
  if (!parsed.success) {
    checks.push({ name: "revocation_index", result: "fail", detail: `${REVOCATION_INDEX} cannot be read` });
    return { checks, summary };
  }
  // The seal's own chain has entries since the seal listed the revocation files (docs/adr/0049).
  const required: RevocationChain[] = input.sealedFiles === null ? ["tsa", "c2pa"] : ["tsa", "c2pa", "seal"];
  for (const chain of REVOCATION_CHAINS) {
    const ofChain = parsed.data.filter((entry) => entry.chain === chain).sort((a, b) => a.position - b.position);
    // The sealer captures every chain for every proof: an index without a signer's entry was edited.
    if (required.includes(chain) && !ofChain.some((entry) => entry.position === 1))
      checks.push({ name: `revocation:${chain}-1`, result: "fail", detail: `${REVOCATION_INDEX} names no entry for the ${chain} chain's signer` });
    if (ofChain.length === 0) continue;
    for (const entry of ofChain) {
      checks.push(
        chain === "seal" && input.seal === null
          ? {
              name: `revocation:${entry.chain}-${entry.position}`,
              result: "not_checked",
              detail: `${entry.subject}: manifest.p7s does not hold, so the certificate it names is not judged here (manifest_seal says why)`,
            }
          : entry.status === "captured"
            ? await checkEntry(entries, entry, ofChain, input)
            : {
                name: `revocation:${entry.chain}-${entry.position}`,
                result: "not_checked",
                detail: `${entry.subject}: not captured at sealing (${entry.reason})`,
              },
      );
    }
    const missing = ofChain.filter((entry) => entry.status === "unavailable");
    summary[chain] =
      missing.length === 0
        ? { status: "checked", detail: `CRLs of ${ofChain.map((entry) => entry.subject).join(" / ")} captured at sealing` }
        : { status: "unavailable", detail: missing.map((entry) => `${entry.subject}: not captured at sealing (${entry.reason})`).join("; ") };
  }
  // A seal made before its certificate had an entry of its own: judged by the C2PA signer's CRL it names too.
  if (input.seal && !parsed.data.some((entry) => entry.chain === "seal")) checks.push(await checkSeal(entries, parsed.data, input.seal, input));
  return { checks, summary };
}

async function checkEntry(
  entries: ReadonlyMap<string, Uint8Array>,
  entry: RevocationIndexEntry,
  chain: RevocationIndexEntry[],
  input: RevocationInput,
): Promise<VerificationCheck> {
  const name = `revocation:${entry.chain}-${entry.position}`;
  const fail = (detail: string): VerificationCheck => ({ name, result: "fail", detail });
  const certificate = pemCertificatesDer(new TextDecoder().decode(entries.get(entry.certificate) ?? new Uint8Array()))[0];
  const crl = entry.crl === null ? undefined : entries.get(entry.crl);
  if (!certificate || !crl) return fail(`${entry.certificate} or ${entry.crl} is missing`);
  const cert = parseCertificate(certificate);

  // The certificate covered must be the one relied on, or the CRL proves nothing about this proof.
  const below = chain.find((other) => other.position === entry.position - 1);
  const belowDer = below ? pemCertificatesDer(new TextDecoder().decode(entries.get(below.certificate) ?? new Uint8Array()))[0] : undefined;
  const serial = BigInt(`0x${entry.serial}`);
  if (entry.position === 1 && entry.chain === "tsa" && !(input.tsaSigner && equal(certificate, input.tsaSigner)))
    return fail(`${entry.certificate} is not the token's signer`);
  if (entry.position === 1 && entry.chain === "c2pa" && input.c2paSignerSerials.some((signer) => BigInt(signer) !== serial))
    return fail(`${entry.certificate} is not the certificate that signed the files' C2PA manifests`);
  if (entry.position === 1 && entry.chain === "seal" && !(input.seal && equal(certificate, input.seal)))
    return fail(`${entry.certificate} is not the certificate that signed manifest.p7s`);
  if (entry.position > 1 && !(belowDer && parseCertificate(belowDer).issuer.isEqual(cert.subject)))
    return fail(`${entry.certificate} did not issue ${below?.certificate ?? "the certificate below it"}`);

  const above = chain.find((other) => other.position === entry.position + 1);
  const aboveDer = above ? pemCertificatesDer(new TextDecoder().decode(entries.get(above.certificate) ?? new Uint8Array()))[0] : undefined;
  const roots = entry.chain === "tsa" ? (input.tsaRoot ? [input.tsaRoot] : []) : input.c2paRoots;
  const issuer = aboveDer ?? roots.find((root) => parseCertificate(root).subject.isEqual(cert.issuer));
  if (!issuer) return fail(`the CA that issued ${entry.subject} is not in the package (or the chain did not validate)`);
  return judgeCrl(name, crl, certificate, issuer, entry, entry.subject, input);
}

/**
 * revocation:seal, for a package sealed before the seal's certificate had an entry of its own (docs/adr/0049):
 * it is issued by the service root, like the C2PA signer, and names the same CRL distribution point
 * (docs/adr/0027), so the root's CRL captured at sealing for the C2PA signer covers it too: it is judged at
 * gen_time as the C2PA signer is. A CRL is used only when the seal's certificate names its distribution point;
 * none captured from there, the seal's revocation is not checked.
 */
async function checkSeal(
  entries: ReadonlyMap<string, Uint8Array>,
  index: RevocationIndexEntry[],
  seal: Uint8Array,
  input: RevocationInput,
): Promise<VerificationCheck> {
  const name = "revocation:seal";
  const cert = parseCertificate(seal);
  const subject = subjectText(cert);
  const urls = crlDistributionUrls(seal);
  const entry = index.find(
    (candidate) => candidate.status === "captured" && candidate.crl !== null && candidate.source !== null && urls.includes(candidate.source),
  );
  const crl = entry?.crl ? entries.get(entry.crl) : undefined;
  if (!entry || !crl)
    return {
      name,
      result: "not_checked",
      detail:
        urls.length === 0
          ? `the seal's certificate (${subject}) names no http CRL distribution point`
          : `the CRL the seal's certificate names (${urls.join(", ")}) was not captured at sealing`,
    };
  const issuer = input.c2paRoots.find((root) => parseCertificate(root).subject.isEqual(cert.issuer));
  if (!issuer) return { name, result: "fail", detail: `the CA that issued the seal's certificate (${subject}) is not the service root` };
  return judgeCrl(name, crl, seal, issuer, entry, `the seal's certificate (${subject})`, input);
}

/** A CRL about `certificate`: signed by `issuer`, current at gen_time, not listing it as revoked before gen_time. */
async function judgeCrl(
  name: string,
  crl: Uint8Array,
  certificate: Uint8Array,
  issuer: Uint8Array,
  entry: RevocationIndexEntry,
  subject: string,
  input: RevocationInput,
): Promise<VerificationCheck> {
  const fail = (detail: string): VerificationCheck => ({ name, result: "fail", detail });

  let inspection: Awaited<ReturnType<typeof inspectCrl>>;
  try {
    inspection = await inspectCrl(crl, certificate, issuer);
  } catch {
    return fail(`${entry.crl} is not a CRL`);
  }
  if (!inspection.signedByIssuer) return fail(`${entry.crl} is not signed by the CA that issued ${subject}`);
  const genTime = Date.parse(input.genTime ?? "");
  if (Number.isNaN(genTime)) return fail("no gen_time to check the CRL at");
  const current =
    Date.parse(inspection.thisUpdate!) <= genTime + ISSUED_AFTER_GEN_TIME_MS &&
    (inspection.nextUpdate === null || Date.parse(inspection.nextUpdate) >= genTime);
  if (!current)
    return fail(`${entry.crl} (thisUpdate ${inspection.thisUpdate}, nextUpdate ${inspection.nextUpdate}) was not current at gen_time ${input.genTime}`);
  const dates = `thisUpdate ${inspection.thisUpdate}, nextUpdate ${inspection.nextUpdate ?? "none"}, fetched ${entry.captured_at} from ${entry.source}`;
  if (inspection.revoked) {
    const since = Math.min(Date.parse(inspection.revoked.revokedAt), Date.parse(inspection.revoked.invalidSince ?? inspection.revoked.revokedAt));
    const what = `${subject} is listed as revoked on ${inspection.revoked.revokedAt}${inspection.revoked.invalidSince ? ` (key invalid since ${inspection.revoked.invalidSince})` : ""}, ${inspection.revoked.reason ?? "no reason given"}`;
    if (since <= genTime) return fail(`${what}: before gen_time ${input.genTime}`);
    return { name, result: "pass", detail: `${what}: after gen_time, which the proof predates (${dates})` };
  }
  return { name, result: "pass", detail: `the issuing CA's CRL does not list ${subject} (${dates})` };
}
