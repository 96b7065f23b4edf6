import { canonicalJson } from "../../shared/canonical-json.ts";

/** A text: one string for every language, or a map from BCP 47 tag to string. */
export type LocalizedText = string | Record<string, string>;

export interface TemplateStep {
  id: string;
  label: LocalizedText;
  instruction: LocalizedText;
  required: boolean;
  kind: "photo" | "video";
  min_count: number;
  max_count: number;
}

/** The template as a capture session keeps it: stored once per content in `template_snapshots` (migration 0011). */
export interface TemplateSnapshot {
  id: string | null;
  name: string;
  default_locale: string;
  welcome: { title: LocalizedText; body: LocalizedText | null };
  steps: TemplateStep[];
  completion: { title: LocalizedText; body: LocalizedText | null };
  theme_id: string | null;
  ask_location: boolean;
  stage: string | null;
  category: string | null;
}

/** Used when no template is named and none matches `stage` and `category` (CONTRACT.md). */
export const BUILT_IN_TEMPLATE: TemplateSnapshot = {
  id: null,
  name: "Built-in photos",
  default_locale: "en",
  welcome: {
    title: {
      en: "Take the photos",
      fr: "Prenez les photos",
      es: "Tome las fotos",
      de: "Fotos aufnehmen",
      "pt-BR": "Tire as fotos",
      it: "Scatta le foto",
      nl: "Maak de foto's",
      pl: "Zrób zdjęcia",
      "zh-Hans": "拍摄照片",
      ar: "التقط الصور",
    },
    body: {
      en: "Photograph the object from every side. Your photos are sealed as soon as you finish.",
      fr: "Photographiez l'objet sous tous les angles. Vos photos sont scellées dès que vous terminez.",
      es: "Fotografíe el objeto desde todos los lados. Sus fotos se sellan en cuanto termine.",
      de: "Fotografieren Sie den Gegenstand von allen Seiten. Ihre Fotos werden versiegelt, sobald Sie fertig sind.",
      "pt-BR": "Fotografe o objeto de todos os lados. Suas fotos são seladas assim que você concluir.",
      it: "Fotografa l'oggetto da ogni lato. Le tue foto vengono sigillate appena hai finito.",
      nl: "Fotografeer het object van alle kanten. Uw foto's worden verzegeld zodra u klaar bent.",
      pl: "Sfotografuj obiekt ze wszystkich stron. Zdjęcia zostaną opieczętowane, gdy tylko skończysz.",
      "zh-Hans": "从各个角度拍摄该物品。完成后，您的照片会立即封存。",
      ar: "صوّر الغرض من كل الجوانب. تُختم صورك فور انتهائك.",
    },
  },
  steps: [
    {
      id: "photos",
      label: {
        en: "Photos",
        fr: "Photos",
        es: "Fotos",
        de: "Fotos",
        "pt-BR": "Fotos",
        it: "Foto",
        nl: "Foto's",
        pl: "Zdjęcia",
        "zh-Hans": "照片",
        ar: "الصور",
      },
      instruction: {
        en: "Take between 1 and 20 photos showing the whole object and any detail that matters.",
        fr: "Prenez de 1 à 20 photos montrant l'objet entier et chaque détail qui compte.",
        es: "Tome de 1 a 20 fotos que muestren el objeto entero y cada detalle importante.",
        de: "Nehmen Sie 1 bis 20 Fotos auf, die den ganzen Gegenstand und jedes wichtige Detail zeigen.",
        "pt-BR": "Tire de 1 a 20 fotos que mostrem o objeto inteiro e cada detalhe importante.",
        it: "Scatta da 1 a 20 foto che mostrino l'oggetto intero e ogni dettaglio importante.",
        nl: "Maak 1 tot 20 foto's die het hele object en elk belangrijk detail laten zien.",
        pl: "Zrób od 1 do 20 zdjęć pokazujących cały obiekt i każdy istotny szczegół.",
        "zh-Hans": "拍摄1至20张照片，展示物品全貌及每个重要细节。",
        ar: "التقط من صورة واحدة إلى 20 صورة تُظهر الغرض كاملًا وكل تفصيل مهم.",
      },
      required: true,
      kind: "photo",
      min_count: 1,
      max_count: 20,
    },
  ],
  completion: {
    title: {
      en: "Thank you",
      fr: "Merci",
      es: "Gracias",
      de: "Vielen Dank",
      "pt-BR": "Obrigado",
      it: "Grazie",
      nl: "Dank u wel",
      pl: "Dziękujemy",
      "zh-Hans": "谢谢",
      ar: "شكرًا لك",
    },
    body: {
      en: "Your photos were received and are being sealed.",
      fr: "Vos photos ont été reçues et sont en cours de scellement.",
      es: "Sus fotos se recibieron y se están sellando.",
      de: "Ihre Fotos sind eingegangen und werden versiegelt.",
      "pt-BR": "Suas fotos foram recebidas e estão sendo seladas.",
      it: "Le tue foto sono state ricevute e vengono sigillate.",
      nl: "Uw foto's zijn ontvangen en worden verzegeld.",
      pl: "Zdjęcia dotarły i są właśnie opieczętowywane.",
      "zh-Hans": "您的照片已收到，正在封存。",
      ar: "تم استلام صورك ويجري ختمها.",
    },
  },
  theme_id: null,
  ask_location: false,
  stage: null,
  category: null,
};

/**
 * The completion texts of a template created without any: the built-in thanks, keyed so that the template's
 * own default language is present (it gets its base language's text when that is one of the ten, else the
 * English one, which is what the fallback order would show anyway).
 */
export function defaultCompletion(defaultLocale: string): TemplateSnapshot["completion"] {
  const title = { ...(BUILT_IN_TEMPLATE.completion.title as Record<string, string>) };
  const has = (tag: string) => Object.keys(title).some((key) => key.toLowerCase() === tag.toLowerCase());
  if (!has(defaultLocale)) {
    const base = defaultLocale.split("-")[0]!.toLowerCase();
    title[defaultLocale] = title[base] ?? title.en!;
  }
  return { title, body: null };
}

/** Whether a template's completion is the built-in thanks that `defaultCompletion` gave it, rather than the integrator's own texts. */
export function isDefaultCompletion(completion: TemplateSnapshot["completion"], defaultLocale: string): boolean {
  return canonicalJson(completion) === canonicalJson(defaultCompletion(defaultLocale));
}
