import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';

/**
 * Every organization's request budget (docs/contract.md §15): a token bucket of `burst` tokens that
 * refills at `ratePerSecond`, one token per authenticated request.
 *
 * The bucket is kept as GCRA state, one number: the theoretical arrival time `tat` (epoch ms) at
 * which the bucket would be full again. `n` tokens are available at `now` while
 * `max(tat, now) + n * interval <= now + burst * interval`, and taking them moves `tat` by
 * `n * interval`. Both moves are a single DynamoDB UpdateItem with a condition (`SET tat = :fresh`
 * when the bucket is full, `ADD tat :cost` when it is not), so no read precedes a write.
 *
 * A function container does not spend the shared bucket once per request: it leases a few tokens
 * at a time (`leaseSize`) and spends them locally (LeasedRequestBudget), so a request costs a
 * DynamoDB write only once per lease. The price is a bounded over-admission, see
 * `overAdmissionBound`.
 *
 * A lease may also take tokens the bucket has not refilled yet, up to `LEASE_LIFETIME_MS` ahead
 * (see planLease), and the container spends each of them only once it comes due. So an
 * organization sending faster than its rate still costs one write per lease, not one per token
 * refilled: without this, a flooding organization's container took a lease of one token, and
 * wrote, for every request it let through.
 */
export interface RequestBudgetPolicy {
  /** Tokens the bucket gains per second. */
  ratePerSecond: number;
  /** Tokens the bucket holds when full: the largest burst an idle organization may send at once. */
  burst: number;
}

/** The contract's default: 50 requests per second, bursts of 100. */
export const DEFAULT_REQUEST_BUDGET: RequestBudgetPolicy = { ratePerSecond: 50, burst: 100 };

/** Leased tokens not spent within this long are dropped: a lease never carries tokens far into the future. */
export const LEASE_LIFETIME_MS = 1_000;

/** Tokens a container leases at once: a tenth of the burst, between 1 and 10. */
export function leaseSize(policy: RequestBudgetPolicy): number {
  return Math.max(1, Math.min(10, Math.floor(policy.burst / 10)));
}

/**
 * The most requests an organization can get admitted in any interval of `intervalMs`, with
 * `containers` function containers serving it: what the shared bucket lets out in the interval
 * (`burst + rate * interval`), plus what each container may still hold from leases taken just
 * before the interval (at most `leaseSize - 1`: a lease is taken by a request that spends one of
 * its tokens at once). Containers never spend more than they leased, nor a token before it is
 * due, so there is no other excess.
 */
export function overAdmissionBound(policy: RequestBudgetPolicy, intervalMs: number, containers: number): number {
  return policy.burst + Math.floor((policy.ratePerSecond * intervalMs) / 1000) + containers * (leaseSize(policy) - 1);
}

/** Contract §19: a request costs 1 unit, plus 1 per this many milliseconds of database time. */
export const DATABASE_MS_PER_UNIT = 100;

/** The units a request owes when it ends, beyond the one spent when it was admitted. */
export function extraCostUnits(databaseMs: number): number {
  return Math.max(0, Math.floor(databaseMs / DATABASE_MS_PER_UNIT));
}

/**
 * A request's database time charged while its statements run (contract §19), not only when it
 * ends: each time the time it has spent crosses another `DATABASE_MS_PER_UNIT`, one more unit is
 * due, and the request spends it like an admission (the container's lease, or a new one). So an
 * organization whose queries run long drains its bucket while they run, within a second of a
 * flood, instead of only once they end; a unit its bucket cannot give is the moment its statements
 * are cut off (429). What the request still owes when it ends (`due`) is charged as before, into
 * debt if need be: the total is the contract's 1 + 1 per whole 100 ms either way.
 */
export class RunningCostCharge {
  private charged = 0;

  /** Units already paid while the request ran. */
  get chargedUnits(): number {
    return this.charged;
  }

  /** Units owed for `databaseMs` of database time beyond the admission's unit, not paid yet. */
  due(databaseMs: number): number {
    return Math.max(0, extraCostUnits(databaseMs) - this.charged);
  }

