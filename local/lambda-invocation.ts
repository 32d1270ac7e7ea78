import { randomBytes, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/**
 * What the Lambda runtime gives a handler besides its event, for the local router and pollers:
 * a context whose remaining time counts down from the function's timeout, and the timeout itself.
 */

export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_LAMBDA_REGION = 'us-east-1';

export function buildLambdaContext(name: string, timeoutMs: number): Context {
  const functionName = `onboarding-api-local-${name}`;
  const deadline = Date.now() + timeoutMs;
  const today = new Date().toISOString().slice(0, 10).replaceAll('-', '/');
  const deprecated = (): never => {
    throw new Error('context.done/fail/succeed are not supported; return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_LAMBDA_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${today}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: deprecated,
    fail: deprecated,
    succeed: deprecated,
  };
}

/** Lambda ends an invocation at its timeout; the promise keeps running here, but its answer is dropped. */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`)),
      timeoutMs,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A running poller or schedule: the local stand-in for an event source mapping or an EventBridge rule. */
export interface RunningPoller {
  stop(): Promise<void>;
}
