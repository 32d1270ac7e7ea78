import { lookup } from 'node:dns/promises';
import type { HostResolver } from '#shared/domain/webhooks/ports.ts';

/**
 * Every address the system resolver gives for a name (what a connection to it could use). Inside
 * an attempt's deadline (`signal`): when it aborts, the answer is no longer waited for. The system
 * lookup itself (getaddrinfo on libuv's thread pool) cannot be cancelled; it ends on its own.
 */
export const dnsHostResolver: HostResolver = {
  async resolve(hostname, options = {}) {
    const { signal } = options;
    signal?.throwIfAborted();
    const looking = lookup(hostname, { all: true, verbatim: true });
    const addresses = await (signal ? untilAborted(looking, signal) : looking);
    return addresses.map((entry) => entry.address);
  },
};

/** `work`'s result, or the signal's reason as soon as it aborts (whichever comes first). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
