import type { PageLanguage } from "./messages.ts";

/**
 * The certified time in the page language's date format, in UTC and saying so: the server does not know
 * the reader's zone, so public/verify/local-time.js adds the reader's own time beside it in the browser.
 */
export function certifiedTimeUtc(iso: string, lang: PageLanguage): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "long", timeZone: "UTC" }).format(date);
}

/** A file size a reader can weigh (kB or MB, in the page language's number format). */
export function readableSize(bytes: number, lang: PageLanguage): string {
  const format = (value: number, unit: string) => `${new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(value)}\u00a0${unit}`;
  return bytes >= 1_000_000 ? format(bytes / 1_000_000, "MB") : format(Math.max(bytes, 1) / 1000, "kB");
}
