import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '#lib/repo-root.ts';
import {
  buildOpenApiDocument,
  OPENAPI_DOCUMENT_FILE,
  serializeOpenApiDocument,
} from './openapi/build-openapi-document.ts';

/**
 * `npm run openapi`: writes openapi.json from the route table and the handlers' schemas.
 * `npm run openapi -- --check`: writes nothing; exit status 1 if the file is not up to date.
 */
const file = path.join(repoRoot, OPENAPI_DOCUMENT_FILE);
const text = serializeOpenApiDocument(buildOpenApiDocument());

if (process.argv.includes('--check')) {
  const current = await readFile(file, 'utf8').catch(() => '');
  if (current !== text) {
    process.stderr.write(`${OPENAPI_DOCUMENT_FILE} is out of date: run npm run openapi\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`${OPENAPI_DOCUMENT_FILE} is up to date\n`);
  }
} else {
  await writeFile(file, text);
  process.stdout.write(`wrote ${OPENAPI_DOCUMENT_FILE} (${Buffer.byteLength(text)} bytes)\n`);
}
