import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { ModeSchema } from "../../auth/mode.ts";
import { PageQuerySchema } from "../../lib/pagination.ts";
import { REFERENCE_PATTERN, STAGE_PATTERN } from "../../lib/patterns.ts";
import { SignalCodeSchema } from "../../proofs/signal-code.ts";

const nullableCount = z.number().int().nullable();

export const ObservedFactsSchema = z
  .strictObject({
    sha256: z.string(),
    size: z.number().int(),
    content_type: z.string().openapi({ description: t("The type read from the bytes.", "Le type lu dans les octets.") }),
    received_at: z
      .string()
      .openapi({ description: t("When the service received the bytes (its own clock).", "Quand le service a reçu les octets (sa propre horloge).") }),
    clock_offset_ms: z
      .number()
      .nullable()
      .openapi({
        description: t(
          "Our clock minus the device's, measured by the service when the file was declared.",
          "Notre horloge moins celle de l'appareil, mesurée par le service à la déclaration du fichier.",
        ),
      }),
    capture_page_version: z
      .string()
      .nullable()
      .openapi({
        description: t(
          "The version of the capture page the service served (its deploy's commit).",
          "La version de la page de capture servie par le service (le commit de son déploiement).",
        ),
      }),
    decoded: z
      .strictObject({ width: nullableCount, height: nullableCount, duration_ms: nullableCount })
      .nullable()
      .openapi({ description: t("Dimensions and duration decoded from the bytes by the sealer.", "Dimensions et durée décodées des octets par le scelleur.") }),
  })
  .openapi("ObservedFacts", { description: t("What the service itself observed.", "Ce que le service a lui-même constaté.") });

export const ReportedByDeviceSchema = z
  .strictObject({
    method: z.enum(["camera", "file", "unknown"]).openapi({
      description: t(
        "Camera shot or chosen file, as the capture page reported it (a web page cannot attest the camera).",
        "Prise à l'appareil photo ou fichier choisi, selon la page de capture (une page web ne peut attester l'appareil photo).",
      ),
    }),
    device_time: z.string().nullable(),
    width: nullableCount,
    height: nullableCount,
    duration_ms: nullableCount,
    geolocation: z.strictObject({ latitude: z.number(), longitude: z.number(), accuracy_m: z.number() }).nullable(),
  })
  .openapi("ReportedByDevice", {
    description: t("What the device reported, unchecked: reported, never established.", "Ce que l'appareil a déclaré, sans contrôle : déclaré, jamais établi."),
  });

export const EarlierContentCredentialsSchema = z
  .strictObject({
    claim_generator: z.string().nullable(),
    digital_source_types: z.array(z.string()).openapi({
      description: t(
        "What the earlier manifest claimed the file is (IPTC digital source types).",
        "Ce que le manifeste antérieur affirmait du fichier (types de source numérique IPTC).",
      ),
    }),
    validation_state: z.enum(["Invalid", "Valid", "Trusted"]),
    signer: z.string().nullable(),
  })
  .openapi("EarlierContentCredentials", {
    description: t(
      "C2PA Content Credentials the file came with, kept as the parent ingredient of our manifest.",
      "Content Credentials C2PA dont le fichier était déjà porteur, conservés comme ingrédient parent de notre manifeste.",
    ),
  });

