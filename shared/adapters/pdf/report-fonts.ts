import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { processEnvironment, REPORT_FONTS_DIR_ENV } from '#shared/config/process-environment.ts';

/**
 * The font files a report may be drawn with: Noto Sans families (SIL Open Font Licence) from the
 * npm registry, one per script group, each in a regular and a bold weight. The Lambda bundling
 * copies every file into `fonts/` next to the worker's bundle and points `REPORT_FONTS_DIR` at it;
 * a render reads a family only when its text needs it.
 *
 * This module imports Node built-ins only: the CDK app takes the file list from here without
 * loading pdf-lib or fontkit.
 */

export const REPORT_FONT_FAMILIES = [
  'latin',
  'arabic',
  'hebrew',
  'devanagari',
  'thai',
  'sc',
  'tc',
  'jp',
  'kr',
] as const;
export type ReportFontFamily = (typeof REPORT_FONT_FAMILIES)[number];
export type FontWeight = 'regular' | 'bold';

export interface ReportFontFile {
  /** Name of the file in `REPORT_FONTS_DIR`. */
  file: string;
  /** Path of the file inside `node_modules`. */
  packagePath: string;
}

const expo = (pkg: string, stem: string): Record<FontWeight, ReportFontFile> => ({
  regular: {
    file: `${stem}_400Regular.ttf`,
    packagePath: `@expo-google-fonts/${pkg}/400Regular/${stem}_400Regular.ttf`,
  },
  bold: { file: `${stem}_700Bold.ttf`, packagePath: `@expo-google-fonts/${pkg}/700Bold/${stem}_700Bold.ttf` },
});

/**
 * Latin, Greek and Cyrillic (Noto Sans); Arabic; Hebrew (the one registry package shipping Noto Sans
 * Hebrew as TrueType files); Devanagari; Thai; and the CJK families: Simplified Chinese (which also
 * covers most traditional characters), Traditional Chinese, Japanese and Korean.
 */
export const REPORT_FONT_FILES: Record<ReportFontFamily, Record<FontWeight, ReportFontFile>> = {
  latin: expo('noto-sans', 'NotoSans'),
  arabic: expo('noto-sans-arabic', 'NotoSansArabic'),
  hebrew: {
    regular: {
      file: 'NotoSansHebrew-Regular.ttf',
      packagePath: '@embedpdf/fonts-hebrew/fonts/NotoSansHebrew-Regular.ttf',
    },
    bold: { file: 'NotoSansHebrew-Bold.ttf', packagePath: '@embedpdf/fonts-hebrew/fonts/NotoSansHebrew-Bold.ttf' },
  },
  devanagari: expo('noto-sans-devanagari', 'NotoSansDevanagari'),
  thai: expo('noto-sans-thai', 'NotoSansThai'),
  sc: expo('noto-sans-sc', 'NotoSansSC'),
  tc: expo('noto-sans-tc', 'NotoSansTC'),
  jp: expo('noto-sans-jp', 'NotoSansJP'),
  kr: expo('noto-sans-kr', 'NotoSansKR'),
};

/** Every font file, for the bundling step that copies them. */
export function allReportFontFiles(): ReportFontFile[] {
  return REPORT_FONT_FAMILIES.flatMap((family) => [REPORT_FONT_FILES[family].regular, REPORT_FONT_FILES[family].bold]);
}

export { REPORT_FONTS_DIR_ENV };

/** Reads a font file on first use; the same bytes afterwards. */
export interface ReportFonts {
  read(family: ReportFontFamily, weight: FontWeight): Uint8Array;
}

/**
 * The report fonts of this process, read lazily and kept (a cold start reads only the families its
 * reports need). Reads from `REPORT_FONTS_DIR` when set (a bundled Lambda has no node_modules),
 * else from the installed packages.
 */
export function loadReportFonts(): ReportFonts {
  return processFonts;
}

const cache = new Map<string, Uint8Array>();

const processFonts: ReportFonts = {
  read(family, weight) {
    const key = `${family}/${weight}`;
    let bytes = cache.get(key);
    if (!bytes) {
      bytes = readFontFile(REPORT_FONT_FILES[family][weight], key);
      cache.set(key, bytes);
    }
    return bytes;
  },
};

function readFontFile(font: ReportFontFile, key: string): Uint8Array {
  const file = fontFilePath(font);
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(`report font ${key} could not be read from ${file}`, { cause: error });
  }
}

/** Where `font` is on this machine. */
export function fontFilePath(font: ReportFontFile): string {
  const dir = processEnvironment.reportFontsDir();
  if (dir) return path.join(dir, font.file);
  return installedPath(font.packagePath);
}

/**
 * A file inside an installed package, found along Node's module search path. (`require.resolve`
 * refuses files a package's `exports` does not list, which is how some font packages ship.)
 */
export function installedPath(packagePath: string): string {
  const [scope = '', name = ''] = packagePath.split('/');
  const packageName = scope.startsWith('@') ? `${scope}/${name}` : scope;
  const searched = createRequire(import.meta.url).resolve.paths(packageName) ?? [];
  for (const modules of searched) {
    const candidate = path.join(modules, packagePath);
    if (existsSync(candidate)) return candidate;
  }
  return path.join(searched[0] ?? 'node_modules', packagePath);
}
