import type { DownloadedReport, DownloadReportOptions } from './download-report.ts';
import { fetchReport, type FetchedReport, type FetchReportOptions } from './fetch-report.ts';
import { HttpTransport, type RequestOptions, type TransportOptions } from './http-transport.ts';
import { rateLimitOf, type RateLimitState } from './errors.ts';
import { systemTimers, type Timers } from './timers.ts';
import type {
  AuditEventListRequest,
  AuditEventPage,
  CompleteReportJob,
  OnboardingToken,
  OnboardingTokenListRequest,
  OnboardingTokenPage,
  OnboardingTokenRequest,
  OnboardingTokenSummary,
  RedeemedOnboardingToken,
  ReportDownload,
  ReportJob,
  ReportJobCreated,
  ReportJobListRequest,
  ReportJobPage,
  ReportJobRequest,
  ReportSigningCertificateList,
  SandboxEmailListRequest,
  SandboxEmailPage,
  SandboxWebhookListener,
  SandboxWebhookMessages,
  SandboxEvent,
  SandboxEventType,
  SandboxScenarioList,
  SandboxUsersImported,
  SandboxUsersRequest,
  SandboxWipe,
  UserStatusPage,
  UserStatusRecord,
  UserStatusRequest,
  WebhookDeliveryListRequest,
  WebhookDeliveryPage,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookEndpointRequest,
  WebhookTestQueued,
} from './types.ts';
import { waitForReport, type WaitForReportOptions } from './wait-for-report.ts';

export interface OnboardingApiClientOptions extends TransportOptions {
  /** Clock, sleep and jitter for `waitForReport`; default the real ones. */
  timers?: Timers;
}

/** The response of POST /v1/document/api with what its headers say. */
export interface CreatedReportJob {
  job: ReportJobCreated;
  /** `Location`: the job's path. */
  location: string | undefined;
  /** `RateLimit-*`: requests allowed per window, left, and seconds until one returns. */
  rateLimit: RateLimitState | undefined;
  /** True when this is the replay of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  requestId: string | undefined;
}

/**
 * A typed client of the onboarding, report and user-status API. It needs nothing but `fetch`
 * and WebCrypto (and, for `downloadReport` only, loaded on first use, Node's fs, stream and crypto
 * modules), so it runs in Node.js and in browsers alike. Every failure is a typed
 * exception from ./errors.ts carrying the response's body and request id.
 */
export class OnboardingApiClient {
  private readonly http: HttpTransport;
  private readonly timers: Timers;

  constructor(options: OnboardingApiClientOptions) {
    this.http = new HttpTransport(options);
    this.timers = options.timers ?? systemTimers;
  }

  /** POST /v1/onboarding-token (scope onboarding:write): creates a token and e-mails it. */
  async createOnboardingToken(request: OnboardingTokenRequest, options: RequestOptions = {}): Promise<OnboardingToken> {
    const response = await this.http.send<OnboardingToken>({
      method: 'POST',
      path: '/v1/onboarding-token',
      body: request,
      ...options,
    });
    return response.body;
  }

  /** GET /v1/onboarding-tokens (scope onboarding:read): one page of the dashboard, newest first. */
  async listOnboardingTokens(
    request: OnboardingTokenListRequest = {},
    options: RequestOptions = {},
  ): Promise<OnboardingTokenPage> {
    const response = await this.http.send<OnboardingTokenPage>({
      method: 'GET',
      path: '/v1/onboarding-tokens',
      query: { limit: request.limit, cursor: request.cursor, status: request.status },
      signal: options.signal,
    });
    return response.body;
  }

  /** POST /v1/onboarding-token/redeem (scope onboarding:redeem): exchanges a token for its person, once. */
  async redeemOnboardingToken(onboardingToken: string, options: RequestOptions = {}): Promise<RedeemedOnboardingToken> {
    const response = await this.http.send<RedeemedOnboardingToken>({
      method: 'POST',
      path: '/v1/onboarding-token/redeem',
      body: { onboarding_token: onboardingToken },
      signal: options.signal,
    });
    return response.body;
  }

  /** DELETE /v1/onboarding-tokens/{tokenId} (scope onboarding:write): Issued -> Revoked; again is a no-op. */
  async revokeOnboardingToken(tokenId: string, options: RequestOptions = {}): Promise<void> {
    await this.http.send<undefined>({
      method: 'DELETE',
      path: `/v1/onboarding-tokens/${encodeURIComponent(tokenId)}`,
      signal: options.signal,
    });
  }

