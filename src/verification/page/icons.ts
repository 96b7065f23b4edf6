import { html, type Html } from "../../lib/html.ts";

/**
 * The page's few pictograms, inline (no image request under the strict CSP), drawn in the text's colour and
 * hidden from assistive technology: each stands beside words that say the same, so colour and shape are
 * never the only sign.
 */
const PATHS = {
  valid: "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20M7 12.5l3.2 3.2L17 9",
  warn: "M12 3L2 20h20L12 3M12 9.5v5M12 17.2v.3",
  invalid: "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20M8.5 8.5l7 7M15.5 8.5l-7 7",
  pending: "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20M12 6.5V12l3.5 2.5",
  test: "M9 3h6M10 3v6.5L4.6 18.6A1.6 1.6 0 0 0 6 21h12a1.6 1.6 0 0 0 1.4-2.4L14 9.5V3M7.2 15h9.6",
  note: "M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20M12 11v6M12 7.2v.3",
  camera: "M4 7h3l2-2.5h6L17 7h3v12H4V7M12 10a3.2 3.2 0 1 0 0 6.4a3.2 3.2 0 1 0 0-6.4",
  gallery: "M3 5h18v14H3V5M3 16l5-5 4 4 3-3 6 6M15.5 8.6v.3",
  upload: "M12 16V4M7 9l5-5 5 5M4 15v5h16v-5",
} as const;

export type IconName = keyof typeof PATHS;

export const icon = (name: IconName, className = "icon") =>
  html`<svg class="${className}" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false"><path d="${PATHS[name]}" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>` as Html;
