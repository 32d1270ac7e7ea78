import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger per cold start. Every line carries the request id and organization
 * (appended by the HTTP layer); never log tokens, e-mail addresses or names.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'onboarding-api' });
