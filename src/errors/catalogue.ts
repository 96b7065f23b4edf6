/**
 * Every error code the service can answer with, declared once: its HTTP status and its title in each
 * documentation language. Routes reference codes from here, the OpenAPI document lists them from here,
 * and `GET /errors/{slug}` describes them from here.
 */
export interface ErrorDefinition {
  status: number;
  title: { en: string; fr: string };
  description: { en: string; fr: string };
}

export const ERROR_CATALOGUE = {
  invalid_json: {
    status: 400,
    title: { en: "Malformed JSON body", fr: "Corps JSON mal formé" },
    description: { en: "The request body is not valid JSON.", fr: "Le corps de la requête n'est pas un JSON valide." },
  },
  payload_too_large: {
    status: 413,
    title: { en: "Request body too large", fr: "Corps de requête trop volumineux" },
    description: { en: "A JSON request body is at most 8 MiB.", fr: "Un corps de requête JSON fait au plus 8 Mio." },
  },
  unsupported_media_type: {
    status: 415,
    title: { en: "Unsupported media type", fr: "Type de média non pris en charge" },
    description: {
      en: "This route takes a JSON body: send it with `Content-Type: application/json`.",
      fr: "Cette route prend un corps JSON : envoyez-le avec `Content-Type: application/json`.",
    },
  },
  https_required: {
    status: 403,
    title: { en: "HTTPS required", fr: "HTTPS obligatoire" },
    description: {
      en: "Plain HTTP is only served on loopback addresses; use HTTPS.",
      fr: "Le HTTP non chiffré n'est servi que sur les adresses de bouclage ; utilisez HTTPS.",
    },
  },
  unauthenticated: {
    status: 401,
    title: { en: "Authentication required", fr: "Authentification requise" },
    description: {
      en: "The credential is missing, malformed, unknown or revoked.",
      fr: "L'identifiant est absent, mal formé, inconnu ou révoqué.",
    },
  },
  insufficient_balance: {
    status: 402,
    title: { en: "Insufficient balance", fr: "Solde insuffisant" },
    description: {
      en: "With a live key, the available balance cannot cover one more proof.",
      fr: "Avec une clé live, le solde disponible ne couvre pas une preuve de plus.",
    },
  },
  insufficient_scope: {
    status: 403,
    title: { en: "Insufficient scope", fr: "Droits insuffisants" },
    description: {
      en: "The API key lacks the right this route needs.",
      fr: "La clé d'API n'a pas le droit nécessaire à cette route.",
    },
  },
  not_found: {
    status: 404,
    title: { en: "Not found", fr: "Introuvable" },
    description: {
      en: "No route or resource at this address. Paths match exactly: `/v1/me/`, with a trailing slash, is not `/v1/me` and answers 404.",
      fr: "Aucune route ni ressource à cette adresse. Les chemins sont comparés exactement : `/v1/me/`, avec une barre oblique finale, n'est pas `/v1/me` et répond 404.",
    },
  },
  proof_not_found: {
    status: 404,
    title: { en: "Proof not found", fr: "Preuve introuvable" },
    description: {
      en: "The proof does not exist, or belongs to another organization or to the other mode.",
      fr: "La preuve n'existe pas, ou appartient à une autre organisation ou à l'autre mode.",
    },
  },
  method_not_allowed: {
    status: 405,
    title: { en: "Method not allowed", fr: "Méthode non autorisée" },
    description: {
      en: "The route exists but not with this HTTP method.",
      fr: "La route existe, mais pas avec cette méthode HTTP.",
    },
  },
  compare_to_already_used: {
    status: 409,
    title: { en: "Before proof already used", fr: "Preuve « avant » déjà utilisée" },
    description: {
      en: 'Another capture already took the same "before" proof.',
      fr: "Une autre capture a déjà pris la même preuve « avant ».",
    },
  },
  request_in_progress: {
    status: 409,
    title: { en: "Request in progress", fr: "Requête en cours" },
    description: {
      en: "A request with the same idempotency key is still being processed; retry after Retry-After seconds.",
      fr: "Une requête avec la même clé d'idempotence est encore en cours ; réessayez après Retry-After secondes.",
    },
  },
  rotation_in_progress: {
    status: 409,
    title: { en: "Rotation in progress", fr: "Rotation en cours" },
    description: {
      en: "Two secrets are already active; wait for the older one to expire.",
      fr: "Deux secrets sont déjà actifs ; attendez l'expiration du plus ancien.",
    },
  },
  capture_template_not_found: {
    status: 404,
    title: { en: "Capture template not found", fr: "Modèle de capture introuvable" },
    description: {
      en: "No capture template with this id in this organization and mode.",
      fr: "Aucun modèle de capture avec cet identifiant dans cette organisation et ce mode.",
    },
  },
  capture_theme_not_found: {
    status: 404,
    title: { en: "Capture theme not found", fr: "Thème de capture introuvable" },
    description: { en: "No capture theme with this id in this organization.", fr: "Aucun thème de capture avec cet identifiant dans cette organisation." },
  },
  capture_session_not_found: {
    status: 404,
    title: { en: "Capture session not found", fr: "Session de capture introuvable" },
    description: {
      en: "No capture session with this id in this organization and mode.",
      fr: "Aucune session de capture avec cet identifiant dans cette organisation et ce mode.",
    },
  },
  template_frozen: {
    status: 409,
    title: { en: "Template frozen", fr: "Modèle figé" },
    description: {
      en: "A live template from which sessions were created cannot change: duplicate it, edit the copy and use the copy's id.",
      fr: "Un modèle live ayant servi à créer des sessions ne peut plus changer : dupliquez-le, modifiez la copie et utilisez l'identifiant de la copie.",
    },
  },
  template_archived: {
    status: 409,
    title: { en: "Template archived", fr: "Modèle archivé" },
    description: { en: "An archived template cannot be edited.", fr: "Un modèle archivé ne peut pas être modifié." },
  },
  theme_archived: {
    status: 409,
    title: { en: "Theme archived", fr: "Thème archivé" },
    description: {
      en: "An archived theme cannot be edited, given a logo or made the default.",
      fr: "Un thème archivé ne peut pas être modifié, recevoir un logo ni devenir le thème par défaut.",
    },
  },
  theme_in_use: {
    status: 409,
    title: { en: "Theme in use", fr: "Thème utilisé" },
    description: {
      en: "A theme used by an active template cannot be archived.",
      fr: "Un thème utilisé par un modèle actif ne peut pas être archivé.",
    },
  },
  template_not_found: {
    status: 422,
    title: { en: "Template not found", fr: "Modèle introuvable" },
    description: {
      en: "`template_id` does not exist, is archived or belongs to the other mode.",
      fr: "`template_id` n'existe pas, est archivé ou appartient à l'autre mode.",
    },
  },
  template_conflict: {
    status: 409,
    title: { en: "Template conflict", fr: "Conflit de modèles" },
    description: {
      en: "Another active template of this mode already has the same `stage` and `category`; archive it or choose other values.",
      fr: "Un autre modèle actif de ce mode a déjà les mêmes `stage` et `category` ; archivez-le ou choisissez d'autres valeurs.",
    },
  },
  template_too_large: {
    status: 422,
    title: { en: "Template too large", fr: "Modèle trop volumineux" },
    description: {
      en: "A template's texts and steps take at most 500,000 bytes (UTF-8, as JSON); shorten them or use fewer languages.",
      fr: "Les textes et étapes d'un modèle occupent au plus 500 000 octets (UTF-8, en JSON) ; raccourcissez-les ou utilisez moins de langues.",
    },
  },
  too_many_languages: {
    status: 422,
    title: { en: "Too many languages", fr: "Trop de langues" },
    description: { en: "A template holds at most 20 languages.", fr: "Un modèle contient au plus 20 langues." },
  },
  logo_too_large: {
    status: 422,
    title: { en: "Logo too large", fr: "Logo trop volumineux" },
    description: { en: "A logo is at most 512 KiB.", fr: "Un logo fait au plus 512 Kio." },
  },
  logo_type_not_allowed: {
    status: 422,
    title: { en: "Logo type not allowed", fr: "Type de logo non autorisé" },
    description: {
      en: "A logo is a PNG, JPEG or WebP image, or an SVG without scripts or external references.",
      fr: "Un logo est une image PNG, JPEG ou WebP, ou un SVG sans script ni référence externe.",
    },
  },
  return_url_not_allowed: {
    status: 422,
    title: { en: "Return URL not allowed", fr: "URL de retour non autorisée" },
    description: {
      en: "The site of `return_url` is not in the allowed return origins (PATCH /v1/settings).",
      fr: "Le site de `return_url` n'est pas dans les origines de retour autorisées (PATCH /v1/settings).",
    },
  },
  compare_to_not_found: {
    status: 422,
    title: { en: "Before proof not found", fr: "Preuve « avant » introuvable" },
    description: {
      en: "`compare_to` names no proof of this organization and mode.",
      fr: "`compare_to` ne désigne aucune preuve de cette organisation et de ce mode.",
    },
  },
  compare_to_not_sealed: {
    status: 422,
    title: { en: "Before proof not sealed", fr: "Preuve « avant » non scellée" },
    description: { en: 'The "before" proof must be sealed first.', fr: "La preuve « avant » doit d'abord être scellée." },
  },
  compare_to_mismatch: {
    status: 422,
    title: { en: "Before proof mismatch", fr: "Preuve « avant » incompatible" },
    description: {
      en: 'The "before" proof has another `external_reference` or `party`.',
      fr: "La preuve « avant » a un autre `external_reference` ou une autre `party`.",
    },
  },
  compare_to_is_after: {
    status: 422,
    title: { en: "Before proof is an after", fr: "La preuve « avant » est un « après »" },
    description: {
      en: 'A proof that is itself an "after" cannot be compared to.',
      fr: "Une preuve qui est elle-même un « après » ne peut servir de comparaison.",
    },
  },
  compare_template_mismatch: {
    status: 422,
    title: { en: "Template differs from the before", fr: "Modèle différent de l'« avant »" },
    description: {
      en: 'The "after" uses the template of the "before", but `stage` and `category` select another active template.',
      fr: "L'« après » utilise le modèle de l'« avant », mais `stage` et `category` désignent un autre modèle actif.",
    },
  },
  capture_link_not_found: {
    status: 404,
    title: { en: "Capture link not found", fr: "Lien de capture introuvable" },
    description: { en: "No capture session has this link.", fr: "Aucune session de capture n'a ce lien." },
  },
  capture_link_expired: {
    status: 410,
    title: { en: "Capture link expired", fr: "Lien de capture expiré" },
    description: { en: "The capture link expired; ask for a new one.", fr: "Le lien de capture a expiré ; demandez-en un nouveau." },
  },
  capture_link_used: {
    status: 410,
    title: { en: "Capture link already used", fr: "Lien de capture déjà utilisé" },
    description: { en: "This capture was already completed.", fr: "Cette capture est déjà terminée." },
  },
  sealed_record_unavailable: {
    status: 409,
    title: { en: "Sealed record unavailable", fr: "Registre scellé indisponible" },
    description: {
      en: "The service's record of this sealed proof's files is missing, altered or unreadable in its storage, so its files cannot be served or packaged: the proof's verdict (GET /v1/public/proofs/{id}) says which, and is not verified. A conflict with the proof's stored state, not a fault of the request; it answers again once the operator restores the record.",
      fr: "Le registre que le service tient des fichiers de cette preuve scellée est absent, altéré ou illisible dans son stockage : ses fichiers ne peuvent être ni servis ni empaquetés. Le verdict de la preuve (GET /v1/public/proofs/{id}) dit lequel, et n'est pas vérifié. Un conflit avec l'état stocké de la preuve, non une faute de la requête ; elle répond de nouveau une fois le registre restauré par l'exploitant.",
    },
  },
  sealed_object_missing: {
    status: 409,
    title: { en: "Sealed object missing", fr: "Objet scellé absent" },
    description: {
      en: "An object the verification package carries (a signed file, an artifact of the sealing, the revocation data, the evidence record or a PDF report) is missing from the service's storage, so the package cannot be served whole: the detail names its entry in the package. A conflict with the proof's stored state, not a fault of the request; it answers again once the operator restores the object.",
      fr: "Un objet que porte le paquet de vérification (un fichier signé, un artefact du scellement, les données de révocation, l'enregistrement de preuve ou un rapport PDF) est absent du stockage du service : le paquet ne peut être servi entier. Le détail nomme son entrée dans le paquet. Un conflit avec l'état stocké de la preuve, non une faute de la requête ; il répond de nouveau une fois l'objet restauré par l'exploitant.",
    },
  },
  capture_file_not_found: {
    status: 404,
    title: { en: "Capture file not found", fr: "Fichier de capture introuvable" },
    description: { en: "No such file in this capture.", fr: "Aucun fichier de ce nom dans cette capture." },
  },
  thumbnail_not_found: {
    status: 404,
    title: { en: "Thumbnail not found", fr: "Vignette introuvable" },
    description: {
      en: "This file has no thumbnail: the service makes one at sealing only for photos it can decode (JPEG, PNG, WebP), never for a video or a HEIC photo. Open the signed file instead.",
      fr: "Ce fichier n'a pas de vignette : le service n'en fait une au scellement que pour les photos qu'il sait décoder (JPEG, PNG, WebP), jamais pour une vidéo ni une photo HEIC. Ouvrez plutôt le fichier signé.",
    },
  },
  thumbnail_altered: {
    status: 409,
    title: { en: "Thumbnail altered", fr: "Vignette altérée" },
    description: {
      en: "The thumbnail stored for this file is not the one made at sealing: its bytes are not those whose SHA-256 the proof's record keeps, or the record names it outside the proof's own folder. It is not served (nor kept by any cache); the signed file and the proof's verdict (GET /v1/public/proofs/{id}) say what was sealed. A conflict with the proof's stored state, not a fault of the request; it answers again once the operator restores the thumbnail.",
      fr: "La vignette stockée pour ce fichier n'est pas celle faite au scellement : ses octets ne sont pas ceux dont le registre de la preuve garde le SHA-256, ou le registre la situe hors du dossier de la preuve. Elle n'est pas servie (ni gardée par un cache) ; le fichier signé et le verdict de la preuve (GET /v1/public/proofs/{id}) disent ce qui a été scellé. Un conflit avec l'état stocké de la preuve, non une faute de la requête ; elle répond de nouveau une fois la vignette restaurée par l'exploitant.",
    },
  },
  report_not_ready: {
    status: 404,
    title: { en: "Report not made yet", fr: "Rapport pas encore établi" },
    description: {
      en: "The PDF report is made once the proof is sealed, and a before/after pair's once its after is sealed, usually within a minute; until then, and for a proof that has no after yet, there is none. Try again later.",
      fr: "Le rapport PDF est établi une fois la preuve scellée, et celui d'une paire avant/après une fois son après scellé, en général dans la minute ; d'ici là, et pour une preuve qui n'a pas encore d'après, il n'y en a pas. Réessayez plus tard.",
    },
  },
  step_not_found: {
    status: 422,
    title: { en: "Step not found", fr: "Étape introuvable" },
    description: { en: "The template has no step with this id.", fr: "Le modèle n'a pas d'étape avec cet identifiant." },
  },
  content_type_not_allowed: {
    status: 422,
    title: { en: "Content type not allowed", fr: "Type de contenu non autorisé" },
    description: {
      en: "Photos are JPEG, PNG, HEIC/HEIF or WebP; videos MP4, MOV or WebM; the type must match the step.",
      fr: "Les photos sont en JPEG, PNG, HEIC/HEIF ou WebP ; les vidéos en MP4, MOV ou WebM ; le type doit correspondre à l'étape.",
    },
  },
  verify_file_too_large: {
    status: 413,
    title: { en: "File too large to send", fr: "Fichier trop volumineux pour être envoyé" },
    description: {
      en: 'Verify by file takes at most 100 MB (100,000,000 bytes), the most Cloudflare accepts in a request body; for a larger file send its SHA-256 as JSON `{"sha256": "…"}`.',
      fr: 'La vérification par fichier prend au plus 100 Mo (100 000 000 octets), le maximum que Cloudflare accepte dans un corps de requête ; pour un fichier plus grand, envoyez son SHA-256 en JSON `{"sha256": "…"}`.',
    },
  },
  file_too_large: {
    status: 422,
    title: { en: "File too large", fr: "Fichier trop volumineux" },
    description: { en: "Photos are at most 25 MiB and videos 500 MiB.", fr: "Les photos font au plus 25 Mio et les vidéos 500 Mio." },
  },
  too_many_files: {
    status: 422,
    title: { en: "Too many files", fr: "Trop de fichiers" },
    description: { en: "The step already has its maximum number of shots.", fr: "L'étape a déjà son nombre maximal de prises." },
  },
  missing_required_steps: {
    status: 422,
    title: { en: "Steps incomplete", fr: "Étapes incomplètes" },
    description: {
      en: "Some steps lack shots (or have too many); `steps` lists them.",
      fr: "Certaines étapes manquent de prises (ou en ont trop) ; `steps` les énumère.",
    },
  },
  upload_incomplete: {
    status: 422,
    title: { en: "Upload incomplete", fr: "Envoi incomplet" },
    description: {
      en: "Some declared files are not in storage with their declared size; `files` lists them.",
      fr: "Certains fichiers déclarés ne sont pas dans le stockage avec leur taille déclarée ; `files` les énumère.",
    },
  },
  upload_url_invalid: {
    status: 403,
    title: { en: "Invalid upload URL", fr: "URL d'envoi invalide" },
    description: {
      en: "The signed URL is not one this service issued for this request.",
      fr: "L'URL signée n'a pas été émise par ce service pour cette requête.",
    },
  },
  upload_url_expired: {
    status: 410,
    title: { en: "Upload URL expired", fr: "URL d'envoi expirée" },
    description: { en: "The signed URL expired; ask for a new one.", fr: "L'URL signée a expiré ; demandez-en une nouvelle." },
  },
  upload_url_used: {
    status: 409,
    title: { en: "Upload URL already used", fr: "URL d'envoi déjà utilisée" },
    description: {
      en: "The file was already uploaded; the URL cannot write it again.",
      fr: "Le fichier a déjà été envoyé ; l'URL ne peut pas l'écrire de nouveau.",
    },
  },
  upload_size_mismatch: {
    status: 422,
    title: { en: "Upload size mismatch", fr: "Taille d'envoi incorrecte" },
    description: { en: "The body's length differs from the declared size.", fr: "La longueur du corps diffère de la taille déclarée." },
  },
  upload_checksum_mismatch: {
    status: 422,
    title: { en: "Upload checksum mismatch", fr: "Empreinte d'envoi incorrecte" },
    description: {
      en: "The bytes' SHA-256 differs from the declared one; storage refused them.",
      fr: "Le SHA-256 des octets diffère de celui déclaré ; le stockage les a refusés.",
    },
  },
  invalid_cursor: {
    status: 422,
    title: { en: "Invalid cursor", fr: "Curseur invalide" },
    description: {
      en: "The `cursor` was not issued by this API for this list, organization and mode, or was altered: cursors are opaque and signed. Send a `next_cursor` exactly as received, or start again from the first page without a cursor.",
      fr: "Le `cursor` n'a pas été émis par cette API pour cette liste, cette organisation et ce mode, ou a été modifié : les curseurs sont opaques et signés. Renvoyez un `next_cursor` tel que reçu, ou recommencez à la première page sans curseur.",
    },
  },
  invalid_webhook_url: {
    status: 422,
    title: { en: "Invalid webhook URL", fr: "URL de webhook invalide" },
    description: {
      en: "HTTPS only, a public domain name (no IP address, localhost or internal name), no credentials, no fragment, port 443 or above 1023, at most 2048 characters, written as it is read: `https://host/…` with no spaces around it and nothing the URL parser would repair into another scheme or host (`https:host`, `https:///host`, a backslash in the host).",
      fr: "HTTPS uniquement, un nom de domaine public (ni adresse IP, ni localhost, ni nom interne), sans identifiants ni fragment, port 443 ou supérieur à 1023, 2048 caractères au plus, écrite comme elle se lit : `https://hôte/…` sans espaces autour et sans rien que l'analyseur d'URL réparerait en un autre schéma ou hôte (`https:hôte`, `https:///hôte`, une barre oblique inverse dans l'hôte).",
    },
  },
  webhook_url_already_registered: {
    status: 422,
    title: { en: "Webhook URL already registered", fr: "URL de webhook déjà enregistrée" },
    description: {
      en: "Another endpoint of this mode already has this URL (compared in its serialised form): it would receive every event twice. Subscribe that endpoint to more events instead; `endpoint_id` names it.",
      fr: "Un autre point de terminaison de ce mode a déjà cette URL (comparée sous sa forme sérialisée) : il recevrait chaque événement deux fois. Abonnez plutôt ce point à plus d'événements ; `endpoint_id` le désigne.",
    },
  },
  webhook_endpoint_not_found: {
    status: 404,
    title: { en: "Webhook endpoint not found", fr: "Point de terminaison introuvable" },
    description: { en: "No webhook endpoint with this id in this mode.", fr: "Aucun point de terminaison avec cet identifiant dans ce mode." },
  },
  webhook_delivery_not_found: {
    status: 404,
    title: { en: "Webhook delivery not found", fr: "Livraison introuvable" },
    description: { en: "No webhook delivery with this id in this mode.", fr: "Aucune livraison avec cet identifiant dans ce mode." },
  },
  webhook_delivery_body_deleted: {
    status: 410,
    title: { en: "Delivery body deleted", fr: "Corps de la livraison supprimé" },
    description: {
      en: "This delivery's body was deleted after 30 days (retention), so it cannot be sent again.",
      fr: "Le corps de cette livraison a été supprimé après 30 jours (conservation) : elle ne peut plus être renvoyée.",
    },
  },
  webhook_delivery_not_retryable: {
    status: 409,
    title: { en: "Webhook delivery not retryable", fr: "Livraison non renvoyable" },
    description: {
      en: "Only an abandoned delivery, or one waiting for its next retry, can be sent again; a pending one is already on its way and a succeeded one was received.",
      fr: "Seule une livraison abandonnée, ou en attente de sa prochaine tentative, peut être renvoyée ; une livraison en cours est déjà en route et une livraison réussie a été reçue.",
    },
  },
  webhook_endpoint_disabled: {
    status: 409,
    title: { en: "Webhook endpoint disabled", fr: "Point de terminaison désactivé" },
    description: {
      en: "A disabled endpoint receives nothing, test events and manual retries included: enable it again (PATCH with `status: active`) first.",
      fr: "Un point de terminaison désactivé ne reçoit rien, ni événement de test ni renvoi manuel : réactivez-le d'abord (PATCH avec `status: active`).",
    },
  },
  webhook_endpoint_deleted: {
    status: 409,
    title: { en: "Webhook endpoint deleted", fr: "Point de terminaison supprimé" },
    description: {
      en: "The delivery's endpoint was deleted: nothing can be sent to it any more. The delivery stays in the log.",
      fr: "Le point de terminaison de la livraison a été supprimé : plus rien ne peut lui être envoyé. La livraison reste dans le journal.",
    },
  },
  webhook_endpoint_limit_reached: {
    status: 409,
    title: { en: "Too many webhook endpoints", fr: "Trop de points de terminaison" },
    description: {
      en: "At most 10 webhook endpoints per mode: delete one before creating another. A documented deviation: the specification lists 401, 403, 422, 429 and 503 for this route, not 409; the body is valid, the endpoints already there refuse it, which is a conflict.",
      fr: "Au plus 10 points de terminaison par mode : supprimez-en un avant d'en créer un autre. Un écart documenté : la spécification indique 401, 403, 422, 429 et 503 pour cette route, pas 409 ; le corps est valide, ce sont les points déjà présents qui le refusent, ce qui est un conflit.",
    },
  },
  debit_exceeds_available_balance: {
    status: 409,
    title: { en: "Debit exceeds the available balance", fr: "Débit supérieur au solde disponible" },
    description: {
      en: "An operator debit may take at most the available balance (the balance minus the proofs already promised): the balance never goes below zero.",
      fr: "Un débit de l'opérateur prend au plus le solde disponible (le solde moins les preuves déjà promises) : le solde ne passe jamais sous zéro.",
    },
  },
  shard_not_open: {
    status: 422,
    title: { en: "Shard not open", fr: "Partition non ouverte" },
    description: {
      en: "Operator API: the `shard` named is not one new organizations or write shards are placed on (`OPEN_SHARDS`): this deployment has no such shard, or it is closed to new organizations. Leave `shard` out to place the organization on the open shard with the fewest organizations.",
      fr: "API d'exploitation : la `shard` nommée n'est pas une de celles où sont placées les nouvelles organisations ou partitions d'écriture (`OPEN_SHARDS`) : ce déploiement n'a pas cette partition, ou elle est fermée aux nouvelles organisations. Omettez `shard` pour placer l'organisation sur la partition ouverte qui compte le moins d'organisations.",
    },
  },
  shard_already_in_organization: {
    status: 409,
    title: { en: "Shard already in the organization", fr: "Partition déjà dans l'organisation" },
    description: {
      en: "Operator API: the organization already lives on this shard (its home) or wrote an earlier period to it; a write shard is a shard it has never written to. Adding its latest write shard again answers as the first time.",
      fr: "API d'exploitation : l'organisation vit déjà sur cette partition (la sienne) ou y a écrit une période antérieure ; une partition d'écriture est une partition où elle n'a jamais écrit. Ajouter à nouveau sa dernière partition d'écriture répond comme la première fois.",
    },
  },
  validation_failed: {
    status: 422,
    title: { en: "Validation failed", fr: "Validation échouée" },
    description: {
      en: "A field breaks the schema; `field` is a JSON pointer to it.",
      fr: "Un champ ne respecte pas le schéma ; `field` le désigne par un pointeur JSON.",
    },
  },
  idempotency_key_reused: {
    status: 422,
    title: { en: "Idempotency key reused", fr: "Clé d'idempotence réutilisée" },
    description: {
      en: "The idempotency key was already used with a different request body.",
      fr: "La clé d'idempotence a déjà servi avec un autre corps de requête.",
    },
  },
  rate_limited: {
    status: 429,
    title: { en: "Rate limit exceeded", fr: "Limite de débit dépassée" },
    description: {
      en: "Too many requests for this key in the current minute; retry after Retry-After seconds.",
      fr: "Trop de requêtes pour cette clé dans la minute en cours ; réessayez après Retry-After secondes.",
    },
  },
  internal_error: {
    status: 500,
    title: { en: "Internal error", fr: "Erreur interne" },
    description: {
      en: "An unexpected error; it was logged with the request id.",
      fr: "Une erreur inattendue ; elle a été journalisée avec l'identifiant de requête.",
    },
  },
  service_misconfigured: {
    status: 503,
    title: { en: "Service misconfigured", fr: "Service mal configuré" },
    description: {
      en: "The service's configuration is incomplete or wrong (the detail names the settings); its operator must fix it.",
      fr: "La configuration du service est incomplète ou erronée (le détail nomme les réglages) ; son exploitant doit la corriger.",
    },
  },
  service_unavailable: {
    status: 503,
    title: { en: "Service unavailable", fr: "Service indisponible" },
    description: {
      en: "A dependency is unavailable; retry later.",
      fr: "Une dépendance est indisponible ; réessayez plus tard.",
    },
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The slug used in the problem `type` URL: the code with hyphens. */
export function errorSlug(code: ErrorCode): string {
  return code.replaceAll("_", "-");
}

export function codeFromSlug(slug: string): ErrorCode | null {
  const code = slug.replaceAll("-", "_");
  return code in ERROR_CATALOGUE ? (code as ErrorCode) : null;
}
