import { env } from "cloudflare:workers";
import { database } from "../../../src/db/client.ts";
import { captureSessions, files, proofs } from "../../../src/db/schema/index.ts";
import { newId } from "../../../src/lib/ids.ts";
import { FIRST_SHARD, newShardedId, shardBinding, shardOfId } from "../../../src/db/shards.ts";
import { sha256Hex } from "../../../src/lib/crypto.ts";

/**
 * A pending proof as capture completion leaves it (session completed, files uploaded to R2), inserted
 * directly so that sealing can be tested on its own; in the organization's shard (or `shard`, one of its write
 * shards), its ids naming it.
 */
export async function insertPendingProof(organizationId: string, mode: "test" | "live", fileCount = 2, shard = shardOfId(organizationId)) {
  const binding = shardBinding(env, shard)!;
  const db = database(binding);
  const now = new Date().toISOString();
  // Shard 00's ids may keep the form minted before shards, which reads as 00 too (src/db/shards.ts).
  const mint = (prefix: string) => (shard === FIRST_SHARD ? newId(prefix) : newShardedId(prefix, shard));
  const sessionId = mint("cps");
  const proofId = mint("prf");
  const templateSha256 = await sha256Hex("{}");
  // Written as the service writes snapshots: the exact JSON whose SHA-256 sessions carry.
  await binding.prepare("INSERT OR IGNORE INTO template_snapshots (sha256, content, created_at) VALUES (?, ?, ?)").bind(templateSha256, "{}", now).run();
  await db.insert(captureSessions).values({
    id: sessionId,
    organizationId,
    mode,
    status: "completed",
    tokenHash: await sha256Hex(crypto.randomUUID()),
    externalReference: `ref-${crypto.randomUUID()}`,
    party: "provider",
    stage: "checkin",
    category: null,
    templateId: null,
    templateSha256,
    locale: "en",
    locationReference: null,
    returnUrl: null,
    compareTo: null,
    holdsReservation: 0,
    proofId,
    createdAt: now,
    updatedAt: now,
    expiresAt: now,
    completedAt: now,
  });
  await db.insert(proofs).values({
    id: proofId,
    organizationId,
    mode,
    status: "pending",
    sessionId,
    externalReference: `ref-${proofId}`,
    party: "provider",
    stage: "checkin",
    templateSha256,
    holdsReservation: mode === "live" ? 1 : 0,
    createdAt: now,
    updatedAt: now,
  });
  const fileIds: string[] = [];
  for (let i = 0; i < fileCount; i++) {
    const id = newId("med");
    const bytes = crypto.getRandomValues(new Uint8Array(64));
    const key = `captures/${sessionId}/${id}`;
    await env.FILES.put(key, bytes);
    await db.insert(files).values({
      id,
      sessionId,
      proofId,
      stepId: "photos",
      kind: "photo",
      contentType: "image/jpeg",
      size: bytes.length,
      sha256: await sha256Hex(bytes),
      status: "uploaded",
      captureContext: { method: "camera" },
      originalKey: key,
      createdAt: now,
      capturedAt: now,
    });
    fileIds.push(id);
  }
  return { proofId, sessionId, fileIds };
}
