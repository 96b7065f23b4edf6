import { z } from "@hono/zod-openapi";
import { t } from "../../openapi/translations.ts";
import { ModeSchema } from "../../auth/mode.ts";
import { ProofFileSchema, ProofSealSchema, TimestampSchema } from "../proofs/schema.ts";
import { CLAIM_CODES } from "../../verification/claims.ts";

export const VerificationSchema = z
  .strictObject({
    status: z.enum(["valid", "invalid", "pending", "failed"]).openapi({
      description: t(
        "`valid` only when the verdict is `verified`; any other verdict of a sealed proof is `invalid` (`altered` among them); `pending` while sealing, `failed` when it could not be sealed.",
        "`valid` seulement quand le verdict est `verified` ; tout autre verdict d'une preuve scellée est `invalid` (`altered` compris) ; `pending` pendant le scellement, `failed` quand elle n'a pas pu être scellée.",
      ),
    }),
    verdict: z.enum(["verified", "not_verified", "origin_not_established", "altered", "pending"]).openapi({
      description: t(
        "The verdict of the one verification core that proof-verify and VERIFY.md share, with the roots this service publishes (GET /v1/public/trust-anchors) pinned. `altered`: the only failures are signed files whose stored copy no longer has the hash it was sealed with, as the service's re-hash found it.",
        "Le verdict du noyau de vérification unique que partagent proof-verify et VERIFY.md, avec les racines que publie ce service (GET /v1/public/trust-anchors) épinglées. `altered` : les seuls échecs sont des fichiers signés dont la copie stockée n'a plus l'empreinte scellée, selon la nouvelle empreinte calculée par le service.",
      ),
    }),
    test_mode: z.boolean().openapi({
      description: t("A test proof: its timestamp is simulated and proves nothing.", "Une preuve de test : son horodatage est simulé et ne prouve rien."),
    }),
    files_checked_at: z
      .string()
      .nullable()
      .openapi({
        description: t(
          "When the stored signed files were last checked: the oldest latest re-hash of the proof's files (a sweep re-hashes every stored object in turn), or the sealing for a file not re-hashed yet. null unless sealed.",
          "Quand les fichiers signés stockés ont été vérifiés pour la dernière fois : la plus ancienne des dernières empreintes recalculées des fichiers de la preuve (une tâche périodique recalcule tour à tour l'empreinte de chaque objet stocké), ou le scellement pour un fichier pas encore revérifié. null tant qu'elle n'est pas scellée.",
        ),
      }),
    checks: z.array(
      z.strictObject({
        name: z.string().openapi({
          description: t(
            "Stable snake_case, the same in proof-verify and VERIFY.md; per file suffixed with `:<file id>` (file_hash, file_c2pa, file_names_proof, file_original).",
            "En snake_case stable, le même dans proof-verify et VERIFY.md ; par fichier, suivi de `:<id du fichier>` (file_hash, file_c2pa, file_names_proof, file_original).",
          ),
        }),
        result: z.enum(["pass", "fail", "not_checked"]),
        detail: z.string(),
      }),
    ),
  })
  .openapi("Verification", {
    description: t(
      "The result of verifying the proof again on each request from what is stored now: its artifacts as they are, and each signed file as the latest re-hash found it.",
      "Le résultat d'une nouvelle vérification de la preuve à chaque requête à partir de ce qui est stocké : ses éléments tels qu'ils sont, et chaque fichier signé tel que l'a trouvé la dernière empreinte recalculée.",
    ),
  });

const ClaimSchema = z.strictObject({ code: z.enum(CLAIM_CODES), en: z.string(), fr: z.string() });

export const ClaimsSchema = z
  .strictObject({
    proven: z.array(ClaimSchema),
    reported_by_device: z.array(ClaimSchema),
    not_proven: z.array(ClaimSchema),
  })
  .openapi("Claims", {
    description: t(
      "What the proof proves, what only the device reported, and what it does not prove: the same codes as the verification page and VERIFY.md.",
      "Ce que la preuve prouve, ce que seul l'appareil a déclaré, et ce qu'elle ne prouve pas : les mêmes codes que la page de vérification et VERIFY.md.",
    ),
  });

/** A sealed PDF report as the public JSON names it (docs/adr/0056), or null while it is not made. */
const sealedReport = (description: string) => z.strictObject({ sha256: z.string(), url: z.string() }).nullable().openapi({ description });

