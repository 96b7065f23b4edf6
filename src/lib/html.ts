import { html as honoHtml } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** Markup built by `html`: inserted as it is into another template, never escaped twice. */
export type Html = HtmlEscapedString;

/** What a template may interpolate: text (escaped), numbers, nothing (false, null, undefined: empty) and markup. */
type Interpolated = string | number | boolean | null | undefined | Html | readonly Interpolated[];

/**
 * hono/html's tagged template: every interpolated string is escaped by construction (`&<>"'`), markup made by
 * `html` is inserted as it is, arrays are joined. Typed as the synchronous result it is, since no promise can be
 * interpolated.
 */
export const html = (strings: TemplateStringsArray, ...values: Interpolated[]): Html => honoHtml(strings, ...values) as Html;
