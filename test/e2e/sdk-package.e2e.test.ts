import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProofSeal } from "../../sdk/src/index.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { freePort, startStack, type Stack } from "./support/stack.ts";

/**
 * The SDK as an integrator gets it (issue 30): `npm pack` in sdk/, the tarball installed into an empty project
 * outside the repository, a ten-line script compiled there with `tsc --strict` (the SDK's declarations checked
 * too) and run against `npm run dev`. One stack for the whole file.
 */
const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}${delimiter}${process.env.PATH}` };
const HOOK = "https://hooks.example.com:9443/sdk";
/** examples/quickstart.ts runs its own receiver, reached through a second WEBHOOK_RESOLVE rule. */
const EXAMPLE_HOOK_HOST = "quickstart.example.com:9443";
/** The shared test machine can stall a dev stack for a minute (the cron sweeps under load): wait longer than the default. */
const PATIENT_MS = 150_000;

interface Received {
  body: string;
  header: string;
}

let stack: Stack;
let receiver: Server;
let project: string;
let examplePort: number;
const received: Received[] = [];

async function packAndInstall(): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), "sdk-consumer-"));
  try {
    const { stdout } = await run("npm", ["pack", "--pack-destination", folder, "--silent"], { cwd: join(root, "sdk"), env });
    const tarball = join(folder, stdout.trim().split("\n").at(-1)!);
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    // No dependency to fetch: the install works offline, as the SDK promises zero runtime dependencies.
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: folder, env });
    return folder;
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

/** A `node` on PATH outside the repository older than the pinned 24 (Debian's 20 on the test machines), if any. */
async function olderSystemNode(): Promise<string | null> {
  for (const folder of (process.env.PATH ?? "").split(delimiter).filter((entry) => entry && !entry.includes("node_modules"))) {
    const candidate = join(folder, "node");
    if (!existsSync(candidate)) continue;
    const { stdout } = await run(candidate, ["--version"]);
    const major = Number(/^v(\d+)/.exec(stdout)?.[1]);
    if (major >= 20 && major < 24) return candidate;
  }
  return null;
}

const waitFor = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((done) => setTimeout(done, 250));
  }
};

beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({ body: Buffer.concat(chunks).toString("utf8"), header: String(req.headers["x-signature"]) });
    res.writeHead(200).end();
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  const port = (receiver.address() as { port: number }).port;
  examplePort = await freePort();
  const resolveRules = `hooks.example.com:9443=127.0.0.1:${port},${EXAMPLE_HOOK_HOST}=127.0.0.1:${examplePort}`;
  // Both at once; whichever succeeded is kept for afterAll to stop or remove, even when the other failed.
  const [started, packed] = await Promise.allSettled([startStack({ env: { WEBHOOK_RESOLVE: resolveRules } }), packAndInstall()]);
  if (started.status === "fulfilled") stack = started.value;
  if (packed.status === "fulfilled") project = packed.value;
  for (const outcome of [started, packed]) if (outcome.status === "rejected") throw outcome.reason;
});
afterAll(async () => {
  await stack?.stop();
  receiver?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("the packed SDK in an empty project, against npm run dev", () => {
  it("compiles under tsc --strict, creates a session, pages through proofs, verifies a real delivery and refuses tampered, stale and expired-secret ones", async () => {
    const sdk = new ProofSeal({ apiKey: stack.testKey, baseUrl: stack.baseUrl, timeoutMs: PATIENT_MS });
    const endpoint = await sdk.webhookEndpoints.create({ url: HOOK, events: ["capture_session.completed", "proof.sealed", "proof.failed"] });
    // The shortest overlap: the first secret stops signing a minute from now.
    const rotated = await sdk.webhookEndpoints.rotateSecret(endpoint.id, { expires_in_seconds: 60 });
    const rotatedAt = Date.now();
    const captures = await Promise.all(
      ["a", "b"].map((side) =>
        captureOverHttp(stack, stack.testKey, { external_reference: `packed-sdk-${side}`, party: "provider" }, [{ file: "photo.jpg", type: "image/jpeg" }]),
      ),
    );
    const proofIds = captures.map(({ completed }) => completed.body.proof_id as string);
    for (const id of proofIds) expect((await waitForProof(stack, stack.testKey, id, (proof) => proof.status !== "pending", 90_000)).status).toBe("sealed");
    const sealed = () => received.find((delivery) => delivery.body.includes('"proof.sealed"') && delivery.body.includes(proofIds[0]!));
    await waitFor(() => sealed() !== undefined, 30_000);
    expect(sealed()!.header.match(/v1=/g)).toHaveLength(2);

    // While the first secret expires: the example, in one command, ends on a sealed proof's page.
    const example = await run(process.execPath, [join(root, "examples/quickstart.ts")], {
      cwd: root,
      env: { ...env, PROOFSEAL_BASE_URL: stack.baseUrl, PROOFSEAL_API_KEY: stack.testKey, HOOK_HOST: EXAMPLE_HOOK_HOST, RECEIVER_PORT: String(examplePort) },
    });
    expect(example.stdout).toContain("Events in order: capture_session.completed, proof.sealed");
    expect(example.stdout).toMatch(new RegExp(`Verification page: ${stack.baseUrl}/p/prf_\\w+\\n`));

    // Once the first secret has expired, deliveries carry the new secret's signature only.
    await new Promise((done) => setTimeout(done, Math.max(0, rotatedAt + 62_000 - Date.now())));
    const test = await sdk.webhookEndpoints.sendTestEvent(endpoint.id, { event: "proof.failed" });
    const later = () => received.find((delivery) => delivery.body.includes('"test":true'));
    await waitFor(() => later() !== undefined, 30_000);
    expect(later()!.header.match(/v1=/g)).toHaveLength(1);
    expect(test.lastResponse.status).toBe(202);

    const constants = { BASE: stack.baseUrl, KEY: stack.testKey, SEALED: sealed()!, LATER: later()!, OLD: endpoint.secret, NEW: rotated.secret };
    const script = `const { BASE, KEY, SEALED, LATER, OLD, NEW } = ${JSON.stringify(constants)};
