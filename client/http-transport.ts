import { ApiConnectionError, apiErrorFor, rateLimitOf } from './errors.ts';

export type Fetch = typeof fetch;

/** A bearer token, or a function giving the current one (called once per request, e.g. to refresh). */
export type TokenSource = string | (() => string | Promise<string>);

export interface TransportOptions {
  /** e.g. `http://127.0.0.1:3000` or a deployed stack's ApiUrl; a trailing slash is ignored. */
  baseUrl: string;
  /** Omit for the public document only. */
  token?: TokenSource;
  /** Default: the global fetch. */
  fetch?: Fetch;
  /** Sent on every request. */
  userAgent?: string;
  /** Told about every response (success or not), e.g. for a verbose log. */
  onResponse?: (response: ResponseInfo) => void;
}

export interface ResponseInfo {
  method: string;
  path: string;
  status: number;
  requestId: string | undefined;
  headers: Headers;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sent as `Idempotency-Key` (only the two creating POSTs honour it). */
  idempotencyKey?: string;
}

export interface ApiRequest extends RequestOptions {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Public routes send no Authorization header. */
  anonymous?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  body: T;
  headers: Headers;
  requestId: string | undefined;
}

/** JSON over fetch: bearer token, request id, and the contract's errors as typed exceptions. */
export class HttpTransport {
  private readonly baseUrl: string;
  private readonly fetch: Fetch;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The fetch this client uses, also for downloads from object storage. */
  get fetchFunction(): Fetch {
    return this.fetch;
  }

  async send<T>(request: ApiRequest): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (!request.anonymous) {
      const token = await this.currentToken();
      if (token) headers.authorization = `Bearer ${token}`;
    }
    if (this.options.userAgent) headers['user-agent'] = this.options.userAgent;
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }

    const url = this.urlOf(request.path, request.query);
    let response: Response;
    try {
      response = await this.fetch(url, { method: request.method, headers, body, signal: request.signal });
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw new ApiConnectionError(request.method, url, error);
    }

    const requestId = response.headers.get('x-request-id') ?? undefined;
    this.options.onResponse?.({
      method: request.method,
      path: request.path,
      status: response.status,
      requestId,
      headers: response.headers,
    });
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) {
      throw apiErrorFor({
        status: response.status,
        method: request.method,
        path: request.path,
        requestId,
        body: parsed,
        retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
        rateLimit: rateLimitOf(response.headers),
      });
    }
    return { status: response.status, body: parsed as T, headers: response.headers, requestId };
  }

  private async currentToken(): Promise<string | undefined> {
    const { token } = this.options;
    return typeof token === 'function' ? token() : token;
  }

  private urlOf(path: string, query: ApiRequest['query']): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value));
    const queryString = search.toString();
    return `${this.baseUrl}${path}${queryString ? `?${queryString}` : ''}`;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
