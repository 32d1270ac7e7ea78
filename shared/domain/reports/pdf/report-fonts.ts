import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The two faces a report is drawn with, as raw TrueType bytes. */
export type ReportFonts = { regular: Uint8Array; bold: Uint8Array };

/**
 * File names of the Noto Sans faces (SIL Open Font Licence). The Lambda bundling copies these two
 * files next to the bundle and points `REPORT_FONTS_DIR` at them.
 */
export const REPORT_FONT_FILES = {
  regular: 'NotoSans_400Regular.ttf',
  bold: 'NotoSans_700Bold.ttf',
} as const;

/** Where the faces live inside the `@expo-google-fonts/noto-sans` package. */
export const REPORT_FONT_PACKAGE_PATHS = {
  regular: `@expo-google-fonts/noto-sans/400Regular/${REPORT_FONT_FILES.regular}`,
  bold: `@expo-google-fonts/noto-sans/700Bold/${REPORT_FONT_FILES.bold}`,
} as const;

export const REPORT_FONTS_DIR_ENV = 'REPORT_FONTS_DIR';

let cachedFonts: ReportFonts | undefined;

/**
 * Reads both faces once per process (a cold start), then hands out the same bytes. Reads from
 * `REPORT_FONTS_DIR` when set (a bundled Lambda has no node_modules), else from the installed
 * package.
 */
export function loadReportFonts(): ReportFonts {
  cachedFonts ??= {
    regular: readFontFile('regular'),
    bold: readFontFile('bold'),
  };
  return cachedFonts;
}

function readFontFile(face: keyof ReportFonts): Uint8Array {
  const file = fontFilePath(face);
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(`report font ${face} could not be read from ${file}`, { cause: error });
  }
}

function fontFilePath(face: keyof ReportFonts): string {
  const dir = process.env[REPORT_FONTS_DIR_ENV];
  if (dir) return path.join(dir, REPORT_FONT_FILES[face]);
  return createRequire(import.meta.url).resolve(REPORT_FONT_PACKAGE_PATHS[face]);
}
