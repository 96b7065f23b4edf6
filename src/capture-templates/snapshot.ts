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
    title: { en: "Take the photos", fr: "Prenez les photos", es: "Tome las fotos", de: "Fotos aufnehmen" },
    body: {
      en: "Photograph the object from every side. Your photos are sealed as soon as you finish.",
      fr: "Photographiez l'objet sous tous les angles. Vos photos sont scellées dès que vous terminez.",
      es: "Fotografíe el objeto desde todos los lados. Sus fotos se sellan en cuanto termine.",
      de: "Fotografieren Sie den Gegenstand von allen Seiten. Ihre Fotos werden versiegelt, sobald Sie fertig sind.",
    },
  },
  steps: [
    {
      id: "photos",
      label: { en: "Photos", fr: "Photos", es: "Fotos", de: "Fotos" },
      instruction: {
        en: "Take between 1 and 20 photos showing the whole object and any detail that matters.",
        fr: "Prenez de 1 à 20 photos montrant l'objet entier et chaque détail qui compte.",
        es: "Tome de 1 a 20 fotos que muestren el objeto entero y cada detalle importante.",
        de: "Nehmen Sie 1 bis 20 Fotos auf, die den ganzen Gegenstand und jedes wichtige Detail zeigen.",
      },
      required: true,
      kind: "photo",
      min_count: 1,
      max_count: 20,
    },
  ],
  completion: {
    title: { en: "Thank you", fr: "Merci", es: "Gracias", de: "Vielen Dank" },
    body: {
      en: "Your photos were received and are being sealed.",
      fr: "Vos photos ont été reçues et sont en cours de scellement.",
      es: "Sus fotos se recibieron y se están sellando.",
      de: "Ihre Fotos sind eingegangen und werden versiegelt.",
    },
  },
  theme_id: null,
  ask_location: false,
  stage: null,
  category: null,
};

/**
 * The completion texts of a template created without any: the built-in thanks, keyed so that the template's
 * own default language is present (it gets its base language's text when that is one of the four, else the
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
