import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing), driven by
 * playwright-core: no browser download. CHROMIUM_PATH points elsewhere when needed.
 */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((path): path is string => Boolean(path) && existsSync(path!));
  if (!found) throw new Error('Chromium not found: apt-get install chromium, or set CHROMIUM_PATH');
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
