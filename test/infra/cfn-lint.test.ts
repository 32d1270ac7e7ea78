import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { cfnLintFindings } from './cfn-lint-findings.ts';
import { buildServiceStack } from './service-stack-fixture.ts';

describe('the synthesized template in cfn-lint (the image’s cfn-lint)', () => {
  it('has no error and no warning', async () => {
    const { stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } });
    expect(await cfnLintFindings({ template: Template.fromStack(stack) })).toEqual({ findings: [], stderr: '' });
  }, 120_000);
});
