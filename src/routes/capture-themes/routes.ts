import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { database } from "../../db/client.ts";
import { ApiError } from "../../errors/api-error.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { PageQuerySchema, pageSchema, toPage } from "../../lib/pagination.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { MAX_LOGO_BYTES, sniffLogo } from "../../capture-themes/logo.ts";
import { activeTemplateUsesTheme } from "../../storage/capture-templates.ts";
import { findTheme, insertTheme, listThemes, makeDefaultTheme, themeLogoKey, updateTheme } from "../../storage/capture-themes.ts";
import { CaptureThemeSchema, CreateThemeBody, ThemeIdParams, UpdateThemeBody } from "./schema.ts";

const tags = ["Capture themes"];
const themeResponse = (description: string) => ({ description, content: { "application/json": { schema: CaptureThemeSchema } } });

const create = apiRoute(
  { right: "manage_templates", cost: "write", errors: [] },
  {
    method: "post",
    path: "/v1/capture-themes",
    operationId: "createCaptureTheme",
    tags,
    summary: t("Create a capture theme", "Créer un thème de capture"),
    description: t(
      "Creates a theme (shared by test and live). The organization's first theme becomes the default.",
      "Crée un thème (partagé entre test et live). Le premier thème de l'organisation devient le thème par défaut.",
    ),
    request: { body: { content: { "application/json": { schema: CreateThemeBody } }, required: true } },
    responses: { 201: themeResponse(t("The theme.", "Le thème.")) },
  },
);

const list = apiRoute(
  { right: "manage_templates", cost: "read", errors: [] },
  {
    method: "get",
    path: "/v1/capture-themes",
    operationId: "listCaptureThemes",
    tags,
    summary: t("List capture themes", "Lister les thèmes de capture"),
    description: t("Themes of the organization, newest first.", "Thèmes de l'organisation, les plus récents d'abord."),
    request: { query: PageQuerySchema },
    responses: {
      200: {
        description: t("A page of themes.", "Une page de thèmes."),
        content: { "application/json": { schema: pageSchema(CaptureThemeSchema, "CaptureThemeList") } },
      },
    },
  },
);

const get = apiRoute(
  { right: "manage_templates", cost: "read", errors: ["capture_theme_not_found"] },
  {
    method: "get",
    path: "/v1/capture-themes/{id}",
    operationId: "getCaptureTheme",
    tags,
    summary: t("Get a capture theme", "Lire un thème de capture"),
    description: t("Reads one theme.", "Lit un thème."),
    request: { params: ThemeIdParams },
    responses: { 200: themeResponse(t("The theme.", "Le thème.")) },
  },
);

const update = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found"] },
  {
    method: "patch",
    path: "/v1/capture-themes/{id}",
    operationId: "updateCaptureTheme",
    tags,
    summary: t("Update a capture theme", "Modifier un thème de capture"),
    description: t("Changes the name, colour or language, or makes the theme the default.", "Modifie le nom, la couleur ou la langue, ou fait du thème le thème par défaut."),
    request: { params: ThemeIdParams, body: { content: { "application/json": { schema: UpdateThemeBody } }, required: true } },
    responses: { 200: themeResponse(t("The updated theme.", "Le thème modifié.")) },
  },
);

const uploadLogo = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found", "logo_too_large", "logo_type_not_allowed"] },
  {
    method: "put",
    path: "/v1/capture-themes/{id}/logo",
    operationId: "uploadCaptureThemeLogo",
    tags,
    summary: t("Upload a theme logo", "Envoyer le logo d'un thème"),
    description: t(
      "The raw bytes of a PNG, JPEG, WebP or SVG image up to 512 KiB; the type is read from the bytes. SVG with scripts or external references is refused.",
      "Les octets bruts d'une image PNG, JPEG, WebP ou SVG de 512 Kio au plus ; le type est lu dans les octets. Un SVG avec scripts ou références externes est refusé.",
    ),
    request: {
      params: ThemeIdParams,
      body: { content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } }, required: true },
    },
    responses: { 200: themeResponse(t("The theme, now with a logo.", "Le thème, désormais avec un logo.")) },
  },
);

