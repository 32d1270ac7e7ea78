#!/usr/bin/env node
// The `onboarding` command of package.json's "bin": loads cli/onboarding.ts through tsx, in this
// process, so signals, stdio and the exit status are the command's own.
import { register } from 'tsx/esm/api';

register();
await import('./onboarding.ts');
