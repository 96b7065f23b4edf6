import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { MAX_RETURN_ORIGINS } from "../../settings/return-origins.ts";

export const SettingsSchema = z
  .strictObject({
    allowed_return_origins: z
      .array(z.string().max(300))
      .max(MAX_RETURN_ORIGINS)
      .openapi({
        description: t(
          "Sites the capture page may send the person back to (`return_url`) after a capture session of the key's mode, at most 20 origins such as `https://shop.example:8443`: scheme `https` (`http` only on a loopback host such as `localhost`, for development), host and optional port; no path, query, fragment or credentials, and no wildcard: `https://*.example.com` is refused (422 `validation_failed` on the item), list each origin. Stored normalised (lowercase, default port dropped, duplicates removed).",
          "Sites vers lesquels la page de capture peut renvoyer la personne (`return_url`) après une session de capture du mode de la clé, au plus 20 origines comme `https://shop.example:8443` : schéma `https` (`http` seulement sur un hôte de bouclage comme `localhost`, pour le développement), hôte et port facultatif ; ni chemin, ni requête, ni fragment, ni identifiants, et pas de joker : `https://*.example.com` est refusée (422 `validation_failed` sur l'élément), indiquez chaque origine. Enregistrées normalisées (minuscules, port par défaut retiré, doublons supprimés).",
        ),
        example: ["https://shop.example"],
      }),
  })
  .openapi("Settings", {
    description: t(
      "Settings of one mode of the organization (test and live each have their own).",
      "Paramètres d'un mode de l'organisation (test et live ont chacun les leurs).",
    ),
  });
