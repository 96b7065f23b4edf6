// @ts-check
/** The capture page's own buttons and messages; the template's texts arrive already translated. */
const MESSAGES = {
  en: {
    start: "Start", shutter: "Take photo", record: "Record", stop: "Stop", useFile: "Choose a file instead", next: "Next", back: "Back",
    finish: "Finish and send", retake: "Retake", delete: "Delete", shots: "{n} taken (min {min}, max {max})", beforeShots: "At least {n} as in the first capture",
    uploading: "Uploading {done} of {total}", uploaded: "All files sent", waiting: "Waiting for the connection…", retrying: "Network problem, retrying in {s} s",
    cameraDenied: "The camera could not be opened. You can choose files instead.", finishing: "Sealing…", redirect: "Returning in {s} s…",
    expired: "This capture link has expired. Ask for a new one.", used: "This capture is already complete. Thank you.", notFound: "This capture link is not valid.",
    alreadyUsed: "Another capture was already recorded for this item.", error: "Something went wrong. Please try again.", tryAgain: "Try again",
    locationAsk: "May we record where the photos are taken? It strengthens the proof.", locationYes: "Share my location", locationNo: "No thanks",
    step: "Step {i} of {n}", incomplete: "Some steps still need photos.", testMode: "Test mode",
  },
  fr: {
    start: "Commencer", shutter: "Prendre la photo", record: "Filmer", stop: "Arrêter", useFile: "Choisir un fichier", next: "Suivant", back: "Retour",
    finish: "Terminer et envoyer", retake: "Reprendre", delete: "Supprimer", shots: "{n} prise(s) (min {min}, max {max})", beforeShots: "Au moins {n} comme lors de la première capture",
    uploading: "Envoi {done} sur {total}", uploaded: "Tous les fichiers sont envoyés", waiting: "En attente de connexion…", retrying: "Problème de réseau, nouvel essai dans {s} s",
    cameraDenied: "L'appareil photo n'a pas pu s'ouvrir. Vous pouvez choisir des fichiers.", finishing: "Scellement…", redirect: "Retour dans {s} s…",
    expired: "Ce lien de capture a expiré. Demandez-en un nouveau.", used: "Cette capture est déjà terminée. Merci.", notFound: "Ce lien de capture n'est pas valide.",
    alreadyUsed: "Une autre capture a déjà été enregistrée pour cet objet.", error: "Un problème est survenu. Veuillez réessayer.", tryAgain: "Réessayer",
    locationAsk: "Pouvons-nous enregistrer le lieu des photos ? Cela renforce la preuve.", locationYes: "Partager ma position", locationNo: "Non merci",
    step: "Étape {i} sur {n}", incomplete: "Certaines étapes demandent encore des photos.", testMode: "Mode test",
  },
  es: {
    start: "Empezar", shutter: "Tomar foto", record: "Grabar", stop: "Detener", useFile: "Elegir un archivo", next: "Siguiente", back: "Atrás",
    finish: "Terminar y enviar", retake: "Repetir", delete: "Eliminar", shots: "{n} tomada(s) (mín {min}, máx {max})", beforeShots: "Al menos {n} como en la primera captura",
    uploading: "Enviando {done} de {total}", uploaded: "Todos los archivos enviados", waiting: "Esperando conexión…", retrying: "Problema de red, reintento en {s} s",
    cameraDenied: "No se pudo abrir la cámara. Puede elegir archivos.", finishing: "Sellando…", redirect: "Volviendo en {s} s…",
    expired: "Este enlace de captura ha caducado. Pida uno nuevo.", used: "Esta captura ya está completa. Gracias.", notFound: "Este enlace de captura no es válido.",
    alreadyUsed: "Ya se registró otra captura para este objeto.", error: "Algo salió mal. Inténtelo de nuevo.", tryAgain: "Reintentar",
    locationAsk: "¿Podemos registrar dónde se toman las fotos? Refuerza la prueba.", locationYes: "Compartir mi ubicación", locationNo: "No, gracias",
    step: "Paso {i} de {n}", incomplete: "Algunos pasos aún necesitan fotos.", testMode: "Modo de prueba",
  },
  de: {
    start: "Starten", shutter: "Foto aufnehmen", record: "Aufnehmen", stop: "Stopp", useFile: "Stattdessen Datei wählen", next: "Weiter", back: "Zurück",
    finish: "Abschließen und senden", retake: "Neu aufnehmen", delete: "Löschen", shots: "{n} aufgenommen (min {min}, max {max})", beforeShots: "Mindestens {n} wie bei der ersten Aufnahme",
    uploading: "Sende {done} von {total}", uploaded: "Alle Dateien gesendet", waiting: "Warte auf Verbindung…", retrying: "Netzwerkproblem, neuer Versuch in {s} s",
    cameraDenied: "Die Kamera konnte nicht geöffnet werden. Sie können Dateien wählen.", finishing: "Wird versiegelt…", redirect: "Zurück in {s} s…",
    expired: "Dieser Aufnahmelink ist abgelaufen. Fordern Sie einen neuen an.", used: "Diese Aufnahme ist bereits abgeschlossen. Danke.", notFound: "Dieser Aufnahmelink ist ungültig.",
    alreadyUsed: "Für diesen Gegenstand wurde bereits eine andere Aufnahme gespeichert.", error: "Etwas ist schiefgelaufen. Bitte erneut versuchen.", tryAgain: "Erneut versuchen",
    locationAsk: "Dürfen wir den Aufnahmeort speichern? Das stärkt den Nachweis.", locationYes: "Standort teilen", locationNo: "Nein danke",
    step: "Schritt {i} von {n}", incomplete: "Einige Schritte brauchen noch Fotos.", testMode: "Testmodus",
  },
};

/** Exact tag, then base language, then English (the specification's order; the page has no template default). */
export function pickLanguage(tag) {
  const lower = String(tag || "en").toLowerCase();
  if (lower in MESSAGES) return lower;
  const base = lower.split("-")[0];
  return base in MESSAGES ? base : "en";
}

export function translator(tag) {
  const table = MESSAGES[pickLanguage(tag)];
  return (key, values = {}) => String(table[key] ?? MESSAGES.en[key] ?? key).replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}