  /** Records `units` paid while the request runs. */
  paid(units: number): void {
    this.charged += units;
  }

  /**
   * How long from now until a unit is due that is not paid, with `databaseMs` spent so far and
   * `running` statements running (each adds its wall time): 0 if one is due already; undefined
   * when none runs (no time is being spent).
   */
  nextUnitInMs(databaseMs: number, running: number): number | undefined {
    if (running <= 0) return undefined;
    const nextUnitAtMs = (this.charged + 1) * DATABASE_MS_PER_UNIT;
    return Math.max(0, (nextUnitAtMs - databaseMs) / running);
  }
}

/** A debt beyond this is not charged further (the bucket item's TTL follows `highest`): far above any bounded statement. */
const MAX_DEBT_MS = 3_600_000;

/**
 * How the shared bucket is moved to charge `count` units a finished request owes: unconditionally
 * (the request has run), so the bucket may go into debt, `tat` past `now + burst * interval`, and
 * the organization is refused until it has paid it off.
 */
export function planCharge(
  tat: number | undefined,
  nowMs: number,
  count: number,
  policy: RequestBudgetPolicy,
): Exclude<LeasePlan, { kind: 'refused' }> {
  const cost = count * tokenIntervalMs(policy);
  if (tat === undefined || tat <= nowMs) return { kind: 'refill', count, now: nowMs, fresh: nowMs + cost };
  return { kind: 'spend', count, now: nowMs, cost, highest: nowMs + MAX_DEBT_MS };
}

export function tokenIntervalMs(policy: RequestBudgetPolicy): number {
  return 1000 / policy.ratePerSecond;
}

/** Whole tokens available at `nowMs` in a bucket whose state is `tat` (undefined: never used, full). */
export function tokensAvailable(tat: number | undefined, nowMs: number, policy: RequestBudgetPolicy): number {
  const interval = tokenIntervalMs(policy);
  const from = Math.max(tat ?? nowMs, nowMs);
  // A little slack so that float rounding (1000 / 3 * 3) never hides a whole token.
  const tokens = Math.floor((nowMs + policy.burst * interval - from) / interval + 1e-9);
  return Math.max(0, Math.min(policy.burst, tokens));
}

/** How the shared bucket is to be moved to take `count` tokens, given its last known state. */
export type LeasePlan =
  /** The bucket is full (`tat <= now`, or no item): set `tat` to `fresh`, if it is still `<= now`. */
  | { kind: 'refill'; count: number; now: number; fresh: number }
  /** The bucket is partly spent: add `cost` to `tat`, if it is still above `now` and at most `highest`. */
  | { kind: 'spend'; count: number; now: number; cost: number; highest: number }
  | { kind: 'refused' };

/**
 * Plans a lease of up to `wanted` tokens, on the last known state: refused if no token is available
 * now; otherwise the tokens available now and, if they are fewer than `wanted`, tokens that come due
 * within the lease's lifetime. The write's condition asks only that the first token be available
 * when it lands (`highest`); the tokens' due times follow from the state it returns (`withHeldTokens`).
 */
export function planLease(
  tat: number | undefined,
  nowMs: number,
  wanted: number,
  policy: RequestBudgetPolicy,
): LeasePlan {
  const available = tokensAvailable(tat, nowMs, policy);
  if (available < 1) return { kind: 'refused' };
  const interval = tokenIntervalMs(policy);
  const count = Math.min(wanted, available + Math.floor(LEASE_LIFETIME_MS / interval));
  if (tat === undefined || tat <= nowMs) return { kind: 'refill', count, now: nowMs, fresh: nowMs + count * interval };
  return {
    kind: 'spend',
    count,
    now: nowMs,
    cost: count * interval,
    highest: nowMs + (policy.burst - 1) * interval,
  };
}

/**
 * The bucket's state as if a container's `held` unspent tokens were still in it: the tokens are
 * spent in order, and the next one is due when this state has a token available.
 */
