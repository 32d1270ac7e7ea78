import type { KeptEmailPage } from '#shared/domain/sandbox/mailbox.ts';
import type { SandboxEmailPageBody } from '#shared/schemas/sandbox-mailbox-responses.ts';

/** GET /v1/sandbox/emails: the kept e-mails as they are, and the cursor (null on the last page). */
export function sandboxEmailPageBody(page: KeptEmailPage): SandboxEmailPageBody {
  return {
    results: page.emails.map(({ to, subject, text, html, tokenId, createdAt }) => ({
      to,
      subject,
      text,
      html,
      tokenId,
      createdAt,
    })),
    nextCursor: page.nextCursor ?? null,
  };
}
