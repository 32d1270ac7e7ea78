import * as v from 'valibot';

/** A listing's range in its query string: `from` and `to`, each optional, as comparable values. */
export type RangeBounds = { from?: string | undefined; to?: string | undefined };

/** Either bound alone is a range; both must not cross. Instants in one canonical form compare as text. */
export const isRangeInOrder = ({ from, to }: RangeBounds): boolean =>
  from === undefined || to === undefined || from <= to;

const rangeOrder = v.forward(v.partialCheck([['from'], ['to']], isRangeInOrder, 'max: must not be after to'), ['from']);

/**
 * The one range rule of every listing (contract §27): a `from` after its `to` is the client's mistake,
 * a 400 naming `from`, never a query handed to the store. Goes last in the listing's query schema's
 * pipe, once the bounds are comparable (canonical instants): `v.pipe(v.object({...}), rangeInOrder())`.
 * Like any rule after the members, it is checked once they are well-formed (parseInput stops a pipe at
 * its first failure), so a malformed bound is reported as itself, not as an order.
 */
export function rangeInOrder<TInput extends RangeBounds>(): v.BaseValidation<TInput, TInput, v.BaseIssue<unknown>> {
  // It reads `from` and `to` alone and passes the value on untouched: it fits any input holding them.
  return rangeOrder as unknown as v.BaseValidation<TInput, TInput, v.BaseIssue<unknown>>;
}
