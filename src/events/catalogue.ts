import { z } from "@hono/zod-openapi";
import { t } from "../openapi/translations.ts";
import { defineEvent } from "./define.ts";
import { SignalCodeSchema } from "../proofs/signal-code.ts";

/*
 * Every webhook event, declared once: its body's fields (zod), its documentation and its sample. Recording
 * (`build`, then `eventInsert`), delivery bodies, test events, subscriptions, the event log's filter and the
 * `webhooks` section of /openapi.json all derive from this list: adding an event is one entry here (ADR 0016).
 */

// Fields several events open with (the specification's and CONTRACT.md's "Webhook bodies").
const proofId = z.string().openapi({ description: t("The proof this event is about (`prf_…`).", "La preuve dont parle cet événement (`prf_…`).") });
const sessionId = z.string().openapi({ description: t("The capture session (`cps_…`).", "La session de capture (`cps_…`).") });
const externalReference = z
  .string()
  .openapi({ description: t("Your reference, as given when the session was created.", "Votre référence, telle que donnée à la création de la session.") });
const party = z.enum(["provider", "recipient"]).openapi({ description: t("Who captured.", "Qui a capturé.") });
const stage = z
  .string()
  .nullable()
  .openapi({
    description: t(
      "Stage of the transaction, e.g. `checkin`; null when none was given.",
      "Étape de la transaction, par ex. `checkin` ; null si aucune n'a été donnée.",
    ),
  });
const compareTo = z
  .string()
  .nullable()
  .openapi({
    description: t(
      'On an "after": the "before" proof it is compared with; null otherwise.',
      "Sur un « après » : la preuve « avant » à laquelle il est comparé ; null sinon.",
    ),
  });
const at = (en: string, fr: string) => z.string().openapi({ description: t(en, fr) });
/** What `proof.sealed` and `proof.failed` open with. */
const proofFields = { proof_id: proofId, session_id: sessionId, external_reference: externalReference, party, stage };

const SAMPLE = {
  proof_id: "prf_sample000000000000",
  session_id: "cps_sample000000000000",
  external_reference: "sample-reference",
  party: "provider",
  stage: "checkin",
} as const;

export const proofSealed = defineEvent({
  type: "proof.sealed",
  summary: t("A proof is sealed", "Une preuve est scellée"),
  description: t(
    "The proof is verified, signed and timestamped: rely on this event, not on `capture_session.completed`, before using a proof.",
    "La preuve est vérifiée, signée et horodatée : fiez-vous à cet événement, et non à `capture_session.completed`, avant d'utiliser une preuve.",
  ),
  fields: z.object({
    ...proofFields,
    compare_to: compareTo,
    manifest_sha256: z.string().openapi({
      description: t("SHA-256 (hexadecimal) of the manifest the timestamp covers.", "SHA-256 (hexadécimal) du manifeste couvert par l'horodatage."),
    }),
    timestamp: z
      .object({
        gen_time: at("Time certified by the timestamp authority (RFC 3161 genTime).", "Heure certifiée par l'autorité d'horodatage (genTime RFC 3161)."),
        qualified: z.boolean().openapi({ description: t("Whether the timestamp is eIDAS qualified.", "Indique si l'horodatage est qualifié eIDAS.") }),
      })
      .openapi({ description: t("The proof's RFC 3161 timestamp.", "L'horodatage RFC 3161 de la preuve.") }),
    sealed_at: at("When the proof was sealed.", "Quand la preuve a été scellée."),
    signals: z
      .array(
        z.object({
          file_id: z.string().openapi({ description: t("The file the signal is about (`med_…`).", "Le fichier dont parle le signal (`med_…`).") }),
          code: SignalCodeSchema,
          detail: z.string(),
          proof_id: z
            .string()
            .optional()
            .openapi({
              description: t(
                "`sealed_before`, `similar_to_earlier_photo`, `similar_to_earlier_video`: your earlier proof.",
                "`sealed_before`, `similar_to_earlier_photo`, `similar_to_earlier_video` : votre preuve antérieure.",
              ),
            }),
          step_id: z
            .string()
            .optional()
            .openapi({
              description: t(
                "`similar_to_earlier_photo`, `similar_to_earlier_video`: the earlier photo's or video's step.",
                "`similar_to_earlier_photo`, `similar_to_earlier_video` : l'étape de la photo ou de la vidéo antérieure.",
              ),
            }),
          other_file_id: z
            .string()
            .optional()
            .openapi({
              description: t(
                "`similar_within_proof`, `similar_to_video_within_proof`: the other photo or video of this proof.",
                "`similar_within_proof`, `similar_to_video_within_proof` : l'autre photo ou vidéo de cette preuve.",
              ),
            }),
          distance: z
            .number()
            .int()
            .optional()
            .openapi({
              description: t(
                "Differing bits of the two closest pictures' 64-bit DCT fingerprints, a photo's or a video frame's.",
                "Bits différents des empreintes DCT de 64 bits des deux images les plus proches, d'une photo ou d'une image de vidéo.",
              ),
            }),
          sealed_at: z
            .string()
            .optional()
            .openapi({
              description: t(
                "`similar_to_earlier_photo`, `similar_to_earlier_video`: when the earlier proof was sealed.",
                "`similar_to_earlier_photo`, `similar_to_earlier_video` : quand la preuve antérieure a été scellée.",
              ),
            }),
        }),
      )
      .openapi({
        description: t(
          "Every integrity signal of the proof's files (facts to weigh, never verdicts), so that a proof worth a look can be routed to a person without polling.",
          "Tous les signaux d'intégrité des fichiers de la preuve (des faits à peser, jamais des verdicts), pour orienter une preuve à examiner vers une personne sans interroger l'API.",
        ),
      }),
  }),
  sample: (now) => ({
    ...SAMPLE,
    compare_to: null,
    manifest_sha256: "0".repeat(64),
    timestamp: { gen_time: now, qualified: false },
    sealed_at: now,
    signals: [],
  }),
});

