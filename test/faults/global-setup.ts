import type { TestProject } from 'vitest/node';
import { FaultProxy, startFaultProxyControl } from '#test/support/fault-proxy.ts';
import { EMULATED_KMS_KEY_ID, startKmsEmulator } from '#test/support/kms-emulator.ts';
import { setUpLocalStack } from '#test/support/local-stack-setup.ts';
import { reportPipelinePollers, sandboxWipePollers, webhookDeliveryPollers } from '#local/pollers.ts';
import { startProviderKeyEndpoint } from './provider-key-endpoint.ts';

/** Longer than a worker invocation can hold a job (its 15 s timeout + the 5 s lease margin), as in AWS. */
const FAULT_TIER_VISIBILITY_TIMEOUT_SECONDS = 21;

const hostAndPort = (endpoint: string) => {
  const url = new URL(endpoint);
  return { host: url.hostname, port: Number(url.port) };
};

/**
 * The fault tier's own local stack (emulators, router, pollers), separate from the integration
 * tier's, because its tests pause DynamoDB Local. The functions reach S3, SES, SQS, KMS (a small
 * emulator, test/support/kms-emulator.ts, since the local AES key cannot fail), PostgreSQL and
 * the identity provider's key endpoint (`JWKS_URL`: the provider's key set file as its `/jwks`
 * publishes it, ./provider-key-endpoint.ts, so a test can rotate keys), and DynamoDB too (for
 * gray failures: DynamoDB Local's outages are a paused process), through fault proxies
 * (test/support/fault-proxy.ts) that the tests switch over `inject('faultControl')`. Also provides the database's process id; the teardown resumes it
 * first, so stopping never waits on a paused process.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let databaseProcessId = 0;
  const proxies = new Map<string, FaultProxy>();
  const kms = await startKmsEmulator();
  const control = await startFaultProxyControl(proxies);
  let providerKeys: Awaited<ReturnType<typeof startProviderKeyEndpoint>> | undefined;
  const stopProxies = async () => {
    await control.stop();
    await Promise.all([...proxies.values()].map((proxy) => proxy.stop()));
    await kms.stop();
    await providerKeys?.stop();
  };
  const proxy = async (name: string, target: { host: string; port: number }) => {
    const started = await FaultProxy.start(name, target);
    proxies.set(name, started);
    return started;
  };
  let stop: () => Promise<void>;
  try {
    stop = await setUpLocalStack(
      project,
      'fault',
      {
        queueVisibilityTimeoutSeconds: FAULT_TIER_VISIBILITY_TIMEOUT_SECONDS,
        // Pending webhook events are republished every second here, not every minute, so the tests wait less.
        pollers: [
          ...reportPipelinePollers(),
          ...webhookDeliveryPollers({ republishIntervalMs: 1_000 }),
          ...sandboxWipePollers(),
        ],
        routeFunctions: async ({ endpoints, usersDatabase, keysDir }) => {
          providerKeys = await startProviderKeyEndpoint(keysDir);
          const [dynamodb, s3, ses, sqs, kmsProxy, postgres, jwks] = await Promise.all([
            proxy('dynamodb', hostAndPort(endpoints.dynamodb)),
            proxy('s3', hostAndPort(endpoints.s3)),
            proxy('ses', hostAndPort(endpoints.ses)),
            proxy('sqs', hostAndPort(endpoints.sqs)),
            proxy('kms', { host: '127.0.0.1', port: kms.port }),
            proxy('postgres', usersDatabase),
            proxy('jwks', { host: '127.0.0.1', port: providerKeys.port }),
          ]);
          return {
            endpoints: { dynamodb: dynamodb.endpoint, s3: s3.endpoint, ses: ses.endpoint, sqs: sqs.endpoint },
            usersDatabase: { host: '127.0.0.1', port: postgres.listeningPort },
            env: {
              AWS_ENDPOINT_URL_KMS: kmsProxy.endpoint,
              WEBHOOK_SECRETS_KEY_ID: EMULATED_KMS_KEY_ID,
              JWKS_URL: `${jwks.endpoint}/jwks`,
            },
          };
        },
      },
      async (stack) => {
        databaseProcessId = stack.databaseProcessId;
        project.provide('databaseProcessId', databaseProcessId);
        project.provide('faultControl', control.url);
      },
    );
  } catch (error) {
    await stopProxies();
    throw error;
  }
  return async () => {
    process.kill(databaseProcessId, 'SIGCONT');
    await Promise.all([...proxies.values()].map((one) => one.setMode('pass')));
    await stop();
    await stopProxies();
  };
}
