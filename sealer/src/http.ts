import type { IncomingMessage, ServerResponse } from "node:http";

export function send(res: ServerResponse, status: number, body: unknown, type = "application/json") {
  const payload = type === "application/json" ? JSON.stringify(body) : (body as Buffer);
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(payload) });
  res.end(payload);
}

/** The request body passed the limit its route sets. */
export class BodyTooLargeError extends Error {}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLargeError(`body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
