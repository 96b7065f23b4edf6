import type { App } from "../../app.ts";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import { buildInfo } from "../../lib/build-info.ts";
import { ApiError } from "../../errors/api-error.ts";
import { bearerToken } from "../../middleware/api-key.ts";
import { timingSafeEqualStrings } from "../../lib/crypto.ts";
import { HealthDetailsSchema } from "./schema.ts";
import { checkDatabase, checkStorage, checkTimestampAuthority } from "./checks.ts";

const route = publicRoute(["unauthenticated", "not_found"], {
  method: "get",
  path: "/health/details",
  operationId: "getHealthDetails",
  tags: ["Health"],
  security: [{ supervisionToken: [] }],
  summary: t("Dependency checks", "Vérification des dépendances"),
  description: t(
    "For supervision: needs the supervision token, not an API key. Checks the database (every shard, each named), the storage and the timestamp authority.",
    "Pour la supervision : exige le jeton de supervision, pas une clé d'API. Vérifie la base de données (chaque partition, nommée), le stockage et l'autorité d'horodatage.",
  ),
  responses: {
    200: { description: t("Every check passed.", "Toutes les vérifications ont réussi."), content: { "application/json": { schema: HealthDetailsSchema } } },
    503: {
      description: t("At least one check failed.", "Au moins une vérification a échoué."),
      content: { "application/json": { schema: HealthDetailsSchema } },
    },
  },
});

export function registerGetHealthDetails(app: App) {
  app.openapi(route, async (c) => {
    const expected = c.env.SUPERVISION_TOKEN;
    if (!expected) throw new ApiError("not_found");
    const token = bearerToken(c.req.header("Authorization"));
    if (token === null || !(await timingSafeEqualStrings(token, expected))) throw new ApiError("unauthenticated");
    const [database, storage, timestamp_authority] = await Promise.all([checkDatabase(c.env), checkStorage(c.env), checkTimestampAuthority(c.env)]);
    const checks = { database, storage, timestamp_authority };
    const failed = Object.values(checks).some((check) => check.status === "error");
    const body = { status: failed ? ("degraded" as const) : ("ok" as const), ...buildInfo(c.env), checks };
    return failed ? c.json(body, 503) : c.json(body, 200);
  });
}
