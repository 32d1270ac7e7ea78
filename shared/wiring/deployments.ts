import {
  CodeDeployClient,
  GetDeploymentTargetCommand,
  ListDeploymentTargetsCommand,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { NewVersionCheckPorts } from '#shared/domain/deployments/new-version-check.ts';
import { awsSdkLogger } from '#shared/observability/logger.ts';

export function createCodeDeployClient(): CodeDeployClient {
  return new CodeDeployClient({ logger: awsSdkLogger, maxAttempts: 3 });
}

export function createLambdaClient(): LambdaClient {
  return new LambdaClient({ logger: awsSdkLogger, maxAttempts: 2 });
}

/** The pre-traffic hook's ports: CodeDeploy says which version, Lambda runs it. */
export function newVersionCheckPorts(codeDeploy: CodeDeployClient, lambda: LambdaClient): NewVersionCheckPorts {
  return {
    async newVersionOf(deploymentId) {
      // A Lambda deployment has one target: the alias being moved.
      const { targetIds } = await codeDeploy.send(new ListDeploymentTargetsCommand({ deploymentId }));
      const targetId = targetIds?.[0];
      if (!targetId || targetIds.length !== 1)
        throw new Error(`deployment ${deploymentId} has ${targetIds?.length ?? 0} targets`);
      const { deploymentTarget } = await codeDeploy.send(new GetDeploymentTargetCommand({ deploymentId, targetId }));
      const info = deploymentTarget?.lambdaTarget?.lambdaFunctionInfo;
      if (!info?.functionName || !info.targetVersion)
        throw new Error(`deployment ${deploymentId} names no function version`);
      return { functionName: info.functionName, version: info.targetVersion };
    },

    async invoke(target, request, { signal }) {
      const result = await lambda.send(
        new InvokeCommand({
          FunctionName: target.functionName,
          Qualifier: target.version,
          Payload: new TextEncoder().encode(JSON.stringify(request)),
        }),
        { abortSignal: signal },
      );
      const text = result.Payload ? new TextDecoder().decode(result.Payload) : '';
      if (result.FunctionError) return { failed: true, error: result.FunctionError };
      return { failed: false, answer: text === '' ? undefined : (JSON.parse(text) as unknown) };
    },

    async report(deploymentId, lifecycleEventHookExecutionId, status) {
      await codeDeploy.send(
        new PutLifecycleEventHookExecutionStatusCommand({ deploymentId, lifecycleEventHookExecutionId, status }),
      );
    },
  };
}
