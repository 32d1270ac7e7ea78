import * as v from 'valibot';

/**
 * Building blocks of the response schemas (`*-responses.ts`). Response schemas describe what the
 * service sends: the OpenAPI components and the client's types are derived from them, and the use
 * cases type their results with them; nothing parses a response with them at run time.
 */

/** An ISO 8601 instant, e.g. `2026-01-01T00:00:00.000Z`. */
export const instant = (description: string) => v.pipe(v.string(), v.isoTimestamp(), v.description(description));

/** A cursor-paged list: `results` (newest first unless said otherwise) and the cursor of the next page. */
export const cursorPage = <TItem extends v.GenericSchema>(item: TItem, resultsDescription = 'Newest first.') =>
  v.object({
    results: v.pipe(v.array(item), v.description(resultsDescription)),
    nextCursor: v.pipe(
      v.nullable(v.string()),
      v.description('Pass as `cursor` for the next page; null on the last page.'),
    ),
  });
