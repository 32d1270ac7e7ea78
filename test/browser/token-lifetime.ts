/** The browser tier's staff access token lifetime (global-setup.ts), short so the renewal test waits little. */
export const BROWSER_STAFF_TOKEN_SECONDS = 30;
