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
    "pt-BR":
      "Estes arquivos não mudaram desde a hora certificada: suas impressões digitais estão na lista de arquivos selados (o manifesto) que o carimbo do tempo certifica.",
    it: "Questi file non sono cambiati dall'ora certificata: le loro impronte sono nell'elenco dei file sigillati (il manifesto) certificato dalla marca temporale.",
    nl: "Deze bestanden zijn ongewijzigd sinds het gecertificeerde tijdstip: hun vingerafdrukken staan in de lijst met verzegelde bestanden (het manifest) die het tijdstempel certificeert.",
    pl: "Te pliki nie zmieniły się od poświadczonego czasu: ich odciski cyfrowe znajdują się na liście opieczętowanych plików (manifeście), którą poświadcza znacznik czasu.",
    "zh-Hans": "这些文件自认证时间起未被改动：它们的指纹列在时间戳所认证的封存文件清单（manifest）中。",
    ar: "لم تتغير هذه الملفات منذ الوقت المصدَّق: بصماتها مدرجة في قائمة الملفات المختومة (البيان) التي يصدّق عليها الطابع الزمني.",
  },
  existed_by_timestamp: {
    en: "These files existed no later than the certified time, as the timestamp authority attests.",
    fr: "Ces fichiers existaient au plus tard à l'heure certifiée, comme l'atteste l'autorité d'horodatage.",
    es: "Estos archivos existían a más tardar a la hora certificada, según atestigua la autoridad de sellado de tiempo.",
    de: "Diese Dateien existierten spätestens zum zertifizierten Zeitpunkt, wie die Zeitstempelstelle bescheinigt.",
    "pt-BR": "Estes arquivos existiam no mais tardar na hora certificada, como atesta a autoridade de carimbo do tempo.",
    it: "Questi file esistevano al più tardi all'ora certificata, come attesta l'autorità di marcatura temporale.",
    nl: "Deze bestanden bestonden uiterlijk op het gecertificeerde tijdstip, zoals de tijdstempelautoriteit verklaart.",
    pl: "Te pliki istniały najpóźniej w poświadczonym czasie, co poświadcza urząd znacznika czasu.",
    "zh-Hans": "这些文件最迟在认证时间已经存在，由时间戳机构证明。",
    ar: "كانت هذه الملفات موجودة في موعد أقصاه الوقت المصدَّق، كما تشهد جهة الطابع الزمني.",
  },
  received_at: {
    en: "The service received each file at the time it recorded for it, by its own clock.",
    fr: "Le service a reçu chaque fichier à l'heure qu'il a relevée pour lui, selon sa propre horloge.",
    es: "El servicio recibió cada archivo a la hora que registró para él, según su propio reloj.",
    de: "Der Dienst hat jede Datei zu dem Zeitpunkt empfangen, den er für sie festhielt, nach seiner eigenen Uhr.",
    "pt-BR": "O serviço recebeu cada arquivo na hora que registrou para ele, pelo seu próprio relógio.",
    it: "Il servizio ha ricevuto ogni file all'ora che ha registrato per esso, secondo il proprio orologio.",
    nl: "De dienst ontving elk bestand op het tijdstip dat hij ervoor vastlegde, volgens zijn eigen klok.",
    pl: "Usługa otrzymała każdy plik w czasie, który dla niego zapisała, według własnego zegara.",
    "zh-Hans": "服务按其自身时钟，在为每个文件记录的时间接收了该文件。",
    ar: "استلمت الخدمة كل ملف في الوقت الذي سجّلته له، وفق ساعتها الخاصة.",
  },
  capture_method: {
    en: "Whether each file was shot with the camera or chosen from the device's files, as the capture page reported it.",
    fr: "Si chaque fichier a été pris avec l'appareil photo ou choisi parmi les fichiers de l'appareil, selon la page de capture.",
    es: "Si cada archivo se tomó con la cámara o se eligió entre los archivos del dispositivo, según la página de captura.",
    de: "Ob jede Datei mit der Kamera aufgenommen oder aus den Dateien des Geräts gewählt wurde, laut Aufnahmeseite.",
    "pt-BR": "Se cada arquivo foi feito com a câmera ou escolhido entre os arquivos do dispositivo, conforme informado pela página de captura.",
    it: "Se ogni file è stato ripreso con la fotocamera o scelto tra i file del dispositivo, secondo la pagina di acquisizione.",
    nl: "Of elk bestand met de camera is gemaakt of uit de bestanden van het apparaat is gekozen, zoals de opnamepagina opgaf.",
    pl: "Czy każdy plik zarejestrowano aparatem, czy wybrano spośród plików urządzenia, według strony rejestracji.",
    "zh-Hans": "每个文件是用相机拍摄的还是从设备文件中选择的，据拍摄页面报告。",
    ar: "ما إذا كان كل ملف قد التُقط بالكاميرا أو اختير من ملفات الجهاز، كما أفادت صفحة التصوير.",
  },
  device_time: {
    en: "The device's time of each shot.",
    fr: "L'heure de l'appareil lors de chaque prise.",
    es: "La hora del dispositivo en cada toma.",
    de: "Die Uhrzeit des Geräts bei jeder Aufnahme.",
    "pt-BR": "A hora do dispositivo em cada registro.",
    it: "L'ora del dispositivo a ogni ripresa.",
    nl: "De tijd van het apparaat bij elke opname.",
    pl: "Czas urządzenia przy każdym ujęciu.",
    "zh-Hans": "每次拍摄时的设备时间。",
    ar: "وقت الجهاز عند كل لقطة.",
  },
  device_location: {
    en: "The place and its accuracy, as the device's location service gave them.",
    fr: "Le lieu et sa précision, tels que le service de localisation de l'appareil les a donnés.",
    es: "El lugar y su precisión, tal como los dio el servicio de ubicación del dispositivo.",
    de: "Der Ort und seine Genauigkeit, wie der Ortungsdienst des Geräts sie angab.",
    "pt-BR": "O local e sua precisão, conforme fornecidos pelo serviço de localização do dispositivo.",
    it: "Il luogo e la sua precisione, come li ha forniti il servizio di localizzazione del dispositivo.",
    nl: "De plaats en de nauwkeurigheid ervan, zoals de locatievoorziening van het apparaat ze gaf.",
    pl: "Miejsce i jego dokładność, tak jak podała je usługa lokalizacji urządzenia.",
    "zh-Hans": "地点及其精度，由设备的定位服务提供。",
    ar: "المكان ودقته، كما قدّمتهما خدمة تحديد الموقع في الجهاز.",
  },
  scene_content: {
    en: "What the pictures show: that the scene is real, complete or shown fairly.",
    fr: "Ce que montrent les images : que la scène est réelle, complète ou fidèlement montrée.",
    es: "Lo que muestran las imágenes: que la escena sea real, completa o mostrada fielmente.",
    de: "Was die Bilder zeigen: dass die Szene echt, vollständig oder fair dargestellt ist.",
    "pt-BR": "O que as imagens mostram: que a cena é real, completa ou mostrada com fidelidade.",
    it: "Ciò che mostrano le immagini: che la scena sia reale, completa o mostrata fedelmente.",
    nl: "Wat de beelden tonen: dat de situatie echt, volledig of eerlijk weergegeven is.",
    pl: "Tego, co pokazują obrazy: że scena jest prawdziwa, pełna lub rzetelnie przedstawiona.",
    "zh-Hans": "图像所呈现的内容：场景是否真实、完整或如实呈现。",
    ar: "ما تُظهره الصور: أن المشهد حقيقي أو كامل أو معروض بإنصاف.",
  },
  camera_genuine: {
    en: "That a real camera took the shot: a web page cannot attest the camera.",
    fr: "Qu'un véritable appareil photo a pris la photo : une page web ne peut pas attester l'appareil photo.",
    es: "Que una cámara real tomó la foto: una página web no puede dar fe de la cámara.",
    de: "Dass eine echte Kamera die Aufnahme machte: Eine Webseite kann die Kamera nicht bezeugen.",
    "pt-BR": "Que uma câmera real fez o registro: uma página web não pode atestar a câmera.",
    it: "Che una fotocamera reale abbia effettuato la ripresa: una pagina web non può attestare la fotocamera.",
    nl: "Dat een echte camera de opname maakte: een webpagina kan de camera niet bevestigen.",
    pl: "Tego, że ujęcie wykonał prawdziwy aparat: strona internetowa nie może poświadczyć aparatu.",
    "zh-Hans": "确实由真实相机拍摄：网页无法证明相机的真实性。",
    ar: "أن كاميرا حقيقية التقطت اللقطة: لا تستطيع صفحة ويب أن تشهد على الكاميرا.",
  },
  location_exact: {
    en: "That the location is exact, or was not altered on the device.",
    fr: "Que le lieu est exact, ou n'a pas été modifié sur l'appareil.",
    es: "Que la ubicación sea exacta, o no se haya alterado en el dispositivo.",
    de: "Dass der Ort genau ist oder auf dem Gerät nicht verändert wurde.",
    "pt-BR": "Que a localização é exata ou não foi alterada no dispositivo.",
    it: "Che la posizione sia esatta o non sia stata alterata sul dispositivo.",
    nl: "Dat de locatie exact is of niet op het apparaat is gewijzigd.",
    pl: "Tego, że lokalizacja jest dokładna lub nie została zmieniona na urządzeniu.",
    "zh-Hans": "位置是否准确，或是否未在设备上被篡改。",
    ar: "أن الموقع دقيق أو لم يُعدَّل على الجهاز.",
  },
  test_no_legal_value: {
    en: "Anything at all: this is a test proof, signed by a test certificate with a simulated timestamp, of no legal value.",
    fr: "Quoi que ce soit : c'est une preuve de test, signée par un certificat de test avec un horodatage simulé, sans valeur légale.",
    es: "Nada en absoluto: es una prueba de test, firmada con un certificado de test y un sello de tiempo simulado, sin valor legal.",
    de: "Überhaupt nichts: Dies ist ein Testnachweis, mit einem Testzertifikat und simuliertem Zeitstempel signiert, ohne rechtlichen Wert.",
    "pt-BR": "Absolutamente nada: esta é uma prova de teste, assinada por um certificado de teste com um carimbo do tempo simulado, sem valor jurídico.",
    it: "Assolutamente nulla: questa è una prova di test, firmata da un certificato di test con una marca temporale simulata, senza valore legale.",
    nl: "Helemaal niets: dit is een testbewijs, ondertekend met een testcertificaat en een gesimuleerd tijdstempel, zonder juridische waarde.",
    pl: "Niczego: to dowód testowy, podpisany certyfikatem testowym z symulowanym znacznikiem czasu, bez mocy prawnej.",
    "zh-Hans": "不能证明任何事项：这是测试存证，由测试证书签署并使用模拟时间戳，无法律效力。",
    ar: "لا شيء على الإطلاق: هذا إثبات تجريبي، موقَّع بشهادة تجريبية مع طابع زمني محاكى، بلا قيمة قانونية.",
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
 * one proves nothing yet, nor one whose files cannot be listed (`filesListed` false: the service's record of
 * them is lost, docs/adr/0068). The device's location is listed only when some file reported one.
 */
export function proofClaims(
  proof: { mode: "test" | "live"; status: string },
  files: { reported_by_device: { geolocation: unknown } }[],
  filesListed = true,
): ProofClaims {
  const located = files.some((file) => file.reported_by_device.geolocation !== null);
  const reported: ClaimCode[] = ["capture_method", "device_time", ...(located ? (["device_location"] as const) : [])];
  const notProven: ClaimCode[] = ["scene_content", "camera_genuine", ...(located ? (["location_exact"] as const) : [])];
  if (proof.mode === "test") return { proven: [], reported_by_device: reported, not_proven: ["test_no_legal_value", ...notProven] };
  if (proof.status !== "sealed" || !filesListed) return { proven: [], reported_by_device: reported, not_proven: notProven };
  return { proven: ["bytes_unchanged", "existed_by_timestamp", "received_at"], reported_by_device: reported, not_proven: notProven };
}

/** The claims as the public JSON carries them: each code with its English and French text. */
export function publicClaims(claims: ProofClaims) {
  const texts = (codes: ClaimCode[]) => codes.map((code) => ({ code, en: CLAIM_TEXTS[code].en, fr: CLAIM_TEXTS[code].fr }));
  return { proven: texts(claims.proven), reported_by_device: texts(claims.reported_by_device), not_proven: texts(claims.not_proven) };
}
