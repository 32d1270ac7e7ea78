import type { ImportCounts } from './import-user-lines.ts';

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressReporter {
  update(counts: Readonly<ImportCounts>): void;
  /** A message of its own line (a rejected line), kept clear of the progress line. */
  message(text: string): void;
  /** Removes the progress line (terminal) before the summary. */
  finish(): void;
}

const CLEAR_LINE = '\r\u001b[2K';

export const describeCounts = (counts: Readonly<ImportCounts>): string =>
  `${counts.lines} lines read, ${counts.imported} imported, ${counts.rejected} rejected`;

/**
 * On a terminal, one line rewritten in place (at most every `intervalMs`, default 100 ms); in a
 * log or pipe, a plain line every `intervalMs` (default 5 s).
 */
export function createProgressReporter(
  stream: ProgressStream,
  options: { now?: () => number; intervalMs?: number } = {},
): ProgressReporter {
  const tty = stream.isTTY === true;
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? (tty ? 100 : 5_000);
  let lastShown = now();
  let latest: Readonly<ImportCounts> | undefined;
  let lineShown = false;

  const show = (counts: Readonly<ImportCounts>): void => {
    if (tty) {
      stream.write(`${CLEAR_LINE}importing: ${describeCounts(counts)}`);
      lineShown = true;
    } else {
      stream.write(`progress: ${describeCounts(counts)}\n`);
    }
  };

  return {
    update(counts) {
      latest = counts;
      if (now() - lastShown < intervalMs) return;
      lastShown = now();
      show(counts);
    },
    message(text) {
      if (lineShown) stream.write(CLEAR_LINE);
      stream.write(`${text}\n`);
      if (lineShown && latest) stream.write(`importing: ${describeCounts(latest)}`);
    },
    finish() {
      if (lineShown) stream.write(CLEAR_LINE);
      lineShown = false;
    },
  };
}
