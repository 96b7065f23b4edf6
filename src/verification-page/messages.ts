/** Texts of the public verification page, per language. */
export const PAGE_LANGUAGES = ["en", "fr", "es", "de"] as const;
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

export const PAGE_MESSAGES: Record<PageLanguage, Record<string, string>> = {
  en: {
    claimsProven: "What this proof proves", claimsReported: "What only the device reported", claimsNotProven: "What this proof does not prove", observed: "Observed by the service", receivedAt: "Received", reportedByDevice: "Reported by the device (not checked)", method: "Method", camera: "camera (as the capture page reported it)", file: "file chosen from the device", unknown: "not reported", deviceTime: "Device time", location: "Location", accuracy: "accuracy", signals: "Signals to weigh", earlierCredentials: "Came with earlier Content Credentials",
    title: "Sealed proof", valid: "Verified: this proof is intact.", invalid: "Warning: this proof failed verification.", pending: "This proof is being sealed.", failed: "This proof could not be sealed.",
    testBanner: "Test proof: simulated timestamp, no legal value.", reference: "Reference", party: "Captured by", provider: "the provider", recipient: "the recipient", stage: "Stage",
    sealedAt: "Timestamp", qualified: "eIDAS qualified timestamp", notQualified: "not a qualified timestamp", authority: "Authority", files: "Files", original: "Original SHA-256", signed: "Signed SHA-256",
    download: "Download the verification package", command: "Check the timestamp yourself", copy: "Copy", copied: "Copied",
    checkTitle: "Check a file", checkHelp: "Choose a file: it is hashed on your device and never uploaded.", belongs: "This file belongs to this proof.", notBelongs: "This file is not part of this proof.",
    before: "Before", after: "After", comparedWith: "Compared with", checks: "Checks", language: "Language", notFoundTitle: "Proof not found", notFoundBody: "No proof has this identifier. Check the link you were given; proof identifiers start with prf_.",
  },
  fr: {
    claimsProven: "Ce que cette preuve prouve", claimsReported: "Ce que seul l'appareil a déclaré", claimsNotProven: "Ce que cette preuve ne prouve pas", observed: "Constaté par le service", receivedAt: "Reçu", reportedByDevice: "Déclaré par l'appareil (non vérifié)", method: "Méthode", camera: "appareil photo (selon la page de capture)", file: "fichier choisi sur l'appareil", unknown: "non déclarée", deviceTime: "Heure de l'appareil", location: "Lieu", accuracy: "précision", signals: "Signaux à peser", earlierCredentials: "Déjà porteur de Content Credentials",
    title: "Preuve scellée", valid: "Vérifiée : cette preuve est intacte.", invalid: "Attention : cette preuve a échoué à la vérification.", pending: "Cette preuve est en cours de scellement.", failed: "Cette preuve n'a pas pu être scellée.",
    testBanner: "Preuve de test : horodatage simulé, sans valeur légale.", reference: "Référence", party: "Capturée par", provider: "le prestataire", recipient: "le destinataire", stage: "Étape",
    sealedAt: "Horodatage", qualified: "horodatage qualifié eIDAS", notQualified: "horodatage non qualifié", authority: "Autorité", files: "Fichiers", original: "SHA-256 d'origine", signed: "SHA-256 signé",
    download: "Télécharger le paquet de vérification", command: "Vérifiez l'horodatage vous-même", copy: "Copier", copied: "Copié",
    checkTitle: "Vérifier un fichier", checkHelp: "Choisissez un fichier : il est haché sur votre appareil et jamais envoyé.", belongs: "Ce fichier appartient à cette preuve.", notBelongs: "Ce fichier ne fait pas partie de cette preuve.",
    before: "Avant", after: "Après", comparedWith: "Comparée avec", checks: "Contrôles", language: "Langue", notFoundTitle: "Preuve introuvable", notFoundBody: "Aucune preuve ne porte cet identifiant. Vérifiez le lien reçu ; les identifiants de preuve commencent par prf_.",
  },
  es: {
    claimsProven: "Lo que esta prueba demuestra", claimsReported: "Lo que solo declaró el dispositivo", claimsNotProven: "Lo que esta prueba no demuestra", observed: "Constatado por el servicio", receivedAt: "Recibido", reportedByDevice: "Declarado por el dispositivo (sin comprobar)", method: "Método", camera: "cámara (según la página de captura)", file: "archivo elegido en el dispositivo", unknown: "no declarado", deviceTime: "Hora del dispositivo", location: "Ubicación", accuracy: "precisión", signals: "Señales a valorar", earlierCredentials: "Llegó con Content Credentials anteriores",
    title: "Prueba sellada", valid: "Verificada: esta prueba está intacta.", invalid: "Atención: esta prueba no superó la verificación.", pending: "Esta prueba se está sellando.", failed: "No se pudo sellar esta prueba.",
    testBanner: "Prueba de test: sello de tiempo simulado, sin valor legal.", reference: "Referencia", party: "Capturada por", provider: "el proveedor", recipient: "el destinatario", stage: "Etapa",
    sealedAt: "Sello de tiempo", qualified: "sello de tiempo cualificado eIDAS", notQualified: "sello de tiempo no cualificado", authority: "Autoridad", files: "Archivos", original: "SHA-256 original", signed: "SHA-256 firmado",
    download: "Descargar el paquete de verificación", command: "Compruebe el sello de tiempo usted mismo", copy: "Copiar", copied: "Copiado",
    checkTitle: "Comprobar un archivo", checkHelp: "Elija un archivo: se calcula su huella en su dispositivo y nunca se envía.", belongs: "Este archivo pertenece a esta prueba.", notBelongs: "Este archivo no forma parte de esta prueba.",
    before: "Antes", after: "Después", comparedWith: "Comparada con", checks: "Controles", language: "Idioma", notFoundTitle: "Prueba no encontrada", notFoundBody: "Ninguna prueba tiene este identificador. Compruebe el enlace recibido; los identificadores de prueba empiezan por prf_.",
  },
  de: {
    claimsProven: "Was dieser Nachweis beweist", claimsReported: "Was nur das Gerät angab", claimsNotProven: "Was dieser Nachweis nicht beweist", observed: "Vom Dienst festgestellt", receivedAt: "Empfangen", reportedByDevice: "Vom Gerät angegeben (nicht geprüft)", method: "Methode", camera: "Kamera (laut Aufnahmeseite)", file: "auf dem Gerät gewählte Datei", unknown: "nicht angegeben", deviceTime: "Gerätezeit", location: "Ort", accuracy: "Genauigkeit", signals: "Zu gewichtende Hinweise", earlierCredentials: "Kam mit früheren Content Credentials",
    title: "Versiegelter Nachweis", valid: "Geprüft: Dieser Nachweis ist unverändert.", invalid: "Achtung: Dieser Nachweis hat die Prüfung nicht bestanden.", pending: "Dieser Nachweis wird versiegelt.", failed: "Dieser Nachweis konnte nicht versiegelt werden.",
    testBanner: "Testnachweis: simulierter Zeitstempel, ohne rechtlichen Wert.", reference: "Referenz", party: "Aufgenommen von", provider: "dem Anbieter", recipient: "dem Empfänger", stage: "Phase",
    sealedAt: "Zeitstempel", qualified: "qualifizierter eIDAS-Zeitstempel", notQualified: "kein qualifizierter Zeitstempel", authority: "Stelle", files: "Dateien", original: "SHA-256 des Originals", signed: "SHA-256 der signierten Datei",
    download: "Prüfpaket herunterladen", command: "Zeitstempel selbst prüfen", copy: "Kopieren", copied: "Kopiert",
    checkTitle: "Datei prüfen", checkHelp: "Wählen Sie eine Datei: Sie wird auf Ihrem Gerät gehasht und nie hochgeladen.", belongs: "Diese Datei gehört zu diesem Nachweis.", notBelongs: "Diese Datei gehört nicht zu diesem Nachweis.",
    before: "Vorher", after: "Nachher", comparedWith: "Verglichen mit", checks: "Prüfungen", language: "Sprache", notFoundTitle: "Nachweis nicht gefunden", notFoundBody: "Kein Nachweis hat diese Kennung. Prüfen Sie den erhaltenen Link; Nachweiskennungen beginnen mit prf_.",
  },
};

/** `?lang=` first, then the first supported language of Accept-Language, then English. */
export function pageLanguage(query: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  const candidates = [query ?? "", ...(acceptLanguage ?? "").split(",").map((part) => part.split(";")[0]!.trim())];
  for (const candidate of candidates) {
    const base = candidate.toLowerCase().split("-")[0] as PageLanguage;
    if (PAGE_LANGUAGES.includes(base)) return base;
  }
  return "en";
}
