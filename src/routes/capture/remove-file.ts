import type { App } from "../../app.ts";
import { t } from "../../openapi/translations.ts";
import { captureContext } from "../../domain/context.ts";
import { usableSessionFile } from "../../capture-page/access.ts";
import { removeCaptureFile } from "../../capture-page/remove-file.ts";
import { noStore } from "./no-store.ts";
import { captureLinkRoute, FileParams } from "./schema.ts";

const route = captureLinkRoute(["capture_file_not_found"], {
  method: "delete",
  path: "/c/{token}/files/{fileId}",
  operationId: "removeCaptureFile",
  summary: t("Remove a declared file", "Retirer un fichier déclaré"),
  description: t(
    "The shot was deleted or retaken: its bytes go and its upload URLs write nothing more.",
    "La prise a été supprimée ou refaite : ses octets disparaissent et ses URL d'envoi n'écrivent plus rien.",
  ),
  request: { params: FileParams },
  responses: { 204: { description: t("Removed.", "Retiré.") } },
});

export function registerRemoveCaptureFile(app: App) {
  app.openapi(route, async (c) => {
    noStore(c);
    const ctx = captureContext(c);
    const { file } = await usableSessionFile({ ctx, input: c.req.valid("param") });
    await removeCaptureFile({ ctx, input: { file } });
    return c.body(null, 204);
  });
}
