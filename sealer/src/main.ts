/**
 * The sealer: `POST /seal` (bearer SEALER_SECRET) seals one proof; `POST /archive-timestamp` (same bearer) timestamps
 * the root of the evidence-record renewal's hash tree (docs/adr/0022); `POST /report` (same bearer) makes a proof's sealed PDF report
 * (docs/adr/0044); `GET /health`; `GET /health/tsa` (bearer SEALER_SECRET)
 * checks the live authority with a real request at most every few minutes; `POST /tsa` is the local stand-in authority (development only,
 * when no TSA_URL is configured). See sealer/README.md.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { loadConfig, signingKey } from "./config.ts";
import { initC2pa } from "./c2pa/c2pa.ts";
import { signingPool } from "./c2pa/signing-pool.ts";
import { warmOpenssl } from "./tsa/confirm-with-openssl.ts";
import { ByteBudget } from "./byte-budget.ts";
import { serveSealJob } from "./seal-endpoint.ts";
import { serveArchiveTimestamp } from "./archive-timestamp-endpoint.ts";
import { serveReportJob } from "./report/report-endpoint.ts";
import { readBody, send } from "./http.ts";
import { sealerError } from "../../shared/sealer-protocol.ts";
import { tsaHealthCheck } from "./tsa/health-check.ts";
import { videoDecoderAvailable } from "./provenance/video-frames.ts";

const config = loadConfig();
const keys = { live: signingKey(config.c2pa.live), test: signingKey(config.c2pa.test) };
const budget = new ByteBudget(config.memoryBudgetBytes);
const liveAuthorityHealth = tsaHealthCheck(config.liveAuthority);

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
    if (!authorised(req)) return send(res, 401, sealerError("unauthenticated", "Bearer SEALER_SECRET required."));
    const health = await liveAuthorityHealth();
    return send(res, health.status === "ok" ? 200 : 503, health);
  }
  if (req.method === "POST" && path === "/tsa" && !process.env.TSA_URL) {
    const request = await readBody(req, 64 * 1024);
    return send(res, 200, Buffer.from(await config.liveAuthority.respond(new Uint8Array(request))), "application/timestamp-reply");
  }
  if (req.method === "POST" && path === "/seal") {
    if (!authorised(req)) return send(res, 401, sealerError("unauthenticated", "Bearer SEALER_SECRET required."));
    return serveSealJob(req, res, (mode) => ({
      key: keys[mode],
      chainDer: config.c2pa[mode].chainDer,
      trustAnchorPem: config.c2pa[mode].trustAnchorPem,
      seal: config.seal[mode],
      authority: mode === "live" ? config.liveAuthority : config.testAuthority,
      signatureAuthority: mode === "live" ? config.liveSignatureAuthority : config.testAuthority,
      budget,
      crls: config.crls,
    }));
  }
  if (req.method === "POST" && path === "/report") {
    if (!authorised(req)) return send(res, 401, sealerError("unauthenticated", "Bearer SEALER_SECRET required."));
    // The report is sealed by the proof's own identity and authority, as its manifest was (docs/adr/0044).
    return serveReportJob(req, res, (mode) => ({
      seal: config.seal[mode],
      trustAnchorPem: config.c2pa[mode].trustAnchorPem,
      authority: mode === "live" ? config.liveAuthority : config.testAuthority,
      crls: config.crls,
    }));
  }
  if (req.method === "POST" && path === "/archive-timestamp") {
    if (!authorised(req)) return send(res, 401, sealerError("unauthenticated", "Bearer SEALER_SECRET required."));
    return serveArchiveTimestamp(req, res, (mode) => (mode === "live" ? config.liveAuthority : config.testAuthority));
  }
  send(res, 404, sealerError("not_found", `No ${req.method} ${path} here.`));
}

initC2pa();
signingPool().warm();
warmOpenssl();
videoDecoderAvailable().then((available) => {
  if (!available) console.warn(JSON.stringify({ level: "warn", message: "ffmpeg not found: videos are sealed without frame fingerprints (docs/adr/0059)" }));
});
const server = createServer((req, res) => {
  handle(req, res).catch((error: Error) => {
    console.error(JSON.stringify({ level: "error", message: error.message, stack: error.stack }));
    if (!res.headersSent) send(res, 500, sealerError("internal_error", "The sealer failed unexpectedly."));
  });
});
server.listen(config.port, process.env.SEALER_HOST ?? "127.0.0.1", () => console.log(`sealer listening on http://127.0.0.1:${config.port}`));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.close(() => process.exit(0)));
