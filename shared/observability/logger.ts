import { Logger } from '@aws-lambda-powertools/logger';
import type { Logger as AwsSdkLogger } from '@smithy/types';
import { processEnvironment } from '#shared/config/process-environment.ts';

/**
 * One structured JSON logger per cold start. Every line carries the request id and organization
 * (appended by the HTTP layer); never log tokens, e-mail addresses or names.
 */
export const logger = new Logger({ serviceName: processEnvironment.serviceName() });

/**
 * The logger handed to AWS SDK clients. The SDK's warnings (e.g. all sockets busy) reach our logs;
 * its info and error records do not, because they carry the command's input, such as items with
 * e-mail addresses, and our code logs the failures it handles. Passed explicitly because the
 * bundles do not keep class names, and the SDK recognises its default no-op logger by name.
 */
export const awsSdkLogger: AwsSdkLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (...content: unknown[]) => logger.warn('AWS SDK warning', { detail: content.map(String).join(' ') }),
  error: () => undefined,
};
