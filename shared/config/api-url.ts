import * as v from 'valibot';

/**
 * `API_URL`: where this stage's clients call the API, its `ApiUrl` output without the final `/` (the edge's
 * with the edge on, since the origin then refuses every call that did not come through it). Unset in the
 * local stack.
 */
export const apiUrlEnvironment = {
  API_URL: v.optional(
    v.pipe(
      v.string(),
      v.url('API_URL must be a URL'),
      v.startsWith('https://', 'API_URL must use https'),
      v.check((url) => !url.endsWith('/'), 'API_URL must not end with /'),
    ),
  ),
};
