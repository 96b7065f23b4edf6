import { z, type RouteConfig } from "@hono/zod-openapi";
import { publicRoute } from "../../openapi/route.ts";
import { t } from "../../openapi/translations.ts";
import type { ErrorCode } from "../../errors/catalogue.ts";

// The capture page's JSON routes (capture host, authorised by the token in the path), documented in their
// own document, /openapi-capture.json (docs/capture-page-protocol.md): integrators never call them.

const CAPTURE_PAGE_TAGS = ["Capture page"];
/** What every route behind a capture link may answer about the link itself (a losing "after" keeps its 409). */
const CAPTURE_LINK_ERRORS = [
  "capture_link_not_found",
  "capture_link_used",
  "capture_link_expired",
  "compare_to_already_used",
] as const satisfies readonly ErrorCode[];

/** A JSON route behind a capture link: the link's own errors and the capture page's tag come with it. */
export function captureLinkRoute<const R extends RouteConfig>(errors: readonly ErrorCode[], route: R) {
  // The tag right after the operation's id, where the document has always had it.
  const { method, path, operationId, ...rest } = route;
  return publicRoute([...CAPTURE_LINK_ERRORS, ...errors], { method, path, operationId, tags: CAPTURE_PAGE_TAGS, ...rest });
}

/** A JSON answer of the capture page's routes. */
export const captureAnswer = <T extends z.ZodType>(en: string, fr: string, schema: T) => ({
  description: t(en, fr),
  content: { "application/json": { schema } },
});

export const TokenParams = z.object({
  token: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: "token", in: "path" },
      description: t("The capture link's token (the last segment of `capture_url`).", "Le jeton du lien de capture (le dernier segment de `capture_url`)."),
    }),
});
export const FileParams = TokenParams.extend({
  fileId: z
    .string()
    .min(1)
    .max(80)
    .openapi({ param: { name: "fileId", in: "path" }, description: t("The declared file's id (`med_…`).", "L'identifiant du fichier déclaré (`med_…`).") }),
});

const CaptureContext = z
  .strictObject({
    method: z.enum(["camera", "file"]).openapi({
      description: t("Taken with the camera, or chosen from the phone's files.", "Prise avec l'appareil photo, ou choisie parmi les fichiers du téléphone."),
    }),
    device_time: z
      .string()
      .datetime({ offset: true })
      .openapi({ description: t("The phone's clock when the shot was taken.", "L'horloge du téléphone au moment de la prise.") }),
    width: z.number().int().min(1).max(100_000).optional(),
    height: z.number().int().min(1).max(100_000).optional(),
    duration_ms: z.number().int().min(0).optional(),
    geolocation: z
      .strictObject({
        latitude: z.number().min(-90).max(90),
        longitude: z.number().min(-180).max(180),
        accuracy_m: z.number().min(0),
      })
      .optional(),
  })
  .openapi("CaptureContext", {
    description: t(
      "How the shot was taken, as the phone reports it: signed in the file's C2PA manifest as reported by the device, never as established, and compared with the bytes (integrity signals).",
      "Comment la prise a été faite, selon le téléphone : inscrit dans le manifeste C2PA du fichier comme déclaré par l'appareil, jamais comme établi, et comparé aux octets (signaux d'intégrité).",
    ),
  });

export const DeclareFileBody = z
  .strictObject({
    step_id: z.string().min(1).max(40),
    content_type: z.string().min(1).max(100),
    size: z
      .number()
      .int()
      .min(1)
      .openapi({ description: t("Bytes.", "Octets.") }),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/)
      .openapi({ description: t("Hex SHA-256 of the bytes, computed on the phone.", "SHA-256 hexadécimal des octets, calculé sur le téléphone.") }),
    capture: CaptureContext.optional().openapi({
      description: t(
        "Optional (CONTRACT.md's body has four fields): without it the capture method is recorded as `unknown`.",
        "Facultatif (le corps de CONTRACT.md a quatre champs) : sans lui, la méthode de capture est enregistrée comme `unknown`.",
      ),
    }),
  })
  .openapi("DeclareCaptureFile", { description: t("One shot, declared before its upload.", "Une prise, déclarée avant son envoi.") });

export const CompleteBody = z.strictObject({}).openapi("CompleteCapture", { description: t("Empty.", "Vide.") });

/** The parts of a multipart upload the phone stored, with the ETag storage answered for each. */
export const CompleteFileBody = z
  .strictObject({
    parts: z
      .array(z.strictObject({ part_number: z.number().int().min(1).max(10_000), etag: z.string().min(1).max(200) }))
      .max(100)
      .optional(),
  })
  .openapi("CompleteCaptureFile", {
    description: t("The ETag storage answered for each part the phone sent.", "L'ETag répondu par le stockage pour chaque partie envoyée par le téléphone."),
  });

const SignedHeaders = z.record(z.string(), z.string()).openapi({
  description: t("Headers to send exactly as given (they are part of the signature).", "En-têtes à envoyer tels quels (ils font partie de la signature)."),
});

const UploadPart = z.strictObject({
  part_number: z.number().int(),
  method: z.literal("PUT"),
  url: z
    .string()
    .url()
    .openapi({
      description: t("Short-lived signed URL that writes this part and nothing else.", "URL signée de courte durée qui écrit cette partie et rien d'autre."),
    }),
  headers: SignedHeaders,
  offset: z
    .number()
    .int()
    .openapi({ description: t("First byte of the file in this part.", "Premier octet du fichier dans cette partie.") }),
  length: z
    .number()
    .int()
    .openapi({ description: t("Bytes in this part, exactly.", "Nombre exact d'octets de cette partie.") }),
});

