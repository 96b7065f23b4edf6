import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { database } from "../../src/db/client.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import { makeProofReport, type ReportDependencies } from "../../src/reports/make-report.ts";
import { missingReports } from "../../src/storage/proof-reports.ts";
import { makeMissingReports } from "../../src/sweeps/make-missing-reports.ts";
import { rehashSealedObjects } from "../../src/sweeps/rehash-sealed-objects.ts";
import { consumeReportMessages } from "../../src/reports/report-queue.ts";
import { sealedRecordKey } from "../../src/storage/objects/bucket.ts";
import { workerContext } from "../../src/domain/context.ts";
import { RESERVED_EVENTS } from "../../src/events/catalogue.ts";
import type { ReportJob } from "../../shared/report-protocol.ts";
import { call, callJson } from "./support/client.ts";
import { createOrganization } from "./support/factories.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer } from "./support/sealing.ts";
import { sealedWithBoundRecord } from "./support/sealed-fixture.ts";

/** A sealed proof, the sealer stood in (sealedAnswer); `compareTo` makes it the after of that before. */
async function sealed(organizationId: string, mode: "test" | "live", compareTo?: string) {
  const proof = await insertPendingProof(organizationId, mode);
  if (compareTo !== undefined) {
    await env.DB.prepare("UPDATE proofs SET compare_to = ? WHERE id = ?").bind(compareTo, proof.proofId).run();
    await env.DB.prepare("UPDATE proofs SET compared_by = ? WHERE id = ?").bind(proof.proofId, compareTo).run();
  }
  const { deps } = dependencies(async (job) => sealedAnswer(job));
  expect(await sealProof(deps, proof.proofId)).toBe("sealed");
  return proof;
}

/** Report making with the sealer stood in: each PDF names its job's kind and proofs, so a test can tell them apart. */
function reportDeps(): ReportDependencies & { makePdf: ReturnType<typeof vi.fn<(job: ReportJob) => Promise<Uint8Array>>> } {
  return {
    env,
    db: database(env.DB),
    pictureUrl: async (key) => ({ url: `https://storage.test/${key}` }),
    makePdf: vi.fn(async (job: ReportJob) =>
      new TextEncoder().encode(`%PDF-1.7 ${job.kind} ${job.proofs.map((proof) => proof.id).join(" ")} ${crypto.randomUUID()}`),
    ),
  };
}

const reportPath = (proofId: string, name = "report.pdf") => `/v1/public/proofs/${proofId}/${name}`;

