import * as v from 'valibot';
import { cursorPage, instant } from './response-members.ts';

/** One e-mail the sandbox kept instead of sending (contract §23). */
export const sandboxEmailSchema = v.object({
  to: v.pipe(v.string(), v.description('The recipient, lower-cased.')),
  subject: v.string(),
  text: v.pipe(v.string(), v.description('The text part, as SES would have sent it.')),
  html: v.pipe(v.string(), v.description('The HTML part, as SES would have sent it.')),
  tokenId: v.pipe(v.string(), v.uuid(), v.description('The onboarding token the e-mail carries.')),
  createdAt: instant('When it would have been sent.'),
});

/** 200 of GET /v1/sandbox/emails. */
export const sandboxEmailPageSchema = cursorPage(
  sandboxEmailSchema,
  'Newest first; each e-mail is kept 7 days after it would have been sent.',
);

export type SandboxEmailBody = v.InferOutput<typeof sandboxEmailSchema>;
export type SandboxEmailPageBody = v.InferOutput<typeof sandboxEmailPageSchema>;