export const PublicProofSchema = z
  .strictObject({
    id: z.string(),
    status: z.enum(["pending", "sealed", "failed"]),
    mode: ModeSchema,
    external_reference: z.string(),
    party: z.string(),
    stage: z.string().nullable(),
    category: z.string().nullable(),
    compare_to: z.string().nullable(),
    compared_by: z.string().nullable(),
    files: z.array(
      ProofFileSchema.extend({
        url: z.string().openapi({ description: t("The signed file.", "Le fichier signé.") }),
        thumbnail_url: z
          .string()
          .nullable()
          .openapi({
            description: t(
              "A light thumbnail the service made from the signed file at sealing (WebP, at most 480 px and 100 KB); null for videos, HEIC photos and proofs not sealed, and once the service's re-hash found the stored thumbnail other than the one made at sealing (never shown as the proof's picture).",
              "Une vignette légère que le service a faite à partir du fichier signé au scellement (WebP, au plus 480 px et 100 Ko) ; null pour les vidéos, les photos HEIC et les preuves non scellées, et dès que la nouvelle empreinte calculée par le service montre que la vignette stockée n'est pas celle faite au scellement (jamais montrée comme l'image de la preuve).",
            ),
          }),
      }),
    ),
    timestamp: TimestampSchema.nullable(),
    manifest_sha256: z.string().nullable(),
    seal: ProofSealSchema,
    trust_anchors: z
      .strictObject({ timestamp_authority_root_sha256: z.string().nullable(), c2pa_root_sha256: z.string().nullable() })
      .nullable()
      .openapi({
        description: t(
          "SHA-256 of the roots the proof's timestamp and C2PA signatures chain to (null until sealed). Compare them with a source independent of the package: GET /v1/public/trust-anchors, the authority's own publication, the EU Trusted List.",
          "SHA-256 des racines auxquelles remontent l'horodatage et les signatures C2PA de la preuve (null avant le scellement). Comparez-les avec une source indépendante du paquet : GET /v1/public/trust-anchors, la publication de l'autorité elle-même, la liste de confiance de l'UE.",
        ),
      }),
    revocation: z
      .array(
        z.strictObject({
          chain: z.enum(["tsa", "c2pa", "seal"]),
          position: z.number().int(),
          subject: z.string(),
          serial: z.string(),
          status: z.enum(["captured", "unavailable"]),
          source: z.string().nullable(),
          captured_at: z.string(),
          this_update: z.string().nullable(),
          next_update: z.string().nullable(),
          reason: z.string().nullable(),
          certificate: z.string(),
          crl: z.string().nullable(),
        }),
      )
      .nullable()
      .openapi({
        description: t(
          "The revocation data the package holds (revocation/index.json), captured at sealing and listed by the seal (manifest.p7s): for the timestamp authority's certificate (tsa), the C2PA signing certificate (c2pa) and the proof seal's certificate (seal), position 1 being the signer's and 2 an intermediate's, the CRL its issuer published at `source`, fetched at `captured_at`, with its thisUpdate and nextUpdate, and the package's file names of the certificate and the CRL; `unavailable` with its `reason` when none could be captured, never as if it held. null: not sealed, sealed before revocation data was captured, or its stored index is not one (damaged in storage: the verification's `revocation` check then fails).",
          "Les données de révocation que contient le paquet (revocation/index.json), recueillies au scellement et listées par le sceau (manifest.p7s) : pour le certificat de l'autorité d'horodatage (tsa), le certificat de signature C2PA (c2pa) et le certificat du sceau de la preuve (seal), la position 1 étant celui du signataire et 2 celui d'un intermédiaire, la CRL que son émetteur publiait à `source`, récupérée à `captured_at`, avec son thisUpdate et son nextUpdate, et les noms dans le paquet du certificat et de la CRL ; `unavailable` avec sa raison (`reason`) quand aucune n'a pu être recueillie, jamais comme si elle tenait. null : pas encore scellée, scellée avant que les données de révocation ne soient recueillies, ou son index stocké n'en est pas un (endommagé dans le stockage : la vérification `revocation` échoue alors).",
        ),
      }),
    evidence_record: z
      .strictObject({ file: z.literal("evidence-record.ers"), archive_timestamps: z.number().int(), last_renewed_at: z.string(), authority: z.string() })
      .nullable()
      .openapi({
        description: t(
          "The RFC 4998 evidence record the package carries (evidence-record.ers): archive timestamps over the manifest, the token and the revocation data, batched over many proofs and renewed before each authority certificate expires, so the proof stays checkable after its certificates expire. `last_renewed_at` is the latest archive timestamp's time, `authority` who made it (a test proof's is the simulated test authority). null: not sealed, or before its first archive timestamp (within about an hour of sealing).",
          "L'enregistrement de preuve RFC 4998 que contient le paquet (evidence-record.ers) : des horodatages d'archive sur le manifeste, le jeton et les données de révocation, groupés sur de nombreuses preuves et renouvelés avant l'expiration de chaque certificat d'autorité, pour que la preuve reste vérifiable après l'expiration de ses certificats. `last_renewed_at` est l'heure du dernier horodatage d'archive, `authority` qui l'a fait (pour une preuve de test, l'autorité de test simulée). null : pas encore scellée, ou avant son premier horodatage d'archive (dans l'heure environ qui suit le scellement).",
        ),
      }),
    report: sealedReport(
      t(
        "The proof's sealed PDF report (GET …/report.pdf), its SHA-256 to compare a copy with (POST /v1/public/verify also finds it); null until made, within about a minute of sealing.",
        "Le rapport PDF scellé de la preuve (GET …/report.pdf), son SHA-256 pour y comparer une copie (POST /v1/public/verify le retrouve aussi) ; null tant qu'il n'est pas établi, dans la minute environ qui suit le scellement.",
      ),
    ),
    pair_report: sealedReport(
      t(
        "The sealed PDF report of the before/after pair the proof belongs to (GET …/pair-report.pdf, from either proof; the after's package carries it); null for a proof in no pair, or until made.",
        "Le rapport PDF scellé de la paire avant/après dont fait partie la preuve (GET …/pair-report.pdf, depuis l'une ou l'autre ; le paquet de l'après le contient) ; null pour une preuve hors paire, ou tant qu'il n'est pas établi.",
      ),
    ),
    sealed_at: z.string().nullable(),
    package_url: z.string(),
    verification_url: z.string(),
    verification: VerificationSchema,
    claims: ClaimsSchema,
  })
  .openapi("PublicProof", { description: t("What anyone may know of a proof to verify it.", "Ce que chacun peut savoir d'une preuve pour la vérifier.") });

