import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { processEnvironment } from '#shared/config/process-environment.ts';

/**
 * One X-Ray tracer per cold start (the functions run with active tracing). It records a segment
 * per invocation and a subsegment per AWS SDK call (`traceAwsClient`). Responses and errors are
 * not recorded as metadata: they can hold personal data. Outside Lambda (local stack, tests) the
 * tracer disables itself, since `AWS_EXECUTION_ENV` is unset.
 */
export const tracer = new Tracer({
  serviceName: processEnvironment.serviceName(),
  captureHTTPsRequests: false,
});

/** A client whose calls appear as subsegments of the invocation's trace. */
export function traceAwsClient<T>(client: T): T {
  return tracer.captureAWSv3Client(client);
}

/** Middy middleware: one traced segment per invocation, a cold-start annotation, no payloads. */
export function traceInvocation() {
  return captureLambdaHandler(tracer, { captureResponse: false });
}
