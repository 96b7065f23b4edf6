import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { App } from "../../app.ts";
import type { HonoEnv } from "../../env.ts";
import { ApiError } from "../../errors/api-error.ts";
import { usableSession, usableSessionFile, findSessionByToken } from "../../capture-page/access.ts";
import { captureSessionView } from "../../capture-page/session-view.ts";
import { declareFile, uploadInstructions } from "../../capture-page/declare-file.ts";
import { completeCapture } from "../../capture-sessions/complete-capture.ts";
import { publishEvents } from "../../events/publish.ts";
import { removeCaptureFile } from "../../capture-page/remove-file.ts";
import { completeMultipart } from "../../capture-page/complete-multipart.ts";
import { resolveSessionTheme } from "../../capture-page/session-theme.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import {
  CaptureSessionViewSchema,
  CompleteBody,
  CompletedCaptureSchema,
  CompletedFileSchema,
  CompleteFileBody,
  DeclaredFileSchema,
  DeclareFileBody,
  FileParams,
  ReissuedUploadSchema,
  TokenParams,
} from "./schema.ts";
import { capturePageResponse } from "./page.ts";

// The capture page's JSON routes (capture host, authorised by the token in the path), documented in their
// own document, /openapi-capture.json (docs/capture-page-protocol.md): integrators never call them.
const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });
const answer = <T extends z.ZodType>(en: string, fr: string, schema: T) => ({ description: t(en, fr), content: { "application/json": { schema } } });
const LINK_ERRORS = ["capture_link_not_found", "capture_link_used", "capture_link_expired"] as const;
const tags = ["Capture page"];

const sessionRoute = publicRoute(LINK_ERRORS, {
  method: "get", path: "/c/{token}/session", operationId: "getCapturePageSession", tags,
  summary: t("Read the capture session", "Lire la session de capture"),
  description: t("The session as the page shows it: texts in its language, steps, theme, files declared so far.", "La session telle que la page l'affiche : textes dans sa langue, étapes, thème, fichiers déjà déclarés."),
  request: { params: TokenParams },
  responses: { 200: answer("The session.", "La session.", CaptureSessionViewSchema) },
});
const declareRoute = publicRoute([...LINK_ERRORS, "step_not_found", "content_type_not_allowed", "file_too_large", "too_many_files"], {
  method: "post", path: "/c/{token}/files", operationId: "declareCaptureFile", tags,
  summary: t("Declare a shot", "Déclarer une prise"),
  description: t(
    "Declares one shot before its upload and answers with signed URLs that write exactly these bytes (several parts above 32 MiB).",
    "Déclare une prise avant son envoi et répond par des URL signées qui écrivent exactement ces octets (plusieurs parties au-delà de 32 Mio).",
  ),
  request: { params: TokenParams, body: json(DeclareFileBody) },
  responses: { 201: answer("Declared.", "Déclarée.", DeclaredFileSchema) },
});
const reissueRoute = publicRoute([...LINK_ERRORS, "capture_file_not_found"], {
  method: "post", path: "/c/{token}/files/{fileId}/upload", operationId: "reissueCaptureUpload", tags,
  summary: t("Renew a file's upload URLs", "Renouveler les URL d'envoi d'un fichier"),
  description: t("New signed URLs for a declared file whose URLs expired, with the parts storage already holds.", "De nouvelles URL signées pour un fichier déclaré dont les URL ont expiré, avec les parties déjà stockées."),
  request: { params: FileParams },
  responses: { 200: answer("New URLs.", "Nouvelles URL.", ReissuedUploadSchema) },
});
const completeFileRoute = publicRoute([...LINK_ERRORS, "capture_file_not_found", "upload_incomplete", "upload_size_mismatch", "upload_checksum_mismatch"], {
  method: "post", path: "/c/{token}/files/{fileId}/complete", operationId: "completeCaptureFile", tags,
  summary: t("Assemble a multipart upload", "Assembler un envoi en plusieurs parties"),
  description: t(
    "Assembles the parts from the ETags the phone reports, then checks the whole file's size and SHA-256.",
    "Assemble les parties à partir des ETag indiqués par le téléphone, puis vérifie la taille et le SHA-256 du fichier entier.",
  ),
  request: { params: FileParams, body: { content: { "application/json": { schema: CompleteFileBody } }, required: false } },
  responses: { 200: answer("Assembled.", "Assemblé.", CompletedFileSchema) },
});
const deleteRoute = publicRoute([...LINK_ERRORS, "capture_file_not_found"], {
  method: "delete", path: "/c/{token}/files/{fileId}", operationId: "removeCaptureFile", tags,
  summary: t("Remove a declared file", "Retirer un fichier déclaré"),
  description: t("The shot was deleted or retaken: its bytes go and its upload URLs write nothing more.", "La prise a été supprimée ou refaite : ses octets disparaissent et ses URL d'envoi n'écrivent plus rien."),
  request: { params: FileParams },
  responses: { 204: { description: t("Removed.", "Retiré.") } },
});
const completeRoute = publicRoute([...LINK_ERRORS, "compare_to_already_used", "missing_required_steps", "upload_incomplete"], {
  method: "post", path: "/c/{token}/complete", operationId: "completeCapture", tags,
  summary: t("Finish the capture", "Terminer la capture"),
  description: t("Finishes the capture and starts sealing; completing again gives the same answer.", "Termine la capture et lance le scellement ; terminer de nouveau donne la même réponse."),
  request: { params: TokenParams, body: json(CompleteBody) },
  responses: { 200: answer("Completed.", "Terminée.", CompletedCaptureSchema) },
});

