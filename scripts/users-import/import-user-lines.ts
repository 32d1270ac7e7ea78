import type { SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import {
  PostgresUserWriter,
  refreshUsersStatistics,
  type UserWriterOptions,
} from '#shared/adapters/postgres/user-writer.ts';
import { parseUserLine } from './user-line.ts';

export interface ImportCounts {
  /** Lines read, blank ones included. */
  lines: number;
  /** Valid lines whose record is stored, or was replaced by a later line with the same id (last one wins). */
  imported: number;
  /** Lines refused by validation or, rarely, by the database. */
  rejected: number;
  /** Valid lines whose id an earlier line of the same import already had. */
  duplicateIds: number;
}

export interface RejectedLine {
  lineNumber: number;
  problems: string[];
}

export interface ImportUserLinesInput {
  /** The file's lines, in order (e.g. a `readline` interface). */
  lines: AsyncIterable<string>;
  orgId: string;
  database: Pick<SqlRunner, 'query' | 'transaction'>;
  /** Tuning and test hooks for the writer. */
  writer?: Omit<UserWriterOptions<number>, 'database' | 'orgId' | 'onWritten' | 'onRefused' | 'onSuperseded'>;
  onRejected?: (line: RejectedLine) => void;
  /** Called after every line and every stored batch. */
  onProgress?: (counts: Readonly<ImportCounts>) => void;
}

/** The import stopped before the end (the database kept failing); `counts` says how far it got. */
export class ImportAbortedError extends Error {
  override name = 'ImportAbortedError';
  constructor(
    readonly counts: Readonly<ImportCounts>,
    options: { cause: unknown },
  ) {
    super(`import stopped: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`, options);
  }
}

/**
 * Primary course: read each line, validate it (a bad line is reported and never written), hand
 * valid records to the writer (batched upserts), then wait for every batch, and refresh the
 * table's statistics (refreshUsersStatistics) so the first queries after the import plan as well as
 * later ones. Duplicate ids: the last line wins.
 */
export async function importUserLines(input: ImportUserLinesInput): Promise<ImportCounts> {
  const counts: ImportCounts = { lines: 0, imported: 0, rejected: 0, duplicateIds: 0 };
  const progress = () => input.onProgress?.(counts);
  const seenIds = new Set<string>();
  const writer = new PostgresUserWriter<number>({
    ...input.writer,
    database: input.database,
    orgId: input.orgId,
    onWritten: (lineNumbers) => {
      counts.imported += lineNumbers.length;
      progress();
    },
    onSuperseded: () => {
      counts.imported++;
    },
    onRefused: (lineNumber, reason) => {
      counts.rejected++;
      input.onRejected?.({ lineNumber, problems: [`refused by the database: ${reason}`] });
      progress();
    },
  });

  try {
    for await (const line of input.lines) {
      const lineNumber = ++counts.lines;
      const parsed = parseUserLine(input.orgId, line);
      if (parsed.kind === 'rejected') {
        counts.rejected++;
        input.onRejected?.({ lineNumber, problems: parsed.problems });
      } else if (parsed.kind === 'valid') {
        if (seenIds.has(parsed.record.id)) counts.duplicateIds++;
        seenIds.add(parsed.record.id);
        await writer.put(parsed.record, lineNumber);
      }
      progress();
    }
  } catch (error) {
    await writer.abandon();
    throw new ImportAbortedError({ ...counts }, { cause: error });
  }
  try {
    await writer.close();
    if (counts.imported > 0) await refreshUsersStatistics(input.database);
  } catch (error) {
    throw new ImportAbortedError({ ...counts }, { cause: error });
  }
  return counts;
}
