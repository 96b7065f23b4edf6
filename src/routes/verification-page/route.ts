import type { App } from "../../app.ts";
import { ApiError } from "../../errors/api-error.ts";
import { publicProof } from "../../verification/public-proof.ts";
import { findSessionById } from "../../storage/capture-sessions.ts";
import { findOrganization } from "../../storage/organizations.ts";
import { findProofById, observedProofFiles } from "../../storage/proofs-read.ts";
import { findProofReport } from "../../storage/proof-reports.ts";
import { pageLanguage } from "../../verification/page/messages.ts";
import { renderProofNotFoundPage, renderVerificationPage } from "../../verification/page/render.ts";
import { pageSteps } from "../../verification/page/step-labels.ts";

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `GET /p/{id}`: the proof's `verification_url`, for people (the JSON twin is /v1/public/proofs/{id}). */
export function registerVerificationPage(app: App) {
  app.get("/p/:id", async (c) => {
    const db = c.var.db;
    const load = async (id: string) => {
      const proof = await findProofById(db, id);
      if (proof === null) return null;
      // A sealed record that cannot give the files is presented as observed: no file, and the failing check saying why.
      return { row: proof, page: await publicProof(c.env, proof, (await observedProofFiles(db, c.env, [proof])).get(proof.id) ?? []) };
    };
    const lang = pageLanguage(c.req.query("lang"), c.req.header("Accept-Language"));
    c.header("Content-Security-Policy", PAGE_CSP);
    c.header("X-Robots-Tag", "noindex");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Content-Language", lang);
    c.header("Vary", "Accept, Accept-Language");
    const loaded = await load(c.req.param("id"));
    if (loaded === null) {
      // A browser gets a page in its reader's language; a program gets the problem format.
      if (!(c.req.header("Accept") ?? "").includes("text/html")) throw new ApiError("proof_not_found");
      c.header("Cache-Control", "no-store");
      return c.html(renderProofNotFoundPage(lang), 404);
    }
    const proof = loaded.page;
    const partnerId = proof.compare_to ?? proof.compared_by;
    const partner = partnerId ? ((await load(partnerId))?.page ?? null) : null;
    // An "after" inherits its before's template, so one snapshot labels the steps of both.
    const session = await findSessionById(db, loaded.row.sessionId);
    const stepIds = [...proof.files, ...(partner?.files ?? [])].map((file) => file.step_id);
    const steps = pageSteps(session?.templateSnapshot ?? null, lang, stepIds);
    // The page names who asked for the proof (issue 13); the public JSON still says nothing of the organization.
    const organization = await findOrganization(db, loaded.row.organizationId);
    // One minute, the sweeps' interval: the verdict turns at the next re-hash of an altered object (docs/adr/0037).
    c.header("Cache-Control", proof.status === "sealed" ? "public, max-age=60" : "no-store");
    // The PDF reports are linked once made (their routes answer report_not_ready until then); a pair's is kept with its after.
    const pairHolder = proof.compare_to ? proof.id : partner?.compare_to ? partner.id : null;
    const [ownReport, pairReport] = await Promise.all([findProofReport(db, proof.id, "proof"), pairHolder ? findProofReport(db, pairHolder, "pair") : null]);
    const reports = { proof: ownReport !== null, pair: pairReport !== null };
    return c.html(renderVerificationPage(proof, partner, steps, lang, organization?.name ?? null, reports));
  });
}
