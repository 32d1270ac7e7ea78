/**
 * Version of the report layout, recorded on every job. Bump it whenever the PDF layout changes.
 * Kept apart from the renderer so the API functions can name it without bundling pdf-lib.
 */
export const REPORT_TEMPLATE_VERSION = '2026-11.3';
