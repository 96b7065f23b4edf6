/**
 * The five-minute integration in one command, against `npm run dev` started with a local webhook receiver:
 *
 *   WEBHOOK_RESOLVE=hooks.example.com:9443=127.0.0.1:9999 npm run dev     # one terminal
 *   npx node examples/quickstart.ts                                       # another
 *
 * It creates a capture session, plays the phone (the capture page's own JSON routes: declare a photo, upload
 * it, complete), receives `capture_session.completed` then `proof.sealed` on a receiver at 127.0.0.1:9999,
 * verifies each signature with the SDK, fetches the proof and its verification package, and prints the proof's
 * verification page. The key is PROOFSEAL_API_KEY, or the demo test key `npm run dev` saved under .local/.
 * Options (environment): PROOFSEAL_BASE_URL (http://localhost:8787), RECEIVER_PORT (9999), HOOK_HOST
 * (hooks.example.com:9443), and a JPEG's path as the first argument (a sample photo otherwise).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
// In your project: import { ProofSeal, type WebhookEvent } from "@proofseal/sdk";
import { ProofSeal, type WebhookEvent } from "../sdk/src/index.ts";

const root = resolve(import.meta.dirname, "..");
const baseUrl = process.env.PROOFSEAL_BASE_URL ?? "http://localhost:8787";
const receiverPort = Number(process.env.RECEIVER_PORT ?? 9999);
const hookHost = process.env.HOOK_HOST ?? "hooks.example.com:9443";
const photo = readFileSync(process.argv[2] ?? join(root, "sealer/test/fixtures/photo.jpg"));

/** The demo organization's test key that `npm run dev` saved last (.local/demo-*.json), unless one is given. */
function apiKey(): string {
  if (process.env.PROOFSEAL_API_KEY) return process.env.PROOFSEAL_API_KEY;
  const folder = resolve(root, process.env.DEV_LOCAL_DIR ?? ".local");
  const saved = readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /^demo-.*\.json$/.test(entry.name))
    .map((entry) => join(folder, entry.name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (saved.length === 0) throw new Error("Set PROOFSEAL_API_KEY to the test key npm run dev printed");
  return (JSON.parse(readFileSync(saved[0]!, "utf8")) as { testKey: string }).testKey;
}

const client = new ProofSeal({ apiKey: apiKey(), baseUrl });
const me = await client.me();
console.log(`Key of ${me.organization.name} (${client.mode} mode); ${me.lastResponse.rateLimit?.remaining} requests left this minute`);

// 1. A receiver that accepts only deliveries whose signature the SDK verifies.
let secret = "";
const events: WebhookEvent[] = [];
const receiver = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    const event = await client.webhooks.verify(Buffer.concat(chunks), request.headers["x-signature"] as string | undefined, secret);
    console.log(`  received ${event.event}, signature verified (X-Event-Id ${request.headers["x-event-id"]})`);
    events.push(event);
    response.writeHead(200).end();
  } catch (error) {
    console.log(`  refused a delivery: ${(error as Error).message}`);
    response.writeHead(400).end();
  }
});
await new Promise<void>((done) => receiver.listen(receiverPort, "127.0.0.1", done));

// 2. An endpoint of its own (one URL per endpoint), deleted at the end.
const endpoint = await client.webhookEndpoints.create({
  url: `https://${hookHost}/quickstart-${Date.now()}`,
  events: ["capture_session.completed", "proof.sealed", "proof.failed"],
  description: "examples/quickstart.ts",
});
secret = endpoint.secret!;
console.log(`Webhook endpoint ${endpoint.id} -> ${endpoint.url}`);

try {
  // 3. A capture session; its Idempotency-Key is generated, and a retry after a lost answer reuses it.
  const session = await client.captureSessions.create({ external_reference: `quickstart-${Date.now()}`, party: "provider" });
  console.log(`Capture session ${session.id}: ${session.capture_url} (Idempotency-Key ${session.lastResponse.idempotencyKey})`);

  // 4. What the phone does on the capture page (docs/capture-page-protocol.md): declare, upload, complete.
  const sha256 = Buffer.from(await crypto.subtle.digest("SHA-256", photo)).toString("hex");
  const declared = await capturePage<DeclaredFile>(`${session.capture_url}/files`, {
    step_id: "photos",
    content_type: "image/jpeg",
    size: photo.length,
    sha256,
  });
  const upload = await fetch(declared.upload.url, { method: declared.upload.method, headers: declared.upload.headers, body: photo });
  if (!upload.ok) throw new Error(`upload: ${upload.status} ${await upload.text()}`);
  const { proof_id: proofId } = await capturePage<{ proof_id: string }>(`${session.capture_url}/complete`, {});
  console.log(`Captured one photo; proof ${proofId} is being sealed`);

  // 5. capture_session.completed, then proof.sealed.
  const sealed = await waitForEvent(proofId, "proof.sealed");
  const order = events.filter((event) => "proof_id" in event && event.proof_id === proofId).map((event) => event.event);
  console.log(`Events in order: ${order.join(", ")}`);
  if (sealed.event === "proof.sealed") console.log(`Sealed: manifest_sha256 ${sealed.manifest_sha256}, timestamp ${sealed.timestamp.gen_time}`);

  // 6. The proof, its public verification and its package.
  const proof = await client.proofs.get(proofId);
  const verification = await client.public.getProof(proofId);
  const zip = await client.public.downloadPackage(proofId);
  const packagePath = join(tmpdir(), `${proofId}.zip`);
  writeFileSync(packagePath, zip.bytes);
  console.log(`Proof ${proof.id}: ${proof.status}, ${proof.files.length} file(s); public verification: ${verification.verification.status}`);
  console.log(`Verification package (${zip.bytes.length} bytes): ${packagePath}`);
  console.log(`\nVerification page: ${proof.verification_url}`);
} finally {
  await client.webhookEndpoints.delete(endpoint.id);
  receiver.close();
}

/** The capture page's declaration answer, single-part (`/openapi-capture.json`, DeclaredCaptureFile). */
interface DeclaredFile {
  file_id: string;
  upload: { url: string; method: string; headers: Record<string, string> };
}

/** A capture page JSON route (the capture link's token is its credential: no API key). */
async function capturePage<T>(url: string, body: unknown): Promise<T> {
  const response = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${(answer as { code?: string }).code}`);
  return answer as T;
}

async function waitForEvent(proofId: string, name: WebhookEvent["event"], timeoutMs = 120_000): Promise<WebhookEvent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = events.find((event) => event.event === name && "proof_id" in event && event.proof_id === proofId);
    if (found) return found;
    if (Date.now() > deadline) {
      const failures = (await client.webhookDeliveries.list({ endpoint_id: endpoint.id }).firstPage()).data.map((delivery) => delivery.status);
      throw new Error(
        `No ${name} within ${timeoutMs / 1000} s (deliveries: ${failures.join(", ") || "none"}). Was npm run dev started with WEBHOOK_RESOLVE=${hookHost}=127.0.0.1:${receiverPort}?`,
      );
    }
    await new Promise((done) => setTimeout(done, 250));
  }
}
