import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  REPORT_FONT_FILES,
  REPORT_FONT_PACKAGE_PATHS,
  loadReportFonts,
} from '../../../../shared/domain/reports/pdf/report-fonts.ts';

const packaged = (face: keyof typeof REPORT_FONT_PACKAGE_PATHS): Buffer =>
  readFileSync(createRequire(import.meta.url).resolve(REPORT_FONT_PACKAGE_PATHS[face]));

describe('loadReportFonts', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('reads both Noto Sans faces from the installed package', () => {
    const fonts = loadReportFonts();

    expect(Buffer.from(fonts.regular).equals(packaged('regular'))).toBe(true);
    expect(Buffer.from(fonts.bold).equals(packaged('bold'))).toBe(true);
  });

  it('reads the files once and hands out the same bytes afterwards', () => {
    expect(loadReportFonts()).toBe(loadReportFonts());
  });

  it('reads from REPORT_FONTS_DIR when set, as in a bundled Lambda', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'report-fonts-'));
    try {
      copyFileSync(
        createRequire(import.meta.url).resolve(REPORT_FONT_PACKAGE_PATHS.bold),
        path.join(dir, REPORT_FONT_FILES.regular),
      );
      copyFileSync(
        createRequire(import.meta.url).resolve(REPORT_FONT_PACKAGE_PATHS.bold),
        path.join(dir, REPORT_FONT_FILES.bold),
      );
      vi.stubEnv('REPORT_FONTS_DIR', dir);
      vi.resetModules();
      const fresh = await import('../../../../shared/domain/reports/pdf/report-fonts.ts');

      const fonts = fresh.loadReportFonts();

      // Both files in the directory hold the bold face, so the regular one must come from there.
      expect(Buffer.from(fonts.regular).equals(packaged('bold'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the missing file when REPORT_FONTS_DIR lacks it', async () => {
    vi.stubEnv('REPORT_FONTS_DIR', path.join(tmpdir(), 'no-such-report-fonts'));
    vi.resetModules();
    const fresh = await import('../../../../shared/domain/reports/pdf/report-fonts.ts');

    expect(() => fresh.loadReportFonts()).toThrow(/NotoSans_400Regular\.ttf/);
  });
});
