import { chromium, type Browser } from 'playwright-core';
import { chromiumPath } from './chromium-path.ts';

/** Debian's Chromium driven by playwright-core: no browser download. */

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
