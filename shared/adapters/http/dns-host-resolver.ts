import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../../domain/webhooks/ports.ts';

/** Every address the system resolver gives for a name (what a connection to it could use). */
export const dnsHostResolver: HostResolver = {
  async resolve(hostname) {
    const addresses = await lookup(hostname, { all: true, verbatim: true });
    return addresses.map((entry) => entry.address);
  },
};