export const PublicProofParams = z.object({
  id: z
    .string()
    .max(80)
    .openapi({ param: { name: "id", in: "path" }, description: t("Proof identifier.", "Identifiant de la preuve.") }),
});

export const PublicFileParams = PublicProofParams.extend({
  file_id: z
    .string()
    .max(80)
    .openapi({ param: { name: "file_id", in: "path" }, description: t("File identifier.", "Identifiant du fichier.") }),
});

/** Bytes, not JSON: a signed file, a package, or the file to verify. */
export const BinarySchema = z.string().openapi({ format: "binary" });

export const FileMatchSchema = z
  .strictObject({
    proof_id: z.string(),
    file_id: z
      .string()
      .nullable()
      .openapi({
        description: t(
          "The matching file; null when the match is a sealed report.",
          "Le fichier correspondant ; null quand c'est un rapport scellé qui correspond.",
        ),
      }),
    match: z.enum(["original", "signed", "report", "pair_report"]).openapi({
      description: t(
        "Which of the file's two forms matched, or `report` (the proof's sealed PDF report) or `pair_report` (the sealed report of the before/after pair whose after is `proof_id`).",
        "Laquelle des deux formes du fichier correspond, ou `report` (le rapport PDF scellé de la preuve) ou `pair_report` (le rapport scellé de la paire avant/après dont l'après est `proof_id`).",
      ),
    }),
    verification: VerificationSchema,
    verification_url: z.string(),
  })
  .openapi("FileMatch", { description: t("A proof holding the file.", "Une preuve contenant le fichier.") });

/** The proof whose original files a look-up may answer for (docs/adr/0060), in the JSON body or the query. */
const OriginalOfSchema = z
  .string()
  .max(64)
  .openapi({
    description: t(
      "The proof whose original files (as received, `match: original`) may match; without it only signed files and reports match, since the same original bytes may be in anyone's proof.",
      "La preuve dont les fichiers originaux (tels que reçus, `match: original`) peuvent correspondre ; sans elle seuls les fichiers signés et les rapports correspondent, car les mêmes octets originaux peuvent être dans la preuve de n'importe qui.",
    ),
  });

export const VerifyBySha256Schema = z
  .strictObject({ sha256: z.string().regex(/^[0-9a-fA-F]{64}$/), proof_id: OriginalOfSchema.optional() })
  .openapi("VerifyBySha256");

export const VerifyQuerySchema = z.object({ proof_id: OriginalOfSchema.optional() });

export const FileMatchesSchema = z.strictObject({ data: z.array(FileMatchSchema) }).openapi("FileMatches");