function noStore(c: Context<HonoEnv>) {
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "no-referrer");
}

export function registerCaptureRoutes(app: App) {
  app.get("/c/:token", (c) => capturePageResponse(c, c.req.param("token")));

  app.openapi(sessionRoute, async (c) => {
    noStore(c);
    const now = new Date();
    const db = c.var.db;
    const { token } = c.req.valid("param");
    const session = await usableSession(db, token, now);
    return c.json(await captureSessionView(db, session, c.env.CAPTURE_BASE_URL, token, now), 200);
  });

  app.get("/c/:token/logo", async (c) => {
    const db = c.var.db;
    // The logo lives as long as the link: a used or expired link answers 410 like the page.
    const session = await usableSession(db, c.req.param("token"), new Date());
    const theme = await resolveSessionTheme(db, session);
    const logo = theme?.logoKey ? await c.env.FILES.get(theme.logoKey) : null;
    if (logo === null) throw new ApiError("not_found");
    c.header("Content-Type", theme?.logoContentType ?? "application/octet-stream");
    c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "private, max-age=300");
    return c.body(logo.body, 200);
  });

  app.openapi(declareRoute, async (c) => {
    noStore(c);
    const now = new Date();
    const db = c.var.db;
    const session = await usableSession(db, c.req.valid("param").token, now);
    return c.json(await declareFile(c.env, db, session, c.req.valid("param").token, c.req.valid("json"), now), 201);
  });

  app.openapi(reissueRoute, async (c) => {
    noStore(c);
    const db = c.var.db;
    const { token, fileId } = c.req.valid("param");
    const { file } = await usableSessionFile(db, token, fileId, new Date());
    const uploadedParts =
      file.multipartUploadId === null ? ((await c.env.FILES.head(file.originalKey)) !== null ? [1] : []) : (file.uploadedParts ?? []).map((part) => part.part_number).sort((a, b) => a - b);
    return c.json({ file_id: file.id, upload: await uploadInstructions(c.env, file, c.env.CAPTURE_BASE_URL, token), uploaded_parts: uploadedParts }, 200);
  });

  app.openapi(completeFileRoute, async (c) => {
    noStore(c);
    const db = c.var.db;
    const { token, fileId } = c.req.valid("param");
    const { file } = await usableSessionFile(db, token, fileId, new Date());
    const body = (c.req.header("Content-Type") ?? "").includes("json") ? c.req.valid("json") : {};
    await completeMultipart(c.env, db, file, body.parts ?? []);
    return c.json({ file_id: file.id, status: "uploaded" }, 200);
  });

  app.openapi(deleteRoute, async (c) => {
    noStore(c);
    const db = c.var.db;
    const { token, fileId } = c.req.valid("param");
    const { file } = await usableSessionFile(db, token, fileId, new Date());
    await removeCaptureFile(c.env, db, file);
    return c.body(null, 204);
  });

  app.openapi(completeRoute, async (c) => {
    noStore(c);
    const now = new Date();
    const db = c.var.db;
    const { token } = c.req.valid("param");
    const found = await findSessionByToken(db, token);
    // A completed capture answers again with the same result (a retried tap); everything else must be usable.
    const session = found?.status === "completed" ? found : await usableSession(db, token, now);
    const result = await completeCapture(
      {
        env: c.env,
        db,
        now,
        claimBefore: async (beforeId, sessionId) => (await c.env.PROOF_LINK_LOCK.get(c.env.PROOF_LINK_LOCK.idFromName(beforeId)).claim(sessionId)).won,
        releaseBefore: async (beforeId, sessionId) => {
          await c.env.PROOF_LINK_LOCK.get(c.env.PROOF_LINK_LOCK.idFromName(beforeId)).release(sessionId);
        },
        enqueueSealing: async (proofId) => {
          await c.env.SEALING_QUEUE.send({ proof_id: proofId });
        },
        publishEvents: (eventIds) => publishEvents(c.env, eventIds),
      },
      session,
    );
    return c.json(result, 200);
  });
}
