import * as v from 'valibot';
import { ConfigurationError } from './load-config.ts';

/** The header CloudFront adds to every request it forwards to the API (lib/edge-construct.ts). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/** Shorter values are refused at cold start: a guessable secret would make the check decorative. */
export const MIN_ORIGIN_VERIFY_SECRET_LENGTH = 32;

const secretValue = v.pipe(
  v.string(),
  v.minLength(MIN_ORIGIN_VERIFY_SECRET_LENGTH, `must be at least ${MIN_ORIGIN_VERIFY_SECRET_LENGTH} characters`),
);

/**
 * The Secrets Manager secret's JSON (CloudFormation resolves it into `ORIGIN_VERIFY_SECRETS` at deploy):
 * `current` is what CloudFront sends, `previous` the value it sent before the last rotation, accepted
 * until CloudFront's update has reached every edge location (docs/deploy.md, "Rotating the origin secret").
 */
const originVerifySecretsSchema = v.object({
  current: secretValue,
  previous: v.optional(v.union([v.literal(''), secretValue])),
});

/**
 * The values an API function accepts in the origin-verify header, or undefined when the edge is off
 * (no `ORIGIN_VERIFY_SECRETS`: locally and in stages without `edgeProtection`). A malformed value
 * stops the cold start with a message that names the variable, never its content.
 */
export function originVerifySecretsFrom(
  env: Readonly<Record<string, string | undefined>> = process.env,
): readonly string[] | undefined {
  const raw = env.ORIGIN_VERIFY_SECRETS;
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigurationError('Invalid configuration:\n  ORIGIN_VERIFY_SECRETS must be a JSON object');
  }
  const result = v.safeParse(originVerifySecretsSchema, parsed, { abortEarly: false });
  if (!result.success) {
    const problems = result.issues.map(
      (issue) => `ORIGIN_VERIFY_SECRETS.${v.getDotPath(issue) ?? ''}: ${issue.message}`,
    );
    throw new ConfigurationError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const { current, previous } = result.output;
  return previous ? [current, previous] : [current];
}
