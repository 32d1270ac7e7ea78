import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import type { ServiceFunction } from '#lib/service-function.ts';
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

/** The stack's nested stacks (lib/sandbox-stack.ts), which CloudFormation deploys as resources of the stack. */
export const nestedStacksOf = (stack: Stack): NestedStack[] =>
  stack.node
    .findAll()
    .filter((node): node is NestedStack => NestedStack.isNestedStack(node) && node.nestedStackParent === stack);

/** The stack's template and each of its nested stacks', as the cloud assembly writes them, by construct id. */
export const separateTemplatesOf = (stack: Stack): Record<string, Template> => ({
  [stack.node.id]: Template.fromStack(stack),
  ...Object.fromEntries(nestedStacksOf(stack).map((nested) => [nested.node.id, Template.fromStack(nested)])),
});

/**
 * The stack's template with its nested stacks' resources in it, as if they were one stack: each nested parameter
 * replaced by the value the stack passes, each of the stack's reads of a nested output by that output's value. So a
 * nested function's grant on a table reads `Fn::GetAtt [table, Arn]` as in the stack, and "every function" assertions
 * see every function the stage deploys. The nested stacks' resources (AWS::CloudFormation::Stack) stay.
 */
export function wholeTemplateOf(stack: Stack): Template {
  const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource> };
  const resources = { ...template.Resources };
  const outputValues = new Map<string, unknown>();
  const replaced = (value: unknown, replacementOf: (value: unknown) => unknown): unknown => {
    const replacement = replacementOf(value);
    if (replacement !== undefined) return replacement;
    if (Array.isArray(value)) return value.map((item) => replaced(item, replacementOf));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaced(item, replacementOf)]));
    return value;
  };
  for (const nested of nestedStacksOf(stack)) {
    const nestedResourceId = stack.getLogicalId(nested.nestedStackResource!);
    const passed = (resources[nestedResourceId]!.Properties.Parameters ?? {}) as Record<string, unknown>;
    const inStack = (value: unknown) =>
      replaced(value, (item) => {
        const ref = (item as { Ref?: unknown } | null)?.Ref;
        return typeof ref === 'string' && ref in passed ? passed[ref] : undefined;
      });
    const nestedTemplate = Template.fromStack(nested).toJSON() as {
      Resources: Record<string, Resource>;
      Outputs?: Record<string, { Value: unknown }>;
    };
    for (const [id, resource] of Object.entries(nestedTemplate.Resources)) {
      if (id in resources) throw new Error(`${id} is in both ${stack.node.path} and ${nested.node.path}`);
      resources[id] = inStack(resource) as Resource;
    }
    for (const [name, output] of Object.entries(nestedTemplate.Outputs ?? {}))
      outputValues.set(JSON.stringify({ 'Fn::GetAtt': [nestedResourceId, `Outputs.${name}`] }), inStack(output.Value));
  }
  const whole = replaced(resources, (item) =>
    item && typeof item === 'object' ? outputValues.get(JSON.stringify(item)) : undefined,
  );
  return Template.fromJSON({ ...template, Resources: whole as Record<string, Resource> });
}

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

/**
 * The statements less the request budget grant of every authenticated API function: UpdateItem on
 * the RequestBudgets table (lib/service-stack.ts `grantRequestBudget`, tested on its own in
 * service-stack.test.ts), for tests of what else a function may do. Only that action on that table
 * is taken out: any other action on the table stays for the test to see.
 */
export function apartFromRequestBudget(statements: Statement[], requestBudgets: IConstruct): Statement[] {
  const budgetArn = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(requestBudgets), 'Arn'] });
  return statements.flatMap((statement) => {
    const actions = actionsOf(statement);
    if (actions.length !== 1 || actions[0] !== 'dynamodb:UpdateItem') return [statement];
    // `@aws-cdk/aws-iam:minimizePolicies` may have merged it with UpdateItem on other tables.
    const others = [statement.Resource].flat().filter((resource) => JSON.stringify(resource) !== budgetArn);
    if (others.length === 0) return [];
    return [{ ...statement, Resource: others.length === 1 ? others[0] : others }];
  });
}

/**
 * Whether a reference (an integration URI, an event source's or a permission's FunctionName, a rule target's Arn)
 * names `fn`'s `live` alias: what every caller invokes (contract §24).
 */
export function namesLiveAliasOf(value: unknown, fn: ServiceFunction): boolean {
  return JSON.stringify(value).includes(JSON.stringify({ Ref: logicalIdOf(fn.invokedAlias) }));
}

/** The function an alarm's `FunctionName` dimension names (`Ref`), whatever other dimensions it has. */
export function alarmedFunctionOf(alarm: { Dimensions?: Array<{ Name: string; Value: unknown }> }): string | undefined {
  return (alarm.Dimensions?.find((dimension) => dimension.Name === 'FunctionName')?.Value as { Ref?: string })?.Ref;
}
