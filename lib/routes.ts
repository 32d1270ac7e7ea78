/**
 * The HTTP API's routes: one Lambda entry point per route. Plain data, shared by the CDK API
 * construct and the local router so the two can never disagree. No CDK imports here.
 */
export type HttpMethod = 'GET' | 'POST';

export interface ApiRoute {
  method: HttpMethod;
  /** API Gateway route path; `{name}` marks a path parameter. */
  path: string;
  /** Entry file, relative to the repository root. */
  entry: string;
  /** Construct id and log-friendly name. */
  name: string;
}

export const onboardingRoutes = [
  { method: 'POST', path: '/v1/onboarding-token', entry: 'functions/create-onboarding-token.ts', name: 'CreateOnboardingToken' },
  { method: 'GET', path: '/v1/onboarding-tokens', entry: 'functions/list-onboarding-tokens.ts', name: 'ListOnboardingTokens' },
] as const satisfies readonly ApiRoute[];

/** Answers every path or method no route matches, with the contract's 404/405 body. */
export const fallbackRoute = {
  entry: 'functions/route-not-found.ts',
  name: 'RouteNotFound',
} as const;

export const apiRoutes: readonly ApiRoute[] = [...onboardingRoutes];
