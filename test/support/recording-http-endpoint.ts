import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpRequest } from '@smithy/core/transport';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';
import { sha256 } from '../../shared/adapters/aws-http/sha256.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ScriptedReply {
  status: number;
  headers?: OutgoingHttpHeaders;
  body?: string;
}

/**
 * A stand-in for an AWS endpoint on 127.0.0.1: records every request and answers the scripted
 * replies in turn, then the default reply.
 */
export class RecordingHttpEndpoint {
  readonly requests: RecordedRequest[] = [];
  connections = 0;
  private readonly replies: ScriptedReply[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.requests.push({
        method: request.method!,
        path: request.url!,
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      const reply = this.replies.shift() ?? this.defaultReply;
      response.writeHead(reply.status, reply.headers).end(reply.body);
    });
  }).on('connection', () => this.connections++);

  constructor(private readonly defaultReply: ScriptedReply) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  protected enqueue(reply: ScriptedReply): this {
    this.replies.push(reply);
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The headers a recorded request says it signed (from its `authorization` header). */
export const signedHeaderNames = (received: RecordedRequest): string[] =>
  /SignedHeaders=([^,]+)/.exec(received.headers.authorization ?? '')![1]!.split(';');

/**
 * Signs a recorded request again, as it arrived, with the headers it says it signed and at its
 * own `x-amz-date`, and returns the authorization header that gives.
 */
export async function expectedAuthorization(
  received: RecordedRequest,
  port: number,
  signing: { service: string; region: string; credentials: AwsCredentialIdentity; uriEscapePath?: boolean },
): Promise<string> {
  const amzDate = received.headers['x-amz-date'] as string;
  const signingDate = new Date(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const request = new HttpRequest({
    method: received.method,
    protocol: 'http:',
    hostname: '127.0.0.1',
    port,
    path: received.path,
    headers: Object.fromEntries(signedHeaderNames(received).map((name) => [name, received.headers[name] as string])),
    body: received.body,
  });
  const signer = new SignatureV4({ ...signing, sha256 });
  return (await signer.sign(request, { signingDate })).headers.authorization!;
}
