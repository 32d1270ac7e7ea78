/**
 * The development sign-in the local stack alone offers (`npm start`): it mints a token for any
 * organization and scopes with its development key. In AWS the dashboard never shows it.
 */
export async function requestDevelopmentToken(input: { orgId: string; scopes: readonly string[] }): Promise<string> {
  const response = await fetch('/local/dev-token', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await response.json().catch(() => undefined)) as
    { access_token?: string; message?: string } | undefined;
  if (!response.ok || typeof body?.access_token !== 'string') {
    throw new Error(body?.message ?? `the local stack refused the sign-in (HTTP ${response.status})`);
  }
  return body.access_token;
}
