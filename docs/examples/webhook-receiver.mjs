#!/usr/bin/env node
// A local webhook endpoint: verifies each message's Standard Webhooks signature with WEBHOOK_SECRET
// and answers 204, or 400 when it does not verify. Usage: node webhook-receiver.mjs [port]
// (default 4242). Needs `standardwebhooks` (npm install standardwebhooks). docs/testing-your-integration.md
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('set WEBHOOK_SECRET to the signing secret (onboarding listen sets it for the command after --)');
  process.exit(2);
}
const webhook = new Webhook(secret);
const port = Number(process.argv[2] ?? 4242);

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    // Verify the body exactly as received, never re-serialized JSON.
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      const message = webhook.verify(body, request.headers);
      const about = message.data.userId ?? message.data.tokenId ?? '';
      console.log(`verified ${message.type} ${request.headers['webhook-id']} livemode=${message.livemode} ${about}`);
      response.writeHead(204).end();
    } catch (error) {
      console.log(`rejected ${request.headers['webhook-id']}: ${error.message}`);
      response.writeHead(400).end();
    }
  });
}).listen(port, '127.0.0.1', () => console.log(`receiver listening on http://127.0.0.1:${port}/webhooks`));
