const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
  '`': '&#x60;',
  '=': '&#x3D;',
};

/**
 * Escapes text for an HTML text node or a quoted attribute value: the characters Handlebars'
 * `{{…}}` escapes, as the same entities (the SES template and the local pages agree).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=]/g, (character) => HTML_ENTITIES[character] ?? character);
}
