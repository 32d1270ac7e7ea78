import { DEFAULT_API_TIMEOUT_SECONDS } from '#shared/config/api-routes.ts';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type * as v from 'valibot';
import { measuringDatabaseTime } from '#shared/support/database-time.ts';
import { requestDeadline, runBeforeTimeout } from '#shared/support/request-deadline.ts';
import { logger } from '#shared/observability/logger.ts';
import { publishRecordedMetrics } from '#shared/observability/metrics.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';
import type { AuditAction } from '#shared/domain/audit/audit-event.ts';
import type { AuditRecorder, AuditRecordingOptions } from '#shared/domain/audit/record-audit-event.ts';
import type { ApiEvent, ApiResult, LambdaContext, Principal, Scope } from './api-types.ts';
import type { TokenVerifier } from './auth.ts';
import type { IdempotentRequests } from './idempotent-requests.ts';
import { spendRequestBudget } from '#shared/http/limits/request-budget.ts';
import { holdConcurrencySlot, type OrganizationConcurrency } from '#shared/http/limits/concurrency.ts';
import { requireOriginVerification } from './origin-verify.ts';
import { systemClock } from '#shared/domain/clock.ts';
import type { LeasedRequestBudget } from '#shared/domain/limits/request-budget.ts';
import {
  authenticate,
  httpBoundary,
  limitRequestBody,
  requireJsonContentType,
  requireJsonObjectBody,
  type ApiContext,
  type ApiMiddleware,
} from './middlewares.ts';
import { parseInput } from './validation.ts';

/** Clients of the seed's interface may omit Content-Type (another type was refused before: requireJsonContentType). */
const ACCEPT_JSON_WITHOUT_CONTENT_TYPE = { disableContentTypeCheck: true } as Parameters<typeof httpJsonBodyParser>[0];

export interface ApiRequest<TBody> {
  event: ApiEvent;
  principal: Principal;
  body: TBody;
  requestId: string;
  /** When the caller stops waiting for this request's dependencies (see ANSWER_RESERVE_MS). */
  answerBy: Date;
  /**
   * Records in the organization's audit trail that this request did `action` to `targetId`: call it
   * once the change has committed. It never throws (a lost event is logged and counted), unless
   * `required` (an event recorded before the change: then a 503).
   */
  audit: (action: AuditAction, targetId: string, options?: AuditRecordingOptions) => Promise<void>;
}

export interface ApiHandlerOptions<TSchema extends v.GenericSchema | undefined> {
  requiredScope: Scope;
  verifyToken: TokenVerifier;
  /** Only a sandbox token reaches the route; any other gets 404 (the route table's `sandboxOnly`). */
  sandboxOnly?: boolean | undefined;
  /** Runs after authentication and before the body is read (e.g. the report rate limit). */
  beforeBody?: readonly ApiMiddleware[];
  /** Request body schema; routes without one never read the body. */
  bodySchema?: TSchema;
  /** Makes the route honour `Idempotency-Key`. */
  idempotency?: IdempotentRequests;
  /** The audit trail of a route that changes state (`request.audit`). */
  audit?: AuditRecorder;
  /** The organization's request budget (docs/contract.md §15); none: no budget (shared/wiring/api.ts builds it). */
  requestBudget?: LeasedRequestBudget | undefined;
  /** The organization's concurrency limit (docs/contract.md §25); none: no limit (shared/wiring/api.ts builds it). */
  concurrency?: OrganizationConcurrency | undefined;
  /** Origin-verify values accepted (the edge is on); none: the edge is off and nothing is checked. */
  originVerifySecrets?: readonly string[] | undefined;
  handle(request: ApiRequest<TSchema extends v.GenericSchema ? v.InferOutput<TSchema> : undefined>): Promise<ApiResult>;
}

/**
 * The middleware chain every API function uses, in order: logger context, request id and error
 * mapping, the edge's origin-verify header (when the edge is on), bearer token and scope, the organization's request budget, its concurrency slot, route-specific checks, body media type, size and JSON parsing, then
 * validation and the route's use case. A function entry point is this call and nothing else.
 */
