/**
 * The dashboard's address lives in the hash: `#/<page path>[?<query>]`. The path picks the page;
 * the query is the page's own (e.g. `#/activity?targetId=…` opens the Activity page filtered).
 */
export interface HashRoute {
  path: string;
  query: URLSearchParams;
}

export function parseHash(hash: string): HashRoute {
  const route = hash.replace(/^#\/?/, '');
  const at = route.indexOf('?');
  return at === -1
    ? { path: route, query: new URLSearchParams() }
    : { path: route.slice(0, at), query: new URLSearchParams(route.slice(at + 1)) };
}

/** The current address's query, for a page to read its initial state from. */
export const hashQuery = (): URLSearchParams => parseHash(window.location.hash).query;

/** A link to a page, with its query when given (empty values left out). */
export function pageHref(path: string, query: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])),
  ).toString();
  return `#/${path}${search ? `?${search}` : ''}`;
}
