import { MethodNotAllowedError, RouteNotFoundError } from './http-errors.ts';

export interface RouteShape {
  method: string;
  path: string;
}

/**
 * `/v1/document/api/{jobId}` -> a matcher returning the decoded path parameters, or undefined.
 * Used by the `$default` fallback and by the local router that stands in for API Gateway.
 */
export function compileRoutePath(path: string): (rawPath: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = path
    .split('/')
    .map((segment) => {
      const param = /^\{([^{}+]+)(\+?)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1] as string);
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  const regex = new RegExp(`^${pattern}$`);
  return (rawPath) => {
    const match = regex.exec(rawPath);
    if (!match) return undefined;
    return Object.fromEntries(names.map((name, i) => [name, safeDecode(match[i + 1] as string)]));
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Explains why no route matched: a path that exists under another method is a 405 (with the
 * methods it allows), anything else a 404. Used behind API Gateway's `$default` route.
 */
export function explainUnmatchedRoute(routes: readonly RouteShape[]) {
  const compiled = routes.map((route) => ({ method: route.method, match: compileRoutePath(route.path) }));
  return (method: string, path: string): never => {
    const allowed = compiled.filter((route) => route.match(path) !== undefined).map((route) => route.method);
    if (allowed.length > 0 && !allowed.includes(method)) throw new MethodNotAllowedError([...new Set(allowed)]);
    throw new RouteNotFoundError(`no route for ${method} ${path}`);
  };
}
