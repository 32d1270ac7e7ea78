/**
 * How many invocations of one function the local stack runs at once, and who goes next.
 *
 * In AWS every invocation gets a container of its own, so one organization's burst never makes
 * another's request wait for a turn. Locally every function runs in one process, and a burst
 * queues in front of whatever it shares (the function's database pool, the CPU). These slots stand
 * in for the containers: at most `slotsPerFunction` invocations of a function run at once, and a
 * freed slot goes to the organizations waiting in turn (round robin), so a quiet organization
 * waits for at most one invocation per busier organization, not for a busier one's whole queue.
 * One organization holds at most `slotsPerTenant` of a function's slots: the rest stay free for
 * the others, as Lambda would start containers for them however many a burst holds.
 */
export interface InvocationSlots {
  /** Resolves when `tenant` may run an invocation of `functionName`; call the returned release once it ends. */
  acquire(functionName: string, tenant: string): Promise<() => void>;
}

export interface FairInvocationSlotsOptions {
  slotsPerFunction: number;
  /** At most this many of a function's slots held by one organization at once; all of them when unset. */
  slotsPerTenant?: number;
}

export function createFairInvocationSlots(options: FairInvocationSlotsOptions): InvocationSlots {
  const { slotsPerFunction, slotsPerTenant = slotsPerFunction } = options;
  for (const [name, value] of Object.entries({ slotsPerFunction, slotsPerTenant }))
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  const functions = new Map<string, FunctionSlots>();
  return {
    acquire(functionName, tenant) {
      let slots = functions.get(functionName);
      if (!slots) functions.set(functionName, (slots = new FunctionSlots(slotsPerFunction, slotsPerTenant)));
      return slots.acquire(tenant);
    },
  };
}

class FunctionSlots {
  private running = 0;
  private readonly runningByTenant = new Map<string, number>();
  /** Waiting invocations per tenant; a Map iterates in insertion order, which is the turn order. */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(
    private readonly size: number,
    private readonly perTenant: number,
  ) {}

  acquire(tenant: string): Promise<() => void> {
    return new Promise((resolve) => {
      const start = () => resolve(this.releaseOnce(tenant));
      if (!this.waiting.has(tenant) && this.hasRoomFor(tenant)) {
        this.begin(tenant);
        start();
        return;
      }
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(start);
      else this.waiting.set(tenant, [start]);
    });
  }

  private hasRoomFor(tenant: string): boolean {
    return this.running < this.size && (this.runningByTenant.get(tenant) ?? 0) < this.perTenant;
  }

  private begin(tenant: string): void {
    this.running++;
    this.runningByTenant.set(tenant, (this.runningByTenant.get(tenant) ?? 0) + 1);
  }

  private releaseOnce(tenant: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const held = this.runningByTenant.get(tenant)! - 1;
      if (held === 0) this.runningByTenant.delete(tenant);
      else this.runningByTenant.set(tenant, held);
      this.handOver();
    };
  }

  /**
   * Gives the freed slot to the first tenant in turn that is below its share, then sends that
   * tenant to the back of the line.
   */
  private handOver(): void {
    for (const [tenant, queue] of this.waiting) {
      if (!this.hasRoomFor(tenant)) continue;
      const start = queue.shift()!;
      this.waiting.delete(tenant);
      if (queue.length > 0) this.waiting.set(tenant, queue);
      this.begin(tenant);
      start();
      return;
    }
  }
}
