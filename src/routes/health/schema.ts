import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";

export const HealthSchema = z
  .strictObject({
    status: z.literal("ok").openapi({ description: t("Always `ok` when the service answers.", "Toujours `ok` quand le service répond.") }),
    version: z.string().openapi({ description: t("Version of the running build.", "Version de la build en service.") }),
    commit: z.string().openapi({ description: t("Commit of the running build.", "Commit de la build en service.") }),
  })
  .openapi("Health", { description: t("Liveness of the service.", "Disponibilité du service.") });

const CheckStatusSchema = z.enum(["ok", "error", "not_configured"]).openapi({
  description: t(
    "`ok`, `error`, or `not_configured` (a dependency that is not configured is never `ok`).",
    "`ok`, `error`, ou `not_configured` (une dépendance non configurée n'est jamais `ok`).",
  ),
});

export const HealthCheckSchema = z
  .strictObject({
    status: CheckStatusSchema,
    latency_ms: z
      .number()
      .optional()
      .openapi({ description: t("Duration of the check in milliseconds.", "Durée de la vérification en millisecondes.") }),
  })
  .openapi("HealthCheck", { description: t("Result of one dependency check.", "Résultat de la vérification d'une dépendance.") });

export const DatabaseCheckSchema = HealthCheckSchema.extend({
  shards: z.record(z.string(), HealthCheckSchema).openapi({
    description: t(
      "Each D1 shard by its code (`00`, `01`…): an organization lives whole in one of them, so one down fails only its organizations' requests. The database check is `error` when any of them is.",
      "Chaque partition D1 par son code (`00`, `01`…) : une organisation vit entière dans l'une d'elles, donc une partition en panne n'échoue que les requêtes de ses organisations. La vérification de la base de données est `error` dès que l'une d'elles l'est.",
    ),
  }),
}).openapi("DatabaseCheck", {
  description: t("Result of the database check, shard by shard.", "Résultat de la vérification de la base de données, partition par partition."),
});

export const HealthDetailsSchema = z
  .strictObject({
    status: z.enum(["ok", "degraded"]).openapi({
      description: t("`degraded` when a check fails.", "`degraded` quand une vérification échoue."),
    }),
    version: HealthSchema.shape.version,
    commit: HealthSchema.shape.commit,
    checks: z.strictObject({
      database: DatabaseCheckSchema,
      storage: HealthCheckSchema,
      timestamp_authority: HealthCheckSchema,
    }),
  })
  .openapi("HealthDetails", {
    description: t("State of the service and of its dependencies.", "État du service et de ses dépendances."),
  });

export type HealthCheck = z.infer<typeof HealthCheckSchema>;
export type DatabaseCheck = z.infer<typeof DatabaseCheckSchema>;
