import type { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { logicalIdOf } from './service-stack-fixture.ts';

export type Resource = {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
  Metadata?: Record<string, any>;
};
export type Statement = {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
  Principal?: unknown;
};

export const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

/** `{"Fn::Join": ["", [{"Fn::GetAtt": [id, "Arn"]}, "/reports/*"]]}` -> `<id.Arn>/reports/*`; other values as JSON. */
export function readableResource(resource: unknown): string {
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join) return join[1].map(readableResource).join(join[0]);
  const getAtt = (resource as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
  if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
  const ref = (resource as { Ref?: string }).Ref;
  if (ref) return `<${ref}>`;
  return typeof resource === 'string' ? resource : JSON.stringify(resource);
}

export const resourcesOf = (statement: Statement): string[] => [statement.Resource].flat().map(readableResource);

/** Lookups over one synthesized template, by resource type and by function. */
export function templateQueries(template: Template) {
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

  /** Every statement of every policy attached to the function's role. */
  function statementsOf(fn: IFunction): Statement[] {
    const roleRef = JSON.stringify({ Ref: logicalIdOf(fn.role!) });
    return ofType('AWS::IAM::Policy')
      .filter(([, policy]) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === roleRef))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
  }

  /** The function's statements that grant `prefix…` actions, e.g. `s3:` or `sqs:`. */
  const statementsFor = (fn: IFunction, prefix: string) =>
    statementsOf(fn).filter((statement) => actionsOf(statement).some((action) => action.startsWith(prefix)));

  const environmentOf = (fn: IFunction): Record<string, unknown> =>
    resources[logicalIdOf(fn)]!.Properties.Environment.Variables;

  const propertiesOf = (construct: Parameters<typeof logicalIdOf>[0]): Record<string, any> =>
    resources[logicalIdOf(construct)]!.Properties;

  return { resources, ofType, statementsOf, statementsFor, environmentOf, propertiesOf };
}