export const proofFailed = defineEvent({
  type: "proof.failed",
  summary: t("Sealing a proof failed", "Le scellement d'une preuve a échoué"),
  description: t(
    "The proof could not be sealed and never will be; `code` says why.",
    "La preuve n'a pas pu être scellée et ne le sera jamais ; `code` dit pourquoi.",
  ),
  fields: z.object({
    ...proofFields,
    code: z
      .string()
      .openapi({ description: t("Stable code of the failure, e.g. `file_hash_mismatch`.", "Code stable de l'échec, par ex. `file_hash_mismatch`.") }),
    message: z.string().openapi({ description: t("The failure explained, in English.", "L'échec expliqué, en anglais.") }),
    failed_at: at("When sealing failed.", "Quand le scellement a échoué."),
  }),
  sample: (now) => ({ ...SAMPLE, code: "file_hash_mismatch", message: "Sample failure.", failed_at: now }),
});

export const captureSessionCompleted = defineEvent({
  type: "capture_session.completed",
  summary: t("A capture is finished", "Une capture est terminée"),
  description: t(
    "The person finished the capture: its files are recorded and the proof is being sealed. Sent before the same capture's `proof.sealed`.",
    "La personne a terminé la capture : ses fichiers sont enregistrés et la preuve est en cours de scellement. Envoyé avant le `proof.sealed` de la même capture.",
  ),
  fields: z.object({
    session_id: sessionId,
    proof_id: proofId,
    external_reference: externalReference,
    party,
    stage,
    completed_at: at("When the person finished the capture.", "Quand la personne a terminé la capture."),
  }),
  sample: (now) => ({
    session_id: SAMPLE.session_id,
    proof_id: SAMPLE.proof_id,
    external_reference: SAMPLE.external_reference,
    party: SAMPLE.party,
    stage: SAMPLE.stage,
    completed_at: now,
  }),
});

export const captureSessionRejected = defineEvent({
  type: "capture_session.rejected",
  summary: t("A capture is refused", "Une capture est refusée"),
  description: t(
    'Finishing the capture failed with `compare_to_already_used`: another "after" of the same "before" was completed first. No proof, no credit used.',
    "Terminer la capture a échoué avec `compare_to_already_used` : un autre « après » du même « avant » a été terminé d'abord. Aucune preuve, aucun crédit utilisé.",
  ),
  fields: z.object({
    session_id: sessionId,
    code: z.literal("compare_to_already_used").openapi({ description: t("Why the capture was refused.", "Pourquoi la capture a été refusée.") }),
    compare_to: compareTo,
    external_reference: externalReference,
    party,
    stage,
    rejected_at: at("When finishing the capture was refused.", "Quand la fin de la capture a été refusée."),
  }),
  sample: (now) => ({
    session_id: SAMPLE.session_id,
    code: "compare_to_already_used" as const,
    compare_to: "prf_before00000000000",
    external_reference: SAMPLE.external_reference,
    party: SAMPLE.party,
    stage: SAMPLE.stage,
    rejected_at: now,
  }),
});

/** The events the service records and sends, in the specification's order. */
export const EVENT_CATALOGUE = [proofSealed, proofFailed, captureSessionCompleted, captureSessionRejected] as const;

/** Accepted in a subscription but never sent: the specification reserves them for a later version. */
export const RESERVED_EVENTS = ["capture_session.expired", "dossier.ready"] as const;
