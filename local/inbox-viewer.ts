import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeHtml } from '#shared/adapters/html/escape-html.ts';

/**
 * The local inbox at `/local/inbox`: every e-mail the SES emulator holds, newest first. The
 * emulator's own page writes each e-mail's HTML into a same-origin frame, where its event handlers
 * run with the page's rights; here the HTML only ever reaches an `<iframe sandbox="" srcdoc>`
 * (no scripts, no forms, an opaque origin), and the page itself is served with a Content Security
 * Policy that runs no script at all. Text and headers are escaped.
 */
export const INBOX_PATH = '/local/inbox';

interface StoredEmail {
  messageId: string;
  at: number;
  subject?: string;
  from?: string;
  destination?: { to?: string[] };
  body?: { text?: string; html?: string };
}

export const INBOX_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function renderInbox(emails: readonly StoredEmail[]): string {
  const items = [...emails]
    .sort((a, b) => b.at - a.at)
    .map((email) => {
      const html = email.body?.html;
      return `<article>
<p><b>Subject:</b> ${escapeHtml(email.subject ?? '')}</p>
<p><b>From:</b> ${escapeHtml(email.from ?? '')} <b>To:</b> ${escapeHtml((email.destination?.to ?? []).join(', '))}</p>
<p><b>At:</b> ${escapeHtml(new Date(email.at * 1000).toISOString())}</p>
${html === undefined ? '' : `<iframe sandbox="" referrerpolicy="no-referrer" title="HTML part" srcdoc="${escapeHtml(html)}"></iframe>`}
${email.body?.text === undefined ? '' : `<pre>${escapeHtml(email.body.text)}</pre>`}
</article>`;
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Local inbox</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}article{border-bottom:1px solid #ccc;padding:1rem 0}iframe{width:100%;height:24rem;border:1px solid #ddd}pre{white-space:pre-wrap}</style>
</head><body><h1>Local inbox (${emails.length})</h1>
${items || '<p>No e-mail yet.</p>'}
</body></html>`;
}

/** Answers `GET /local/inbox` from the SES emulator's store; anything else is not its request. */
export function createInboxViewer(options: { sesEndpoint: string }) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== INBOX_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
    const store = (await (await fetch(`${options.sesEndpoint}/store`)).json()) as { emails?: StoredEmail[] };
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': INBOX_CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : renderInbox(store.emails ?? []));
    return true;
  };
}
