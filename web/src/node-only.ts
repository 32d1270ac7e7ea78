/**
 * Stands in for client/download-report.ts in the browser bundle (vite.config.ts): writing a file
 * needs Node.js. The dashboard downloads with `fetchReport` (in memory, verified with WebCrypto).
 */
export function downloadReport(): never {
  throw new Error('downloadReport needs Node.js; in a browser use fetchReport');
}
