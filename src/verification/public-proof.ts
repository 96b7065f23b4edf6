import type { Env } from "../env.ts";
import type { FileRow, ProofRow } from "../storage/rows.ts";
import { SealedRecordUnavailable } from "../storage/objects/sealed-records.ts";
import { presentFile, presentSeal, presentTimestamp, proofUrls } from "../proofs/present-proof.ts";
import { latestRehashes, listedFiles, type ObservedFiles, proofDatabase, proofVerification } from "./verify-proof.ts";
import { publicSignals } from "../proofs/file-facts.ts";
import { proofClaims, publicClaims } from "./claims.ts";
import { packageRoots } from "./package-roots.ts";
import type { PublicEvidenceRecord } from "../evidence/evidence-state.ts";
import { readRevocationIndex } from "../storage/objects/revocation.ts";
import type { ProofRehashes } from "../storage/sealed-object-checks.ts";
import { sealedThumbnail } from "../storage/objects/thumbnails.ts";
import { reportsShownWith } from "../storage/proof-reports.ts";

/**
 * The proof's sealed report and its pair's (kept with the after, served from either proof), by SHA-256 and URL
 * (docs/adr/0056): what a holder of a report compares it with. None before sealing.
 */
async function sealedReports(env: Env, proof: ProofRow, base: string) {
  const shown = proof.status === "sealed" ? await reportsShownWith(proofDatabase(env, proof), proof) : [];
  const reference = (kind: "proof" | "pair", name: string) => {
    const report = shown.find((one) => one.kind === kind);
    return report ? { sha256: report.sha256, url: `${base}/v1/public/proofs/${proof.id}/${name}` } : null;
  };
  return { report: reference("proof", "report.pdf"), pair_report: reference("pair", "pair-report.pdf") };
}

/**
 * Whether a file's tile may show its thumbnail (forger session 7, G6): the one sealing wrote at its run's key, unless
 * the latest re-hash found other bytes there or none. A picture that is not the sealed one is never shown under its
 * verdict; its route refuses it too (src/routes/public/thumbnail.ts), before the next re-hash has found it.
 */
function thumbnailShown(proof: ProofRow, file: FileRow, rehashes: ProofRehashes): boolean {
  const thumbnail = sealedThumbnail(proof, file);
  if (thumbnail === null || thumbnail === "elsewhere") return false;
  return !rehashes.findings.some((check) => check.objectKey === thumbnail.key && check.matched === false);
}

/**
 * The public face of a proof: nothing about the organization, keys or capture links. `rehashes`: what the
 * re-hash sweep last found for its objects, when the caller already read it (its cache key names them). A sealed
 * record that could not give the files lists none, and the verdict's failing `files_record` check says why.
 */
export async function publicProof(env: Env, proof: ProofRow, files: ObservedFiles, evidence: PublicEvidenceRecord | null = null, rehashes?: ProofRehashes) {
  const base = env.API_BASE_URL.replace(/\/$/, "");
  const [roots, revocation] = proof.status === "sealed" ? await Promise.all([packageRoots(env, proof), readRevocationIndex(env, proof)]) : [null, null];
  const reports = await sealedReports(env, proof, base);
  const rehashed = rehashes ?? (await latestRehashes(env, proof));
  const presented = listedFiles(files).map((file) => {
    const url = `${base}/v1/public/proofs/${proof.id}/files/${file.id}`;
    return {
      ...presentFile(file, publicSignals),
      url,
      thumbnail_url: proof.status === "sealed" && thumbnailShown(proof, file, rehashed) ? `${url}/thumbnail` : null,
    };
  });
  return {
    id: proof.id,
    status: proof.status,
    mode: proof.mode,
    external_reference: proof.externalReference,
    party: proof.party,
    stage: proof.stage,
    category: proof.category,
    compare_to: proof.compareTo,
    compared_by: proof.comparedBy,
    files: presented,
    timestamp: presentTimestamp(proof),
    manifest_sha256: proof.manifestSha256,
    seal: presentSeal(proof),
    // Fingerprints to compare elsewhere (GET /v1/public/trust-anchors, the authority's own publication): the package's chains prove nothing by themselves.
    trust_anchors: roots && { timestamp_authority_root_sha256: roots.tsa?.sha256 ?? null, c2pa_root_sha256: roots.c2pa?.sha256 ?? null },
    // What the package's revocation/ holds, as captured at sealing (null: not sealed, sealed before it was captured, or
    // an index damaged in storage, which the verification's failing `revocation` check says).
    revocation: revocation === "unreadable" ? null : revocation,
    // The RFC 4998 evidence record the package carries, and when the sweep last renewed it (docs/adr/0022).
    evidence_record: evidence,
    ...reports,
    sealed_at: proof.sealedAt,
    ...proofUrls(env.API_BASE_URL, proof.id),
    verification: await proofVerification(env, proof, files, rehashed),
    claims: publicClaims(proofClaims(proof, presented, !(files instanceof SealedRecordUnavailable))),
  };
}
