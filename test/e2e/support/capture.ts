import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Stack } from "./stack.ts";
import { type JsonResponse, request } from "./http.ts";

export const fixture = (name: string) => readFileSync(resolve(import.meta.dirname, "../../../sealer/test/fixtures", name));

/** Drives a capture over HTTP exactly as the page does: declare, PUT to the signed URL, complete. */
export async function captureOverHttp(
  stack: Stack,
  key: string,
  session: Record<string, unknown>,
  shots: { file: string; type: string; step?: string; bytes?: Buffer; capture?: Record<string, unknown> }[],
) {
  const created = await createWithinRateLimit(() =>
    request(`${stack.baseUrl}/v1/capture-sessions`, { token: key, body: session, headers: { "Idempotency-Key": crypto.randomUUID() } }),
  );
  if (created.status !== 201) throw new Error(`session: ${JSON.stringify(created.body)}`);
  const captureUrl: string = created.body.capture_url;
  await sendShots(captureUrl, shots);
  const completed = await request(`${captureUrl}/complete`, { body: {} });
  return { session: created.body, completed };
}

/**
 * A creation as a well-behaved client makes it: after a 429 (the key's minute spent, e.g. by a test polling its
 * proofs) it waits the Retry-After the API gave, then asks again; any other answer is returned as it is.
 */
async function createWithinRateLimit(create: () => Promise<JsonResponse>): Promise<JsonResponse> {
  for (let attempt = 1; ; attempt++) {
    const created = await create();
    if (created.status !== 429 || attempt === 5) return created;
    await new Promise((done) => setTimeout(done, Number(created.headers.get("retry-after") ?? "1") * 1000));
  }
}

/** Declares and uploads shots behind a capture link exactly as the page does (without completing). */
export async function sendShots(
  captureUrl: string,
  shots: { file: string; type: string; step?: string; bytes?: Buffer; capture?: Record<string, unknown> }[],
): Promise<void> {
  for (const shot of shots) {
    const bytes = shot.bytes ?? fixture(shot.file);
    const declared = await request(`${captureUrl}/files`, {
      body: {
        step_id: shot.step ?? "photos",
        content_type: shot.type,
        size: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        capture: shot.capture ?? { method: "camera", device_time: new Date().toISOString(), width: 320, height: 240 },
      },
    });
    if (declared.status !== 201) throw new Error(`declare: ${JSON.stringify(declared.body)}`);
    const part = declared.body.upload.parts[0];
    const put = await fetch(part.url, { method: part.method, headers: part.headers, body: new Uint8Array(bytes) });
    if (put.status !== 200) throw new Error(`upload: ${put.status} ${await put.text()}`);
  }
}

export async function waitForProof(stack: Stack, key: string, proofId: string, until: (proof: any) => boolean, timeoutMs = 30_000, intervalMs = 400) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const proof = await request(`${stack.baseUrl}/v1/proofs/${proofId}`, { token: key });
    if (proof.status === 200 && until(proof.body)) return proof.body;
    if (Date.now() > deadline) throw new Error(`proof ${proofId}: ${proof.status} ${proof.body.status ?? proof.body.code}`);
    // Polling is an API client like any other: it must respect the key's rate limit.
    const wait = proof.status === 429 ? Number(proof.headers.get("retry-after") ?? "1") * 1000 : intervalMs;
    await new Promise((done) => setTimeout(done, wait));
  }
}
