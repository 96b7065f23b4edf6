import { z } from "zod";
import { SEALER_PROTOCOL_VERSION } from "./sealer-protocol.ts";

/**
 * `POST /archive-timestamp` (bearer SEALER_SECRET): the Worker's renewal sweep asks the sealer for ONE
 * RFC 3161 timestamp over the root of a hash tree covering many proofs' evidence (RFC 4998, ADR 0022).
 * The sealer holds the authorities' credentials, the Worker none. The root is sent as the timestamp's
 * message imprint itself (the authority never sees more than that hash). Same protocol version as
 * `/seal` (shared/sealer-protocol.ts): a sealer without this route answers 404 `not_found`, which the
 * sweep takes as "try again next run".
 */
const protocolVersion = z.literal(SEALER_PROTOCOL_VERSION);
const instant = z.iso.datetime({ offset: true });

export const ARCHIVE_HASHES = ["SHA-256", "SHA-384", "SHA-512"] as const;
const DIGEST_HEX_LENGTH = { "SHA-256": 64, "SHA-384": 96, "SHA-512": 128 } as const;

export const ArchiveTimestampRequestSchema = z
  .strictObject({
    protocol_version: protocolVersion,
    /** Test proofs are renewed by the test authority (no legal value), live ones by the live authority. */
    mode: z.enum(["test", "live"]),
    hash: z.enum(ARCHIVE_HASHES),
    /** The hash tree's root, in hex, used as the message imprint. */
    root: z.string().regex(/^[0-9a-f]+$/, "lower-case hex"),
    /** How many proofs the tree covers (logged: one authority call per batch, not per proof). */
    leaves: z.number().int().positive(),
  })
  .refine((request) => request.root.length === DIGEST_HEX_LENGTH[request.hash], { message: "root length does not match the hash", path: ["root"] });
export type ArchiveTimestampRequest = z.infer<typeof ArchiveTimestampRequestSchema>;

export const ArchiveTimestampAnswerSchema = z.strictObject({
  protocol_version: protocolVersion,
  /** The TimeStampToken (CMS ContentInfo) in base64, checked by the sealer before it answers. */
  token_base64: z.base64().min(1),
  gen_time: instant,
  authority: z.string().min(1),
  /** When the authority's signing certificate expires: the next renewal is due before it. */
  signer_not_after: instant,
});
export type ArchiveTimestampAnswer = z.infer<typeof ArchiveTimestampAnswerSchema>;
