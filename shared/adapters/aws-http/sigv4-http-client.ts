import { setTimeout as sleep } from 'node:timers/promises';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { DependencyUnavailableError } from '../../domain/errors.ts';
import { isDependencyUnavailable } from '../aws-errors.ts';
import { hostHeader, type AwsAddress, type AwsServiceAccess } from './aws-environment.ts';
import { sha256 } from './sha256.ts';

/** One request to an AWS API, before signing. */
export interface AwsRequest {
  method: string;
  /** Its path has no query: none of these requests needs one, and the client refuses one. */
  address: AwsAddress;
  /** `host` and `content-length` are added. */
  headers: Record<string, string>;
  body: Uint8Array | string;
}

/** A service's answer: status, headers (lower-case names) and the first `maxResponseBytes` of the body. */
export interface AwsResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * An AWS service refused a request. Names the status, the service's error code and its request ids
 * only: the service's message may quote the request (object keys, recipient addresses).
 */
export class AwsRequestRefusedError extends Error {
  override name = 'AwsRequestRefusedError';
  constructor(
    /** What was refused, e.g. `S3 PutObject`; the message starts with it. */
    operation: string,
    readonly statusCode: number,
    readonly code: string | undefined,
    readonly requestId?: string,
    /** S3's `x-amz-id-2`, which AWS support asks for along with the request id. */
    readonly extendedRequestId?: string,
  ) {
    const ids = [
      requestId && `request ${requestId}`,
      extendedRequestId && `extended request ${extendedRequestId}`,
    ].filter(Boolean);
    super(
      `${operation} failed: HTTP ${statusCode}${code ? ` ${code}` : ''}${ids.length ? ` (${ids.join(', ')})` : ''}`,
    );
  }
}

export interface SigV4HttpClientOptions extends Pick<AwsServiceAccess, 'region' | 'credentials'> {
  /** The service's signing name, e.g. `s3`, `ses`. */
  signingName: string;
  /** S3 signs the path as sent (encoded once); every other service encodes it once more. Default true. */
  uriEscapePath?: boolean;
  /** Named by the DependencyUnavailableError reported when transient failures outlast the attempts. */
  dependency: string;
  connectionTimeoutMs: number;
  /** One attempt, from connecting to the end of the answer's body; less when the budget has less left. */
  attemptTimeoutMs: number;
  /** All attempts of one request together, pauses included. */
  timeBudgetMs: number;
  /** The pauses before the second, third, ... attempt; one attempt more than there are pauses. */
  retryDelaysMs: readonly number[];
  /** The service's error codes worth another attempt whatever their status (5XX and 429 always are). */
  transientErrorCodes?: ReadonlySet<string>;
  /** How much of a response body is read; the answers these adapters read are short. */
  maxResponseBytes: number;
  /** The error for a non-2XX answer, with the service's error code read from it (each protocol puts it elsewhere). */
  refusal(response: AwsResponse): AwsRequestRefusedError;
}

/**
 * Sends SigV4-signed requests to one AWS service with the SDK's own signer and HTTP handler, for
 * adapters that make a single call and would otherwise carry the service's whole SDK client
 * into their function's bundle and cold start. Network failures (refused or reset connections,
 * timeouts), 5XX, 429 and the service's transient error codes are tried again after short pauses
 * within a time budget, each attempt cut short on its own, then reported as
 * `DependencyUnavailableError`. Any other refusal is permanent and thrown at once; any other
 * error (a bug, such as a header Node refuses) is thrown as it is.
 */
export class SigV4HttpClient {
  private readonly signer: SignatureV4;
  /** Built with the client, once per cold start, so its keep-alive connections serve later invocations. */
  private readonly http: NodeHttpHandler;

  constructor(private readonly options: SigV4HttpClientOptions) {
    this.signer = new SignatureV4({
      service: options.signingName,
      region: options.region,
      credentials: options.credentials,
      sha256,
      uriEscapePath: options.uriEscapePath ?? true,
    });
    this.http = new NodeHttpHandler({
      connectionTimeout: options.connectionTimeoutMs,
      requestTimeout: options.attemptTimeoutMs,
      throwOnRequestTimeout: true,
    });
  }

  /**
   * The 2XX answer. Throws `refusal`'s error for a permanent refusal, and DependencyUnavailableError
   * caused by the last failure once transient failures outlast the attempts or the time budget.
   */
  async send(request: AwsRequest): Promise<AwsResponse> {
    const unsigned = httpRequest(request);
    const deadline = Date.now() + this.options.timeBudgetMs;
    for (let attempt = 1; ; attempt++) {
      // Outside the try: failing to sign (no credentials) is not the service being unavailable. The
      // signer types its result as the HttpRequest interface, the handler takes the class.
      const signed = new HttpRequest(await this.signer.sign(unsigned));
      try {
        return await this.attempt(signed, Math.min(Date.now() + this.options.attemptTimeoutMs, deadline));
      } catch (error) {
        if (!this.isTransient(error)) throw error;
        const delayMs = this.options.retryDelaysMs[attempt - 1];
        if (delayMs === undefined || Date.now() + delayMs >= deadline) {
          throw new DependencyUnavailableError(this.options.dependency, { cause: error });
        }
        await sleep(delayMs);
      }
    }
  }

  private async attempt(request: HttpRequest, attemptDeadline: number): Promise<AwsResponse> {
    const { response } = await this.http.handle(request, { requestTimeout: Math.max(1, attemptDeadline - Date.now()) });
    // Read even on success: a fully read response frees its connection for the next invocation.
    const body = await readAtMost(response.body, this.options.maxResponseBytes, attemptDeadline);
    const answer = { statusCode: response.statusCode, headers: response.headers, body };
    if (response.statusCode >= 200 && response.statusCode < 300) return answer;
    throw this.options.refusal(answer);
  }

  private isTransient(error: unknown): boolean {
    // The handler's timeouts are TimeoutErrors; refused, reset and hung-up connections carry their network code.
    if (!(error instanceof AwsRequestRefusedError)) return isDependencyUnavailable(error);
    return (
      error.statusCode >= 500 ||
      error.statusCode === 429 ||
      this.options.transientErrorCodes?.has(error.code ?? '') === true
    );
  }
}

function httpRequest({ method, address, headers, body }: AwsRequest): HttpRequest {
  // The handler would send a query in the path as a query, but the signer would sign it as part of the path.
  if (/[?#]/.test(address.path)) throw new Error(`SigV4HttpClient sends no query or fragment: ${address.path}`);
  return new HttpRequest({
    method,
    ...address,
    headers: {
      host: hostHeader(address),
      'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength),
      ...headers,
    },
    body,
  });
}

/** The first `maxBytes` of a response body; the rest is dropped with the connection. */
async function readAtMost(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void },
  maxBytes: number,
  deadline: number,
): Promise<string> {
  // The handler's timeout ends when the response's head arrives; a body that stalls is cut at the deadline.
  const stalled = setTimeout(() => body.destroy?.(), Math.max(1, deadline - Date.now()));
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= maxBytes) break;
    }
  } catch {
    // A body cut short: the status alone still tells what happened.
  } finally {
    clearTimeout(stalled);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
