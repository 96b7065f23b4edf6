import type { App } from "../../app.ts";
import { apiRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { presentCaller } from "./present.ts";
import { MeSchema } from "./schema.ts";

const route = apiRoute(
  { right: null, cost: "read", errors: [] },
  {
    method: "get",
    path: "/v1/me",
    operationId: "getMe",
    tags: ["Account"],
    summary: t("Key in use", "Clé utilisée"),
    description: t(
      "Tells which key, organization and mode a request is made with. Any valid key may call it.",
      "Indique avec quelle clé, quelle organisation et quel mode la requête est faite. Toute clé valide peut l'appeler.",
    ),
    responses: {
      200: { description: t("The key in use.", "La clé utilisée."), content: { "application/json": { schema: MeSchema } } },
    },
  },
);

export function registerGetMe(app: App) {
  app.openapi(route, (c) => {
    return c.json(presentCaller(c.get("caller")), 200);
  });
}