function withHeldTokens(tat: number, held: number, policy: RequestBudgetPolicy): number {
  return tat - held * tokenIntervalMs(policy);
}

/** What the `RateLimit-*` headers and `Retry-After` say about a bucket in state `tat` at `nowMs`. */
export function budgetDecision(
  allowed: boolean,
  tat: number | undefined,
  nowMs: number,
  policy: RequestBudgetPolicy,
  remaining: number,
): QuotaDecision {
  const interval = tokenIntervalMs(policy);
  const fullInMs = Math.max(0, (tat ?? nowMs) - nowMs);
  // The next token returns when tat has come down to `now + (burst - 1) * interval`.
  const nextTokenInMs = Math.max(0, (tat ?? nowMs) - (nowMs + (policy.burst - 1) * interval));
  return {
    allowed,
    limit: policy.burst,
    remaining: Math.max(0, remaining),
    resetSeconds: Math.ceil(fullInMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(nextTokenInMs / 1000)),
  };
}

/** The shared buckets (DynamoDB in the service): `take` moves one organization's bucket as planned. */
export interface RequestBudgetBuckets {
  /**
   * Applies the plan if the bucket is still as planned; returns the bucket's state after it
   * (`applied: true`), or the state found instead (`applied: false`), so the caller can plan again.
   */
  take(orgId: string, plan: Exclude<LeasePlan, { kind: 'refused' }>): Promise<{ applied: boolean; tat?: number }>;
}

/** A concurrent container moved the bucket between our plan and its write this many times in a row: give up. */
const MAX_PLANS = 8;

export class RequestBudgetContentionError extends Error {
  override name = 'RequestBudgetContentionError';
}

interface LocalLease {
  tokens: number;
  expiresAt: number;
  /** The bucket's state after the lease, for the headers. */
  tat: number | undefined;
  /** The lease being taken now: concurrent requests of the organization wait for it instead of taking their own. */
  pending?: Promise<void> | undefined;
}

/** Organizations remembered by one container before expired leases are forgotten. */
const MAX_REMEMBERED_ORGANIZATIONS = 1_000;

/**
 * One container's side of the budget: spends leased tokens locally and takes a new lease from the
 * shared bucket (`RequestBudgetBuckets`) only when it has none left. Within a container,
 * concurrent requests of one organization share one lease request, so the container never holds
 * more than one lease per organization: the bound of `overAdmissionBound` holds.
 */
export class LeasedRequestBudget {
  private readonly leases = new Map<string, LocalLease>();
  /** Last known bucket state per organization, which decides the first plan of the next lease. */
  private readonly knownTat = new Map<string, number>();

  constructor(
    private readonly buckets: RequestBudgetBuckets,
    readonly policy: RequestBudgetPolicy,
  ) {}

  /** Spends one token of the organization's budget; the decision says whether the request may go on. */
  async spend(orgId: string, now: () => number): Promise<QuotaDecision> {
    for (;;) {
      const lease = this.leases.get(orgId);
      if (lease?.pending) {
        await lease.pending;
        continue;
      }
      const nowMs = now();
      if (lease && lease.tokens > 0 && lease.expiresAt > nowMs) {
        const unspent = lease.tat === undefined ? undefined : withHeldTokens(lease.tat, lease.tokens, this.policy);
        // The next leased token is not due yet: refused here, without a write, until it is.
        if (unspent !== undefined && tokensAvailable(unspent, nowMs, this.policy) < 1)
          return budgetDecision(false, unspent, nowMs, this.policy, 0);
        lease.tokens -= 1;
        return this.admitted(lease.tat, lease.tokens, nowMs);
      }
      const taking = this.takeLease(orgId, nowMs);
      const placeholder: LocalLease = { tokens: 0, expiresAt: 0, tat: undefined, pending: undefined };
      // Requests waiting for this lease share its outcome: a stalled lease answers them all with
      // its own error (and its Retry-After), instead of each starting a lease of its own afterwards.
      const pending = taking.then(() => undefined);
      pending.catch(() => undefined);
      placeholder.pending = pending;
      this.leases.set(orgId, placeholder);
      try {
        const taken = await taking;
        this.remember(orgId, { tokens: taken.count - 1, expiresAt: nowMs + LEASE_LIFETIME_MS, tat: taken.tat });
        if (taken.count === 0) return budgetDecision(false, taken.tat, nowMs, this.policy, 0);
        // The lease's first token is due now: the write's condition made sure of it.
        return this.admitted(taken.tat, taken.count - 1, nowMs);
      } catch (error) {
        // Nothing was leased that this container knows of: no token is spent, the next request leases afresh.
        this.leases.delete(orgId);
        throw error;
      }
    }
  }

