import { describe, expect, it } from 'vitest';
import { cfnLintFindings } from './cfn-lint-findings.ts';
import { buildServiceStack } from './service-stack-fixture.ts';
import { nestedStacksOf, separateTemplatesOf } from './template-queries.ts';

describe('the synthesized templates in cfn-lint (the image’s cfn-lint)', () => {
  it('have no error and no warning, the nested stacks’ included', async () => {
    const { stack } = buildServiceStack({ bundle: false, context: { alarmEmail: 'ops@example.org' } });
    const templates = separateTemplatesOf(stack);
    expect(Object.keys(templates)).toHaveLength(1 + nestedStacksOf(stack).length);
    expect(nestedStacksOf(stack).length).toBeGreaterThan(0);
    expect(await cfnLintFindings(templates)).toEqual({ findings: [], stderr: '' });
  }, 120_000);
});
