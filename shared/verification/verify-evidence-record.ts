import * as pkijs from "pkijs";
import {
  decodeEvidenceRecord,
  digest,
  evidenceGroup,
  hashTreeRenewalGroup,
  nodeHash,
  rootOfReducedTree,
  sameBytes,
  type ArchiveTimeStamp,
  type EvidenceRecord,
} from "../evidence-record.ts";
import { checkTimestamp, type TimestampCheck } from "../timestamp-check.ts";
import { sha256Hex } from "./digest.ts";
import type { EvidenceSummary, VerificationCheck } from "./types.ts";

export const EVIDENCE_RECORD_ENTRY = "evidence-record.ers";

/**
 * The package's evidence objects, by name: manifest.json, proof.tsr and every revocation/ file, in name
 * order (the sweep hashes the same objects in storage; the order does not matter, lists are sorted).
 */
export function evidenceObjects(entries: ReadonlyMap<string, Uint8Array>): { names: string[]; objects: Uint8Array[] } {
  const names = ["manifest.json", "proof.tsr", ...[...entries.keys()].filter((name) => name.startsWith("revocation/") && !name.endsWith("/")).sort()];
  return { names, objects: names.flatMap((name) => (entries.has(name) ? [entries.get(name)!] : [])) };
}

const sameSet = (a: Uint8Array[], b: Uint8Array[]) => a.length === b.length && a.every((value) => b.some((other) => sameBytes(value, other)));

/**
 * Verifies `evidence-record.ers` (RFC 4998) against the package, trusting nothing in it: the first archive
 * timestamp's first list is exactly the hashes of manifest.json, proof.tsr and the revocation data (§4.3);
 * each reduced hash tree leads to the root its timestamp covers; each timestamp renewal covers the previous
 * archive timestamp's token, each hash-tree renewal the objects and every earlier chain (§5.3); each
 * timestamp is the authority's (signature, timestamping signer, ESS) and chains to a root of chain.pem, the
 * pinned one when given, at the time the NEXT archive timestamp proves it existed, so a certificate that
 * expired since is fine; the latest at its own gen_time, with a plain statement when its certificate has
 * expired or is close to (the record is then due for renewal: only the service can add it).
 */
