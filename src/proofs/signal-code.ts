import { z } from "@hono/zod-openapi";
import { t } from "../openapi/translations.ts";
import { SIGNAL_CODES } from "../../shared/integrity-signals.ts";

/** A signal's code as the OpenAPI document describes it, in the proof's files and in the `proof.sealed` event alike (docs/adr/0063). */
export const SignalCodeSchema = z.enum(SIGNAL_CODES).openapi({
  description: t(
    "What the service measured, as a stable code (a fact to weigh, never a verdict). A likeness is named by what the file looks like: `similar_to_earlier_photo` a photo, `similar_to_earlier_video` a video, sealed earlier in another proof of the organization; `similar_within_proof` a photo, `similar_to_video_within_proof` a video, of this proof. A new photo is compared by its whole picture and four crops 5 % off one edge with the whole pictures and five crops of earlier ones (docs/adr/0052), a video by three of its frames.",
    "Ce que le service a mesuré, sous un code stable (un fait à peser, jamais un verdict). Une ressemblance est nommée d'après ce à quoi le fichier ressemble : `similar_to_earlier_photo` une photo, `similar_to_earlier_video` une vidéo, scellée plus tôt dans une autre preuve de l'organisation ; `similar_within_proof` une photo, `similar_to_video_within_proof` une vidéo, de cette preuve. Une nouvelle photo est comparée par son image entière et quatre recadrages de 5 % d'un bord avec les images entières et cinq recadrages des précédentes (docs/adr/0052), une vidéo par trois de ses images.",
  ),
});
