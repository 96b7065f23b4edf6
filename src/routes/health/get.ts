import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { buildInfo } from "../../lib/build-info.ts";
import { HealthSchema } from "./schema.ts";

const route = publicRoute([], {
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Health"],
  summary: t("Liveness", "Disponibilité"),
  description: t("Public. Reports the running build; does not check dependencies.", "Public. Indique la build en service ; ne vérifie pas les dépendances."),
  responses: {
    200: { description: t("The service is up.", "Le service répond."), content: { "application/json": { schema: HealthSchema } } },
  },
});

export function registerGetHealth(app: App) {
  app.openapi(route, (c) => c.json({ status: "ok" as const, ...buildInfo(c.env) }, 200));
}
