import { App, CfnWaitConditionHandle, Stack } from 'aws-cdk-lib';

/**
 * The infra tier's setup file. Every synth checks its templates with the CDK's CloudFormation
 * validator, a WASM engine that takes seconds to start, once per process. Starting it here, with a
 * one-resource synth, keeps that start out of the tier's first real synth: both in one synchronous
 * block could hold the worker's event loop past vitest's 60-second RPC deadline on a loaded machine
 * ("Timeout calling onTaskUpdate"). In the files after the first, this synth takes milliseconds.
 */
const app = new App();
new CfnWaitConditionHandle(new Stack(app, 'TemplateValidatorStart'), 'Nothing');
app.synth();