export async function verifyEvidenceRecord(
  entries: ReadonlyMap<string, Uint8Array>,
  chainPem: string,
  token: { tsr: Uint8Array; manifest: Uint8Array; genTime: string | null },
  pins: { tsaRootSha256?: string },
  now: Date,
): Promise<{ checks: VerificationCheck[]; summary: EvidenceSummary | null }> {
  const checks: VerificationCheck[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, result: ok ? "pass" : "fail", detail });
  const der = entries.get(EVIDENCE_RECORD_ENTRY);
  if (!der) return { checks, summary: null };
  let record: EvidenceRecord;
  try {
    record = decodeEvidenceRecord(der);
  } catch (error) {
    check("evidence_record_readable", false, `${EVIDENCE_RECORD_ENTRY} is not an RFC 4998 EvidenceRecord: ${(error as Error).message}`);
    return { checks, summary: null };
  }
  const { names, objects } = evidenceObjects(entries);
  const stamps = record.chains.flatMap((chain, chainIndex) => chain.map((stamp, index) => ({ stamp, chainIndex, index })));
  const genTimes = await Promise.all(stamps.map(({ stamp }) => genTimeOf(stamp)));
  const inspections: TimestampCheck[] = [];
  for (const [position, { stamp, chainIndex, index }] of stamps.entries()) {
    // What this archive timestamp must cover (§4.3, §5.3): the package's objects for a chain's first one
    // (with every earlier chain after a hash-tree renewal), else the previous archive timestamp's token.
    const expected =
      index > 0
        ? [await digest(stamp.digestAlgorithm, record.chains[chainIndex]![index - 1]!.timeStamp)]
        : chainIndex === 0
          ? await evidenceGroup(stamp.digestAlgorithm, objects)
          : await hashTreeRenewalGroup(stamp.digestAlgorithm, objects, record.chains.slice(0, chainIndex));
    const first = stamp.reducedHashtree?.[0] ?? expected;
    const covers =
      index > 0
        ? stamp.digestAlgorithm === record.chains[chainIndex]![index - 1]!.digestAlgorithm && first.some((value) => sameBytes(value, expected[0]!))
        : objects.length === names.length && sameSet(first, expected);
    const label = `archive timestamp ${position + 1} (chain ${chainIndex + 1}, ${stamp.digestAlgorithm})`;
    const what =
      index > 0
        ? `archive timestamp ${position} (its token)`
        : chainIndex === 0
          ? names.join(", ")
          : `${names.join(", ")} and the ${chainIndex} earlier chain(s) (hash-tree renewal)`;
    check(`archive_timestamp:${position + 1}:covers`, covers, covers ? `${label} covers ${what}` : `${label} does not cover ${what}`);
    // Its certificates are judged when the next archive timestamp proves it existed; the latest at its own gen_time.
    const at = genTimes[position + 1] ?? null;
    const root = stamp.reducedHashtree
      ? await rootOfReducedTree(stamp.digestAlgorithm, stamp.reducedHashtree)
      : await nodeHash(stamp.digestAlgorithm, expected);
    const inspection = await checkTimestamp(stamp.timeStamp, new Uint8Array(), chainPem, { imprint: root, ...(at ? { at: new Date(at) } : {}) });
    inspections.push(inspection);
    const genTime = inspection.genTime;
    const valid =
      inspection.granted &&
      inspection.imprintMatches &&
      inspection.signatureValid &&
      inspection.signerCertifiedForTimestamping &&
      inspection.signerCertificateBound;
    check(
      `archive_timestamp:${position + 1}:token`,
      valid,
      valid ? `${label}: the authority's token of ${genTime} over the hash tree's root` : `${label}: ${describe(inspection)}`,
    );
    const isLatest = position === stamps.length - 1;
    const judgedAt = isLatest ? genTime : genTimes[position + 1];
    check(
      `archive_timestamp:${position + 1}:chain`,
      inspection.chainTrusted,
      inspection.chainTrusted
        ? `${label}: the authority's certificate chains to a root of chain.pem at ${judgedAt}${isLatest ? " (its own gen_time)" : ", when the next archive timestamp proves it existed"}`
        : `${label}: the authority's certificate does not chain to a root of chain.pem at ${judgedAt ?? "?"}`,
    );
    if (pins.tsaRootSha256) {
      const root = inspection.rootCertificate ? await sha256Hex(inspection.rootCertificate) : null;
      check(
        `archive_timestamp:${position + 1}:root_pinned`,
        root === pins.tsaRootSha256.toLowerCase(),
        root === pins.tsaRootSha256.toLowerCase()
          ? `${label}: its root is the pinned one`
          : `${label}: its root ${root ?? "(none)"} is not the pinned ${pins.tsaRootSha256}`,
      );
    }
    if (position > 0) {
      const before = inspections[position - 1]!.genTime;
      const ordered = before !== null && genTime !== null && Date.parse(before) <= Date.parse(genTime);
      check(
        `archive_timestamp:${position + 1}:order`,
        ordered,
        ordered ? `${label} was made after archive timestamp ${position}` : `${label} is dated before archive timestamp ${position}`,
      );
    }
  }

  // The seal's own token, judged when the first archive timestamp proves it existed (not today).
  const firstGenTime = inspections[0]?.genTime ?? null;
  if (firstGenTime) {
    const sealed = await checkTimestamp(token.tsr, token.manifest, chainPem, { at: new Date(firstGenTime) });
    const ok = sealed.chainTrusted && token.genTime !== null && Date.parse(token.genTime) <= Date.parse(firstGenTime);
    check(
      "timestamp_chain_when_archived",
      ok,
      ok
        ? `proof.tsr's authority certificate was valid at ${firstGenTime}, when the first archive timestamp proves the token existed`
        : `proof.tsr's authority certificate does not chain at ${firstGenTime} (the first archive timestamp)`,
    );
  }

  const latest = inspections.at(-1);
  const expires = latest?.signerNotAfter ?? null;
  const summary: EvidenceSummary = {
    archive_timestamps: stamps.length,
    chains: record.chains.length,
    first_gen_time: firstGenTime,
    latest_gen_time: latest?.genTime ?? null,
    latest_authority: latest?.signerCertificate ? commonName(latest.signerCertificate) : null,
    latest_authority_expires: expires,
    renewal_overdue: expires !== null && Date.parse(expires) <= now.getTime(),
  };
  return { checks, summary };
}

async function genTimeOf(stamp: ArchiveTimeStamp): Promise<string | null> {
  return (await checkTimestamp(stamp.timeStamp, new Uint8Array(), "")).genTime;
}

const COMMON_NAME_OID = "2.5.4.3";

function commonName(certificateDer: Uint8Array): string | null {
  const subject = pkijs.Certificate.fromBER(new Uint8Array(certificateDer).buffer).subject;
  const value = subject.typesAndValues.find((one) => one.type === COMMON_NAME_OID)?.value.valueBlock.value;
  return typeof value === "string" ? value : null;
}

function describe(inspection: TimestampCheck): string {
  if (!inspection.granted) return "no readable timestamp token";
  if (!inspection.imprintMatches) return "the token does not cover the root its reduced hash tree leads to";
  if (!inspection.signatureValid) return "the token's signature does not verify";
  return "the token's signer is not certified for timestamping or not bound by the ESS attribute";
}

/** A line for the human report about the latest renewal. */
export function renewalLine(summary: EvidenceSummary): string {
  const expires = summary.latest_authority_expires ?? "?";
  const latest = `The latest renewal (${summary.latest_gen_time}, by ${summary.latest_authority ?? "?"})`;
  return summary.renewal_overdue
    ? `${latest} rests on an authority certificate that expired on ${expires}: it was valid when that timestamp was made, but the record is overdue for renewal (a new archive timestamp from the service).`
    : `${latest} rests on an authority certificate that expires on ${expires}; renewal is due before then.`;
}
