import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UserBatchWriterOptions } from '../../shared/adapters/dynamodb/user-batch-writer.ts';
import type { DigestFinish } from '../../shared/adapters/dynamodb/user-digest-store.ts';
import { UserRecordWriter } from '../../shared/adapters/dynamodb/user-record-writer.ts';
import { parseUserLine } from './user-line.ts';

export interface ImportCounts {
  /** Lines read, blank ones included. */
  lines: number;
  /** Valid lines whose record is stored, or was replaced by a later line with the same id (last one wins). */
  imported: number;
  /** Lines refused by validation or, rarely, by DynamoDB. */
  rejected: number;
  /** Valid lines whose id an earlier line of the same import already had. */
  duplicateIds: number;
  /** What became of the organization's user digest (README "User status queries"); set at the end. */
  digest?: DigestFinish;
}

export interface RejectedLine {
  lineNumber: number;
  problems: string[];
}

export interface ImportUserLinesInput {
  /** The file's lines, in order (e.g. a `readline` interface). */
  lines: AsyncIterable<string>;
  orgId: string;
  documents: DynamoDBDocumentClient;
  tableName: string;
  /** Tuning and test hooks for the batch writer. */
  writer?: Omit<UserBatchWriterOptions<number>, 'documents' | 'tableName' | 'onWritten' | 'onRefused' | 'onSuperseded'>;
  onRejected?: (line: RejectedLine) => void;
  /** Called after every line and every stored batch. */
  onProgress?: (counts: Readonly<ImportCounts>) => void;
}

/** The import stopped before the end (the table kept failing); `counts` says how far it got. */
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
 * Primary course: register as a writer of the organization's user digest, read each line,
 * validate it (a bad line is reported and never written), hand valid records to the batch writer
 * and the digest, wait for every batch, then bring the digest up to date. Duplicate ids: the last
 * line wins.
 */
export async function importUserLines(input: ImportUserLinesInput): Promise<ImportCounts> {
  const counts: ImportCounts = { lines: 0, imported: 0, rejected: 0, duplicateIds: 0 };
  const progress = () => input.onProgress?.(counts);
  const seenIds = new Set<string>();
  // Take the lines' iterator first: a readline interface drops the lines it reads before then.
  const lines = input.lines[Symbol.asyncIterator]();
  let writer: UserRecordWriter<number>;
  try {
    writer = await UserRecordWriter.open<number>({
      ...input.writer,
      documents: input.documents,
      tableName: input.tableName,
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
        input.onRejected?.({ lineNumber, problems: [`refused by DynamoDB: ${reason}`] });
        progress();
      },
    });
  } catch (error) {
    throw new ImportAbortedError({ ...counts }, { cause: error });
  }

  try {
    for await (const line of { [Symbol.asyncIterator]: () => lines }) {
      const lineNumber = ++counts.lines;
      const parsed = parseUserLine(input.orgId, line);
      if (parsed.kind === 'rejected') {
        counts.rejected++;
        input.onRejected?.({ lineNumber, problems: parsed.problems });
      } else if (parsed.kind === 'valid') {
        if (seenIds.has(parsed.record.id)) counts.duplicateIds++;
        seenIds.add(parsed.record.id);
        await writer.put(parsed.record, lineNumber, parsed.item);
      }
      progress();
    }
  } catch (error) {
    await writer.abandon();
    throw new ImportAbortedError({ ...counts }, { cause: error });
  }
  try {
    counts.digest = await writer.close();
  } catch (error) {
    throw new ImportAbortedError({ ...counts }, { cause: error });
  }
  return counts;
}
