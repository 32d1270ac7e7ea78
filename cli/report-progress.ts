import type { ReportProgress, ReportWait } from '#client/index.ts';

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ReportProgressView {
  status(progress: ReportProgress): void;
  wait(wait: ReportWait): void;
  download(progress: { receivedBytes: number; totalBytes: number }): void;
  /** Clears the live line (terminal) before the result is printed. */
  finish(): void;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const CLEAR_LINE = '\r\u001b[2K';
const TICK_MS = 100;

const secondsText = (ms: number): string => `${Math.round(ms / 1000)} s`;

/**
 * How a waiting report shows itself. On a terminal: a status line rewritten in place (spinner,
 * status, time waited, countdown to the next check, download percentage) and one permanent line
 * per status change. Anywhere else (a pipe, a log): plain lines, one per status change, retry or
 * finished download, never a control character.
 */
export function createReportProgressView(
  stream: ProgressStream,
  now: () => number = () => Date.now(),
): ReportProgressView {
  const startedAt = now();
  if (!stream.isTTY) {
    return {
      status: (p) =>
        stream.write(
          `${p.status}${p.previousStatus ? ` (was ${p.previousStatus})` : ''} after ${secondsText(p.elapsedMs)}\n`,
        ),
      wait: (w) => {
        if (w.reason !== 'schedule')
          stream.write(`status check failed (${w.error?.message ?? w.reason}); next in ${secondsText(w.delayMs)}\n`);
      },
      download: (d) => {
        if (d.receivedBytes === d.totalBytes) stream.write(`downloaded ${d.receivedBytes} bytes\n`);
      },
      finish: () => undefined,
    };
  }

  let status = '';
  let nextCheckAt: number | undefined;
  let downloaded: { receivedBytes: number; totalBytes: number } | undefined;
  let frame = 0;
  const render = (): void => {
    const spinner = SPINNER[frame++ % SPINNER.length];
    const detail = downloaded
      ? `downloading ${Math.floor((downloaded.receivedBytes / Math.max(1, downloaded.totalBytes)) * 100)}%`
      : `${secondsText(now() - startedAt)}${nextCheckAt === undefined ? '' : `, next check in ${secondsText(Math.max(0, nextCheckAt - now()))}`}`;
    stream.write(`${CLEAR_LINE}${spinner} ${status} ${detail}`);
  };
  const ticker = setInterval(render, TICK_MS);
  ticker.unref();

  return {
    status: (p) => {
      stream.write(
        `${CLEAR_LINE}${p.previousStatus ? `✔ ${p.previousStatus} → ${p.status}` : `• ${p.status}`} (${secondsText(p.elapsedMs)})\n`,
      );
      status = p.status;
      nextCheckAt = undefined;
      render();
    },
    wait: (w) => {
      nextCheckAt = now() + w.delayMs;
      if (w.reason !== 'schedule')
        stream.write(`${CLEAR_LINE}! status check failed (${w.error?.message ?? w.reason}); retrying\n`);
      render();
    },
    download: (d) => {
      downloaded = d;
      status = 'COMPLETE';
    },
    finish: () => {
      clearInterval(ticker);
      stream.write(CLEAR_LINE);
    },
  };
}
