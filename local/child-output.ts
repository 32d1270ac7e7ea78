import type { ChildProcess } from 'node:child_process';

/**
 * Resolves once the child's stdout or stderr has printed `ready` (within 30 s); rejects, with
 * what it printed, if it exits or cannot start first. Its output is drained afterwards, so a
 * chatty process never blocks on a full pipe.
 */
export function waitForOutput(child: ChildProcess, ready: RegExp, name: string, startHint?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`${name} did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (ready.test(output)) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null): void => fail(new Error(`${name} exited with code ${code}:\n${output}`));
    const onError = (error: Error): void =>
      fail(
        new Error(`${name} could not start (${error.message})${startHint ? `; ${startHint}` : ''}`, { cause: error }),
      );
    function fail(error: Error): void {
      cleanup();
      reject(error);
    }
    function cleanup(): void {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      child.stdout?.resume();
      child.stderr?.resume();
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}
