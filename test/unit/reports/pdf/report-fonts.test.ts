import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  REPORT_FONT_FAMILIES,
  REPORT_FONT_FILES,
  allReportFontFiles,
  installedPath,
  loadReportFonts,
} from '#shared/adapters/pdf/report-fonts.ts';

const packaged = (family: keyof typeof REPORT_FONT_FILES, weight: 'regular' | 'bold'): Buffer =>
  readFileSync(installedPath(REPORT_FONT_FILES[family][weight].packagePath));

describe('loadReportFonts', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('names a regular and a bold TrueType file for every family, each installed', () => {
    expect(allReportFontFiles()).toHaveLength(2 * REPORT_FONT_FAMILIES.length);
    for (const { file, packagePath } of allReportFontFiles()) {
      expect(file).toMatch(/\.ttf$/);
      expect(readFileSync(installedPath(packagePath)).subarray(0, 4)).toEqual(Buffer.from([0, 1, 0, 0]));
    }
    expect(new Set(allReportFontFiles().map(({ file }) => file)).size).toBe(allReportFontFiles().length);
  });

  it('reads a family from the installed package on first use, and the same bytes afterwards', () => {
    const fonts = loadReportFonts();

    const regular = fonts.read('latin', 'regular');

    expect(Buffer.from(regular).equals(packaged('latin', 'regular'))).toBe(true);
    expect(fonts.read('latin', 'regular')).toBe(regular);
    expect(Buffer.from(fonts.read('hebrew', 'bold')).equals(packaged('hebrew', 'bold'))).toBe(true);
  });

  it('reads from REPORT_FONTS_DIR when set, as in a bundled Lambda', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'report-fonts-'));
    try {
      // The directory's "regular" file holds the bold face, so a read from there is recognisable.
      copyFileSync(
        installedPath(REPORT_FONT_FILES.latin.bold.packagePath),
        path.join(dir, REPORT_FONT_FILES.latin.regular.file),
      );
      vi.stubEnv('REPORT_FONTS_DIR', dir);
      vi.resetModules();
      const fresh = await import('#shared/adapters/pdf/report-fonts.ts');

      const regular = fresh.loadReportFonts().read('latin', 'regular');

      expect(Buffer.from(regular).equals(packaged('latin', 'bold'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the missing file when REPORT_FONTS_DIR lacks it', async () => {
    vi.stubEnv('REPORT_FONTS_DIR', path.join(tmpdir(), 'no-such-report-fonts'));
    vi.resetModules();
    const fresh = await import('#shared/adapters/pdf/report-fonts.ts');

    expect(() => fresh.loadReportFonts().read('thai', 'bold')).toThrow(/thai\/bold.*NotoSansThai_700Bold\.ttf/);
  });
});
