/**
 * The sealer: `POST /seal` (bearer SEALER_SECRET) seals one proof; `GET /health`; `GET /health/tsa` (bearer SEALER_SECRET)
 * checks the live authority with a real request at most every few minutes; `POST /tsa` is the local stand-in authority (development only,
 * when no TSA_URL is configured). See sealer/README.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { loadConfig, signingKey } from "./config.ts";
import { initC2pa } from "./c2pa/c2pa.ts";
import { ByteBudget } from "./byte-budget.ts";
import { runSealJob, TransientJobError } from "./seal-job.ts";
import { tsaHealthCheck } from "./tsa/health-check.ts";
import { TimestampUnavailableError } from "./tsa/authority.ts";
import type { SealJob } from "../../src/sealing/sealer-protocol.ts";

const MAX_JOB_BYTES = 2 * 1024 * 1024;
const config = loadConfig();
const key = signingKey(config);
const budget = new ByteBudget(config.memoryBudgetBytes);
const liveAuthorityHealth = tsaHealthCheck(config.liveAuthority);

function send(res: ServerResponse, status: number, body: unknown, type = "application/json") {
  const payload = type === "application/json" ? JSON.stringify(body) : (body as Buffer);
  res.writeHead(status, { "Content-Type": type, "Content-Length": Buffer.byteLength(payload) });
  res.end(payload);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function authorised(req: IncomingMessage): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
  const expected = Buffer.from(config.secret);
  return config.secret !== "" && given.length === expected.length && timingSafeEqual(given, expected);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? "/", "http://sealer").pathname;
  if (req.method === "GET" && path === "/health") return send(res, 200, { status: "ok" });
  if (req.method === "GET" && path === "/health/tsa") {
    // Each real check buys a timestamp from the live authority: only the Worker may ask, and it is cached.
    if (!authorised(req)) return send(res, 401, { code: "unauthenticated", message: "Bearer SEALER_SECRET required." });
    const health = await liveAuthorityHealth();
    return send(res, health.status === "ok" ? 200 : 503, health);
  }
  if (req.method === "POST" && path === "/tsa" && !process.env.TSA_URL) {
    const request = await readBody(req, 64 * 1024);
    return send(res, 200, Buffer.from(await config.liveAuthority.respond(new Uint8Array(request))), "application/timestamp-reply");
  }
  if (req.method === "POST" && path === "/seal") {
    if (!authorised(req)) return send(res, 401, { code: "unauthenticated", message: "Bearer SEALER_SECRET required." });
    const job = JSON.parse((await readBody(req, MAX_JOB_BYTES)).toString("utf8")) as SealJob;
    const authority = job.proof.mode === "live" ? config.liveAuthority : config.testAuthority;
    try {
      return send(res, 200, await runSealJob({ key, chainDer: config.c2pa.chainDer, trustAnchorPem: config.c2pa.trustAnchorPem, authority, budget }, job));
    } catch (error) {
      if (error instanceof TransientJobError || error instanceof TimestampUnavailableError) {
        return send(res, 503, { code: "sealing_unavailable", message: error.message });
      }
      throw error;
    }
  }
  send(res, 404, { code: "not_found" });
}

initC2pa();
const server = createServer((req, res) => {
  handle(req, res).catch((error: Error) => {
    console.error(JSON.stringify({ level: "error", message: error.message, stack: error.stack }));
    if (!res.headersSent) send(res, 500, { code: "internal_error", message: "The sealer failed unexpectedly." });
  });
});
server.listen(config.port, process.env.SEALER_HOST ?? "127.0.0.1", () => console.log(`sealer listening on http://127.0.0.1:${config.port}`));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.close(() => process.exit(0)));
