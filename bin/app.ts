import { App } from 'aws-cdk-lib';
import { readStackConfig, StackConfigError, type StackConfig } from '#lib/stack-config.ts';
import { addServiceStacks } from './service-app.ts';

const app = new App();

let config: StackConfig;
try {
  config = readStackConfig(app.node);
} catch (error) {
  if (!(error instanceof StackConfigError)) throw error;
  // The message names every bad key; a stack trace would only bury it.
  console.error(error.message);
  process.exit(1);
}

addServiceStacks(app, config, process.env);
