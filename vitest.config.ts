import { defineConfig } from 'vitest/config';

/**
 * Five tiers, each runnable alone: `npm run test:unit|test:integration|test:infra|test:faults|test:browser`.
 * `npm test` runs the fault tier in a second vitest process after the others: a local stack owns
 * its process's environment (the handlers read it at cold start), so the fault tier's stack must
 * never share a process with the integration tier's, and pausing its DynamoDB Local must not
 * compete with the timing-sensitive integration tests for the CPU.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/support/isolated-aws-environment.ts', 'test/support/aws-sdk-matchers.ts'],
          // Type tests (`*.test-d.ts`): checked by tsc (only they and what they import: `npm run lint` checks the rest), their failures reported as test failures.
          typecheck: {
            enabled: true,
            include: ['test/unit/**/*.test-d.ts'],
            tsconfig: 'test/unit/tsconfig.type-tests.json',
          },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One local stack serves every file; files run one after another to keep load predictable on 2 cores.
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          environment: 'node',
          setupFiles: ['test/infra/start-template-validator.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Every file in one process, one after another (each file's own modules still fresh): aws-cdk-lib is
          // loaded, and the CloudFormation validator every synth runs (a WASM engine, seconds to start) started,
          // once for the tier instead of once per file.
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
        },
      },
      {
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/faults/global-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
        },
      },
      {
        test: {
          // The dashboard in real Chromium (playwright-core, Debian's chromium); its own local stack,
          // so `npm test` runs it in a vitest process of its own, after the fault tier.
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/browser/global-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          pool: 'forks',
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
