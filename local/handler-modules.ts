import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { memoizeByKey } from './memoize-by-key.ts';

/** Any Lambda handler in its promise style; the local router and pollers only need this much. */
export type LambdaHandler<TEvent = unknown, TResult = unknown> = (event: TEvent, context: Context) => Promise<TResult>;

/** Turns an entry file (as in shared/config/api-routes.ts) into its `handler` export. */
export type HandlerLoader = (entry: string) => Promise<LambdaHandler>;

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Imports each entry file on first use and keeps it, like a warm Lambda. Lazy on purpose: a
 * handler's module scope reads `process.env` (config, SDK clients), so the local stack must set
 * the environment before the first import. A failed import is not cached, so a fixed file loads
 * on the next request.
 */
export function createHandlerLoader(rootDir: string = repositoryRoot): HandlerLoader {
  return memoizeByKey((entry) => importHandler(isAbsolute(entry) ? entry : resolve(rootDir, entry)));
}

async function importHandler(file: string): Promise<LambdaHandler> {
  const module = (await import(pathToFileURL(file).href)) as { handler?: unknown };
  if (typeof module.handler !== 'function') throw new Error(`${file} does not export a function named handler`);
  return module.handler as LambdaHandler;
}