  /**
   * Charges `units` a finished request owes (contract §19, `extraCostUnits`): from the container's
   * lease first, the rest straight from the shared bucket, which may go into debt. Never refuses:
   * the request has run; what it cost makes the organization's next requests wait.
   */
  async charge(orgId: string, units: number, now: () => number): Promise<void> {
    if (units <= 0) return;
    const lease = this.leases.get(orgId);
    if (lease?.pending) await lease.pending.catch(() => undefined);
    const held = this.leases.get(orgId);
    const nowMs = now();
    let owed = units;
    if (held && !held.pending && held.expiresAt > nowMs && held.tokens > 0) {
      const fromLease = Math.min(held.tokens, owed);
      held.tokens -= fromLease;
      owed -= fromLease;
    }
    if (owed === 0) return;
    let tat = this.knownTat.get(orgId);
    for (let attempt = 0; attempt < MAX_PLANS; attempt++) {
      const result = await this.buckets.take(orgId, planCharge(tat, nowMs, owed, this.policy));
      if (result.tat !== undefined) this.knownTat.set(orgId, result.tat);
      if (result.applied) {
        // The container's own unspent tokens stay valid; what it knows of the bucket is now the debt.
        if (held && result.tat !== undefined) held.tat = result.tat;
        return;
      }
      tat = result.tat;
    }
    throw new RequestBudgetContentionError(`request budget of ${orgId}: could not charge ${owed} units`);
  }

  /** An admitted request's decision: what is left is the bucket's available tokens plus the container's due ones. */
  private admitted(tat: number | undefined, held: number, nowMs: number): QuotaDecision {
    // A bucket whose state the write did not return (never so in DynamoDB) counts as full.
    const remaining =
      tat === undefined
        ? this.policy.burst
        : tokensAvailable(withHeldTokens(tat, held, this.policy), nowMs, this.policy);
    return budgetDecision(true, tat, nowMs, this.policy, remaining);
  }

  /** Leases up to `leaseSize` tokens; `count` 0 when the bucket is empty. */
  private async takeLease(orgId: string, nowMs: number): Promise<{ count: number; tat: number | undefined }> {
    let tat = this.knownTat.get(orgId);
    for (let attempt = 0; attempt < MAX_PLANS; attempt++) {
      const plan = planLease(tat, nowMs, leaseSize(this.policy), this.policy);
      // Other containers only ever move `tat` forward and refills are counted from `now`, so a
      // refusal planned on the last known state is a refusal on the current one too.
      if (plan.kind === 'refused') return { count: 0, tat };
      const result = await this.buckets.take(orgId, plan);
      if (result.tat !== undefined) this.knownTat.set(orgId, result.tat);
      if (result.applied) return { count: plan.count, tat: result.tat };
      tat = result.tat;
    }
    throw new RequestBudgetContentionError(
      `request budget of ${orgId}: the bucket kept changing under ${MAX_PLANS} plans`,
    );
  }

  private remember(orgId: string, lease: LocalLease): void {
    if (this.leases.size >= MAX_REMEMBERED_ORGANIZATIONS) {
      const nowMs = Date.now();
      for (const [id, held] of this.leases) if (!held.pending && held.expiresAt <= nowMs) this.leases.delete(id);
      for (const id of this.knownTat.keys()) if (!this.leases.has(id)) this.knownTat.delete(id);
    }
    this.leases.set(orgId, lease);
  }
}
