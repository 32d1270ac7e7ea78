import { writeFile } from 'node:fs/promises';
import type { Row } from '#bench/report.ts';
import { createContext, type Measurement } from './measurement.ts';

/**
 * One benchmark process: runs the named measurements in order (sharing one local stack if they
 * use it), writes their rows to the result file and exits, whatever is left running.
 * Usage: child.ts <result-file> <measurement-id>...
 */
export type ChildResult = { id: string; rows: Row[] } | { id: string; error: string };

const [resultFile, ...ids] = process.argv.slice(2);
if (!resultFile || ids.length === 0) throw new Error('usage: child.ts <result-file> <measurement-id>...');

const log = (message: string): void =>
  void process.stderr.write(`  [${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const context = await createContext(log);
const results: ChildResult[] = [];
try {
  for (const id of ids) {
    const startedAt = Date.now();
    log(`${id}: started`);
    try {
      const measurement = ((await import(`../measurements/${id}.ts`)) as { default: Measurement }).default;
      results.push({ id, rows: await measurement.run(context) });
      log(`${id}: done in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`${id}: failed: ${message}`);
      results.push({ id, error: message.split('\n')[0] ?? message });
    }
    await writeFile(resultFile, JSON.stringify(results));
  }
} finally {
  await context.close().catch((error: unknown) => log(`could not stop cleanly: ${String(error)}`));
}
// SDK keep-alive sockets and emulator handles must not keep a finished benchmark alive.
process.exit(0);
