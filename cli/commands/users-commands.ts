import { DEFAULT_RESULT_KEYS, type UserStatusRecord, type UserStatusRequest } from '#client/index.ts';
import { cellWidth, type CommandGroup, EXIT, integer } from '#cli/command.ts';
import * as help from '#cli/help.ts';
import { formatTable } from '#cli/table.ts';
import { parseResultKeys, parseUserFilters } from '#cli/user-filters.ts';

const MAX_PAGE_SIZE = 1000;

export const usersCommands: CommandGroup = {
  help: help.USERS_HELP,
  commands: {
    query: {
      help: help.USERS_QUERY_HELP,
      options: {
        filter: { type: 'string', multiple: true },
        keys: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
        all: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out, err, io }) => {
        const all = values.all === true;
        const limit = all
          ? Infinity
          : values.limit === undefined
            ? 50
            : integer(values, 'limit', 1, Number.MAX_SAFE_INTEGER);
        const offset = values.offset === undefined ? 0 : integer(values, 'offset', 0, Number.MAX_SAFE_INTEGER);
        const keys = values.keys === undefined ? undefined : parseResultKeys(values.keys as string);
        const request: UserStatusRequest = {
          ...(values.filter ? { filters: parseUserFilters(values.filter as string[]) } : {}),
          ...(keys ? { result_keys: keys } : {}),
          pagination: { limit: Math.min(limit, MAX_PAGE_SIZE), offset },
        };

        const records: UserStatusRecord[] = [];
        let total = 0;
        for await (const page of client.queryUserStatus(request, { signal: io.signal })) {
          total = page.pagination.total;
          records.push(...page.results.slice(0, limit - records.length));
          if (records.length >= limit) break;
        }
        if (values.json) {
          out(
            JSON.stringify(
              { results: records, pagination: { offset, limit: all ? records.length : limit, total } },
              null,
              2,
            ),
          );
          return EXIT.ok;
        }
        const columns = keys ?? (records[0] ? Object.keys(records[0]) : [...DEFAULT_RESULT_KEYS]);
        out(formatTable(records, columns, cellWidth(io)));
        const shown = records.length === 0 ? 'no records' : `records ${offset + 1}-${offset + records.length}`;
        const more = offset + records.length < total ? ` (more: --offset ${offset + records.length}, or --all)` : '';
        err(`${shown} of ${total}${more}`);
        return EXIT.ok;
      },
    },
    erase: {
      help: help.USERS_ERASE_HELP,
      options: {},
      positionals: { names: ['id'], required: 1 },
      run: async ({ positionals, client, out }) => {
        await client.eraseUser(positionals[0]!);
        out(`erased ${positionals[0]!}`);
        return EXIT.ok;
      },
    },
  },
};
