import { html, type Html } from "../../lib/html.ts";
import { icon, type IconName } from "./icons.ts";
import { fileName, type Messages, type Numbering, type PageFile, type PageProof } from "./page-proof.ts";

/** One line of the warning summary: what to weigh, and which files of the page it concerns. */
interface Warning {
  code: string;
  tone: "warn" | "test" | "note";
  sentence: string;
  where: string[];
}

/**
 * Everything a reader should weigh before relying on what the page shows, in the PDF report's order: test mode,
 * the signals the service measured (for the same bytes sealed before, which file of this pair they match
 * when they do), the files chosen from the gallery, then what only the phone reported. Both sides of a pair
 * count, each file named with its side.
 */
export function pageWarnings(proof: PageProof, partner: PageProof | null, m: Messages, numbering: Numbering, lang: string): Warning[] {
  const files = [...numbering.values()].map((numbered) => numbered.file);
  const inPair = partner !== null;
  const name = (file: PageFile) => fileName(file, m, numbering, inPair);
  const side = (file: PageFile) => numbering.get(file.id)?.side;
  const warnings: Warning[] = [];
  if (proof.verification.test_mode || partner?.verification.test_mode) warnings.push({ code: "test_mode", tone: "test", sentence: m.warn_test!, where: [] });
  const codes = [...new Set(files.flatMap((file) => file.signals.map((signal) => signal.code)))];
  for (const code of codes) {
    const concerned = files.filter((file) => file.signals.some((signal) => signal.code === code));
    const where = concerned.map((file) => {
      const twin = code === "sealed_before" ? files.find((other) => other.sha256 === file.sha256 && side(other) !== side(file)) : undefined;
      return twin ? `${name(file)} (${m.sameBytesAs!.replace("{file}", name(twin))})` : name(file);
    });
    warnings.push({ code, tone: "warn", sentence: m[`signal_${code}`] ?? code, where });
  }
  const gallery = files.filter((file) => file.reported_by_device.method === "file");
  if (gallery.length > 0) warnings.push({ code: "from_gallery", tone: "warn", sentence: m.warn_gallery!, where: gallery.map(name) });
  if (warnings.length === 0) return [];
  const reported = [
    files.length > 0 ? m.fact_method! : null,
    files.some((file) => file.reported_by_device.device_time) ? m.fact_device_time! : null,
    files.some((file) => file.reported_by_device.geolocation) ? m.fact_location! : null,
  ].filter((fact): fact is string => fact !== null);
  if (reported.length > 0)
    // Joined as the language lists things: "a, b and c", "a、b和c", "a وb".
    warnings.push({
      code: "reported_by_device",
      tone: "note",
      sentence: m.note_reported!.replace("{facts}", new Intl.ListFormat(lang).format(reported)),
      where: [],
    });
  return warnings;
}

const WARNING_ICONS: Record<Warning["tone"], IconName> = { warn: "warn", test: "test", note: "note" };

/** The summary under the verdict: one line per kind of warning, with the files it concerns by name. */
export function warningSummary(warnings: Warning[], m: Messages): Html | "" {
  if (warnings.length === 0) return "";
  const items = warnings.map(
    (warning) =>
      html`<li class="${warning.tone}" data-code="${warning.code}">${icon(WARNING_ICONS[warning.tone])}<div><p>${warning.sentence}</p>${warning.where.length > 0 ? html`<p class="where">${warning.where.map((name) => html`<span>${name}</span>`)}</p>` : ""}</div></li>`,
  );
  return html`<section class="signal-summary" id="warnings" data-testid="signal-summary" aria-labelledby="warnings-title"><h2 id="warnings-title">${m.warningSummary!}</h2><ul>${items}</ul></section>`;
}

type Tone = "valid" | "warn" | "test" | "invalid" | "pending";
const BADGE_ICONS: Record<Tone, IconName> = { valid: "valid", warn: "warn", test: "test", invalid: "invalid", pending: "pending" };

/**
 * The verdict as a badge: a pictogram, a colour and words, never one of them alone. A test proof always looks
 * like a test; a verified proof with anything to weigh never reads as a clean "sealed and intact".
 */
export function verdictBadge(proof: PageProof, warnings: Warning[], m: Messages): Html {
  const { status, verdict, test_mode } = proof.verification;
  const toWeigh = warnings.some((warning) => warning.tone === "warn");
  const [tone, words]: [Tone, string] =
    status === "pending"
      ? ["pending", m.badge_pending!]
      : status === "failed"
        ? ["invalid", m.badge_failed!]
        : verdict !== "verified"
          ? ["invalid", verdict === "altered" ? m.badge_altered! : m.badge_not_verified!]
          : test_mode
            ? ["test", m.badge_test!]
            : [toWeigh ? "warn" : "valid", m.badge_verified!];
  const more = toWeigh && status === "valid" ? html`<span class="badge-more">${m.badge_warnings!}</span>` : "";
  return html`<p class="badge tone-${tone}" data-testid="verdict-badge" data-tone="${tone}">${icon(BADGE_ICONS[tone], "badge-icon")}<span><strong>${words}</strong>${more}</span></p>`;
}
