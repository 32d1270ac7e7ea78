import { runCli } from './run-cli.ts';

/** `onboarding ...` (package.json bin, via cli/onboarding.mjs) or `npm run -s cli -- ...`. */

const interrupt = new AbortController();
let interrupted = false;
const onSignal = (signal: NodeJS.Signals): void => {
  // A second Ctrl-C exits at once; the first lets the command stop cleanly (no partial file).
  if (interrupted) process.exit(130);
  interrupted = true;
  interrupt.abort(new Error(`${signal}: interrupted`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: interrupt.signal,
});
