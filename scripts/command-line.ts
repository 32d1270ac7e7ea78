/** What the project's small commands (`npm run token`, `npm run users:import`) share. */

/** A mistake in how the command was called: printed with the usage text, exit status 2. */
export class UsageError extends Error {}

export { ORGANIZATION_ID } from '#shared/domain/identity/organization-claim.ts';
export const ORGANIZATION_ID_RULE = '--org must be 1-64 characters of A-Z a-z 0-9 _ . -';

/**
 * Runs the command's argument parser; on a usage mistake (ours, or node:util parseArgs') prints it
 * with the usage text and gives undefined, so the caller exits 2.
 */
export function parseCommandLine<T>(command: string, usage: string, parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    const isUsageMistake =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`${command}: ${isUsageMistake ? (error as Error).message : String(error)}\n\n${usage}\n`);
    return undefined;
  }
}
