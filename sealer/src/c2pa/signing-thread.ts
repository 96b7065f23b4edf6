/**
 * A signing thread of the pool (signing-pool.ts): signs files with c2pa-rs, which hashes and writes a
 * file synchronously, away from the sealer's event loop. The timestamp inside each signature is asked of
 * the main thread, which holds the authorities, the job's abort signal and its clock. The signed copy's
 * SHA-256 and CRC-32 are computed here too, while its bytes are at hand.
 */
import { createHash, type KeyObject } from "node:crypto";
import { parentPort } from "node:worker_threads";
import { crc32 } from "node:zlib";
import { initC2pa, signWithC2pa, type ManifestDefinition } from "./c2pa.ts";

export interface SignTask {
  type: "sign";
  id: number;
  bytes: Uint8Array;
  definition: ManifestDefinition;
  key: KeyObject;
  chainDer: Uint8Array[];
  timestamped: boolean;
}

/** The main thread's answer to a `timestamp` request: the token, or null when it could not be had. */
export interface TokenAnswer {
  type: "token";
  id: number;
  token: Uint8Array | null;
}

export type ToThread = SignTask | TokenAnswer;

export type FromThread =
  | { type: "timestamp"; id: number; message: Uint8Array }
  | { type: "signed"; id: number; bytes: Uint8Array; sha256: string; crc32: number }
  | { type: "failed"; id: number; message: string };

const port = parentPort!;
const tokens = new Map<number, (token: Uint8Array | null) => void>();

/** Thrown into c2pa-rs when the main thread had no token; the main thread reports its own error instead. */
class NoTimestampError extends Error {}

async function sign(task: SignTask): Promise<FromThread> {
  const timestamp = async (message: Uint8Array) => {
    const token = await new Promise<Uint8Array | null>((answer) => {
      tokens.set(task.id, answer);
      port.postMessage({ type: "timestamp", id: task.id, message } satisfies FromThread);
    });
    if (token === null) throw new NoTimestampError("no timestamp");
    return token;
  };
  try {
    const signed = await signWithC2pa(task.bytes, task.definition, { key: task.key, chainDer: task.chainDer, timestamp: task.timestamped ? timestamp : null });
    return { type: "signed", id: task.id, bytes: signed, sha256: createHash("sha256").update(signed).digest("hex"), crc32: crc32(signed) };
  } catch (error) {
    return { type: "failed", id: task.id, message: (error as Error).message };
  } finally {
    tokens.delete(task.id);
  }
}

initC2pa();
port.on("message", (message: ToThread) => {
  if (message.type === "token") return tokens.get(message.id)?.(message.token);
  // The signed copy is handed over without a copy when it is a buffer of its own (never a view of
  // c2pa-rs's memory, which a transfer would take away from it).
  const ownBuffer = (bytes: Uint8Array) => bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  void sign(message).then((answer) =>
    port.postMessage(answer, answer.type === "signed" && ownBuffer(answer.bytes) ? [answer.bytes.buffer as ArrayBuffer] : []),
  );
});
