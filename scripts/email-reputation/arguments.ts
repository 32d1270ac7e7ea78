import { parseArgs } from 'node:util';
import { ORGANIZATION_ID, ORGANIZATION_ID_RULE, UsageError } from '#scripts/command-line.ts';

export const usage = `Usage: npm run -s org:email -- <show|resume> <orgId> [options]

An organization's onboarding e-mail reputation (its bounces and complaints over its last 200
e-mails) and its pause: past 5% bounces or 0.1% complaints (after 20 e-mails) its e-mail is
paused (token create and resend answer 429) until resumed here.
  show     the figures and whether e-mail is paused
  resume   lets the organization send again; counting starts afresh (prints the figures it had)

Options:
  --table <name>        stack output OnboardingTokensTableName (or ONBOARDING_TOKENS_TABLE_NAME)
  --region <region>     the stack's region (or AWS_REGION)
  -h, --help            this text

Exit status: 0 done; 1 failed (DynamoDB refused); 2 usage error.
Example: npm run -s org:email -- resume acme --table onboarding-prod-OnboardingTokens`;

export interface EmailReputationOptions {
  action: 'show' | 'resume';
  orgId: string;
  tableName: string;
  region: string | undefined;
}

export function parseEmailReputationArguments(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): EmailReputationOptions | { help: true } {
  const { values, positionals } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: {
      table: { type: 'string' },
      region: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return { help: true };
  if (positionals.length !== 2) throw new UsageError('an action (show or resume) and an organization id are required');
  const [action, orgId] = positionals as [string, string];
  if (action !== 'show' && action !== 'resume')
    throw new UsageError(`the action must be show or resume, not ${action}`);
  if (!ORGANIZATION_ID.test(orgId)) throw new UsageError(ORGANIZATION_ID_RULE.replace('--org', 'the organization id'));
  const tableName = values.table ?? env.ONBOARDING_TOKENS_TABLE_NAME;
  if (!tableName) {
    throw new UsageError(
      '--table (or ONBOARDING_TOKENS_TABLE_NAME) is required: the stack output OnboardingTokensTableName',
    );
  }
  return { action, orgId, tableName, region: values.region ?? env.AWS_REGION };
}
