import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root (the folder holding package.json and package-lock.json). */
export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
