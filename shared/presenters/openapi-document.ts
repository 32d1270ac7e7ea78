/**
 * The OpenAPI document as a stage serves it: its one server the address this stage's clients call,
 * when the stage knows it; else (the local stack) the document as committed.
 */
export function openApiDocumentServedAt<TDocument extends Record<string, unknown>>(
  document: TDocument,
  apiUrl: string | undefined,
): TDocument {
  if (apiUrl === undefined) return document;
  return { ...document, servers: [{ url: apiUrl, description: 'This stage, at the address of its ApiUrl output' }] };
}