  /** POST /v1/onboarding-tokens/{tokenId}/resend (scope onboarding:write): a new token for the same person. */
  async resendOnboardingToken(tokenId: string, options: RequestOptions = {}): Promise<OnboardingToken> {
    const response = await this.http.send<OnboardingToken>({
      method: 'POST',
      path: `/v1/onboarding-tokens/${encodeURIComponent(tokenId)}/resend`,
      ...options,
    });
    return response.body;
  }

  /** POST /v1/document/api (scope reports:write): queues a report job. */
  async createReportJob(request: ReportJobRequest, options: RequestOptions = {}): Promise<CreatedReportJob> {
    const response = await this.http.send<ReportJobCreated>({
      method: 'POST',
      path: '/v1/document/api',
      body: request,
      ...options,
    });
    return {
      job: response.body,
      location: response.headers.get('location') ?? undefined,
      rateLimit: rateLimitOf(response.headers),
      replayed: response.headers.get('idempotent-replayed') === 'true',
      requestId: response.requestId,
    };
  }

  /** GET /v1/document/api (scope reports:read): the organization's jobs, newest first, one page. */
  async listReportJobs(
    request: ReportJobListRequest = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<ReportJobPage> {
    const response = await this.http.send<ReportJobPage>({
      method: 'GET',
      path: '/v1/document/api',
      query: { limit: request.limit, cursor: request.cursor, userId: request.userId },
      signal: options.signal,
    });
    return response.body;
  }

  /** GET /v1/document/api/{id} (scope reports:read). */
  async getReportJob(jobId: string, options: Pick<RequestOptions, 'signal'> = {}): Promise<ReportJob> {
    const response = await this.http.send<ReportJob>({
      method: 'GET',
      path: `/v1/document/api/${encodeURIComponent(jobId)}`,
      signal: options.signal,
    });
    return response.body;
  }

  /** GET /v1/document/api/{id}/url (scope reports:read): a fresh address, valid 5 minutes. */
  async getReportDownloadUrl(jobId: string, options: Pick<RequestOptions, 'signal'> = {}): Promise<ReportDownload> {
    const response = await this.http.send<ReportDownload>({
      method: 'GET',
      path: `/v1/document/api/${encodeURIComponent(jobId)}/url`,
      signal: options.signal,
    });
    return response.body;
  }

  /** POST /v1/user-status (scope users:read): one page. */
  async queryUserStatusPage(
    request: UserStatusRequest = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<UserStatusPage> {
    const response = await this.http.send<UserStatusPage>({
      method: 'POST',
      path: '/v1/user-status',
      body: request,
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * Every page of a user-status query, from `pagination.offset` (default 0) on, `pagination.limit`
   * records a page (default the service's 50), until `total` records have been seen.
   */
  async *queryUserStatus(
    request: UserStatusRequest = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): AsyncGenerator<UserStatusPage, void, undefined> {
    const limit = request.pagination?.limit;
    let offset = request.pagination?.offset ?? 0;
    for (;;) {
      const page = await this.queryUserStatusPage(
        { ...request, pagination: { ...(limit === undefined ? {} : { limit }), offset } },
        options,
      );
      yield page;
      offset += page.results.length;
      if (page.results.length === 0 || offset >= page.pagination.total) return;
    }
  }

  /** The records of `queryUserStatus`, one by one. */
  async *userStatusRecords(
    request: UserStatusRequest = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): AsyncGenerator<UserStatusRecord, void, undefined> {
    for await (const page of this.queryUserStatus(request, options)) yield* page.results;
  }

  /**
   * DELETE /v1/users/{id} (scope users:erase): erases the user, their report jobs and PDFs and the
   * onboarding tokens sent to their e-mail. A retry after a 503 finishes the erasure; once done, the
   * id is unknown (NotFoundError).
   */
  async eraseUser(userId: string, options: Pick<RequestOptions, 'signal'> = {}): Promise<void> {
    await this.http.send<undefined>({
      method: 'DELETE',
      path: `/v1/users/${encodeURIComponent(userId)}`,
      signal: options.signal,
    });
  }

  /** POST /v1/webhooks (scope webhooks:manage): registers an endpoint; the answer's `secret` is shown once. */
  async createWebhookEndpoint(
    request: WebhookEndpointRequest,
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<WebhookEndpointCreated> {
    const response = await this.http.send<WebhookEndpointCreated>({
      method: 'POST',
      path: '/v1/webhooks',
      body: request,
      signal: options.signal,
    });
    return response.body;
  }

  /** GET /v1/webhooks (scope webhooks:manage): the organization's endpoints, without secrets. */
  async listWebhookEndpoints(options: Pick<RequestOptions, 'signal'> = {}): Promise<WebhookEndpointList> {
    const response = await this.http.send<WebhookEndpointList>({
      method: 'GET',
      path: '/v1/webhooks',
      signal: options.signal,
    });
    return response.body;
  }

  /** DELETE /v1/webhooks/{id} (scope webhooks:manage). */
  async deleteWebhookEndpoint(endpointId: string, options: Pick<RequestOptions, 'signal'> = {}): Promise<void> {
    await this.http.send<undefined>({
      method: 'DELETE',
      path: `/v1/webhooks/${encodeURIComponent(endpointId)}`,
      signal: options.signal,
    });
  }

  /** POST /v1/webhooks/{id}/test (scope webhooks:manage): queues a `webhook.test` message to this endpoint. */
  async testWebhookEndpoint(
    endpointId: string,
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<WebhookTestQueued> {
    const response = await this.http.send<WebhookTestQueued>({
      method: 'POST',
      path: `/v1/webhooks/${encodeURIComponent(endpointId)}/test`,
      signal: options.signal,
    });
    return response.body;
  }

  /** GET /v1/webhooks/{id}/deliveries (scope webhooks:manage): one page of the delivery log, newest first. */
  async listWebhookDeliveries(
    endpointId: string,
    request: WebhookDeliveryListRequest = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<WebhookDeliveryPage> {
    const response = await this.http.send<WebhookDeliveryPage>({
      method: 'GET',
      path: `/v1/webhooks/${encodeURIComponent(endpointId)}/deliveries`,
      query: { limit: request.limit, cursor: request.cursor },
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * GET /v1/report-signing-certificates (scope reports:read): the certificates reports are signed
   * with, the current one first, earlier ones after (key rotation).
   */
  async listReportSigningCertificates(
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<ReportSigningCertificateList> {
    const response = await this.http.send<ReportSigningCertificateList>({
      method: 'GET',
      path: '/v1/report-signing-certificates',
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * GET /v1/sandbox/scenarios (scope users:read, a sandbox token alone): the scenario users every
   * sandbox holds, each with its record and what its report job does. A live token gets 404.
   */
  async listSandboxScenarios(options: Pick<RequestOptions, 'signal'> = {}): Promise<SandboxScenarioList> {
    const response = await this.http.send<SandboxScenarioList>({
      method: 'GET',
      path: '/v1/sandbox/scenarios',
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * DELETE /v1/sandbox (scope users:erase, a sandbox token alone): wipes the sandbox in the background
   * (within 60 s its data is gone, its scenario users stay). A second call while it runs answers the same wipe.
   */
  async wipeSandbox(options: Pick<RequestOptions, 'signal'> = {}): Promise<SandboxWipe> {
    const response = await this.http.send<SandboxWipe>({
      method: 'DELETE',
      path: '/v1/sandbox',
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * GET /v1/sandbox/emails (scope onboarding:read, a sandbox token alone): one page of the e-mails
   * the sandbox kept instead of sending, newest first, optionally only those to `to`. A live token gets 404.
   */
  async listSandboxEmails(
    request: SandboxEmailListRequest = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<SandboxEmailPage> {
    const response = await this.http.send<SandboxEmailPage>({
      method: 'GET',
      path: '/v1/sandbox/emails',
      query: { to: request.to, limit: request.limit, cursor: request.cursor },
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * POST /v1/sandbox/webhook-listener (scope webhooks:manage, a sandbox token alone): the sandbox's
   * listener, made on first use, and the secret its messages are signed with (the same on every call).
   */
  async openSandboxWebhookListener(options: Pick<RequestOptions, 'signal'> = {}): Promise<SandboxWebhookListener> {
    const response = await this.http.send<SandboxWebhookListener>({
      method: 'POST',
      path: '/v1/sandbox/webhook-listener',
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * GET /v1/sandbox/webhook-messages (scope webhooks:manage, a sandbox token alone): the listener's
   * messages after `after`, oldest first, each with the body and headers a delivery carries; with
   * none yet the call waits up to `wait` seconds (0-20). Without `after`: none, and a cursor from now.
   */
  async listSandboxWebhookMessages(
    request: { after?: string; wait?: number } = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<SandboxWebhookMessages> {
    const response = await this.http.send<SandboxWebhookMessages>({
      method: 'GET',
      path: '/v1/sandbox/webhook-messages',
      query: { after: request.after, wait: request.wait },
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * POST /v1/sandbox/events (a sandbox token alone; webhooks:manage and the scopes of the objects'
   * routes): makes the objects behind `type` and answers their id; the message follows to the
   * sandbox's endpoints as a live one would. A live token gets 404.
   */
  async triggerSandboxEvent(
    type: SandboxEventType,
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<SandboxEvent> {
    const response = await this.http.send<SandboxEvent>({
      method: 'POST',
      path: '/v1/sandbox/events',
      body: { type },
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * POST /v1/sandbox/onboarding-tokens/{tokenId}/expire (scope onboarding:write, a sandbox token
   * alone): an Issued token becomes Expired now; answers its list row. A live token gets 404.
   */
  async expireSandboxOnboardingToken(
    tokenId: string,
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<OnboardingTokenSummary> {
    const response = await this.http.send<OnboardingTokenSummary>({
      method: 'POST',
      path: `/v1/sandbox/onboarding-tokens/${encodeURIComponent(tokenId)}/expire`,
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * POST /v1/sandbox/users (scope users:erase, a sandbox token alone): stores up to 1,000 user
   * records in the sandbox, all of them or, when one fails validation (an ApiError naming it), none.
   */
  async importSandboxUsers(
    request: SandboxUsersRequest,
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<SandboxUsersImported> {
    const response = await this.http.send<SandboxUsersImported>({
      method: 'POST',
      path: '/v1/sandbox/users',
      body: request,
      signal: options.signal,
    });
    return response.body;
  }

  /** GET /v1/audit-events (scope audit:read): one page of the organization's audit trail, newest first. */
  async listAuditEvents(
    request: AuditEventListRequest = {},
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<AuditEventPage> {
    const response = await this.http.send<AuditEventPage>({
      method: 'GET',
      path: '/v1/audit-events',
      query: {
        limit: request.limit,
        cursor: request.cursor,
        action: request.action,
        targetId: request.targetId,
        from: request.from,
        to: request.to,
      },
      signal: options.signal,
    });
    return response.body;
  }

  /** GET /v1/openapi.json (no token). */
  async getOpenApiDocument(options: Pick<RequestOptions, 'signal'> = {}): Promise<Record<string, unknown>> {
    const response = await this.http.send<Record<string, unknown>>({
      method: 'GET',
      path: '/v1/openapi.json',
      anonymous: true,
      signal: options.signal,
    });
    return response.body;
  }

  /**
   * Polls the job on the seed's schedule (every 3-5 s, jittered, for 30 s, then every 10-15 s; not
   * complete within 5 minutes = failed) until it is COMPLETE. Throws ReportFailedError for a FAILED
   * job and ReportTimedOutError at the deadline; honours Retry-After on 429 and 503.
   */
  waitForReport(jobId: string, options: WaitForReportOptions = {}): Promise<CompleteReportJob> {
    return waitForReport((id, signal) => this.getReportJob(id, { signal }), jobId, { timers: this.timers, ...options });
  }

  /**
   * A COMPLETE job's PDF in memory, its size and SHA-256 verified against the job (WebCrypto), for
   * runtimes without a file system such as a browser. An expired address (403) is replaced once.
   */
  fetchReport(jobId: string, options: FetchReportOptions = {}): Promise<FetchedReport> {
    return fetchReport(
      {
        readJob: (id, signal) => this.getReportJob(id, { signal }),
        downloadAddress: (id, signal) => this.getReportDownloadUrl(id, { signal }),
        fetch: this.http.fetchFunction,
      },
      jobId,
      options,
    );
  }

  /**
   * Downloads a COMPLETE job's PDF to `path` and verifies its size and SHA-256 against the job.
   * A fresh address is asked for every time; an expired one (403) is replaced once.
   */
  async downloadReport(jobId: string, path: string, options: DownloadReportOptions = {}): Promise<DownloadedReport> {
    // Loaded on first use: it needs Node's fs and stream, which a browser bundle of this client must not pull in.
    const { downloadReport } = await import('./download-report.ts');
    return downloadReport(
      {
        readJob: (id, signal) => this.getReportJob(id, { signal }),
        downloadAddress: (id, signal) => this.getReportDownloadUrl(id, { signal }),
        fetch: this.http.fetchFunction,
      },
      jobId,
      path,
      options,
    );
  }
}