export const IntegritySignalSchema = z
  .strictObject({
    code: SignalCodeSchema,
    detail: z.string(),
    proof_id: z
      .string()
      .optional()
      .openapi({
        description: t(
          "`sealed_before`, `similar_to_earlier_photo`, `similar_to_earlier_video`: the earlier proof (never in the public JSON).",
          "`sealed_before`, `similar_to_earlier_photo`, `similar_to_earlier_video` : la preuve antérieure (jamais dans le JSON public).",
        ),
      }),
    step_id: z
      .string()
      .optional()
      .openapi({
        description: t(
          "`similar_to_earlier_photo`, `similar_to_earlier_video`: the step of the earlier photo or video (never in the public JSON).",
          "`similar_to_earlier_photo`, `similar_to_earlier_video` : l'étape de la photo ou de la vidéo antérieure (jamais dans le JSON public).",
        ),
      }),
    other_file_id: z
      .string()
      .optional()
      .openapi({
        description: t(
          "`similar_within_proof`, `similar_to_video_within_proof`: the other photo or video of this proof it looks like.",
          "`similar_within_proof`, `similar_to_video_within_proof` : l'autre photo ou vidéo de cette preuve à laquelle il ressemble.",
        ),
      }),
    distance: z
      .number()
      .int()
      .optional()
      .openapi({
        description: t(
          "The likenesses (`similar_…`): how many of the 64 bits of the two closest pictures' DCT fingerprints differ, a photo's or a video frame's (0: alike; 10 at most here).",
          "Les ressemblances (`similar_…`) : combien des 64 bits des empreintes DCT des deux images les plus proches diffèrent, d'une photo ou d'une image de vidéo (0 : identiques ; 10 au plus ici).",
        ),
      }),
    sealed_at: z
      .string()
      .datetime()
      .optional()
      .openapi({
        description: t(
          "`similar_to_earlier_photo`, `similar_to_earlier_video`: when the earlier proof was sealed (never in the public JSON).",
          "`similar_to_earlier_photo`, `similar_to_earlier_video` : quand la preuve antérieure a été scellée (jamais dans le JSON public).",
        ),
      }),
  })
  .openapi("IntegritySignal", {
    description: t(
      "A fact to weigh, measured by the service from the bytes, their pixels or the organization's earlier photos; it does not fail the proof and is never a verdict.",
      "Un fait à peser, mesuré par le service à partir des octets, de leurs pixels ou des photos antérieures de l'organisation ; il ne fait pas échouer la preuve et n'est jamais un verdict.",
    ),
  });

export const ProofFileSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("File identifier (`med_…`).", "Identifiant du fichier (`med_…`).") }),
    step_id: z.string(),
    kind: z.enum(["photo", "video"]),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string().openapi({ description: t("SHA-256 of the bytes received from the phone.", "SHA-256 des octets reçus du téléphone.") }),
    signed_sha256: z
      .string()
      .nullable()
      .openapi({ description: t("SHA-256 of the C2PA-signed file.", "SHA-256 du fichier signé C2PA.") }),
    captured_at: z.string().openapi({
      description: t("When the service observed the file (not qualified).", "Quand le service a constaté le fichier (non qualifié)."),
    }),
    observed: ObservedFactsSchema,
    reported_by_device: ReportedByDeviceSchema,
    earlier_content_credentials: EarlierContentCredentialsSchema.nullable(),
    signals: z.array(IntegritySignalSchema),
  })
  .openapi("ProofFile", { description: t("One captured file.", "Un fichier capturé.") });

export const TimestampSchema = z
  .strictObject({
    gen_time: z.string().openapi({ description: t("Time certified by the authority.", "Heure certifiée par l'autorité.") }),
    qualified: z.boolean().openapi({ description: t("Whether it is an eIDAS qualified timestamp.", "Indique s'il s'agit d'un horodatage qualifié eIDAS.") }),
    authority: z.string(),
    serial: z.string(),
    policy: z.string(),
  })
  .openapi("Timestamp", { description: t("The RFC 3161 timestamp of the proof.", "L'horodatage RFC 3161 de la preuve.") });

export const ProofSealSchema = z
  .strictObject({
    certificate_subject: z.string().openapi({ description: t("Subject of the sealing certificate.", "Sujet du certificat de scellement.") }),
    certificate_sha256: z.string().openapi({
      description: t(
        "SHA-256 of the sealing certificate's DER, lower-case hex, as GET /v1/public/trust-anchors lists it under `seal_certificates`.",
        "SHA-256 du DER du certificat de scellement, en hexadécimal minuscule, tel que GET /v1/public/trust-anchors le liste sous `seal_certificates`.",
      ),
    }),
  })
  .nullable()
  .openapi("ProofSeal", {
    description: t(
      "The certificate that signed the proof's manifest.json as a whole (manifest.p7s in the package, a CMS signature that `openssl cms -verify` checks against the service root). null until sealed, and for proofs sealed before the seal existed.",
      "Le certificat qui a signé le manifest.json de la preuve dans son ensemble (manifest.p7s dans le paquet, une signature CMS que `openssl cms -verify` vérifie avec la racine du service). null avant le scellement, et pour les preuves scellées avant que le sceau existe.",
    ),
  });