const Upload = z
  .strictObject({
    parts: z.array(UploadPart),
    complete: z
      .strictObject({ method: z.literal("POST"), url: z.string().url() })
      .nullable()
      .openapi({
        description: t(
          "Multipart uploads only: where to assemble the parts once stored.",
          "Envois en plusieurs parties seulement : où assembler les parties une fois stockées.",
        ),
      }),
    expires_at: z.string().openapi({ description: t("When the signed URLs expire.", "Expiration des URL signées.") }),
    url: z
      .string()
      .url()
      .optional()
      .openapi({
        description: t(
          "Single-part files only: the one part's URL (CONTRACT.md's shape).",
          "Fichiers en une partie seulement : l'URL de l'unique partie (forme de CONTRACT.md).",
        ),
      }),
    method: z.literal("PUT").optional(),
    headers: SignedHeaders.optional(),
  })
  .openapi("CaptureUpload", {
    description: t(
      "Signed PUTs that write exactly the declared bytes, in one part or several; a single-part file also has `url`, `method` and `headers` at this level.",
      "PUT signés qui écrivent exactement les octets déclarés, en une ou plusieurs parties ; un fichier en une partie a aussi `url`, `method` et `headers` à ce niveau.",
    ),
  });

export const DeclaredFileSchema = z
  .strictObject({ file_id: z.string(), upload: Upload })
  .openapi("DeclaredCaptureFile", { description: t("The declared file and how to upload it.", "Le fichier déclaré et comment l'envoyer.") });

export const ReissuedUploadSchema = DeclaredFileSchema.extend({
  uploaded_parts: z
    .array(z.number().int())
    .openapi({ description: t("Parts storage already holds: send only the others.", "Parties déjà stockées : n'envoyer que les autres.") }),
}).openapi("ReissuedCaptureUpload", { description: t("New signed URLs for a declared file.", "Nouvelles URL signées pour un fichier déclaré.") });

export const CompletedFileSchema = z.strictObject({ file_id: z.string(), status: z.literal("uploaded") }).openapi("CompletedCaptureFile", {
  description: t("The file is assembled and matches its declaration.", "Le fichier est assemblé et conforme à sa déclaration."),
});

export const CompletedCaptureSchema = z
  .strictObject({
    proof_id: z.string(),
    session_id: z.string(),
    redirect_url: z
      .string()
      .url()
      .nullable()
      .openapi({
        description: t(
          "The session's `return_url` with `proof_id` and `session_id` appended, or null.",
          "Le `return_url` de la session avec `proof_id` et `session_id` ajoutés, ou null.",
        ),
      }),
  })
  .openapi("CompletedCapture", {
    description: t("The capture is finished; its proof is being sealed.", "La capture est terminée ; sa preuve est en cours de scellement."),
  });

const ResolvedText = z.strictObject({ title: z.string(), body: z.string().nullable() });

export const CaptureSessionViewSchema = z
  .object({
    session_id: z.string(),
    locale: z.string(),
    default_locale: z.string().openapi({
      description: t(
        "The template's default language: the page's own buttons fall back to it after the session's language and its base, before English.",
        "La langue par défaut du modèle : les boutons de la page s'y replient après la langue de la session et sa langue de base, avant l'anglais.",
      ),
    }),
    organization_name: z
      .string()
      .nullable()
      .openapi({ description: t("Who asks for the photos, shown on the welcome screen.", "Qui demande les photos, affiché sur l'écran d'accueil.") }),
    return_url: z
      .string()
      .nullable()
      .openapi({
        description: t(
          'The session\'s `return_url`: after completion the page sends the person there; when the link expired or an "after" was not accepted, it offers it (with `session_id` appended) as the way back to the organization.',
          "Le `return_url` de la session : après la fin, la page y envoie la personne ; quand le lien a expiré ou qu'un « après » n'a pas été accepté, elle le propose (avec `session_id` ajouté) pour revenir vers l'organisation.",
        ),
      }),
    mode: z.enum(["test", "live"]),
    status: z.literal("open"),
    expires_at: z.string(),
    server_time: z.string(),
    welcome: ResolvedText,
    completion: ResolvedText,
    steps: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        instruction: z.string(),
        required: z.boolean(),
        kind: z.enum(["photo", "video"]),
        min_count: z.number().int(),
        max_count: z.number().int(),
      }),
    ),
    ask_location: z.boolean(),
    theme: z.object({ primary_color: z.string(), logo_url: z.string().url().nullable() }),
    before_shots: z
      .record(z.string(), z.number().int())
      .nullable()
      .openapi({ description: t('For an "after": the before\'s number of shots per step.', "Pour un « après » : le nombre de prises de l'avant par étape.") }),
    before_thumbnails: z
      .array(z.object({ step_id: z.string(), url: z.string().url() }))
      .nullable()
      .openapi({
        description: t(
          'For an "after": a small picture of each of the before\'s shots, in capture order, served only behind this link (`GET /c/{token}/before/{file_id}`), so that the person can match the angles; videos and HEIC photos have none.',
          "Pour un « après » : une petite image de chaque prise de l'avant, dans l'ordre de prise, servie seulement derrière ce lien (`GET /c/{token}/before/{file_id}`), pour que la personne retrouve les angles ; les vidéos et photos HEIC n'en ont pas.",
        ),
      }),
    files: z.array(
      z.object({
        file_id: z.string(),
        step_id: z.string(),
        size: z.number().int(),
        sha256: z.string(),
        content_type: z.string(),
        status: z.enum(["declared", "uploaded"]),
      }),
    ),
  })
  .openapi("CaptureSessionView", {
    description: t(
      "The session as the capture page needs it, texts resolved to its language; fields may be added.",
      "La session telle que la page de capture en a besoin, textes résolus dans sa langue ; des champs peuvent s'ajouter.",
    ),
  });
