import type { EmailPause, EmailSendingStatus } from '#shared/domain/onboarding/email-reputation.ts';

/** An organization's e-mail pause as the use cases see it: none, or the reason given. */
export const emailSendingPausedFor = (reason?: EmailPause['reason']): EmailSendingStatus => ({
  pausedFor: () => Promise.resolve(reason),
});

export const sendingNotPaused = emailSendingPausedFor(undefined);
