import { HttpResponse, type HttpRequest } from '@smithy/core/transport';
import type { HttpHandlerOptions } from '@smithy/types';

export interface FakeHttpHandler {
  requests: HttpRequest[];
  handle(request: HttpRequest, options?: HttpHandlerOptions): Promise<{ response: HttpResponse }>;
}

/**
 * An SDK request handler that never touches the network: each request gets `answer`'s response
 * (status + JSON or XML body), or hangs until the call's abort signal fires, as a stalled
 * connection would. Lets a test drive the SDK's whole middleware stack (retries, error parsing,
 * our dependency-unavailable translation) where aws-sdk-client-mock would replace `send`.
 */
export function fakeHttpHandler(
  answer: (request: HttpRequest) => { statusCode: number; body?: string; headers?: Record<string, string> } | 'hang',
): FakeHttpHandler {
  const requests: HttpRequest[] = [];
  return {
    requests,
    metadata: { handlerProtocol: 'http/1.1' },
    handle: (request: HttpRequest, options?: HttpHandlerOptions): Promise<{ response: HttpResponse }> => {
      requests.push(request);
      const reply = answer(request);
      if (reply === 'hang') {
        return new Promise<{ response: HttpResponse }>((_, reject) => {
          const abort = () => reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
          if (options?.abortSignal?.aborted) abort();
          else (options?.abortSignal as AbortSignal | undefined)?.addEventListener('abort', abort, { once: true });
        });
      }
      const body = new TextEncoder().encode(reply.body ?? '');
      return Promise.resolve({
        response: new HttpResponse({
          statusCode: reply.statusCode,
          headers: { 'content-length': String(body.length), ...reply.headers },
          body: Buffer.from(body),
        }),
      });
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  } as FakeHttpHandler;
}
