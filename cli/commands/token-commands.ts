import type { OnboardingTokenStatus } from '#client/index.ts';
import { cellWidth, type CommandGroup, EXIT, integer, optionalIdempotencyKey, required } from '#cli/command.ts';
import * as help from '#cli/help.ts';
import { formatTable } from '#cli/table.ts';

export const tokenCommands: CommandGroup = {
  help: help.TOKEN_HELP,
  commands: {
    create: {
      help: help.TOKEN_CREATE_HELP,
      options: {
        email: { type: 'string' },
        'first-name': { type: 'string' },
        'last-name': { type: 'string' },
        'idempotency-key': { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out }) => {
        const email = required(values, 'email');
        const created = await client.createOnboardingToken(
          { email, first_name: required(values, 'first-name'), last_name: required(values, 'last-name') },
          optionalIdempotencyKey(values),
        );
        if (values.json) out(JSON.stringify(created, null, 2));
        else
          out(
            `onboarding_token  ${created.onboarding_token}\ntokenId           ${created.tokenId}\nexpires_at        ${created.expires_at}\n(e-mailed to ${email})`,
          );
        return EXIT.ok;
      },
    },
    list: {
      help: help.TOKEN_LIST_HELP,
      options: {
        limit: { type: 'string' },
        cursor: { type: 'string' },
        status: { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out, err, io }) => {
        const limit = values.limit === undefined ? undefined : integer(values, 'limit', 1, 100);
        const page = await client.listOnboardingTokens({
          limit,
          cursor: values.cursor as string | undefined,
          status: values.status as OnboardingTokenStatus | undefined,
        });
        if (values.json) {
          out(JSON.stringify(page, null, 2));
          return EXIT.ok;
        }
        const keys = ['tokenId', 'email', 'first_name', 'last_name', 'status', 'tokenHint', 'createdAt', 'expiresAt'];
        out(formatTable(page.results, keys, cellWidth(io)));
        if (page.nextCursor) err(`more: onboarding token list --cursor ${page.nextCursor}`);
        return EXIT.ok;
      },
    },
    redeem: {
      help: help.TOKEN_REDEEM_HELP,
      options: { json: { type: 'boolean' } },
      positionals: { names: ['token'], required: 1 },
      run: async ({ positionals, values, client, out }) => {
        const used = await client.redeemOnboardingToken(positionals[0]!);
        out(
          values.json
            ? JSON.stringify(used, null, 2)
            : `${used.first_name} ${used.last_name} <${used.email}>\ntokenId  ${used.tokenId}\nusedAt   ${used.usedAt}`,
        );
        return EXIT.ok;
      },
    },
    revoke: {
      help: help.TOKEN_REVOKE_HELP,
      options: {},
      positionals: { names: ['tokenId'], required: 1 },
      run: async ({ positionals, client, out }) => {
        await client.revokeOnboardingToken(positionals[0]!);
        out(`revoked ${positionals[0]!}`);
        return EXIT.ok;
      },
    },
    resend: {
      help: help.TOKEN_RESEND_HELP,
      options: { 'idempotency-key': { type: 'string' }, json: { type: 'boolean' } },
      positionals: { names: ['tokenId'], required: 1 },
      run: async ({ positionals, values, client, out }) => {
        const resent = await client.resendOnboardingToken(positionals[0]!, optionalIdempotencyKey(values));
        out(
          values.json
            ? JSON.stringify(resent, null, 2)
            : `onboarding_token  ${resent.onboarding_token}\ntokenId           ${resent.tokenId}\nexpires_at        ${resent.expires_at}\n(e-mailed; ${positionals[0]!} revoked if it was Issued)`,
        );
        return EXIT.ok;
      },
    },
  },
};