export function createApiHandler<TSchema extends v.GenericSchema | undefined = undefined>(
  options: ApiHandlerOptions<TSchema>,
) {
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishRecordedMetrics())
    .use(httpBoundary());
  useOriginVerification(chain, options.originVerifySecrets);
  chain.use(authenticate(options.verifyToken, options.requiredScope, { sandboxOnly: options.sandboxOnly }));
  if (options.requestBudget) chain.use(spendRequestBudget(options.requestBudget, systemClock));
  if (options.concurrency) chain.use(holdConcurrencySlot(options.concurrency, systemClock));
  for (const middleware of options.beforeBody ?? []) chain.use(middleware);
  if (options.bodySchema) {
    chain
      .use(requireJsonContentType())
      .use(limitRequestBody())
      .use(httpJsonBodyParser(ACCEPT_JSON_WITHOUT_CONTENT_TYPE) as ApiMiddleware)
      .use(requireJsonObjectBody());
  }

  const handler = chain.handler(async (event, context) => {
    const rawBody: unknown = event.body;
    const body = options.bodySchema ? parseInput(options.bodySchema, rawBody) : undefined;
    const request = {
      event,
      principal: context.principal,
      body: body as ApiRequest<TSchema extends v.GenericSchema ? v.InferOutput<TSchema> : undefined>['body'],
      requestId: context.requestId,
      answerBy: new Date(requestDeadline()?.at ?? Date.now() + DEFAULT_TIMEOUT_MS - ANSWER_RESERVE_MS),
      audit: (action: AuditAction, targetId: string, auditOptions?: AuditRecordingOptions) => {
        if (!options.audit) throw new Error(`the route records ${action} but was built without an audit trail`);
        const { tenantKey, subject, clientId } = context.principal;
        return options.audit(
          { orgId: tenantKey, actor: { sub: subject, clientId }, requestId: context.requestId },
          action,
          targetId,
          auditOptions,
        );
      },
    };
    if (!options.idempotency) return options.handle(request);
    return options.idempotency.run(
      {
        idempotencyKey: event.headers?.['idempotency-key'],
        orgId: context.principal.tenantKey,
        // A route addressing a resource (`/onboarding-tokens/{tokenId}/resend`) is a different
        // request per resource: the same key on another token is refused (422), never replayed.
        body: event.pathParameters ? { path: event.rawPath, body: rawBody ?? null } : rawBody,
        lambdaContext: context,
      },
      () => options.handle(request),
    );
  });
  // Every request meters its database time, which the request budget charges when it ends.
  return answeringBeforeTimeout((event, context) => measuringDatabaseTime(() => handler(event, context as ApiContext)));
}

/**
 * Time the function keeps after its dependencies' deadline to map the error and answer: every
 * AWS call of the request (the rate limiter and idempotency included) is aborted this long
 * before the Lambda timeout, so a stalled dependency gives the contract's 503, never the API
 * Gateway's own timeout body.
 */
export const ANSWER_RESERVE_MS = 1_000;
const DEFAULT_TIMEOUT_MS = DEFAULT_API_TIMEOUT_SECONDS * 1000;

type LambdaHandler = (event: ApiEvent, context: LambdaContext) => Promise<ApiResult>;

function answeringBeforeTimeout(handler: LambdaHandler): LambdaHandler {
  return (event, context) => runBeforeTimeout(context, ANSWER_RESERVE_MS, () => handler(event, context));
}

/** The same boundary (logger, request id, error bodies, the edge's origin check) for routes that need no token. */
export function createPublicHandler(
  handle: (event: ApiEvent) => ApiResult | Promise<ApiResult>,
  /** Origin-verify values accepted (the edge is on); none: nothing is checked (shared/wiring/api.ts reads them). */
  originVerifySecrets?: readonly string[],
) {
  const chain = middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpBoundary());
  useOriginVerification(chain, originVerifySecrets);
  return chain.handler(async (event) => await handle(event));
}

/** With the edge on, the first check after the error boundary; with it off, no middleware at all. */
function useOriginVerification(
  chain: { use: (middleware: ApiMiddleware) => unknown },
  secrets: readonly string[] | undefined,
): void {
  if (secrets && secrets.length > 0) chain.use(requireOriginVerification(secrets));
}
