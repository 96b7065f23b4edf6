import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { toHex } from "../../lib/crypto.ts";
import { takeRateLimit } from "../../durable/rate-limit-client.ts";
import { sealedProofsHoldingFile } from "../../verification/proofs-holding-file.ts";
import { hashLookup } from "../../verification/hash-lookup.ts";
import { sealedReportsWithHash } from "../../verification/reports-with-hash.ts";
import { BinarySchema, FileMatchesSchema, VerifyBySha256Schema, VerifyQuerySchema } from "./schema.ts";
import { rateLimitAddressKey } from "../../lib/client-address.ts";
import { fieldOf } from "../../openapi/hook.ts";

/** Verifications per minute per client address: hashing uploads is work we do for strangers. */
const VERIFY_LIMIT_PER_MINUTE = 30;

/**
 * The largest file verified by its bytes: Cloudflare refuses a request body over 100 MB on the Free and
 * Pro plans (200 MB on Business) with its own HTML 413 before the Worker runs, so the service never
 * promises more than the smallest of them, and answers its own problem 413 up to there. A larger file is
 * verified by its SHA-256 (JSON `{sha256}`), which the verification page computes locally anyway.
 */
export const MAX_VERIFY_FILE_BYTES = 100_000_000;

const route = publicRoute(["rate_limited", "verify_file_too_large"], {
  method: "post",
  path: "/v1/public/verify",
  operationId: "verifyFile",
  tags: ["Public verification"],
  summary: t("Find the proofs holding a file", "Trouver les preuves contenant un fichier"),
  description: t(
    'No credential. Send the file\'s bytes (any content type but JSON, at most 100 MB = 100,000,000 bytes, the most Cloudflare accepts in a request body on the Free and Pro plans; a larger body gets 413 `verify_file_too_large`, or Cloudflare\'s own 413 page above its limit), or, for a file of any size, JSON `{"sha256": "…"}` with its SHA-256 computed locally (`sha256sum`); the answer lists the sealed proofs holding that file as signed, or whose sealed PDF report (report.pdf, or a pair\'s pair-report.pdf, kept with the after) it is, and the proof named by `proof_id` (JSON member or query parameter) if it holds it as received (original): the same original bytes in another proof, of any organization, are never named. Limited per client address.',
    'Sans identifiant. Envoyez les octets du fichier (tout type sauf JSON, au plus 100 Mo = 100 000 000 octets, le maximum que Cloudflare accepte dans un corps de requête avec les offres Free et Pro ; un corps plus grand reçoit 413 `verify_file_too_large`, ou la page 413 de Cloudflare au-delà de sa limite), ou, pour un fichier de toute taille, du JSON `{"sha256": "…"}` avec son SHA-256 calculé localement (`sha256sum`) ; la réponse liste les preuves scellées contenant ce fichier signé, ou dont il est le rapport PDF scellé (report.pdf, ou pair-report.pdf d\'une paire, conservé avec l\'après), et la preuve nommée par `proof_id` (membre JSON ou paramètre de requête) si elle le contient tel que reçu (original) : les mêmes octets originaux dans une autre preuve, de quelque organisation que ce soit, ne sont jamais nommés. Limité par adresse cliente.',
  ),
  request: {
    query: VerifyQuerySchema,
    body: {
      content: {
        "application/json": { schema: VerifyBySha256Schema },
        "application/octet-stream": { schema: BinarySchema },
      },
      required: true,
    },
  },
  responses: {
    200: {
      description: t("The matching proofs (possibly none).", "Les preuves correspondantes (éventuellement aucune)."),
      content: { "application/json": { schema: FileMatchesSchema } },
    },
  },
});

const tooLarge = () =>
  new ApiError("verify_file_too_large", {
    detail: `At most ${MAX_VERIFY_FILE_BYTES} bytes by file; send JSON {"sha256": "…"} with the file's SHA-256 instead.`,
  });

/** The SHA-256 asked about, and the proof whose originals may answer (JSON `proof_id`, else the query's). */
async function lookupOf(request: Request): Promise<{ sha256: string; proofId: string | null }> {
  const query = VerifyQuerySchema.safeParse({ proof_id: new URL(request.url).searchParams.get("proof_id") ?? undefined });
  if (!query.success) throw new ApiError("validation_failed", { field: fieldOf("query", ["proof_id"]), detail: "A proof id." });
  const proofId = query.data.proof_id ?? null;
  if ((request.headers.get("Content-Type") ?? "").includes("json")) {
    // Malformed JSON is 400 `invalid_json` here as on every other route, not a wrong `sha256`.
    const body = await request.json().catch(() => {
      throw new ApiError("invalid_json", { detail: "The request body is not valid JSON." });
    });
    // The documented schema, strict like every body: an unknown member is named as the routes' validator names it.
    const parsed = VerifyBySha256Schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const unknown = issue?.code === "unrecognized_keys" ? issue.keys[0] : undefined;
      if (unknown !== undefined) throw new ApiError("validation_failed", { field: fieldOf("json", [unknown]), detail: "Unknown field." });
      if (issue?.path[0] === "proof_id") throw new ApiError("validation_failed", { field: fieldOf("json", ["proof_id"]), detail: "A proof id." });
      throw new ApiError("validation_failed", { field: "/sha256", detail: "A SHA-256 in hexadecimal." });
    }
    return { sha256: parsed.data.sha256.toLowerCase(), proofId: parsed.data.proof_id ?? proofId };
  }
  // No body at all: the pointer names the body as a whole, as the routes' validator does.
  if (request.body === null) throw new ApiError("validation_failed", { field: fieldOf("json", []), detail: "Send the file's bytes or JSON {sha256}." });
  // Refused on the announced length before a byte is read; a body without one is counted as it streams.
  if (Number(request.headers.get("Content-Length") ?? "0") > MAX_VERIFY_FILE_BYTES) throw tooLarge();
  const digest = new crypto.DigestStream("SHA-256");
  const writer = digest.getWriter();
  const reader = request.body.getReader();
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > MAX_VERIFY_FILE_BYTES) {
      // Stop reading at once; the digest is closed (not aborted) so that nothing is left rejecting.
      await reader.cancel();
      await writer.close();
      throw tooLarge();
    }
    await writer.write(chunk.value);
  }
  await writer.close();
  return { sha256: toHex(await digest.digest), proofId };
}

export function registerPublicVerify(app: App) {
  // The body is read by hand (bytes or JSON), so no validator runs on it here.
  app.post("/v1/public/verify", async (c) => {
    const client = rateLimitAddressKey(c.req.header("CF-Connecting-IP") ?? "local");
    const limit = await takeRateLimit(c.env.RATE_LIMIT_BUCKET, `verify:${client}`, VERIFY_LIMIT_PER_MINUTE, "read");
    c.header("RateLimit-Limit", String(limit.limit));
    c.header("RateLimit-Remaining", String(limit.remaining));
    c.header("RateLimit-Reset", String(limit.resetSeconds));
    if (!limit.allowed) throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.resetSeconds) } });
    const { sha256, proofId } = await lookupOf(c.req.raw);
    const lookup = await hashLookup(c.env, sha256);
    const ctx = { env: c.env };
    const [files, reports] = await Promise.all([
      sealedProofsHoldingFile({ ctx, input: { ...lookup, proofId } }),
      sealedReportsWithHash({ ctx, input: lookup }),
    ]);
    return c.json({ data: [...files, ...reports] }, 200);
  });
  app.openAPIRegistry.registerPath(route);
}
