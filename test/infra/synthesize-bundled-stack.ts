/**
 * Synthesizes the example stack with every function bundled into the cloud assembly folder given as
 * the only argument (test/infra/service-stack.test.ts runs it in a child process).
 */
import { buildServiceStack } from './service-stack-fixture.ts';

const [outdir] = process.argv.slice(2);
if (!outdir) throw new Error('usage: synthesize-bundled-stack.ts <cloud assembly folder>');
buildServiceStack({ outdir }).app.synth();
