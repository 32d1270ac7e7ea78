import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { COUNTED_SES_EVENT_TYPES, emailEventsFunction } from '#shared/config/api-routes.ts';
import { startSesEventDestination } from '#local/ses-event-destination.ts';
import { SES_EVENTS_PATH, type SimulatedSesEvent } from '#local/ses-mailbox-simulator.ts';

const events: SimulatedSesEvent[] = [
  { sequence: 1, detailType: 'Email Sent', detail: { eventType: 'Send' } },
  { sequence: 2, detailType: 'Email Delivered', detail: { eventType: 'Delivery' } },
  { sequence: 3, detailType: 'Email Bounced', detail: { eventType: 'Bounce' } },
  { sequence: 4, detailType: 'Email Complaint Received', detail: { eventType: 'Complaint' } },
];

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** The SES emulator's event feed, answering what came after `after`. */
async function sesFeed(): Promise<string> {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== SES_EVENTS_PATH) return res.writeHead(404).end();
    const after = Number(url.searchParams.get('after') ?? '0');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ events: events.filter((event) => event.sequence > after) }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('the local SES event destination', () => {
  it('invokes the counter with the events its EventBridge rule matches, once each, and no others', async () => {
    const invoked: string[] = [];
    const destination = startSesEventDestination({
      sesEndpoint: await sesFeed(),
      function: emailEventsFunction,
      detailTypes: COUNTED_SES_EVENT_TYPES,
      loadHandler: async () => async (event) => {
        invoked.push((event as { 'detail-type': string })['detail-type']);
      },
      intervalMs: 10,
    });
    try {
      await expect.poll(() => invoked.length, { timeout: 5_000 }).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 100)); // further polls find nothing new
    } finally {
      await destination.stop();
    }
    expect(invoked).toEqual(['Email Sent', 'Email Bounced', 'Email Complaint Received']);
  });
});