const archive = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found", "theme_in_use"] },
  {
    method: "delete",
    path: "/v1/capture-themes/{id}",
    operationId: "archiveCaptureTheme",
    tags,
    summary: t("Archive a capture theme", "Archiver un thème de capture"),
    description: t("Archives a theme; refused while an active template uses it.", "Archive un thème ; refusé tant qu'un modèle actif l'utilise."),
    request: { params: ThemeIdParams },
    responses: { 200: themeResponse(t("The archived theme.", "Le thème archivé.")) },
  },
);

async function themeOrThrow(db: ReturnType<typeof database>, organizationId: string, id: string) {
  const theme = await findTheme(db, organizationId, id);
  if (theme === null) throw new ApiError("capture_theme_not_found");
  return theme;
}

async function readBody(request: Request): Promise<Uint8Array> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (declared > MAX_LOGO_BYTES) throw new ApiError("logo_too_large");
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.length > MAX_LOGO_BYTES) throw new ApiError("logo_too_large");
  return bytes;
}

export function registerCaptureThemeRoutes(app: App) {
  app.openapi(create, async (c) => {
    const body = c.req.valid("json");
    const now = nowIso();
    const theme = await insertTheme(database(c.env.DB), {
      id: newId("thm"),
      organizationId: c.get("caller").organizationId,
      name: body.name,
      primaryColor: body.primary_color.toLowerCase(),
      locale: body.locale,
      createdAt: now,
      updatedAt: now,
    });
    return c.json(presentTheme(theme), 201);
  });

  app.openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const rows = await listThemes(database(c.env.DB), c.get("caller").organizationId, limit, cursor);
    return c.json(toPage(rows, limit, presentTheme), 200);
  });

  app.openapi(get, async (c) => {
    const theme = await themeOrThrow(database(c.env.DB), c.get("caller").organizationId, c.req.valid("param").id);
    return c.json(presentTheme(theme), 200);
  });

  app.openapi(update, async (c) => {
    const db = database(c.env.DB);
    const organizationId = c.get("caller").organizationId;
    const theme = await themeOrThrow(db, organizationId, c.req.valid("param").id);
    const body = c.req.valid("json");
    const now = nowIso();
    await updateTheme(db, theme.id, {
      name: body.name ?? theme.name,
      primaryColor: body.primary_color?.toLowerCase() ?? theme.primaryColor,
      locale: body.locale ?? theme.locale,
      updatedAt: now,
    });
    if (body.is_default) await makeDefaultTheme(db, organizationId, theme.id, now);
    return c.json(presentTheme(await themeOrThrow(db, organizationId, theme.id)), 200);
  });

  app.openapi(uploadLogo, async (c) => {
    const db = database(c.env.DB);
    const theme = await themeOrThrow(db, c.get("caller").organizationId, c.req.valid("param").id);
    const bytes = await readBody(c.req.raw);
    const contentType = sniffLogo(bytes);
    const key = themeLogoKey(theme.id);
    await c.env.FILES.put(key, bytes, { httpMetadata: { contentType } });
    await updateTheme(db, theme.id, { logoKey: key, logoContentType: contentType, updatedAt: nowIso() });
    return c.json(presentTheme(await themeOrThrow(db, theme.organizationId, theme.id)), 200);
  });

  app.openapi(archive, async (c) => {
    const db = database(c.env.DB);
    const theme = await themeOrThrow(db, c.get("caller").organizationId, c.req.valid("param").id);
    if (await activeTemplateUsesTheme(db, theme.id)) throw new ApiError("theme_in_use");
    if (theme.archivedAt === null) {
      const now = nowIso();
      await updateTheme(db, theme.id, { archivedAt: now, isDefault: false, updatedAt: now });
    }
    return c.json(presentTheme(await themeOrThrow(db, theme.organizationId, theme.id)), 200);
  });
}
