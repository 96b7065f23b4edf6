import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

/**
 * Requests to signed storage URLs with node:http rather than fetch: fetch copies a request body once more
 * and joins a response's chunks at the end, which cost the sealer about 14 ms of CPU per 4 MB file on
 * the event loop that also serves the job's other files (measured with `npm run bench`).
 */
function send(url: string, method: string, headers: Record<string, string>, body: Uint8Array | null, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = (target.protocol === "https:" ? httpsRequest : httpRequest)(target, { method, headers, signal }, resolve);
    request.on("error", reject);
    request.end(body ?? undefined);
  });
}

/**
 * The body, read into one buffer of the announced length as it arrives (a buffer of its own, so it can
 * be handed to a signing thread without a copy); chunks joined only when no length is announced.
 */
async function readBody(response: IncomingMessage): Promise<Uint8Array> {
  const announced = Number(response.headers["content-length"]);
  if (!Number.isSafeInteger(announced) || announced < 0) {
    const chunks: Buffer[] = [];
    for await (const chunk of response as AsyncIterable<Buffer>) chunks.push(chunk);
    return new Uint8Array(Buffer.concat(chunks));
  }
  const body = Buffer.allocUnsafeSlow(announced);
  let length = 0;
  // Node's parser ends the body at the announced length; fewer bytes end in an error (premature close).
  for await (const chunk of response as AsyncIterable<Buffer>) length += chunk.copy(body, length);
  return new Uint8Array(body.buffer, 0, length);
}

/** GET: the status and, when it is a success, the body (drained otherwise). */
export async function storageGet(url: string, headers: Record<string, string> | undefined, signal: AbortSignal): Promise<{ status: number; body: Uint8Array }> {
  const response = await send(url, "GET", headers ?? {}, null, signal);
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 299) {
    response.resume();
    return { status, body: new Uint8Array() };
  }
  return { status, body: await readBody(response) };
}

/** PUT or DELETE (the method the URL was signed for): the status; the answer's body is drained. */
export async function storageSend(url: string, method: string, headers: Record<string, string>, body: Uint8Array | null, signal: AbortSignal): Promise<number> {
  const response = await send(url, method, body === null ? headers : { ...headers, "Content-Length": String(body.length) }, body, signal);
  response.resume();
  return response.statusCode ?? 0;
}
