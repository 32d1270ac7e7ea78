/**
 * How many invocations of one function the local stack runs at once, and who goes next.
 *
 * In AWS every invocation gets a container of its own, so one organization's burst never makes
 * another's request wait for a turn. Locally every function runs in one process, and a burst
 * queues in front of whatever it shares (the function's database pool, the CPU). These slots stand
 * in for the containers: at most `slotsPerFunction` invocations of a function run at once, and a
 * freed slot goes to the organizations waiting in turn (round robin), so a quiet organization
 * waits for at most one invocation per busier organization, not for a busier one's whole queue.
 */
export interface InvocationSlots {
  /** Resolves when `tenant` may run an invocation of `functionName`; call the returned release once it ends. */
  acquire(functionName: string, tenant: string): Promise<() => void>;
}

export function createFairInvocationSlots(slotsPerFunction: number): InvocationSlots {
  if (!Number.isInteger(slotsPerFunction) || slotsPerFunction < 1)
    throw new Error(`slotsPerFunction must be a positive integer, got ${slotsPerFunction}`);
  const functions = new Map<string, FunctionSlots>();
  return {
    acquire(functionName, tenant) {
      let slots = functions.get(functionName);
      if (!slots) functions.set(functionName, (slots = new FunctionSlots(slotsPerFunction)));
      return slots.acquire(tenant);
    },
  };
}

class FunctionSlots {
  private running = 0;
  /** Waiting invocations per tenant; a Map iterates in insertion order, which is the turn order. */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly size: number) {}

  acquire(tenant: string): Promise<() => void> {
    return new Promise((resolve) => {
      const start = () => resolve(this.releaseOnce());
      if (this.running < this.size) {
        this.running++;
        start();
        return;
      }
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(start);
      else this.waiting.set(tenant, [start]);
    });
  }

  private releaseOnce(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.handOver();
    };
  }

  /** Gives the freed slot to the tenant whose turn it is, then sends that tenant to the back of the line. */
  private handOver(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.running--;
      return;
    }
    const [tenant, queue] = next.value;
    const start = queue.shift()!;
    this.waiting.delete(tenant);
    if (queue.length > 0) this.waiting.set(tenant, queue);
    start();
  }
}
