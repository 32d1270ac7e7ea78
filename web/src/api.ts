import { OnboardingApiClient, UnauthorizedError } from '#client/index.ts';
import { currentSession, signOut } from './session.ts';

/**
 * The only way the dashboard talks to the API: the typed client, on this page's own origin (the
 * API is served beside the dashboard, so there is no CORS), with the in-memory session's token.
 */
export const api = new OnboardingApiClient({
  baseUrl: window.location.origin,
  token: () => currentSession()?.accessToken ?? '',
  onResponse: (response) => {
    // An expired or revoked sign-in: back to the sign-in page rather than a page of errors.
    if (response.status === 401) queueMicrotask(signOut);
  },
});

export { UnauthorizedError };
