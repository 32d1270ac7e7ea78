import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '#client/index.ts';

const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const body = JSON.stringify({ type: 'report.completed', timestamp: '2026-03-01T12:00:00.000Z', data: { jobId: 'j' } });

function signed(payload = body) {
  const now = new Date();
  return {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('msg_1', now, payload),
  };
}

describe('verifyWebhook', () => {
  it('returns the message of a correctly signed request, from a header record or a Headers object', () => {
    const headers = signed();
    expect(verifyWebhook(secret, body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(headers)).type).toBe('report.completed');
  });

  it('throws WebhookVerificationError for a changed body, another secret or a missing signature', () => {
    const headers = signed();
    expect(() => verifyWebhook(secret, body.replace('"j"', '"k"'), headers)).toThrow(WebhookVerificationError);
    const other = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;
    expect(() => verifyWebhook(other, body, headers)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, body, { ...headers, 'webhook-signature': undefined })).toThrow(
      WebhookVerificationError,
    );
  });
});
