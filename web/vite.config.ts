import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The dashboard: Preact compiled by esbuild's automatic JSX runtime (no Babel preset needed),
 * built into web/dist, which `npm start` serves locally and CDK uploads to the dashboard bucket.
 * Every script is a file of its own: the Content-Security-Policy allows no inline script.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: {
    // The typed client's file download needs Node's fs; the dashboard uses its in-memory fetchReport.
    alias: [
      { find: /^\.\/download-report\.ts$/, replacement: fileURLToPath(new URL('src/node-only.ts', import.meta.url)) },
      // Verifying webhooks is a receiver's job; its CommonJS library would otherwise ship unused.
      {
        find: /^\.\/verify-webhook\.ts$/,
        replacement: fileURLToPath(new URL('src/receiver-only.ts', import.meta.url)),
      },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No source maps: the build is what CloudFront serves to anyone, and a map would publish the
    // sources. Not emitting them (rather than excluding them from the BucketDeployment) also lets the
    // deployment's prune delete maps an earlier build left in the bucket.
    sourcemap: false,
    // No data: URLs for assets (CSP img-src/font-src 'self').
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
