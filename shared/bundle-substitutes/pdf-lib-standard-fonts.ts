/**
 * Stands in for `@pdf-lib/standard-fonts` in the Lambda bundles (lib/bundling.ts aliases it).
 * Reports embed their own TrueType faces and never draw with the 14 standard PDF fonts, yet that
 * package is 127 KB of metrics and inflates its encoding tables when imported: some 14 ms of the
 * worker's cold start. pdf-lib only reads `FontNames` at import; the rest fails loudly if a standard
 * font is ever asked for. Outside a bundle (local stack, tests) the real package is used.
 */
export const FontNames = {
  Courier: 'Courier',
  CourierBold: 'Courier-Bold',
  CourierOblique: 'Courier-Oblique',
  CourierBoldOblique: 'Courier-BoldOblique',
  Helvetica: 'Helvetica',
  HelveticaBold: 'Helvetica-Bold',
  HelveticaOblique: 'Helvetica-Oblique',
  HelveticaBoldOblique: 'Helvetica-BoldOblique',
  TimesRoman: 'Times-Roman',
  TimesRomanBold: 'Times-Bold',
  TimesRomanItalic: 'Times-Italic',
  TimesRomanBoldItalic: 'Times-BoldItalic',
  Symbol: 'Symbol',
  ZapfDingbats: 'ZapfDingbats',
} as const;

const notBundled = (): never => {
  throw new Error('the standard PDF fonts are not part of this bundle; embed a TrueType font instead');
};

export const Font = { load: notBundled };

export const Encodings = {
  get Symbol(): never {
    return notBundled();
  },
  get ZapfDingbats(): never {
    return notBundled();
  },
  get WinAnsi(): never {
    return notBundled();
  },
};
