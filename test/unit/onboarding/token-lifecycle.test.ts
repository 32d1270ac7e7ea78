import { describe, expect, it, vi } from 'vitest';
import {
  DependencyUnavailableError,
  EmailQuotaExceededError,
  NotFoundError,
  TokenNotIssuedError,
} from '#shared/domain/errors.ts';
import { QuotaChangedError } from '#shared/domain/limits/rate-limit.ts';
import {
  hashOnboardingToken,
  type OnboardingTokenRecord,
  type OnboardingTokenStatus,
} from '#shared/domain/onboarding/onboarding-token.ts';
import type { OnboardingMailer, OnboardingTokenStore } from '#shared/domain/onboarding/ports.ts';
import {
  expireOnboardingToken,
  redeemOnboardingToken,
  resendOnboardingToken,
  revokeOnboardingToken,
} from '#shared/domain/onboarding/token-lifecycle.ts';
import { ALLOWED, FakeEmailQuota, quotaWrite, RECIPIENT_REFUSAL } from './fake-email-quota.ts';
import { sendingNotPaused } from '#test/support/email-sending.ts';
import { issuedTokenRecord } from '#test/support/fixtures/onboarding-tokens.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const TOKEN = 'Q2hhbmdlIG1lIGlmIHlvdSBjYW4gcmVhZA';
const issued = issuedTokenRecord({
  orgId: 'acme',
  tokenHash: hashOnboardingToken(TOKEN),
  tokenHint: TOKEN.slice(-4),
  createdAt: '2026-02-27T12:00:00.000Z',
});

/** A store whose transitions answer as told; each method records its calls. */
function storeAnswering(outcome: OnboardingTokenRecord | OnboardingTokenStatus, found = issued) {
  return {
    issue: vi.fn(),
    withdraw: vi.fn(),
    listByOrganization: vi.fn(),
    findById: vi.fn((_orgId: string, tokenId: string) =>
      Promise.resolve(tokenId === found.tokenId ? found : undefined),
    ),
    findByHash: vi.fn((_orgId: string, hash: string) => Promise.resolve(hash === found.tokenHash ? found : undefined)),
    markUsed: vi.fn(() => Promise.resolve(outcome)),
    revoke: vi.fn(() => Promise.resolve(outcome)),
    expire: vi.fn(() => Promise.resolve(outcome)),
    replace: vi.fn(() => Promise.resolve()),
    undoReplace: vi.fn(() => Promise.resolve()),
    confirm: vi.fn(() => Promise.resolve()),
    eraseIssuedTo: vi.fn(() => Promise.resolve(0)),
  } satisfies OnboardingTokenStore;
}

const events = () => ({ tokenUsed: vi.fn(() => Promise.resolve()), tokenRevoked: vi.fn(() => Promise.resolve()) });
const clock = { now: () => NOW };