export const ProofSchema = z
  .strictObject({
    id: z.string().openapi({ description: t("Proof identifier (`prf_…`).", "Identifiant de la preuve (`prf_…`).") }),
    mode: ModeSchema,
    status: z.enum(["pending", "sealed", "failed"]).openapi({ description: t("`pending` while being sealed.", "`pending` pendant le scellement.") }),
    external_reference: z.string(),
    party: z.string(),
    stage: z.string().nullable(),
    category: z.string().nullable(),
    location_reference: z.string().nullable(),
    session_id: z.string(),
    template_id: z.string().nullable(),
    compare_to: z
      .string()
      .nullable()
      .openapi({ description: t('On an "after": its "before".', "Sur un « après » : son « avant ».") }),
    compared_by: z
      .string()
      .nullable()
      .openapi({ description: t('On a "before": its "after".', "Sur un « avant » : son « après ».") }),
    files: z.array(ProofFileSchema),
    files_record: z
      .enum(["missing", "altered", "unreadable"])
      .nullable()
      .openapi({
        description: t(
          "null, unless the service's record of this sealed proof's files is missing, altered or unreadable in its storage: `files` is then empty, not because the proof has none, its public verdict is not verified and its package and files answer `409 sealed_record_unavailable`.",
          "null, sauf si le registre que le service tient des fichiers de cette preuve scellée est absent, altéré ou illisible dans son stockage : `files` est alors vide, non parce que la preuve n'en a aucun, son verdict public n'est pas vérifié et son paquet et ses fichiers répondent `409 sealed_record_unavailable`.",
        ),
      }),
    timestamp: TimestampSchema.nullable(),
    manifest_sha256: z
      .string()
      .nullable()
      .openapi({ description: t("SHA-256 of the manifest the timestamp covers.", "SHA-256 du manifeste couvert par l'horodatage.") }),
    seal: ProofSealSchema,
    created_at: z.string(),
    sealed_at: z.string().nullable(),
    failure: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    verification_url: z.string().openapi({ description: t("The public verification page.", "La page de vérification publique.") }),
    package_url: z.string().openapi({ description: t("The downloadable verification package.", "Le paquet de vérification téléchargeable.") }),
  })
  .openapi("Proof", { description: t("A sealed proof, or one being sealed.", "Une preuve scellée, ou en cours de scellement.") });

const queryParam = (name: string, description: string) => ({ param: { name, in: "query" as const }, description });

export const ProofListQuery = PageQuerySchema.extend({
  linked: z
    .enum(["true", "false"])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === "true"))
    .openapi(
      queryParam(
        "linked",
        t(
          '`true`: proofs that have their partner (an "after" with its `compare_to`, a "before" with its `compared_by`). `false`: sealed "before" proofs still awaiting their "after".',
          "`true` : preuves qui ont leur partenaire (un « après » avec son `compare_to`, un « avant » avec son `compared_by`). `false` : preuves « avant » scellées attendant encore leur « après ».",
        ),
      ),
    ),
  external_reference: z
    .string()
    .regex(REFERENCE_PATTERN)
    .optional()
    .openapi(queryParam("external_reference", t("Only this transaction.", "Seulement cette transaction."))),
  party: z
    .enum(["provider", "recipient"])
    .optional()
    .openapi(queryParam("party", t("Only this party.", "Seulement cette partie."))),
  stage: z
    .string()
    .regex(STAGE_PATTERN)
    .optional()
    .openapi(queryParam("stage", t("Only this stage.", "Seulement cette étape."))),
  status: z
    .enum(["pending", "sealed", "failed"])
    .optional()
    .openapi(queryParam("status", t("Only this status.", "Seulement ce statut."))),
  created_after: z
    .string()
    .datetime()
    .optional()
    .openapi(queryParam("created_after", t("Created at or after this time.", "Créées à partir de cet instant."))),
  created_before: z
    .string()
    .datetime()
    .optional()
    .openapi(queryParam("created_before", t("Created before this time.", "Créées avant cet instant."))),
});

export const ProofIdParams = z.object({
  id: z
    .string()
    .max(80)
    .openapi({ param: { name: "id", in: "path" }, description: t("Proof identifier.", "Identifiant de la preuve.") }),
});
