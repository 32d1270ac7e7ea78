import { existsSync } from 'node:fs';

/**
 * Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing), for
 * playwright-core, which downloads no browser. CHROMIUM_PATH points elsewhere when needed.
 */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((path): path is string => Boolean(path) && existsSync(path!));
  if (!found) throw new Error('Chromium not found: apt-get install chromium, or set CHROMIUM_PATH');
  return found;
}
