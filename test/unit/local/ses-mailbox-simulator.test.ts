import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendEmailCommand, SESv2Client, type MessageTag } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SES_EVENTS_PATH, startMailboxSimulator, type SimulatedSesEvent } from '#local/ses-mailbox-simulator.ts';

/** What aws-ses-v2-local answers a SendEmail it accepts; every request it received is kept. */
let received: string[] = [];
let messages = 0;
let emulator: Server;
let front: Server;
let ses: SESv2Client;
let frontUrl = '';

beforeAll(async () => {
  emulator = createServer((req, res) => {
    received.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ MessageId: `m-${++messages}` }));
    });
  });
  await new Promise<void>((resolve) => emulator.listen(0, '127.0.0.1', resolve));
  const started = await startMailboxSimulator(
    '127.0.0.1',
    0,
    `http://127.0.0.1:${(emulator.address() as AddressInfo).port}`,
  );
  front = started.server;
  frontUrl = `http://127.0.0.1:${started.port}`;
  ses = new SESv2Client({
    endpoint: frontUrl,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  ses.destroy();
  for (const server of [front, emulator]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

beforeEach(() => {
  received = [];
});

const send = (tags: MessageTag[]) =>
  ses.send(
    new SendEmailCommand({
      FromEmailAddress: 'no-reply@onboarding.local',
      Destination: { ToAddresses: ['ada@example.org'] },
      ConfigurationSetName: 'onboarding-local',
      EmailTags: tags,
      Content: { Template: { TemplateName: 'onboarding-token-local', TemplateData: '{}' } },
    }),
  );

async function publishedEvents(): Promise<SimulatedSesEvent[]> {
  const answer = await fetch(`${frontUrl}${SES_EVENTS_PATH}?after=0`);
  return ((await answer.json()) as { events: SimulatedSesEvent[] }).events;
}

describe('the local SES emulator’s message tags (contract §27: it refuses what SES refuses)', () => {
  it('refuses a tag value with a period as SES v2 does: 400 BadRequestException, nothing sent, no event', async () => {
    const before = (await publishedEvents()).length;
    const failure = await send([{ Name: 'org_id', Value: 'acme.eu' }]).catch((error: unknown) => error);

    expect(failure).toMatchObject({
      name: 'BadRequestException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: "Invalid tag value <acme.eu>: only alphanumeric ASCII characters, '_', and '-' are allowed.",
    });
    expect((failure as { $metadata: { requestId?: string } }).$metadata.requestId).toMatch(/\S/);
    expect(received).toEqual([]);
    expect(await publishedEvents()).toHaveLength(before);
  });

  it('refuses a tag name outside SES’s alphabet and a name or value of more than 256 characters, and passes 256 of letters, digits, `_` and `-` on to the emulator and its events', async () => {
    for (const tags of [
      [{ Name: 'org:id', Value: 'acme' }],
      [{ Name: 'org_id', Value: 'a'.repeat(257) }],
      [{ Name: 'n'.repeat(257), Value: 'acme' }],
      [
        { Name: 'org_id', Value: 'acme' },
        { Name: 'stage', Value: 'dev/1' },
      ],
    ]) {
      await expect(send(tags), JSON.stringify(tags)).rejects.toMatchObject({
        name: 'BadRequestException',
        $metadata: { httpStatusCode: 400 },
      });
    }
    expect(received).toEqual([]);

    const value = `acme_-eu-${'x'.repeat(247)}`;
    expect(value).toHaveLength(256);
    const { MessageId } = await send([{ Name: 'org_id', Value: value }]);
    expect(received).toHaveLength(1);
    const sent = (await publishedEvents()).find(
      (event) => (event.detail as { mail: { messageId: string } }).mail.messageId === MessageId,
    );
    expect((sent?.detail as { mail: { tags: Record<string, string[]> } }).mail.tags.org_id).toEqual([value]);
  });
});
