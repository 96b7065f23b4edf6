import type { Database } from "../../db/client.ts";
import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { ApiError } from "../../errors/api-error.ts";
import { newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import { PageQuerySchema, pageSchema, toPage } from "../../lib/pagination.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { checkDeclaredLogoType, readLogoBody, sniffLogo } from "../../capture-themes/logo.ts";
import { archiveThemeUnlessUsed, findTheme, insertTheme, listThemes, makeDefaultTheme, themeLogoKey, updateTheme } from "../../storage/capture-themes.ts";
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
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found", "theme_archived"] },
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
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found", "theme_archived", "logo_too_large", "logo_type_not_allowed"] },
  {
    method: "put",
    path: "/v1/capture-themes/{id}/logo",
    operationId: "uploadCaptureThemeLogo",
    tags,
    summary: t("Upload a theme logo", "Envoyer le logo d'un thème"),
    description: t(
      "The raw bytes of a PNG, JPEG, WebP or SVG image up to 512 KiB, replacing any previous logo. The type is read from the bytes; a declared image `Content-Type` that disagrees is refused (`application/octet-stream` leaves it to the bytes). An SVG is accepted only without scripts, event handlers, `foreignObject`, DOCTYPE or entities, and links other than `#fragment`.",
      "Les octets bruts d'une image PNG, JPEG, WebP ou SVG de 512 Kio au plus, remplaçant le logo précédent. Le type est lu dans les octets ; un `Content-Type` d'image déclaré qui ne concorde pas est refusé (`application/octet-stream` s'en remet aux octets). Un SVG n'est accepté que sans scripts, gestionnaires d'événements, `foreignObject`, DOCTYPE ni entités, et sans liens autres que `#fragment`.",
    ),
    request: {
      params: ThemeIdParams,
      body: {
        content: Object.fromEntries(
          ["image/png", "image/jpeg", "image/webp", "image/svg+xml", "application/octet-stream"].map((type) => [
            type,
            { schema: z.string().openapi({ format: "binary" }) },
          ]),
        ),
        required: true,
      },
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
    description: t(
      "Deleting archives the theme and answers 200 with it (archiving twice is harmless). Refused while an active (non-archived) template of either mode uses it. An archived default theme stops being the default: sessions then use the built-in look until another theme is made the default or created.",
      "Supprimer archive le thème et répond 200 avec lui (archiver deux fois est sans effet). Refusé tant qu'un modèle actif (non archivé) de l'un ou l'autre mode l'utilise. Un thème par défaut archivé cesse d'être le thème par défaut : les sessions prennent alors l'apparence intégrée jusqu'à ce qu'un autre thème soit rendu par défaut ou créé.",
    ),
    request: { params: ThemeIdParams },
    responses: { 200: themeResponse(t("The archived theme.", "Le thème archivé.")) },
  },
);

async function themeOrThrow(db: Database, organizationId: string, id: string) {
  const theme = await findTheme(db, organizationId, id);
  if (theme === null) throw new ApiError("capture_theme_not_found");
  return theme;
}

async function activeThemeOrThrow(db: Database, organizationId: string, id: string) {
  const theme = await themeOrThrow(db, organizationId, id);
  if (theme.archivedAt !== null) throw new ApiError("theme_archived");
  return theme;
}

export function registerCaptureThemeRoutes(app: App) {
  app.openapi(create, async (c) => {
    const body = c.req.valid("json");
    const now = nowIso();
    const theme = await insertTheme(c.var.db, {
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
    const rows = await listThemes(c.var.db, c.get("caller").organizationId, limit, cursor);
    return c.json(toPage(rows, limit, presentTheme), 200);
  });

  app.openapi(get, async (c) => {
    const theme = await themeOrThrow(c.var.db, c.get("caller").organizationId, c.req.valid("param").id);
    return c.json(presentTheme(theme), 200);
  });

  app.openapi(update, async (c) => {
    const db = c.var.db;
    const organizationId = c.get("caller").organizationId;
    const theme = await activeThemeOrThrow(db, organizationId, c.req.valid("param").id);
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
    const db = c.var.db;
    const theme = await themeOrThrow(db, c.get("caller").organizationId, c.req.valid("param").id);
    if (theme.archivedAt !== null) {
      await c.req.raw.body?.cancel();
      throw new ApiError("theme_archived");
    }
    const bytes = await readLogoBody(c.req.raw);
    const contentType = sniffLogo(bytes);
    checkDeclaredLogoType(c.req.header("Content-Type"), contentType);
    const key = themeLogoKey(theme.id);
    await c.env.FILES.put(key, bytes, { httpMetadata: { contentType } });
    await updateTheme(db, theme.id, { logoKey: key, logoContentType: contentType, updatedAt: nowIso() });
    return c.json(presentTheme(await themeOrThrow(db, theme.organizationId, theme.id)), 200);
  });

  app.openapi(archive, async (c) => {
    const db = c.var.db;
    const theme = await themeOrThrow(db, c.get("caller").organizationId, c.req.valid("param").id);
    if (theme.archivedAt === null && !(await archiveThemeUnlessUsed(db, theme.id, nowIso()))) throw new ApiError("theme_in_use");
    return c.json(presentTheme(await themeOrThrow(db, theme.organizationId, theme.id)), 200);
  });
}