describe("the PDF reports: made once after sealing, served by the public routes", () => {
  it("answers report_not_ready until the report is made, then the stored PDF, immutable under its hash", async () => {
    const org = await createOrganization();
    const { proofId } = await sealed(org.id, "test");
    const before = await callJson(reportPath(proofId));
    expect(before.status).toBe(404);
    expect(before.body.code).toBe("report_not_ready");
    expect(before.headers.get("Cache-Control")).toBe("no-store");

    const deps = reportDeps();
    expect(await makeProofReport(deps, proofId, "proof")).toBe("made");
    const job = deps.makePdf.mock.calls[0]![0];
    expect(job).toMatchObject({ kind: "proof", language: "en", proofs: [{ id: proofId, side: "single", mode: "test" }] });
    expect(job.report_url).toBe(`${env.API_BASE_URL.replace(/\/$/, "")}${reportPath(proofId)}`);
    // A test proof proves nothing: the claims and the verdict say so, in the page's words.
    expect(job.proofs[0]!.claims.proven).toEqual([]);
    expect(job.proofs[0]!.claims.not_proven[0]).toMatch(/test proof/);

    const served = await call(reportPath(proofId));
    expect(served.status).toBe(200);
    expect(served.headers.get("Content-Type")).toBe("application/pdf");
    expect(served.headers.get("Proof-Mode")).toBe("test");
    expect(served.headers.get("Cache-Control")).toContain("immutable");
    const bytes = new TextDecoder().decode(await served.arrayBuffer());
    expect(bytes).toMatch(new RegExp(`^%PDF-1.7 proof ${proofId} `));
    const etag = served.headers.get("ETag")!;
    const again = await call(reportPath(proofId), { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    await again.arrayBuffer();
    // RFC 9110 13.1.2: `*` matches any current answer, and If-None-Match compares weakly.
    for (const condition of ["*", `W/${etag}`, `"other", ${etag}`]) {
      const conditional = await call(reportPath(proofId), { headers: { "If-None-Match": condition } });
      expect(conditional.status, condition).toBe(304);
      await conditional.arrayBuffer();
    }
    const stale = await call(reportPath(proofId), { headers: { "If-None-Match": '"report-other"' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();

    // Made once: a second run asks the sealer nothing and the served bytes never change.
    expect(await makeProofReport(deps, proofId, "proof")).toBe("already_made");
    expect(deps.makePdf).toHaveBeenCalledTimes(1);
    expect(new TextDecoder().decode(await (await call(reportPath(proofId))).arrayBuffer())).toBe(bytes);
  });

  it("two runs at once keep one report, and the other run's PDF is deleted", async () => {
    const org = await createOrganization();
    const { proofId } = await sealed(org.id, "live");
    const outcomes = await Promise.all([makeProofReport(reportDeps(), proofId, "proof"), makeProofReport(reportDeps(), proofId, "proof")]);
    expect(outcomes.sort()).toEqual(["already_made", "made"]);
    const rows = await env.DB.prepare("SELECT object_key FROM proof_reports WHERE proof_id = ?").bind(proofId).all<{ object_key: string }>();
    expect(rows.results).toHaveLength(1);
    const stored = await env.FILES.list({ prefix: `proofs/${proofId}/reports/` });
    expect(stored.objects.map((object) => object.key)).toEqual([rows.results[0]!.object_key]);
  });

  it("a pair's report, asked through either proof, waits for the after's seal and sets the before first", async () => {
    const org = await createOrganization();
    const before = await sealed(org.id, "test");
    const deps = reportDeps();
    // No after yet: nothing to make, nothing to serve.
    expect(await makeProofReport(deps, before.proofId, "pair")).toBe("not_ready");
    const early = await callJson(reportPath(before.proofId, "pair-report.pdf"));
    expect([early.status, early.body.code]).toEqual([404, "report_not_ready"]);

    const after = await sealed(org.id, "test", before.proofId);
    expect(await makeProofReport(deps, before.proofId, "pair")).toBe("made");
    const job = deps.makePdf.mock.calls.at(-1)![0];
    expect(job.kind).toBe("pair");
    expect(job.proofs.map((proof) => [proof.id, proof.side])).toEqual([
      [before.proofId, "before"],
      [after.proofId, "after"],
    ]);
    // Kept with the after: the same PDF from either proof's route; asked again through the after, nothing more is made.
    const pdfText = async (path: string) => new TextDecoder().decode(await (await call(path)).arrayBuffer());
    const fromBefore = await pdfText(reportPath(before.proofId, "pair-report.pdf"));
    const fromAfter = await pdfText(reportPath(after.proofId, "pair-report.pdf"));
    expect(fromBefore).toBe(fromAfter);
    expect(fromAfter).toMatch(new RegExp(`^%PDF-1.7 pair ${before.proofId} ${after.proofId} `));
    expect(await makeProofReport(deps, after.proofId, "pair")).toBe("already_made");
  });

  it("answers proof_not_found for an unknown proof on both routes", async () => {
    for (const name of ["report.pdf", "pair-report.pdf"]) {
      const missing = await callJson(reportPath("prf_unknown", name));
      expect([missing.status, missing.body.code]).toEqual([404, "proof_not_found"]);
    }
  });

  it("lists for the sweep the reports sealed proofs still lack once the queue had its chance", async () => {
    const org = await createOrganization();
    const before = await sealed(org.id, "live");
    const after = await sealed(org.id, "live", before.proofId);
    const later = new Date(Date.now() + 60_000).toISOString();
    const missing = (await missingReports(env.DB, later, 1000)).filter((report) => [before.proofId, after.proofId].includes(report.proofId));
    expect(missing).toEqual(
      expect.arrayContaining([
        { proofId: before.proofId, kind: "proof" },
        { proofId: after.proofId, kind: "proof" },
        { proofId: after.proofId, kind: "pair" },
      ]),
    );
    expect(missing).toHaveLength(3);
    // Not before the grace the queue's own message has.
    const earlier = new Date(Date.now() - 60 * 60_000).toISOString();
    expect((await missingReports(env.DB, earlier, 1000)).some((report) => report.proofId === after.proofId)).toBe(false);
    await makeProofReport(reportDeps(), after.proofId, "pair");
    const left = await missingReports(env.DB, later, 1000);
    expect(left.some((report) => report.proofId === after.proofId && report.kind === "pair")).toBe(false);
  });

  it("the sweep makes a report the queue did not, once its grace has passed, and only then", async () => {
    const org = await createOrganization();
    const { proofId } = await sealed(org.id, "test");
    const deps = reportDeps();
    const worker = workerContext(env);
    // Within the queue's grace the sweep leaves it alone.
    await makeMissingReports(worker, new Date(), deps);
    expect(deps.makePdf).not.toHaveBeenCalled();
    // Later, it is made (the sweep takes the longest missing first, a few a run: other files' proofs may come first).
    const later = new Date(Date.now() + 11 * 60_000);
    const made = async () => (await env.DB.prepare("SELECT 1 FROM proof_reports WHERE proof_id = ?").bind(proofId).first()) !== null;
    for (let run = 0; run < 20 && !(await made()); run++) await makeMissingReports(worker, later, deps);
    const served = await call(reportPath(proofId));
    expect(served.status).toBe(200);
    await served.arrayBuffer();
  });

  it("dossier.ready stays reserved: accepted in a subscription, never recorded when reports are made (ADR 0045)", async () => {
    expect(RESERVED_EVENTS).toContain("dossier.ready");
    const org = await createOrganization();
    const subscribed = await callJson("/v1/webhook-endpoints", {
      key: org.testKey,
      body: { url: "https://hooks.example.com/reports", events: ["proof.sealed", "dossier.ready"] },
    });
    expect(subscribed.status).toBe(201);
    const before = await sealed(org.id, "test");
    const after = await sealed(org.id, "test", before.proofId);
    const deps = reportDeps();
    for (const [id, kind] of [
      [before.proofId, "proof"],
      [after.proofId, "proof"],
      [after.proofId, "pair"],
    ] as const)
      expect(await makeProofReport(deps, id, kind)).toBe("made");
    const recorded = await env.DB.prepare("SELECT type FROM events WHERE organization_id = ?").bind(org.id).all<{ type: string }>();
    expect(recorded.results.map((event) => event.type)).not.toContain("dossier.ready");
    expect(recorded.results.map((event) => event.type)).toContain("proof.sealed");
  });
});

/**
 * Forger session 7's K: a proof whose sealed record is lost threw SealedRecordUnavailable from the report job, retried
 * by the queue and by every run of the sweep, whose few reports a run the oldest such proofs then held up for good.
 */
describe("the report of a proof whose sealed record cannot be read (ADR 0068)", () => {
  afterEach(() => vi.restoreAllMocks());

  let clock = Date.now();
  /** Runs the shard's re-hash until its round ends: every sealed proof's record read once. */
  async function wholeRehashRound() {
    for (let run = 0; run < 20; run++) {
      clock += 60_000;
      if ((await rehashSealedObjects(workerContext(env), new Date(clock), { objects: 10_000, bytes: 1 << 30, proofs: 1_000 })).roundEnded) return;
    }
    throw new Error("the re-hash round did not end in 20 runs");
  }

  async function lostRecord() {
    const { proofId, run } = await sealedWithBoundRecord();
    const key = sealedRecordKey(proofId, run);
    const bytes = await (await env.FILES.get(key))!.arrayBuffer();
    await env.FILES.delete(key);
    return { proofId, restore: () => env.FILES.put(key, bytes) };
  }

  it("is not made, said on the log, the queue's message acknowledged; the sweep leaves it while the re-hash's finding is open", async () => {
    const lost = await lostRecord();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    // The re-hash's alert lines of the findings.
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const deps = reportDeps();
    expect(await makeProofReport(deps, lost.proofId, "proof")).toBe("record_unavailable");
    expect(deps.makePdf).not.toHaveBeenCalled();
    const lines = warn.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines).toContainEqual(
      expect.objectContaining({ message: "report_not_made", proof_id: lost.proofId, report: "proof", reason: "sealed_record_missing" }),
    );
    const message = { body: { report: "proof", proof_id: lost.proofId }, attempts: 1, ack: vi.fn(), retry: vi.fn() };
    await consumeReportMessages([message as unknown as Message<unknown>], deps);
    expect(message.ack).toHaveBeenCalledOnce();
    expect(message.retry).not.toHaveBeenCalled();
    const later = new Date(Date.now() + 11 * 60_000).toISOString();
    const listed = async () => (await missingReports(env.DB, later, 1000)).some((report) => report.proofId === lost.proofId);
    expect(await listed()).toBe(true);
    await wholeRehashRound();
    expect(await listed()).toBe(false);
    // Restored: the re-hash reads it again, the sweep lists it, and the report is made.
    await lost.restore();
    await wholeRehashRound();
    expect(await listed()).toBe(true);
    expect(await makeProofReport(deps, lost.proofId, "proof")).toBe("made");
  });

  it("the oldest proofs with a lost record never hold up the sweep's other reports", async () => {
    const lost = [await lostRecord(), await lostRecord(), await lostRecord()];
    const org = await createOrganization();
    const { proofId } = await sealed(org.id, "test");
    // The longest missing: the three lost ones first, before the re-hash has found them.
    for (const [index, id] of [...lost.map((proof) => proof.proofId), proofId].entries())
      await env.DB.prepare("UPDATE proofs SET sealed_at = ? WHERE id = ?")
        .bind(`2020-01-0${index + 1}T00:00:00.000Z`, id)
        .run();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const deps = reportDeps();
    expect(await makeMissingReports(workerContext(env), new Date(Date.now() + 11 * 60_000), deps)).toBeGreaterThanOrEqual(1);
    expect(await env.DB.prepare("SELECT 1 FROM proof_reports WHERE proof_id = ?").bind(proofId).first()).not.toBeNull();
  });
});