import { ProofSeal, verifyWebhook, WebhookVerificationError, type WebhookEvent } from "@proofseal/sdk";
const client = new ProofSeal({ apiKey: KEY, baseUrl: BASE });
const session = await client.captureSessions.create({ external_reference: "packed-sdk-script", party: "recipient" });
const proofs: string[] = [];
for await (const proof of client.proofs.list({ limit: 1 })) proofs.push(proof.id);
const event: WebhookEvent = await verifyWebhook(SEALED.body, SEALED.header, [OLD, NEW]);
const reason = (check: Promise<unknown>) => check.then(() => "accepted", (error: unknown) => (error instanceof WebhookVerificationError ? error.reason : String(error)));
const refusals = [reason(verifyWebhook(SEALED.body.replace("proof.sealed", "proof.failed"), SEALED.header, NEW)), reason(verifyWebhook(SEALED.body, SEALED.header, NEW, { now: Date.now() + 301_000 })), reason(verifyWebhook(LATER.body, LATER.header, OLD)), reason(verifyWebhook(LATER.body, LATER.header, NEW))];
console.log(JSON.stringify({ mode: client.mode, session: session.id, proofs, sealed: event.event === "proof.sealed" ? event.proof_id : null, refusals: await Promise.all(refusals), rate: session.lastResponse.rateLimit }));
`;
    expect(script.trim().split("\n").length).toBeLessThanOrEqual(11);
    writeFileSync(join(project, "script.ts"), script);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [], outDir: "out", skipLibCheck: false },
        files: ["script.ts"],
      }),
    );
    await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "--strict", "-p", "."], { cwd: project, env });
    const { stdout } = await run(process.execPath, [join(project, "out/script.js")], { cwd: project, env });
    const result = JSON.parse(stdout);
    // The SDK promises Node.js 20+: the machine's own older Node.js, when there is one, runs the same script.
    const older = await olderSystemNode();
    if (older) expect(JSON.parse((await run(older, [join(project, "out/script.js")], { cwd: project })).stdout).refusals).toEqual(result.refusals);
    else console.log("!! SKIPPED: no Node.js older than 24 on PATH to run the packed SDK with");
    expect(result.mode).toBe("test");
    expect(result.session).toMatch(/^cps_/);
    expect(result.proofs).toEqual(expect.arrayContaining(proofIds));
    expect(result.sealed).toBe(proofIds[0]);
    expect(result.refusals).toEqual(["signature_mismatch", "timestamp_outside_tolerance", "signature_mismatch", "accepted"]);
    expect(result.rate).toMatchObject({ limit: 60 });
  }, 300_000);

  it("compiles the README's five-minute TypeScript against the packed SDK under tsc --strict", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Five minutes"), readme.indexOf("\n## ", readme.indexOf("## Five minutes") + 1));
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    // The snippets are one program, but for the proof id the receiver printed.
    const folder = join(project, "readme");
    mkdirSync(folder);
    writeFileSync(join(folder, "five-minutes.ts"), `declare const proofId: string;\n${blocks.join("\n")}\nexport {};\n`);
    const compilerOptions = { module: "nodenext", target: "es2022", types: ["node"], typeRoots: [join(root, "node_modules/@types")], noEmit: true };
    writeFileSync(join(folder, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["five-minutes.ts"] }));
    await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "--strict", "-p", "."], { cwd: folder, env }).catch((error) => {
      throw new Error(`README's TypeScript does not compile:\n${error.stdout}`);
    });
  }, 60_000);

  it("retries a lost answer with the same Idempotency-Key: the API replays the one session it created", async () => {
    const keys: (string | null)[] = [];
    let lost = false;
    const losingFetch: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get("idempotency-key"));
      const response = await fetch(input, init);
      if (!lost) {
        lost = true;
        await response.body?.cancel();
        throw new TypeError("fetch failed: the connection closed before the answer");
      }
      return response;
    };
    const sdk = new ProofSeal({ apiKey: stack.testKey, baseUrl: stack.baseUrl, fetch: losingFetch, timeoutMs: PATIENT_MS });
    const session = await sdk.captureSessions.create({ external_reference: `lost-answer-${Date.now()}`, party: "provider" });
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(session.lastResponse).toMatchObject({ attempts: keys.length, idempotentReplayed: true, status: 201, idempotencyKey: keys[0] });
    expect((await sdk.captureSessions.get(session.id)).status).toBe("open");
  });
});
