/** Failures that only exist at the HTTP boundary (the domain never sees a bearer token or a route). */

export class UnauthorizedError extends Error {
  override name = 'UnauthorizedError';
}

export class PayloadTooLargeError extends Error {
  override name = 'PayloadTooLargeError';
}

/** A request body declared as another media type than JSON. */
export class UnsupportedMediaTypeError extends Error {
  override name = 'UnsupportedMediaTypeError';
}

export class RouteNotFoundError extends Error {
  override name = 'RouteNotFoundError';
}

export class MethodNotAllowedError extends Error {
  override name = 'MethodNotAllowedError';
  constructor(readonly allowedMethods: readonly string[]) {
    super('method not allowed on this path');
  }
}
