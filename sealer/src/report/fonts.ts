import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/** A font file of an @fontsource package (they export only their CSS and LICENSE, so the folder is found from the latter). */
const fontFile = (packageName: string, file: string) => readFileSync(join(dirname(require.resolve(`${packageName}/LICENSE`)), "files", file));

/**
 * The report's fonts, embedded (subset) in every PDF as PDF/A requires: Noto Sans and Noto Sans Mono, their
 * Latin subset (every letter of English, French, Spanish and German, and the punctuation, € and dashes).
 * Read once per process.
 */
export const REPORT_FONTS = {
  regular: fontFile("@fontsource/noto-sans", "noto-sans-latin-400-normal.woff"),
  bold: fontFile("@fontsource/noto-sans", "noto-sans-latin-700-normal.woff"),
  mono: fontFile("@fontsource/noto-sans-mono", "noto-sans-mono-latin-400-normal.woff"),
};
