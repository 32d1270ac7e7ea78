import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The SES emulator's front: every request goes on to aws-ses-v2-local, and each e-mail sent with a
 * configuration set (as SES publishes events only for those) becomes the events SES would publish
 * for it, in SES's event-publishing format: a send, then what SES's mailbox simulator answers for
 * the recipient (`bounce@simulator.amazonses.com`: a permanent bounce; `complaint@…`: delivered
 * and a complaint; `suppressionlist@…`: a permanent bounce; anything else: delivered). The events
 * wait at `GET /local/ses-events?after={sequence}` for the local event destination (pollers.ts),
 * which hands them to the same function EventBridge invokes in AWS. A SendEmail whose message tags
 * SES would refuse is refused here too, as SES refuses it (contract §27), before aws-ses-v2-local,
 * which checks no tag, sees it.
 */

export const SES_EVENTS_PATH = '/local/ses-events';
const SEND_EMAIL_PATH = '/v2/email/outbound-emails';
export const MAILBOX_SIMULATOR_DOMAIN = 'simulator.amazonses.com';

/** An SES event-publishing record (the `detail` of SES's EventBridge event) and its detail type. */
export interface SimulatedSesEvent {
  sequence: number;
  detailType: string;
  detail: Record<string, unknown>;
}

interface SendEmailRequest {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[] };
  ConfigurationSetName?: string;
  EmailTags?: Array<{ Name: string; Value: string }>;
}

/** SES's rule for a message tag's name and value (API reference, `MessageTag`). */
const SES_TAG_TEXT = /^[A-Za-z0-9_-]*$/;
const SES_TAG_MAX_LENGTH = 256;

/**
 * Why SES refuses the first tag it refuses (the alphabet's text is SES's own), or `undefined` when
 * it takes them all.
 */
export function messageTagRefusal(tags: SendEmailRequest['EmailTags']): string | undefined {
  for (const { Name: name, Value: value } of tags ?? []) {
    for (const [part, text] of [
      ['name', name],
      ['value', value],
    ] as const) {
      if (!SES_TAG_TEXT.test(text)) {
        return `Invalid tag ${part} <${text}>: only alphanumeric ASCII characters, '_', and '-' are allowed.`;
      }
      if (text.length > SES_TAG_MAX_LENGTH) {
        return `Invalid tag ${part} <${text}>: must contain ${SES_TAG_MAX_LENGTH} characters or fewer.`;
      }
    }
  }
  return undefined;
}

/** What SES's mailbox simulator does with an e-mail to `address` (labels, `bounce+x@…`, included). */
export function simulatorOutcome(address: string): 'bounce' | 'complaint' | 'delivery' {
  const [local = '', domain = ''] = address.trim().toLowerCase().split('@');
  if (domain !== MAILBOX_SIMULATOR_DOMAIN) return 'delivery';
  const mailbox = local.split('+')[0];
  if (mailbox === 'bounce' || mailbox === 'suppressionlist') return 'bounce';
  if (mailbox === 'complaint') return 'complaint';
  return 'delivery';
}

export function simulatedEvents(
  request: SendEmailRequest,
  messageId: string,
  now: Date,
): Omit<SimulatedSesEvent, 'sequence'>[] {
  if (!request.ConfigurationSetName) return [];
  const destination = request.Destination?.ToAddresses ?? [];
  const tags: Record<string, string[]> = { 'ses:configuration-set': [request.ConfigurationSetName] };
  for (const tag of request.EmailTags ?? []) tags[tag.Name] = [tag.Value];
  const mail = {
    timestamp: now.toISOString(),
    source: request.FromEmailAddress ?? '',
    sendingAccountId: '000000000000',
    messageId,
    destination,
    tags,
  };
  const at = now.toISOString();
  const events: Omit<SimulatedSesEvent, 'sequence'>[] = [
    { detailType: 'Email Sent', detail: { eventType: 'Send', mail, send: {} } },
  ];
  for (const recipient of destination) {
    const outcome = simulatorOutcome(recipient);
    if (outcome === 'bounce') {
      events.push({
        detailType: 'Email Bounced',
        detail: {
          eventType: 'Bounce',
          mail,
          bounce: {
            bounceType: 'Permanent',
            bounceSubType: 'General',
            bouncedRecipients: [{ emailAddress: recipient }],
            timestamp: at,
          },
        },
      });
      continue;
    }
    events.push({
      detailType: 'Email Delivered',
      detail: { eventType: 'Delivery', mail, delivery: { timestamp: at, recipients: [recipient] } },
    });
    if (outcome === 'complaint') {
      events.push({
        detailType: 'Email Complaint Received',
        detail: {
          eventType: 'Complaint',
          mail,
          complaint: {
            complainedRecipients: [{ emailAddress: recipient }],
            complaintFeedbackType: 'abuse',
            timestamp: at,
          },
        },
      });
    }
  }
  return events;
}

/** A SendEmail body; one that is not JSON is left to the emulator to refuse. */
function sendEmailRequest(body: Buffer): SendEmailRequest {
  try {
    return JSON.parse(body.toString('utf8')) as SendEmailRequest;
  } catch {
    return {};
  }
}

/** Listens on `port` (loopback) in front of the emulator at `emulatorUrl`. */
export async function startMailboxSimulator(
  host: string,
  port: number,
  emulatorUrl: string,
): Promise<{ server: Server; port: number }> {
  const events: SimulatedSesEvent[] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`SES emulator front: ${(error as Error).message}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    if (req.method === 'GET' && url.pathname === SES_EVENTS_PATH) {
      const after = Number(url.searchParams.get('after') ?? '0');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ events: events.filter((event) => event.sequence > after) }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const sendsEmail = req.method === 'POST' && url.pathname === SEND_EMAIL_PATH;
    const refusal = sendsEmail ? messageTagRefusal(sendEmailRequest(body).EmailTags) : undefined;
    if (refusal) {
      // SES v2's error shape (REST JSON): the type in `x-amzn-ErrorType`, the text in `message`.
      res.writeHead(400, {
        'content-type': 'application/json',
        'x-amzn-errortype': 'BadRequestException',
        'x-amzn-requestid': randomUUID(),
      });
      res.end(JSON.stringify({ message: refusal }));
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host',
      ),
    );
    const answer = await fetch(`${emulatorUrl}${req.url ?? '/'}`, {
      method: req.method,
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const answerBody = Buffer.from(await answer.arrayBuffer());
    if (sendsEmail && answer.status === 200) {
      const { MessageId } = JSON.parse(answerBody.toString('utf8')) as { MessageId?: string };
      if (MessageId) {
        for (const event of simulatedEvents(sendEmailRequest(body), MessageId, new Date())) {
          events.push({ ...event, sequence: events.length + 1 });
        }
      }
    }
    const responseHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) {
        responseHeaders[name] = value;
      }
    });
    res.writeHead(answer.status, responseHeaders);
    res.end(answerBody);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
