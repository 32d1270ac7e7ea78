import { type WebhookEventType, WEBHOOK_EVENT_TYPES } from '#client/index.ts';
import { cellWidth, type CommandGroup, EXIT, integer, required } from '#cli/command.ts';
import * as help from '#cli/help.ts';
import { formatTable } from '#cli/table.ts';
import { UsageError } from '#cli/user-filters.ts';

export const webhookCommands: CommandGroup = {
  help: help.WEBHOOK_HELP,
  commands: {
    create: {
      help: help.WEBHOOK_CREATE_HELP,
      options: {
        url: { type: 'string' },
        event: { type: 'string', multiple: true },
        // The API's member is "events": the plural is accepted as the same option.
        events: { type: 'string', multiple: true },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out, err }) => {
        const url = required(values, 'url');
        const events = [
          ...((values.event as string[] | undefined) ?? []),
          ...((values.events as string[] | undefined) ?? []),
        ];
        const listed = [...new Set(events.flatMap((event) => event.split(',')).map((event) => event.trim()))].filter(
          (event) => event !== '',
        );
        const unknown = listed.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
        if (unknown.length > 0)
          throw new UsageError(`unknown event type ${unknown.join(', ')}; one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
        const created = await client.createWebhookEndpoint({
          url,
          events: listed.length > 0 ? (listed as WebhookEventType[]) : [...WEBHOOK_EVENT_TYPES],
        });
        if (values.json) out(JSON.stringify(created, null, 2));
        else {
          out(`id      ${created.id}
    url     ${created.url}
    events  ${created.events.join(', ')}
    secret  ${created.secret}`);
          err('(the secret is shown only now: keep it to verify messages)');
        }
        return EXIT.ok;
      },
    },
    list: {
      help: help.WEBHOOK_LIST_HELP,
      options: { json: { type: 'boolean' } },
      run: async ({ values, client, out, io }) => {
        const list = await client.listWebhookEndpoints();
        if (values.json) out(JSON.stringify(list, null, 2));
        else
          out(
            formatTable(
              list.results.map((endpoint) => ({ ...endpoint, events: endpoint.events.join(',') })),
              ['id', 'url', 'events', 'createdAt', 'disabled'],
              cellWidth(io),
            ),
          );
        return EXIT.ok;
      },
    },
    delete: {
      help: help.WEBHOOK_DELETE_HELP,
      options: {},
      positionals: { names: ['id'], required: 1 },
      run: async ({ positionals, client, out }) => {
        await client.deleteWebhookEndpoint(positionals[0]!);
        out(`deleted ${positionals[0]!}`);
        return EXIT.ok;
      },
    },
    test: {
      help: help.WEBHOOK_TEST_HELP,
      options: { json: { type: 'boolean' } },
      positionals: { names: ['id'], required: 1 },
      run: async ({ positionals, values, client, out }) => {
        const queued = await client.testWebhookEndpoint(positionals[0]!);
        out(values.json ? JSON.stringify(queued, null, 2) : `webhook.test queued (${queued.eventId})`);
        return EXIT.ok;
      },
    },
    deliveries: {
      help: help.WEBHOOK_DELIVERIES_HELP,
      options: { limit: { type: 'string' }, cursor: { type: 'string' }, json: { type: 'boolean' } },
      positionals: { names: ['id'], required: 1 },
      run: async ({ positionals, values, client, out, err, io }) => {
        const limit = values.limit === undefined ? undefined : integer(values, 'limit', 1, 100);
        const page = await client.listWebhookDeliveries(positionals[0]!, {
          limit,
          cursor: values.cursor as string | undefined,
        });
        if (values.json) {
          out(JSON.stringify(page, null, 2));
          return EXIT.ok;
        }
        const keys = ['messageId', 'type', 'status', 'attempts', 'lastResponseStatus', 'createdAt', 'nextAttemptAt'];
        out(formatTable(page.results, keys, cellWidth(io)));
        if (page.nextCursor) err(`more: onboarding webhook deliveries ${positionals[0]!} --cursor ${page.nextCursor}`);
        return EXIT.ok;
      },
    },
  },
};
