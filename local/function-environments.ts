import * as v from 'valibot';
import { apiFunctionNeeds, type ApiFunctionName } from '#shared/config/function-needs.ts';
import { functionEnvironment } from '#shared/wiring/function-config.ts';

/**
 * One process hosts every function here, so the local stack sets the union of their variables.
 * It reads each function's declared needs (shared/config/function-needs.ts) and refuses to start
 * when the union misses a variable one of them requires: the same declaration CDK grants from.
 */
export function checkFunctionEnvironments(env: Readonly<Record<string, string>>): void {
  const problems: string[] = [];
  for (const name of Object.keys(apiFunctionNeeds) as ApiFunctionName[]) {
    const result = v.safeParse(v.object(functionEnvironment(name) as v.ObjectEntries), env, { abortEarly: false });
    if (result.success) continue;
    for (const issue of result.issues) problems.push(`${name}: ${v.getDotPath(issue) ?? '(environment)'}`);
  }
  if (problems.length > 0)
    throw new Error(`the local environment misses what these functions need:\n  ${problems.join('\n  ')}`);
}
