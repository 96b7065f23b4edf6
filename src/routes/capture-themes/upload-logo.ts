import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { apiContext } from "../../domain/context.ts";
import { presentTheme } from "../../capture-themes/present.ts";
import { uploadThemeLogo } from "../../capture-themes/upload-logo.ts";
import { LogoUploadContent, ThemeIdParams, themeResponse } from "./schema.ts";

const route = apiRoute(
  { right: "manage_templates", cost: "write", errors: ["capture_theme_not_found", "theme_archived", "logo_too_large", "logo_type_not_allowed"] },
  {
    method: "put",
    path: "/v1/capture-themes/{id}/logo",
    operationId: "uploadCaptureThemeLogo",
    tags: ["Capture themes"],
    summary: t("Upload a theme logo", "Envoyer le logo d'un thème"),
    description: t(
      "The raw bytes of a PNG, JPEG, WebP or SVG image up to 512 KiB, replacing any previous logo. The type is read from the bytes; a declared image `Content-Type` that disagrees is refused (`application/octet-stream` leaves it to the bytes). An SVG is accepted only without scripts, event handlers, `foreignObject`, DOCTYPE or entities, and links (`href`, `xlink:href`, `src`, quoted or not) other than `#fragment`; a refused SVG is 422 `logo_type_not_allowed`.",
      "Les octets bruts d'une image PNG, JPEG, WebP ou SVG de 512 Kio au plus, remplaçant le logo précédent. Le type est lu dans les octets ; un `Content-Type` d'image déclaré qui ne concorde pas est refusé (`application/octet-stream` s'en remet aux octets). Un SVG n'est accepté que sans scripts, gestionnaires d'événements, `foreignObject`, DOCTYPE ni entités, et sans liens (`href`, `xlink:href`, `src`, entre guillemets ou non) autres que `#fragment` ; un SVG refusé donne 422 `logo_type_not_allowed`.",
    ),
    request: {
      params: ThemeIdParams,
      body: { content: LogoUploadContent, required: true },
    },
    responses: { 200: themeResponse(t("The theme, now with a logo.", "Le thème, désormais avec un logo.")) },
  },
);

export function registerUploadThemeLogo(app: App) {
  app.openapi(route, async (c) =>
    c.json(presentTheme(await uploadThemeLogo({ ctx: apiContext(c), input: { id: c.req.valid("param").id, request: c.req.raw } })), 200),
  );
}
