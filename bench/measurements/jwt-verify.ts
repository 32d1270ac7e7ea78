import { decodeJwt } from 'jose';
import { createTestKeySet, signToken, validClaims } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';
import { summarize, type Row } from '#bench/report.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { timePerOperation } from '#bench/support/timing.ts';

/**
 * 5. Bearer token verification as every API request does it (shared/http/auth.ts: signature
 * against a local key set, issuer, audience, expiry, organization and scopes), per operation.
 * Baseline: jose's `decodeJwt` of the same token, i.e. parsing without any cryptography.
 */
const TIMING = { warmup: 500, batches: 100, perBatch: 50 };
const MAX_MS = 0.5;

export default {
  title: '5 JWT verify',
  async run() {
    const keys = await createTestKeySet();
    const verify = testTokenVerifier(keys.jwks);
    const rows: Row[] = [];
    for (const key of [keys.rs256, keys.es256]) {
      const token = await signToken(validClaims({ exp: Math.floor(Date.now() / 1000) + 3600 }), { key });
      const verified = await timePerOperation(() => verify(token), TIMING);
      const decoded = await timePerOperation(() => decodeJwt(token), TIMING);
      rows.push({
        measurement: this.title,
        subject: `${key.alg} verify`,
        unit: 'ms',
        value: summarize(verified),
        baseline: { subject: 'decodeJwt', value: summarize(decoded) },
        budget: { on: 'median', max: MAX_MS },
      });
    }
    return rows;
  },
} satisfies Measurement;
