import type { IncomingMessage, ServerResponse } from "node:http";
import { ArchiveTimestampRequestSchema, type ArchiveTimestampAnswer } from "../../shared/archive-timestamp-protocol.ts";
import { parseProtocolMessage, SEALER_PROTOCOL_VERSION, sealerError } from "../../shared/sealer-protocol.ts";
import { BodyTooLargeError, readBody, send } from "./http.ts";
import { TimestampUnavailableError, type TimestampAuthority } from "./tsa/authority.ts";
import { obtainTimestampOfDigest } from "./tsa/obtain-timestamp.ts";

/**
 * `POST /archive-timestamp` (the caller is already authenticated): ONE timestamp over the root of the
 * renewal sweep's hash tree (RFC 4998, docs/adr/0022), from the authority of the proofs' mode, checked
 * like every token the sealer buys (imprint, nonce, signature, signer, chain) before it is answered.
 */
export async function serveArchiveTimestamp(
  req: IncomingMessage,
  res: ServerResponse,
  authorityFor: (mode: "test" | "live") => TimestampAuthority,
): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(req, 4096);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    return send(res, 413, sealerError("job_too_large", "An archive timestamp request is a few hundred bytes."));
  }
  const parsed = parseProtocolMessage(ArchiveTimestampRequestSchema, body.toString("utf8"));
  if (!parsed.ok)
    return send(res, 400, sealerError(parsed.wrongVersion ? "unsupported_protocol_version" : "invalid_job", `The request cannot be read: ${parsed.problem}.`));
  const { mode, hash, root, leaves } = parsed.value;
  try {
    const stamp = await obtainTimestampOfDigest(authorityFor(mode), hash, new Uint8Array(Buffer.from(root, "hex")));
    console.log(JSON.stringify({ level: "info", message: "archive timestamp", mode, leaves, authority: stamp.authority, gen_time: stamp.genTime }));
    const answer: ArchiveTimestampAnswer = {
      protocol_version: SEALER_PROTOCOL_VERSION,
      token_base64: Buffer.from(stamp.token).toString("base64"),
      gen_time: stamp.genTime,
      authority: stamp.authority,
      signer_not_after: stamp.signerNotAfter,
    };
    return send(res, 200, answer);
  } catch (error) {
    if (error instanceof TimestampUnavailableError) return send(res, 503, sealerError("sealing_unavailable", error.message));
    throw error;
  }
}