describe('redeemOnboardingToken', () => {
  it('finds the token by the SHA-256 of what was typed, marks it Used and tells the events port', async () => {
    const used = { ...issued, usedAt: NOW.toISOString() };
    const tokens = storeAnswering(used);
    const lifecycle = events();

    const result = await redeemOnboardingToken({ tokens, events: lifecycle, clock })({
      orgId: 'acme',
      onboardingToken: TOKEN,
    });

    expect(result).toEqual(used);
    expect(tokens.findByHash).toHaveBeenCalledWith('acme', issued.tokenHash);
    expect(lifecycle.tokenUsed).toHaveBeenCalledWith(used);
  });

  it('answers not found for a token the organization does not hold', async () => {
    const run = redeemOnboardingToken({ tokens: storeAnswering('Issued'), events: events(), clock });
    await expect(run({ orgId: 'acme', onboardingToken: 'x'.repeat(32) })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers a conflict naming the status when the token is no longer Issued, and emits nothing', async () => {
    const lifecycle = events();
    const run = redeemOnboardingToken({ tokens: storeAnswering('Expired'), events: lifecycle, clock });

    await expect(run({ orgId: 'acme', onboardingToken: TOKEN })).rejects.toMatchObject({
      constructor: TokenNotIssuedError,
      details: { tokenStatus: 'Expired' },
    });
    expect(lifecycle.tokenUsed).not.toHaveBeenCalled();
  });
});

describe('revokeOnboardingToken', () => {
  it('revokes, recording who did it, and tells the events port', async () => {
    const revoked = { ...issued, revokedAt: NOW.toISOString(), revokedBy: 'staff-7' };
    const tokens = storeAnswering(revoked);
    const lifecycle = events();

    await revokeOnboardingToken({ tokens, events: lifecycle, clock })({
      orgId: 'acme',
      tokenId: issued.tokenId,
      revokedBy: 'staff-7',
    });

    expect(tokens.revoke).toHaveBeenCalledWith(issued, 'staff-7', NOW);
    expect(lifecycle.tokenRevoked).toHaveBeenCalledWith(revoked);
  });

  it('changes nothing and emits nothing for a token already Revoked', async () => {
    const lifecycle = events();
    const run = revokeOnboardingToken({ tokens: storeAnswering('Revoked'), events: lifecycle, clock });

    await expect(run({ orgId: 'acme', tokenId: issued.tokenId, revokedBy: undefined })).resolves.toBeUndefined();
    expect(lifecycle.tokenRevoked).not.toHaveBeenCalled();
  });

  it('refuses a Used token with its status', async () => {
    const run = revokeOnboardingToken({ tokens: storeAnswering('Used'), events: events(), clock });
    await expect(run({ orgId: 'acme', tokenId: issued.tokenId, revokedBy: undefined })).rejects.toMatchObject({
      details: { tokenStatus: 'Used' },
    });
  });
});

describe('expireOnboardingToken', () => {
  it('expires the Issued token now and answers it as stored', async () => {
    const expired = { ...issued, expiresAt: NOW.toISOString() };
    const tokens = storeAnswering(expired);

    const result = await expireOnboardingToken({ tokens, clock })({ orgId: 'acme', tokenId: issued.tokenId });

    expect(result).toEqual(expired);
    expect(tokens.expire).toHaveBeenCalledWith(issued, NOW);
  });

  it('answers not found for a token the organization does not hold', async () => {
    const run = expireOnboardingToken({ tokens: storeAnswering('Issued'), clock });
    await expect(run({ orgId: 'acme', tokenId: 'another' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it.each(['Used', 'Expired', 'Revoked'] as const)('refuses a %s token with its status', async (status) => {
    const run = expireOnboardingToken({ tokens: storeAnswering(status), clock });
    await expect(run({ orgId: 'acme', tokenId: issued.tokenId })).rejects.toMatchObject({
      constructor: TokenNotIssuedError,
      details: { tokenStatus: status },
    });
  });
});

describe('resendOnboardingToken', () => {
  const mailer = (failure?: Error) =>
    ({
      sendOnboardingToken: vi.fn(() => (failure ? Promise.reject(failure) : Promise.resolve())),
    }) satisfies OnboardingMailer;

  it('records a new token for the same person, e-mails it and reports the old one revoked', async () => {
    const tokens = storeAnswering('Issued');
    const lifecycle = events();
    const send = mailer();

    const emailQuota = new FakeEmailQuota();

    const result = await resendOnboardingToken({
      tokens,
      events: lifecycle,
      clock,
      mailer: send,
      emailQuota,
      emailSending: sendingNotPaused,
    })({
      orgId: 'acme',
      tokenId: issued.tokenId,
      organizationName: 'Acme',
      revokedBy: 'staff-7',
    });

    const [previous, next] = tokens.replace.mock.calls[0] as unknown as [OnboardingTokenRecord, OnboardingTokenRecord];
    expect(previous).toBe(issued);
    expect(next).toMatchObject({
      email: issued.email,
      firstName: 'Zoë',
      lastName: 'Ångström',
      tokenId: result.tokenId,
    });
    expect(next.tokenId).not.toBe(issued.tokenId);
    expect(next.tokenHash).toBe(hashOnboardingToken(result.onboardingToken));
    expect(send.sendOnboardingToken).toHaveBeenCalledWith(expect.objectContaining({ token: result.onboardingToken }));
    expect(lifecycle.tokenRevoked).toHaveBeenCalledWith(expect.objectContaining({ tokenId: issued.tokenId }));
    expect(emailQuota.reserved).toEqual([{ orgId: 'acme', email: issued.email, now: NOW }]);
    // Spent in the replacement's own transaction.
    expect((tokens.replace.mock.calls[0] as unknown[])[4]).toEqual({ writes: [quotaWrite(1)] });
    expect(result.emailQuota).toEqual(ALLOWED);
  });

  it('undoes the replacement and answers mail unavailable when the e-mail fails', async () => {
    const tokens = storeAnswering('Issued');
    const lifecycle = events();
    const emailQuota = new FakeEmailQuota();
    const run = resendOnboardingToken({
      tokens,
      events: lifecycle,
      clock,
      mailer: mailer(new Error('SES down')),
      emailQuota,
      emailSending: sendingNotPaused,
    });

    const failure = await run({
      orgId: 'acme',
      tokenId: issued.tokenId,
      organizationName: 'Acme',
      revokedBy: undefined,
    }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    const [next] = tokens.replace.mock.calls[0]!.slice(1) as unknown as [OnboardingTokenRecord];
    expect(tokens.undoReplace).toHaveBeenCalledWith(issued, next);
    expect(lifecycle.tokenRevoked).not.toHaveBeenCalled();
  });

  it('refuses a Used or Revoked token before writing anything', async () => {
    for (const state of [{ usedAt: NOW.toISOString() }, { revokedAt: NOW.toISOString() }]) {
      const tokens = storeAnswering('Issued', { ...issued, ...state });
      const emailQuota = new FakeEmailQuota();
      const run = resendOnboardingToken({
        tokens,
        events: events(),
        clock,
        mailer: mailer(),
        emailQuota,
        emailSending: sendingNotPaused,
      });
      await expect(
        run({ orgId: 'acme', tokenId: issued.tokenId, organizationName: 'Acme', revokedBy: undefined }),
      ).rejects.toBeInstanceOf(TokenNotIssuedError);
      expect(tokens.replace).not.toHaveBeenCalled();
      expect(emailQuota.reserved).toEqual([]);
    }
  });

  it('spends no e-mail quota for an unknown token (404)', async () => {
    const emailQuota = new FakeEmailQuota();
    const run = resendOnboardingToken({
      tokens: storeAnswering('Issued'),
      events: events(),
      clock,
      mailer: mailer(),
      emailQuota,
      emailSending: sendingNotPaused,
    });

    await expect(
      run({ orgId: 'acme', tokenId: 'no-such-token', organizationName: 'Acme', revokedBy: undefined }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(emailQuota.reserved).toEqual([]);
  });

  it('refuses with 429 beyond the e-mail quota, before anything is replaced or sent', async () => {
    const tokens = storeAnswering('Issued');
    const send = mailer();
    const lifecycle = events();
    const emailQuota = new FakeEmailQuota();
    emailQuota.refusal = RECIPIENT_REFUSAL;
    const run = resendOnboardingToken({
      tokens,
      events: lifecycle,
      clock,
      mailer: send,
      emailQuota,
      emailSending: sendingNotPaused,
    });

    await expect(
      run({ orgId: 'acme', tokenId: issued.tokenId, organizationName: 'Acme', revokedBy: undefined }),
    ).rejects.toBeInstanceOf(EmailQuotaExceededError);
    expect(tokens.replace).not.toHaveBeenCalled();
    expect(send.sendOnboardingToken).not.toHaveBeenCalled();
    expect(lifecycle.tokenRevoked).not.toHaveBeenCalled();
  });

  it('decides the quota again when a concurrent e-mail spent it before the replacement committed', async () => {
    const tokens = storeAnswering('Issued');
    tokens.replace.mockImplementationOnce(() => Promise.reject(new QuotaChangedError()));
    const send = mailer();
    const emailQuota = new FakeEmailQuota();
    const run = resendOnboardingToken({
      tokens,
      events: events(),
      clock,
      mailer: send,
      emailQuota,
      emailSending: sendingNotPaused,
    });

    await run({ orgId: 'acme', tokenId: issued.tokenId, organizationName: 'Acme', revokedBy: undefined });

    expect(emailQuota.reserved).toHaveLength(2);
    expect(tokens.replace.mock.calls.map((call) => (call as unknown[])[4])).toEqual([
      { writes: [quotaWrite(1)] },
      { writes: [quotaWrite(2)] },
    ]);
    expect(send.sendOnboardingToken).toHaveBeenCalledTimes(1);
  });

  it('sends nothing and decides no more when the replacement is refused (the token changed meanwhile)', async () => {
    const tokens = storeAnswering('Issued');
    const refusal = new TokenNotIssuedError('Revoked');
    tokens.replace.mockImplementation(() => Promise.reject(refusal));
    const send = mailer();
    const emailQuota = new FakeEmailQuota();
    const run = resendOnboardingToken({
      tokens,
      events: events(),
      clock,
      mailer: send,
      emailQuota,
      emailSending: sendingNotPaused,
    });

    await expect(
      run({ orgId: 'acme', tokenId: issued.tokenId, organizationName: 'Acme', revokedBy: undefined }),
    ).rejects.toBe(refusal);
    expect(emailQuota.reserved).toHaveLength(1);
    expect(send.sendOnboardingToken).not.toHaveBeenCalled();
  });
});
