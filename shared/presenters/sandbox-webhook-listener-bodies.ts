import type { ListenerMessages, OpenedWebhookListener } from '#shared/domain/webhooks/webhook-listener.ts';
import type {
  SandboxWebhookListenerBody,
  SandboxWebhookMessagesBody,
} from '#shared/schemas/sandbox-webhook-listener-schemas.ts';

export function sandboxWebhookListenerBody(opened: OpenedWebhookListener): SandboxWebhookListenerBody {
  return {
    id: opened.endpoint.endpointId,
    events: opened.endpoint.events,
    createdAt: opened.endpoint.createdAt,
    secret: opened.secret,
  };
}

export function sandboxWebhookMessagesBody(read: ListenerMessages): SandboxWebhookMessagesBody {
  return {
    results: read.messages.map((message) => ({
      messageId: message.messageId,
      type: message.type,
      body: message.body,
      headers: {
        'content-type': message.headers['content-type']!,
        'webhook-id': message.headers['webhook-id']!,
        'webhook-timestamp': message.headers['webhook-timestamp']!,
        'webhook-signature': message.headers['webhook-signature']!,
      },
    })),
    cursor: read.cursor,
  };
}
