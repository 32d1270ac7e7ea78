import { Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { STATUS_NAMES, type StandardErrorBody } from '#shared/schemas/error-responses.ts';

export interface EdgeWebAclStackProps extends StackProps {
  /** Requests one client IP may send to `/v1/*` in any 60 seconds. */
  readonly rateLimitPerIp: number;
  /** Requests one `Authorization` header value may send to `/v1/*` in any 60 seconds. */
  readonly rateLimitPerAuthorization: number;
}

/** The window of both rate rules: WAF's shortest, so a flood is cut within a minute and a refusal ends soon. */
export const EDGE_RATE_WINDOW_SECONDS = 60;

/**
 * A WAF custom body is static: `timestamp`, `path` and `method` cannot carry the request's values,
 * so they say so (the epoch, the API's prefix, `*`); `code`, `error` and `message` are the contract's.
 */
export function edgeErrorBody(code: 403 | 429, message: string): StandardErrorBody {
  return {
    code,
    timestamp: '1970-01-01T00:00:00.000Z',
    path: '/v1/*',
    method: '*',
    error: STATUS_NAMES[code] as StandardErrorBody['error'],
    message,
  };
}

const TOO_MANY_REQUESTS_BODY = 'TooManyRequests';
const FORBIDDEN_BODY = 'Forbidden';

/** AWS managed groups that suit a JSON API, run in Count: their labels decide a block below, with the contract's body. */
const MANAGED_RULE_GROUPS = [
  // Addresses Amazon's threat intelligence lists as sources of bots and attacks.
  { name: 'AWSManagedRulesAmazonIpReputationList', labels: 'awswaf:managed:aws:amazon-ip-list:' },
  // Request patterns known to exploit software (Log4j, Java deserialization, `localhost` Host headers).
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', labels: 'awswaf:managed:aws:known-bad-inputs:' },
] as const;

/**
 * Metrics for every rule, no sampled requests: a sample keeps the request's headers for three hours, the bearer
 * token of every `/v1/*` call among them, and WAF redacts only logs (`RedactedFields`), never samples.
 */
const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: false,
});

/**
 * The per-token rule's key: the `Authorization` header with its white space compressed, then lower-cased, so
 * `Bearer x` and `bearer  x` count as one client (a token that differs only in case is refused 401 anyway).
 */
const normalizedAuthorization: CfnWebACL.RateBasedStatementCustomKeyProperty = {
  header: {
    name: 'authorization',
    textTransformations: [
      { priority: 0, type: 'COMPRESS_WHITE_SPACE' },
      { priority: 1, type: 'LOWERCASE' },
    ],
  },
};

/** Only the API's requests count: the dashboard's static files on the same distribution spend nothing. */
const apiPathsOnly: CfnWebACL.StatementProperty = {
  byteMatchStatement: {
    fieldToMatch: { uriPath: {} },
    positionalConstraint: 'STARTS_WITH',
    searchString: '/v1/',
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
};

const tooManyRequests: CfnWebACL.RuleActionProperty = {
  block: {
    customResponse: {
      responseCode: 429,
      customResponseBodyKey: TOO_MANY_REQUESTS_BODY,
      responseHeaders: [{ name: 'Retry-After', value: String(EDGE_RATE_WINDOW_SECONDS) }],
    },
  },
};

/**
 * The web ACL of the edge (scope CLOUDFRONT, which AWS only accepts in us-east-1, hence a stack of its
 * own there): a rate rule per client IP, one per `Authorization` header, two AWS managed groups.
 * The service stack attaches it to its distribution through a cross-region reference.
 */
export class EdgeWebAclStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeWebAclStackProps) {
    super(scope, id, props);
    if (this.region !== 'us-east-1') throw new Error('a CLOUDFRONT web ACL must be created in us-east-1');

    const rateRule = (
      name: string,
      priority: number,
      limit: number,
      key: Partial<CfnWebACL.RateBasedStatementProperty>,
    ): CfnWebACL.RuleProperty => ({
      name,
      priority,
      action: tooManyRequests,
      statement: {
        rateBasedStatement: {
          limit,
          evaluationWindowSec: EDGE_RATE_WINDOW_SECONDS,
          scopeDownStatement: apiPathsOnly,
          ...key,
        } as CfnWebACL.RateBasedStatementProperty,
      },
      visibilityConfig: visibility(name),
    });

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'Rate rules and managed groups in front of the onboarding API',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('EdgeWebAcl'),
      customResponseBodies: {
        [TOO_MANY_REQUESTS_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(
            edgeErrorBody(429, `too many requests from this client; retry after ${EDGE_RATE_WINDOW_SECONDS} seconds`),
          ),
        },
        [FORBIDDEN_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(edgeErrorBody(403, 'request refused by the API’s edge')),
        },
      },
      rules: [
        ...MANAGED_RULE_GROUPS.map(({ name }, index): CfnWebACL.RuleProperty => ({
          name,
          priority: index,
          overrideAction: { count: {} },
          statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
          visibilityConfig: visibility(name),
        })),
        ...MANAGED_RULE_GROUPS.map(({ name, labels }, index): CfnWebACL.RuleProperty => ({
          name: `Block${name.replace('AWSManagedRules', '')}`,
          priority: MANAGED_RULE_GROUPS.length + index,
          action: { block: { customResponse: { responseCode: 403, customResponseBodyKey: FORBIDDEN_BODY } } },
          statement: { labelMatchStatement: { scope: 'NAMESPACE', key: labels } },
          visibilityConfig: visibility(`Block${name.replace('AWSManagedRules', '')}`),
        })),
        rateRule('RateLimitPerIp', 10, props.rateLimitPerIp, { aggregateKeyType: 'IP' }),
        rateRule('RateLimitPerAuthorization', 11, props.rateLimitPerAuthorization, {
          aggregateKeyType: 'CUSTOM_KEYS',
          customKeys: [normalizedAuthorization],
        }),
      ],
    });
  }
}
