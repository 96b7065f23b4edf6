import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { App } from "../../app.ts";
import type { HonoEnv } from "../../env.ts";
import { database } from "../../db/client.ts";
import { ApiError } from "../../errors/api-error.ts";
import { usableSession, usableSessionFile, findSessionByToken } from "../../capture-page/access.ts";
import { captureSessionView } from "../../capture-page/session-view.ts";
import { declareFile, uploadInstructions } from "../../capture-page/declare-file.ts";
import { completeCapture } from "../../capture-sessions/complete-capture.ts";
import { publishEvents } from "../../webhooks/delivery.ts";
import { removeCaptureFile } from "../../capture-page/remove-file.ts";
import { completeMultipart } from "../../capture-page/complete-multipart.ts";
import { findDefaultTheme, findTheme } from "../../storage/capture-themes.ts";
import type { TemplateSnapshot } from "../../capture-templates/snapshot.ts";
import { CompleteBody, CompleteFileBody, DeclareFileBody, FileParams, TokenParams } from "./schema.ts";
import { capturePageResponse } from "./page.ts";

// The capture page's JSON routes (capture host, authorised by the token in the path). Their shapes are
// ours (CONTRACT.md, docs/capture-page-protocol.md); they are not part of the public API document.
const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });
const ok = { description: "OK" };

const sessionRoute = createRoute({ method: "get", path: "/c/{token}/session", hide: true, request: { params: TokenParams }, responses: { 200: ok } });
const declareRoute = createRoute({ method: "post", path: "/c/{token}/files", hide: true, request: { params: TokenParams, body: json(DeclareFileBody) }, responses: { 201: ok } });
const reissueRoute = createRoute({ method: "post", path: "/c/{token}/files/{fileId}/upload", hide: true, request: { params: FileParams }, responses: { 200: ok } });
const completeFileRoute = createRoute({
  method: "post",
  path: "/c/{token}/files/{fileId}/complete",
  hide: true,
  request: { params: FileParams, body: { content: { "application/json": { schema: CompleteFileBody } }, required: false } },
  responses: { 200: ok },
});
const deleteRoute = createRoute({ method: "delete", path: "/c/{token}/files/{fileId}", hide: true, request: { params: FileParams }, responses: { 204: ok } });
const completeRoute = createRoute({ method: "post", path: "/c/{token}/complete", hide: true, request: { params: TokenParams, body: json(CompleteBody) }, responses: { 200: ok } });

function noStore(c: Context<HonoEnv>) {
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "no-referrer");
}

export function registerCaptureRoutes(app: App) {
  app.get("/c/:token", (c) => capturePageResponse(c, c.req.param("token")));

  app.openapi(sessionRoute, async (c) => {
    noStore(c);
    const now = new Date();
    const db = database(c.env.DB);
    const { token } = c.req.valid("param");
    const session = await usableSession(db, token, now);
    return c.json(await captureSessionView(db, session, c.env.CAPTURE_BASE_URL, token, now), 200);
  });

  app.get("/c/:token/logo", async (c) => {
    const db = database(c.env.DB);
    // The logo lives as long as the link: a used or expired link answers 410 like the page.
    const session = await usableSession(db, c.req.param("token"), new Date());
    const template = JSON.parse(session.templateSnapshot) as TemplateSnapshot;
    const theme = (template.theme_id ? await findTheme(db, session.organizationId, template.theme_id) : null) ?? (await findDefaultTheme(db, session.organizationId));
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
    const db = database(c.env.DB);
    const session = await usableSession(db, c.req.valid("param").token, now);
    return c.json(await declareFile(c.env, db, session, c.req.valid("param").token, c.req.valid("json"), now), 201);
  });

  app.openapi(reissueRoute, async (c) => {
    noStore(c);
    const db = database(c.env.DB);
    const { token, fileId } = c.req.valid("param");
    const { file } = await usableSessionFile(db, token, fileId, new Date());
    const uploadedParts =
      file.multipartUploadId === null ? ((await c.env.FILES.head(file.originalKey)) !== null ? [1] : []) : (file.uploadedParts ?? []).map((part) => part.part_number).sort((a, b) => a - b);
    return c.json({ file_id: file.id, upload: await uploadInstructions(c.env, file, c.env.CAPTURE_BASE_URL, token), uploaded_parts: uploadedParts }, 200);
  });

  app.openapi(completeFileRoute, async (c) => {
    noStore(c);
    const db = database(c.env.DB);
    const { token, fileId } = c.req.valid("param");
    const { file } = await usableSessionFile(db, token, fileId, new Date());
    const body = (c.req.header("Content-Type") ?? "").includes("json") ? c.req.valid("json") : {};
    await completeMultipart(c.env, db, file, body.parts ?? []);
    return c.json({ file_id: file.id, status: "uploaded" }, 200);
  });

  app.openapi(deleteRoute, async (c) => {
    noStore(c);
    const db = database(c.env.DB);
    const { token, fileId } = c.req.valid("param");
    const { file } = await usableSessionFile(db, token, fileId, new Date());
    await removeCaptureFile(c.env, db, file);
    return c.body(null, 204);
  });

  app.openapi(completeRoute, async (c) => {
    noStore(c);
    const now = new Date();
    const db = database(c.env.DB);
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
