import type { Env } from "../env.ts";
import { ArchiveTimestampAnswerSchema, type ArchiveTimestampAnswer, type ArchiveTimestampRequest } from "../../shared/archive-timestamp-protocol.ts";
import { parseProtocolMessage, SEALER_PROTOCOL_VERSION } from "../../shared/sealer-protocol.ts";
import { sealerFetch } from "../sealing/sealer-client.ts";

/** Asks the sealer for one timestamp over a hash tree's root: the Worker holds no authority credential. */
export type ArchiveTimestamper = (request: Omit<ArchiveTimestampRequest, "protocol_version">) => Promise<ArchiveTimestampAnswer>;

export function sealerArchiveTimestamper(env: Env): ArchiveTimestamper {
  return async (request) => {
    const response = await sealerFetch(env, "/archive-timestamp", "evidence-records", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${env.SEALER_SECRET ?? ""}` },
      body: JSON.stringify({ protocol_version: SEALER_PROTOCOL_VERSION, ...request } satisfies ArchiveTimestampRequest),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`sealer answered ${response.status} to /archive-timestamp: ${text.slice(0, 300)}`);
    const parsed = parseProtocolMessage(ArchiveTimestampAnswerSchema, text);
    if (!parsed.ok) throw new Error(`sealer's archive timestamp cannot be read: ${parsed.problem}`);
    return parsed.value;
  };
}
