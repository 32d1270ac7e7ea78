import { MethodNotAllowedError, RouteNotFoundError } from './http-errors.ts';

export interface RouteShape {
  method: string;
  path: string;
}

const compile = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}/]+\}/g, '[^/]+')}$`);

/**
 * Explains why no route matched: a path that exists under another method is a 405 (with the
 * methods it allows), anything else a 404. Used behind API Gateway's `$default` route.
 */
export function explainUnmatchedRoute(routes: readonly RouteShape[]) {
  const compiled = routes.map((route) => ({ method: route.method, pattern: compile(route.path) }));
  return (method: string, path: string): never => {
    const allowed = compiled.filter((route) => route.pattern.test(path)).map((route) => route.method);
    if (allowed.length > 0 && !allowed.includes(method)) throw new MethodNotAllowedError([...new Set(allowed)]);
    throw new RouteNotFoundError(`no route for ${method} ${path}`);
  };
}
