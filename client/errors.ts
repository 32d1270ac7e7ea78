import type {
  FailedReportJob,
  FieldError,
  ReportJob,
  ReportJobCreated,
  StandardErrorBody,
  ValidationErrorBody,
} from './types.ts';

/** What the client knows about a response that was not a success. */
export interface ApiErrorDetails {
  status: number;
  method: string;
  path: string;
  /** The response's `x-request-id`: quote it when reporting a problem. */
  requestId: string | undefined;
  /** The parsed body: the seed's standard or validation body, or whatever else came back (e.g. a proxy's). */
  body: unknown;
  /** Seconds from `Retry-After`, when the response carried one. */
  retryAfterSeconds: number | undefined;
  /** `RateLimit-*`, when the response carried them (a 429 of a rate-limited route). */
  rateLimit?: RateLimitState | undefined;
}

/** `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds until a spent request returns). */
export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** The `RateLimit-*` headers of a response, if it has them. */
export function rateLimitOf(headers: Headers): RateLimitState | undefined {
  const number = (name: string): number | undefined => {
    const value = headers.get(name);
    return value === null || value.trim() === '' || Number.isNaN(Number(value)) ? undefined : Number(value);
  };
  const limit = number('ratelimit-limit');
  if (limit === undefined) return undefined;
  return { limit, remaining: number('ratelimit-remaining') ?? 0, resetSeconds: number('ratelimit-reset') ?? 0 };
}

/** A non-success answer from the API. Subclasses name the status; `status` is always set. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly requestId: string | undefined;
  readonly body: unknown;
  readonly retryAfterSeconds: number | undefined;
  readonly rateLimit: RateLimitState | undefined;

  constructor(details: ApiErrorDetails, message?: string) {
    super(message ?? describe(details));
    this.status = details.status;
    this.method = details.method;
    this.path = details.path;
    this.requestId = details.requestId;
    this.body = details.body;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.rateLimit = details.rateLimit;
  }

  /** The standard body, when the response had one. */
  get standardBody(): StandardErrorBody | undefined {
    return isStandardBody(this.body) ? this.body : undefined;
  }

  /** `error` of the standard body (`NOT_FOUND`, `CONFLICT`, ...). */
  get error(): string | undefined {
    return this.standardBody?.error;
  }
}

/** 400: every problem with the request, as the validation body lists them. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
  get errors(): FieldError[] {
    return isValidationBody(this.body) ? this.body.errors : [];
  }
}

export class UnauthorizedError extends ApiError {
  override name = 'UnauthorizedError';
}
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
}
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409. On a report request, `openJobId` names the job already open for the user. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
  get openJobId(): string | undefined {
    return this.standardBody?.jobId;
  }
}
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
}
/** 415: the body was sent with a `Content-Type` other than JSON (this client always sends JSON). */
export class UnsupportedMediaTypeError extends ApiError {
  override name = 'UnsupportedMediaTypeError';
}
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
/** 429: a limit refused the request (the organization's request budget, or the route's own); wait `retryAfterSeconds`. */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
}
/** 5XX. A 503 carries `retryAfterSeconds`. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/** The API could not be reached (DNS, refused connection, reset); `cause` has the reason. */
export class ApiConnectionError extends Error {
  override name = 'ApiConnectionError';
  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** The report job ended FAILED. */
export class ReportFailedError extends Error {
  override name = 'ReportFailedError';
  constructor(readonly job: FailedReportJob) {
    super(`report job ${job.jobId} failed: ${job.errorCode}`);
  }
}

/** The job was not COMPLETE within the polling deadline (5 minutes): treated as failed. */
export class ReportTimedOutError extends Error {
  override name = 'ReportTimedOutError';
  constructor(
    readonly jobId: string,
    /** The last status read, if any read succeeded. */
    readonly lastJob: ReportJob | ReportJobCreated | undefined,
    readonly waitedMs: number,
  ) {
    super(
      `report job ${jobId} not complete after ${Math.round(waitedMs / 1000)} s (last status ${lastJob?.status ?? 'unknown'}); treated as failed`,
    );
  }
}

/** A download was asked for a job that is not COMPLETE yet. */
export class ReportNotReadyError extends Error {
  override name = 'ReportNotReadyError';
  constructor(readonly job: ReportJob) {
    super(`report job ${job.jobId} is ${job.status}, not COMPLETE`);
  }
}

/** Object storage refused the download (other than an expired address, which is retried once). */
export class ReportDownloadError extends Error {
  override name = 'ReportDownloadError';
  constructor(
    readonly jobId: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The downloaded bytes are not the job's PDF: size or SHA-256 differ. The file is not kept. */
export class ReportIntegrityError extends Error {
  override name = 'ReportIntegrityError';
  constructor(
    readonly jobId: string,
    readonly expected: { sizeBytes: number; sha256: string },
    readonly actual: { sizeBytes: number; sha256: string },
  ) {
    super(
      `report ${jobId}: downloaded ${actual.sizeBytes} bytes with sha256 ${actual.sha256}, expected ${expected.sizeBytes} bytes with sha256 ${expected.sha256}`,
    );
  }
}

/**
 * One class per error status openapi.json declares (test/unit/client/api-error-statuses.test.ts
 * holds the two to each other); any other status is a plain ApiError, a 5XX a ServerError.
 */
const ERROR_CLASS_OF_STATUS: Record<number, typeof ApiError> = {
  400: ValidationError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableEntityError,
  429: RateLimitedError,
};

/** The typed error for a response's status. */
export function apiErrorFor(details: ApiErrorDetails): ApiError {
  const ErrorClass = ERROR_CLASS_OF_STATUS[details.status] ?? (details.status >= 500 ? ServerError : ApiError);
  return new ErrorClass(details);
}

function isStandardBody(body: unknown): body is StandardErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as StandardErrorBody).error === 'string' &&
    typeof (body as StandardErrorBody).message === 'string'
  );
}

function isValidationBody(body: unknown): body is ValidationErrorBody {
  return typeof body === 'object' && body !== null && Array.isArray((body as ValidationErrorBody).errors);
}

function describe(details: ApiErrorDetails): string {
  const head = `${details.method} ${details.path}: ${details.status}`;
  const request = details.requestId ? ` (request ${details.requestId})` : '';
  if (isValidationBody(details.body)) {
    return `${head} ${details.body.errors.map((problem) => `${problem.field} ${problem.code}: ${problem.hint}`).join('; ')}${request}`;
  }
  if (isStandardBody(details.body)) return `${head} ${details.body.error}: ${details.body.message}${request}`;
  return `${head}${request}`;
}
