import type { AuditAction } from '#client/index.ts';
import { cellWidth, type CommandGroup, EXIT, integer } from '#cli/command.ts';
import * as help from '#cli/help.ts';
import { formatTable } from '#cli/table.ts';

export const auditCommands: CommandGroup = {
  help: help.AUDIT_HELP,
  commands: {
    list: {
      help: help.AUDIT_LIST_HELP,
      options: {
        action: { type: 'string' },
        target: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out, err, io }) => {
        const page = await client.listAuditEvents({
          ...(values.limit === undefined ? {} : { limit: integer(values, 'limit', 1, 100) }),
          ...(values.cursor === undefined ? {} : { cursor: values.cursor as string }),
          // The API validates the action and the dates (400 with the field named).
          ...(values.action === undefined ? {} : { action: values.action as AuditAction }),
          ...(values.target === undefined ? {} : { targetId: values.target as string }),
          ...(values.from === undefined ? {} : { from: values.from as string }),
          ...(values.to === undefined ? {} : { to: values.to as string }),
        });
        if (values.json) {
          out(JSON.stringify(page, null, 2));
          return EXIT.ok;
        }
        const rows = page.results.map((event) => ({
          occurredAt: event.occurredAt,
          action: event.action,
          target: `${event.target.type} ${event.target.id}`,
          actor: [event.actor.sub, event.actor.clientId].filter(Boolean).join(' via ') || '-',
          requestId: event.requestId,
        }));
        out(formatTable(rows, ['occurredAt', 'action', 'target', 'actor', 'requestId'], cellWidth(io)));
        if (page.nextCursor) err(`more: onboarding audit list --cursor ${page.nextCursor}`);
        return EXIT.ok;
      },
    },
  },
};
