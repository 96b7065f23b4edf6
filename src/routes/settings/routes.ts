import { z } from "@hono/zod-openapi";
import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { nowIso } from "../../lib/time.ts";
import { MAX_RETURN_ORIGINS, normaliseReturnOrigin } from "../../settings/return-origins.ts";
import { getAllowedReturnOrigins, setAllowedReturnOrigins } from "../../storage/settings.ts";

const SettingsSchema = z
  .strictObject({
    allowed_return_origins: z
      .array(z.string().max(300))
      .max(MAX_RETURN_ORIGINS)
      .openapi({
        description: t(
          "Sites the capture page may send the person back to (`return_url`), at most 20 origins such as `https://shop.example:8443`: scheme `https` (`http` only on a loopback host such as `localhost`, for development), host and optional port; no path, query, fragment or credentials. Stored normalised (lowercase, default port dropped, duplicates removed).",
          "Sites vers lesquels la page de capture peut renvoyer la personne (`return_url`), au plus 20 origines comme `https://shop.example:8443` : schéma `https` (`http` seulement sur un hôte de bouclage comme `localhost`, pour le développement), hôte et port facultatif ; ni chemin, ni requête, ni fragment, ni identifiants. Enregistrées normalisées (minuscules, port par défaut retiré, doublons supprimés).",
        ),
        example: ["https://shop.example"],
      }),
  })
  .openapi("Settings", { description: t("Organization settings.", "Paramètres de l'organisation.") });

const getSettings = apiRoute(
  { right: "manage_settings", cost: "read", errors: [] },
  {
    method: "get",
    path: "/v1/settings",
    operationId: "getSettings",
    tags: ["Settings"],
    summary: t("Get the settings", "Lire les paramètres"),
    description: t("The organization's settings (shared by both modes).", "Les paramètres de l'organisation (communs aux deux modes)."),
    responses: { 200: { description: t("The settings.", "Les paramètres."), content: { "application/json": { schema: SettingsSchema } } } },
  },
);

const patchSettings = apiRoute(
  { right: "manage_settings", cost: "write", errors: [] },
  {
    method: "patch",
    path: "/v1/settings",
    operationId: "updateSettings",
    tags: ["Settings"],
    summary: t("Update the settings", "Modifier les paramètres"),
    description: t(
      "Sets the allowed return origins (the whole list is replaced).",
      "Définit les origines de retour autorisées (la liste entière est remplacée).",
    ),
    request: { body: { content: { "application/json": { schema: SettingsSchema } }, required: true } },
    responses: { 200: { description: t("The settings.", "Les paramètres."), content: { "application/json": { schema: SettingsSchema } } } },
  },
);

export function registerSettingsRoutes(app: App) {
  app.openapi(getSettings, async (c) => {
    const origins = await getAllowedReturnOrigins(c.var.db, c.get("caller").organizationId);
    return c.json({ allowed_return_origins: origins }, 200);
  });

  app.openapi(patchSettings, async (c) => {
    const origins = [...new Set(c.req.valid("json").allowed_return_origins.map(normaliseReturnOrigin))];
    await setAllowedReturnOrigins(c.var.db, c.get("caller").organizationId, origins, nowIso());
    return c.json({ allowed_return_origins: origins }, 200);
  });
}
