import { randomUUID } from 'node:crypto';
import {
  ApiConnectionError,
  ApiError,
  OnboardingApiClient,
  SEED_POLLING_SCHEDULE,
  UnauthorizedError,
  verifyReportSignature,
} from '#client/index.ts';
import type { Fetch } from '#client/index.ts';

/**
 * `npm run smoke`: a deployed stage checked end to end through its API (contract §24), one line per check. Every
 * read route, an onboarding token created and redeemed and another revoked, a report requested, downloaded (its
 * size and SHA-256 against the job) and its signature verified against GET /v1/report-signing-certificates.
 *
 * Next step, with the sandbox (contract §23): the stage refuses a token without `sandbox` here, so a smoke run can
 * never touch live data; until it lands the run writes to the token's organization (two tokens, to the SES mailbox
 * simulator, and one report), which is why it wants an organization of its own (docs/deploy.md "Smoke test").
 */
export interface SmokeOptions {
  readonly apiUrl: string;
  readonly token: string;
  /** The user the report is about; default the organization's first user. */
  readonly userId?: string;
  /** Where the onboarding e-mails go: SES's mailbox simulator, which delivers nothing and counts no bounce. */
  readonly emailDomain?: string;
  /** How long the report may take, in ms: the contract's 5 minutes. */
  readonly reportDeadlineMs?: number;
  readonly fetch?: Fetch;
  /** Each check's line, as it ends. */
  readonly out: (line: string) => void;
}

export interface SmokeResult {
  readonly passed: number;
  readonly failed: number;
  /** Why the run stopped before its checks: the API cannot be reached, or the token is refused. */
  readonly stoppedBecause?: string;
}

/** SES's mailbox simulator: delivered to nobody, counted as neither bounce nor complaint; `+label` keeps addresses apart. */
export const SES_SIMULATOR_DOMAIN = 'simulator.amazonses.com';

class SmokeStop extends Error {}

export async function runSmokeChecks(options: SmokeOptions): Promise<SmokeResult> {
  const client = new OnboardingApiClient({
    baseUrl: options.apiUrl,
    token: options.token,
    userAgent: 'onboarding-smoke',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  let passed = 0;
  let failed = 0;
  const check = async <T>(name: string, run: () => Promise<T>): Promise<T | undefined> => {
    const startedAt = Date.now();
    try {
      const value = await run();
      passed += 1;
      options.out(`ok    ${name} (${Date.now() - startedAt} ms)`);
      return value;
    } catch (error) {
      // Nothing else can pass then: one line says why, instead of one failure per check.
      if (error instanceof ApiConnectionError)
        throw new SmokeStop(`cannot reach ${options.apiUrl}: ${causeOf(error)} (is --api-url the stage's ApiUrl?)`);
      if (error instanceof UnauthorizedError)
        throw new SmokeStop('the token was refused (401): it has expired, or another issuer or audience made it');
      failed += 1;
      options.out(`FAIL  ${name}: ${reasonOf(error)}`);
      return undefined;
    }
  };

  try {
    // An authenticated read first: a refused token stops the run before anything else is tried.
    await check('GET /v1/onboarding-tokens', () => client.listOnboardingTokens({ limit: 1 }));
    await check('GET /v1/openapi.json', () => client.getOpenApiDocument());
    await check('GET /v1/document/api', () => client.listReportJobs({ limit: 1 }));
    const users = await check('POST /v1/user-status', () =>
      client.queryUserStatusPage({ result_keys: ['id'], pagination: { limit: 1 } }),
    );
    const endpoints = await check('GET /v1/webhooks', () => client.listWebhookEndpoints());
    const firstEndpoint = endpoints?.results[0];
    if (firstEndpoint)
      await check('GET /v1/webhooks/{id}/deliveries', () =>
        client.listWebhookDeliveries(firstEndpoint.id, { limit: 1 }),
      );
    const certificates = await check('GET /v1/report-signing-certificates', () =>
      client.listReportSigningCertificates(),
    );
    await check('GET /v1/audit-events', () => client.listAuditEvents({ limit: 1 }));

    const email = () => `success+smoke-${randomUUID().slice(0, 8)}@${options.emailDomain ?? SES_SIMULATOR_DOMAIN}`;
    const person = { first_name: 'Smoke', last_name: 'Test' };
    const redeemable = await check('POST /v1/onboarding-token', () =>
      client.createOnboardingToken({ email: email(), ...person }),
    );
    if (redeemable)
      await check('POST /v1/onboarding-token/redeem', async () => {
        const redeemed = await client.redeemOnboardingToken(redeemable.onboarding_token);
        if (redeemed.tokenId !== redeemable.tokenId) throw new Error('another token than the one created was redeemed');
      });
    const revocable = await check('POST /v1/onboarding-token (to revoke)', () =>
      client.createOnboardingToken({ email: email(), ...person }),
    );
    if (revocable)
      await check('DELETE /v1/onboarding-tokens/{tokenId}', () => client.revokeOnboardingToken(revocable.tokenId));

    const userId = options.userId ?? (users?.results[0] as { id?: string } | undefined)?.id;
    const job = await check('POST /v1/document/api', async () => {
      if (!userId) throw new Error('the organization has no user to report on (give --user-id)');
      return (await client.createReportJob({ userId })).job;
    });
    if (job) {
      const complete = await check('GET /v1/document/api/{id} until COMPLETE', () =>
        client.waitForReport(job.jobId, {
          job,
          schedule: {
            ...SEED_POLLING_SCHEDULE,
            deadlineMs: options.reportDeadlineMs ?? SEED_POLLING_SCHEDULE.deadlineMs,
          },
        }),
      );
      const report = complete
        ? await check('GET /v1/document/api/{id}/url and the PDF (size, SHA-256)', () => client.fetchReport(job.jobId))
        : undefined;
      if (report && certificates)
        await check('report signature against GET /v1/report-signing-certificates', async () => {
          const verification = await verifyReportSignature(report.bytes, certificates.certificates);
          if (!verification.valid) throw new Error(`${verification.failure}: ${verification.message}`);
        });
    }
  } catch (error) {
    if (!(error instanceof SmokeStop)) throw error;
    return { passed, failed, stoppedBecause: error.message };
  }
  return { passed, failed };
}

function reasonOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.status} ${error.error ?? ''} ${error.message}`.replace(/\s+/g, ' ');
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The innermost cause with a code (ECONNREFUSED, ENOTFOUND, ...), else the error's message. */
function causeOf(error: ApiConnectionError): string {
  let messages = error.message;
  for (let cause: unknown = error.cause; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return `${code} (${cause.message})`;
    messages = cause.message;
  }
  return messages;
}
