import { spawn, type ChildProcess } from 'node:child_process';
import {
  ApiConnectionError,
  ApiError,
  type Fetch,
  type SandboxEventType,
  type SandboxWebhookMessage,
  systemTimers,
  WEBHOOK_EVENT_TYPES,
} from '#client/index.ts';
import { type Command, type CommandContext, EXIT } from '#cli/command.ts';
import * as help from '#cli/help.ts';
import { UsageError } from '#cli/user-filters.ts';

const TRIGGER_TYPES: readonly string[] = [...WEBHOOK_EVENT_TYPES, 'webhook.test'];
/** How long one feed read waits for a message (the route's most). */
const FEED_WAIT_SECONDS = 20;
/** A delivery's time to answer (contract §9): a forward gets the same. */
const FORWARD_TIMEOUT_MS = 15_000;
/** A receiver that is still starting (connection refused) is tried this often, a second apart. */
const FORWARD_CONNECT_TRIES = 5;
const FEED_RETRY_MS = 2000;

/** `onboarding trigger <type>`: POST /v1/sandbox/events through the typed client. */
export const triggerCommand: Command = {
  help: help.TRIGGER_HELP,
  options: { json: { type: 'boolean' } },
  positionals: { names: ['type'], required: 1 },
  run: async ({ positionals, values, client, out }) => {
    const type = positionals[0]!;
    if (!TRIGGER_TYPES.includes(type))
      throw new UsageError(`unknown event type ${type}; one of ${TRIGGER_TYPES.join(', ')}`);
    const triggered = await withSandboxHint(() => client.triggerSandboxEvent(type as SandboxEventType));
    out(values.json ? JSON.stringify(triggered, null, 2) : `${triggered.type} triggered (${triggered.objectId})`);
    return EXIT.ok;
  },
};

/** `onboarding listen --forward-to <url> [-- <command>...]`: the sandbox listener's feed, forwarded. */
export const listenCommand: Command = {
  help: help.LISTEN_HELP,
  options: { 'forward-to': { type: 'string' }, 'print-secret': { type: 'boolean' } },
  trailingCommand: true,
  run: async (context) => {
    const { values, client, out, err, trailing } = context;
    const forwardTo = values['forward-to'] as string | undefined;
    if (!values['print-secret']) {
      if (forwardTo === undefined) throw new UsageError('--forward-to is required');
      if (!isHttpUrl(forwardTo)) throw new UsageError(`--forward-to ${forwardTo} is not an http(s) URL`);
    }
    const signal = context.io.signal;
    const listener = await withSandboxHint(() => client.openSandboxWebhookListener({ signal }));
    if (values['print-secret']) {
      out(listener.secret);
      return EXIT.ok;
    }
    let { cursor } = await client.listSandboxWebhookMessages({}, { signal });
    err(`signing secret ${listener.secret} (verify forwarded messages with it; WEBHOOK_SECRET of the command)`);
    const receiver = trailing.length > 0 ? startReceiver(trailing, context, listener.secret) : undefined;
    out(`Ready: forwarding the sandbox's webhook messages to ${forwardTo!} (Ctrl-C to stop)`);
    try {
      for (;;) {
        const page = await readFeed(context, cursor, receiver);
        for (const message of page.results) out(await forward(context, forwardTo!, message));
        cursor = page.cursor;
      }
    } catch (error) {
      if (!(error instanceof ReceiverExited)) throw error;
      err(`onboarding: ${error.message}`);
      return error.code === 0 ? EXIT.ok : EXIT.apiError;
    } finally {
      receiver?.child.kill('SIGTERM');
    }
  },
};

interface Receiver {
  child: ChildProcess;
  exited: Promise<number>;
}

/** The command after `--` (the developer's receiver), with the listener's secret as WEBHOOK_SECRET. */
function startReceiver(command: string[], { io }: CommandContext, secret: string): Receiver {
  const child = spawn(command[0]!, command.slice(1), {
    cwd: io.cwd,
    env: { ...io.env, WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code) => resolve(code ?? EXIT.apiError));
    child.on('error', () => resolve(EXIT.apiError));
  });
  return { child, exited };
}

class ReceiverExited extends Error {
  constructor(readonly code: number) {
    super(`the receiver command exited (${code})`);
  }
}

/** One long-polling read; a passing outage (5XX, 429, no connection) is waited out, not fatal. */
async function readFeed({ client, io, err }: CommandContext, after: string, receiver: Receiver | undefined) {
  const timers = io.timers ?? systemTimers;
  for (;;) {
    try {
      const read = client.listSandboxWebhookMessages({ after, wait: FEED_WAIT_SECONDS }, { signal: io.signal });
      if (!receiver) return await read;
      const first = await Promise.race([read, receiver.exited.then((code) => new ReceiverExited(code))]);
      if (first instanceof ReceiverExited) throw first;
      return first;
    } catch (error) {
      const passing =
        error instanceof ApiConnectionError ||
        (error instanceof ApiError && (error.status === 429 || error.status >= 500));
      if (!passing || io.signal?.aborted) throw error;
      err(`onboarding: ${error.message}; reading again`);
      const retryAfterMs = error instanceof ApiError ? (error.retryAfterSeconds ?? 0) * 1000 : 0;
      await timers.sleep(Math.max(FEED_RETRY_MS, retryAfterMs), io.signal);
    }
  }
}

/** POSTs the message as a delivery would (same body and headers, no redirect followed); one line about it. */
async function forward({ io }: CommandContext, url: string, message: SandboxWebhookMessage): Promise<string> {
  const fetch: Fetch = io.fetch ?? globalThis.fetch;
  const timers = io.timers ?? systemTimers;
  const line = `${new Date().toISOString()} ${message.type} ${message.messageId} ->`;
  for (let attempt = 1; ; attempt++) {
    const signal = AbortSignal.any([AbortSignal.timeout(FORWARD_TIMEOUT_MS), ...(io.signal ? [io.signal] : [])]);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: message.headers,
        body: message.body,
        redirect: 'manual',
        signal,
      });
      await response.body?.cancel();
      return `${line} ${response.status}`;
    } catch (error) {
      if (io.signal?.aborted) throw error;
      const refused = (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      if (!refused || attempt === FORWARD_CONNECT_TRIES)
        return `${line} no answer (${(error as { cause?: Error }).cause?.message ?? (error as Error).message})`;
      await timers.sleep(1000, io.signal);
    }
  }
}

/** A live token gets 404 from every sandbox route: say why. */
async function withSandboxHint<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      error.message += ' (the sandbox routes need a sandbox token: npm run -s token -- --org <org> --sandbox)';
    throw error;
  }
}

const isHttpUrl = (value: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
