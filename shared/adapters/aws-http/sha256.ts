import { Hash } from '@smithy/core/serde';

/** SHA-256 for SigV4, from the SDK's own Node hash (already in every bundle). */
export const sha256 = Hash.bind(null, 'sha256');
