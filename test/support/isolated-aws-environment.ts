// Unit tests must not reach any endpoint: when the whole suite runs, the integration tier's
// global setup has pointed the AWS SDK at the local emulators through the environment, and named
// the request budget's table, which would give every API handler a budget on DynamoDB Local.
for (const name of Object.keys(process.env)) {
  if (name.startsWith('AWS_ENDPOINT_URL') || name === 'S3_FORCE_PATH_STYLE' || name.startsWith('REQUEST_BUDGET')) {
    delete process.env[name];
  }
}
