import type { PageLanguage } from "./page/messages.ts";

/**
 * What a proof proves, what only the device reported, and what it does not prove (docs/adr/0018): one
 * list of codes, the same in the public JSON, on the verification page and in VERIFY.md, each with its
 * text in the page's languages (the JSON and VERIFY.md carry English and French).
 */
export const CLAIM_TEXTS = {
  bytes_unchanged: {
    en: "These files are unchanged since the certified time: their fingerprints are in the list of sealed files (the manifest) that the timestamp certifies.",
    fr: "Ces fichiers sont inchangés depuis l'heure certifiée : leurs empreintes figurent dans la liste des fichiers scellés (le manifeste) que l'horodatage certifie.",
    es: "Estos archivos no han cambiado desde la hora certificada: sus huellas figuran en la lista de archivos sellados (el manifiesto) que certifica el sello de tiempo.",
    de: "Diese Dateien sind seit dem zertifizierten Zeitpunkt unverändert: Ihre Fingerabdrücke stehen in der Liste der versiegelten Dateien (dem Manifest), die der Zeitstempel bescheinigt.",
  },
  existed_by_timestamp: {
    en: "These files existed no later than the certified time, as the timestamp authority attests.",
    fr: "Ces fichiers existaient au plus tard à l'heure certifiée, comme l'atteste l'autorité d'horodatage.",
    es: "Estos archivos existían a más tardar a la hora certificada, según atestigua la autoridad de sellado de tiempo.",
    de: "Diese Dateien existierten spätestens zum zertifizierten Zeitpunkt, wie die Zeitstempelstelle bescheinigt.",
  },
  received_at: {
    en: "The service received each file at the time it recorded for it, by its own clock.",
    fr: "Le service a reçu chaque fichier à l'heure qu'il a relevée pour lui, selon sa propre horloge.",
    es: "El servicio recibió cada archivo a la hora que registró para él, según su propio reloj.",
    de: "Der Dienst hat jede Datei zu dem Zeitpunkt empfangen, den er für sie festhielt, nach seiner eigenen Uhr.",
  },
  capture_method: {
    en: "Whether each file was shot with the camera or chosen from the device's files, as the capture page reported it.",
    fr: "Si chaque fichier a été pris avec l'appareil photo ou choisi parmi les fichiers de l'appareil, selon la page de capture.",
    es: "Si cada archivo se tomó con la cámara o se eligió entre los archivos del dispositivo, según la página de captura.",
    de: "Ob jede Datei mit der Kamera aufgenommen oder aus den Dateien des Geräts gewählt wurde, laut Aufnahmeseite.",
  },
  device_time: {
    en: "The device's time of each shot.",
    fr: "L'heure de l'appareil lors de chaque prise.",
    es: "La hora del dispositivo en cada toma.",
    de: "Die Uhrzeit des Geräts bei jeder Aufnahme.",
  },
  device_location: {
    en: "The place and its accuracy, as the device's location service gave them.",
    fr: "Le lieu et sa précision, tels que le service de localisation de l'appareil les a donnés.",
    es: "El lugar y su precisión, tal como los dio el servicio de ubicación del dispositivo.",
    de: "Der Ort und seine Genauigkeit, wie der Ortungsdienst des Geräts sie angab.",
  },
  scene_content: {
    en: "What the pictures show: that the scene is real, complete or shown fairly.",
    fr: "Ce que montrent les images : que la scène est réelle, complète ou fidèlement montrée.",
    es: "Lo que muestran las imágenes: que la escena sea real, completa o mostrada fielmente.",
    de: "Was die Bilder zeigen: dass die Szene echt, vollständig oder fair dargestellt ist.",
  },
  camera_genuine: {
    en: "That a real camera took the shot: a web page cannot attest the camera.",
    fr: "Qu'un véritable appareil photo a pris la photo : une page web ne peut pas attester l'appareil photo.",
    es: "Que una cámara real tomó la foto: una página web no puede dar fe de la cámara.",
    de: "Dass eine echte Kamera die Aufnahme machte: Eine Webseite kann die Kamera nicht bezeugen.",
  },
  location_exact: {
    en: "That the location is exact, or was not altered on the device.",
    fr: "Que le lieu est exact, ou n'a pas été modifié sur l'appareil.",
    es: "Que la ubicación sea exacta, o no se haya alterado en el dispositivo.",
    de: "Dass der Ort genau ist oder auf dem Gerät nicht verändert wurde.",
  },
  test_no_legal_value: {
    en: "Anything at all: this is a test proof, signed by a test certificate with a simulated timestamp, of no legal value.",
    fr: "Quoi que ce soit : c'est une preuve de test, signée par un certificat de test avec un horodatage simulé, sans valeur légale.",
    es: "Nada en absoluto: es una prueba de test, firmada con un certificado de test y un sello de tiempo simulado, sin valor legal.",
    de: "Überhaupt nichts: Dies ist ein Testnachweis, mit einem Testzertifikat und simuliertem Zeitstempel signiert, ohne rechtlichen Wert.",
  },
} as const satisfies Record<string, Record<PageLanguage, string>>;

export type ClaimCode = keyof typeof CLAIM_TEXTS;
export const CLAIM_CODES = Object.keys(CLAIM_TEXTS) as [ClaimCode, ...ClaimCode[]];

export interface ProofClaims {
  proven: ClaimCode[];
  reported_by_device: ClaimCode[];
  not_proven: ClaimCode[];
}

/**
 * The claims of one proof. A test proof proves nothing (its timestamp is simulated); a pending or failed
 * one proves nothing yet. The device's location is listed only when some file reported one.
 */
export function proofClaims(proof: { mode: "test" | "live"; status: string }, files: { reported_by_device: { geolocation: unknown } }[]): ProofClaims {
  const located = files.some((file) => file.reported_by_device.geolocation !== null);
  const reported: ClaimCode[] = ["capture_method", "device_time", ...(located ? (["device_location"] as const) : [])];
  const notProven: ClaimCode[] = ["scene_content", "camera_genuine", ...(located ? (["location_exact"] as const) : [])];
  if (proof.mode === "test") return { proven: [], reported_by_device: reported, not_proven: ["test_no_legal_value", ...notProven] };
  if (proof.status !== "sealed") return { proven: [], reported_by_device: reported, not_proven: notProven };
  return { proven: ["bytes_unchanged", "existed_by_timestamp", "received_at"], reported_by_device: reported, not_proven: notProven };
}

/** The claims as the public JSON carries them: each code with its English and French text. */
export function publicClaims(claims: ProofClaims) {
  const texts = (codes: ClaimCode[]) => codes.map((code) => ({ code, en: CLAIM_TEXTS[code].en, fr: CLAIM_TEXTS[code].fr }));
  return { proven: texts(claims.proven), reported_by_device: texts(claims.reported_by_device), not_proven: texts(claims.not_proven) };
}
