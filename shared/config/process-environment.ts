/**
 * The environment the shared modules read outside a function's validated configuration: the
 * Powertools settings, the AWS region and the local stack's switches. Each is read when asked
 * for, so the local stack and the tests that set one before creating a client are heard.
 */
export const REPORT_FONTS_DIR_ENV = 'REPORT_FONTS_DIR';

export const processEnvironment = {
  /** Every variable, for `loadConfig` to validate. */
  variables: (): Record<string, string | undefined> => process.env,
  serviceName: (): string => process.env.POWERTOOLS_SERVICE_NAME ?? 'onboarding-api',
  metricsNamespace: (): string | undefined => process.env.POWERTOOLS_METRICS_NAMESPACE,
  stage: (): string => process.env.STAGE ?? 'local',
  awsRegion: (): string | undefined => process.env.AWS_REGION,
  /** The local S3 emulator is addressed as `endpoint/bucket/key`. */
  s3ForcePathStyle: (): boolean => process.env.S3_FORCE_PATH_STYLE === 'true',
  /** Where the worker's bundle keeps the report fonts; unset, they are read from node_modules. */
  reportFontsDir: (): string | undefined => process.env[REPORT_FONTS_DIR_ENV],
};
