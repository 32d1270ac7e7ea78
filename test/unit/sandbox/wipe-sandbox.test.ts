import { describe, expect, it } from 'vitest';
import { NotFoundError } from '#shared/domain/errors.ts';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import {
  LiveDataRefusedError,
  sandboxKeyOnly,
  type SandboxDataStore,
  type SandboxKey,
  type SandboxWipe,
  type SandboxWipeMessage,
  type SandboxWipes,
} from '#shared/domain/sandbox/sandbox-wipe.ts';
import { requestSandboxWipe, runSandboxWipe, WIPE_RESEND_AFTER_MS } from '#shared/domain/sandbox/wipe-sandbox.ts';

const sandbox = { orgId: 'org-wipe', mode: 'sandbox' } as const;
const live = { orgId: 'org-wipe', mode: 'live' } as const;
const sandboxKey = tenantKey(sandbox);

class InMemoryWipes implements SandboxWipes {
  readonly items = new Map<string, SandboxWipe>();
  async start(wipe: SandboxWipe): Promise<SandboxWipe> {
    const found = this.items.get(wipe.tenantKey);
    if (found?.status === 'RUNNING') return { ...found };
    this.items.set(wipe.tenantKey, { ...wipe });
    return { ...wipe };
  }
  async get(key: string): Promise<SandboxWipe | undefined> {
    const found = this.items.get(key);
    return found && { ...found };
  }
  async markSent(wipe: SandboxWipe, sentAt: string): Promise<boolean> {
    const found = this.items.get(wipe.tenantKey);
    if (found?.status !== 'RUNNING' || found.wipeId !== wipe.wipeId || found.sentAt !== wipe.sentAt) return false;
    found.sentAt = sentAt;
    return true;
  }
  async finish(message: SandboxWipeMessage, finishedAt: string): Promise<void> {
    const found = this.items.get(message.tenantKey);
    if (found?.status === 'RUNNING' && found.wipeId === message.wipeId)
      Object.assign(found, { status: 'DONE', finishedAt });
  }
}

/** A store holding `objects` per key, deleting `pageSize` a page; `failAfter` deletes, it throws. */
function storeOf(
  name: string,
  objects: Record<string, number>,
  options: { pageSize?: number; failAfter?: number } = {},
) {
  const keysAsked: string[] = [];
  let deletedSoFar = 0;
  const store: SandboxDataStore = {
    name,
    async deletePage(key: SandboxKey) {
      keysAsked.push(key);
      const count = Math.min(objects[key] ?? 0, options.pageSize ?? 100);
      if (options.failAfter !== undefined && deletedSoFar + count > options.failAfter)
        throw new Error(`${name} failed`);
      objects[key] = (objects[key] ?? 0) - count;
      deletedSoFar += count;
      return count;
    },
  };
  return { store, objects, keysAsked };
}

function clockAt(start: string) {
  let now = Date.parse(start);
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

function setUp() {
  const wipes = new InMemoryWipes();
  const sent: SandboxWipeMessage[] = [];
  const queue = { send: async (message: SandboxWipeMessage) => void sent.push(message) };
  const clock = clockAt('2026-03-01T10:00:00.000Z');
  let ids = 0;
  const request = requestSandboxWipe({ wipes, queue, clock, newId: () => `wipe-${++ids}` });
  return { wipes, sent, queue, clock, request };
}

describe('the sandbox key guard', () => {
  it("passes a sandbox's key and refuses a live one, whatever it looks like", () => {
    expect(sandboxKeyOnly(sandboxKey)).toBe('org-wipe~sandbox');
    expect(() => sandboxKeyOnly('org-wipe')).toThrow(LiveDataRefusedError);
    expect(() => sandboxKeyOnly('~sandbox')).toThrow(LiveDataRefusedError);
    expect(() => sandboxKeyOnly('not an org~sandbox')).toThrow(LiveDataRefusedError);
  });
});

describe('requestSandboxWipe', () => {
  it('answers a live tenant 404 and records and sends nothing', async () => {
    const { request, wipes, sent } = setUp();
    await expect(request(live)).rejects.toThrow(NotFoundError);
    expect(wipes.items.size).toBe(0);
    expect(sent).toEqual([]);
  });

  it('records a running wipe of the sandbox and sends its message', async () => {
    const { request, sent, wipes } = setUp();
    const wipe = await request(sandbox);
    expect(wipe).toMatchObject({ tenantKey: sandboxKey, wipeId: 'wipe-1', status: 'RUNNING' });
    expect(sent).toEqual([{ tenantKey: sandboxKey, wipeId: 'wipe-1' }]);
    expect(wipes.items.get(sandboxKey)?.sentAt).toBe('2026-03-01T10:00:00.000Z');
  });

  it('answers a second request while it runs with the same wipe and sends nothing more', async () => {
    const { request, sent, clock } = setUp();
    await request(sandbox);
    clock.advance(5_000);
    expect((await request(sandbox)).wipeId).toBe('wipe-1');
    expect(sent).toHaveLength(1);
  });

  it('sends a running wipe again once its last message is older than the resend interval', async () => {
    const { request, sent, clock } = setUp();
    await request(sandbox);
    clock.advance(WIPE_RESEND_AFTER_MS);
    expect((await request(sandbox)).wipeId).toBe('wipe-1');
    expect((await request(sandbox)).wipeId).toBe('wipe-1');
    expect(sent).toEqual([
      { tenantKey: sandboxKey, wipeId: 'wipe-1' },
      { tenantKey: sandboxKey, wipeId: 'wipe-1' },
    ]);
  });

  it('sends on the next request a wipe whose first message the queue refused', async () => {
    const { wipes, sent, clock } = setUp();
    let refuse = true;
    const queue = {
      send: async (message: SandboxWipeMessage) => {
        if (refuse) throw new Error('queue unavailable');
        sent.push(message);
      },
    };
    const request = requestSandboxWipe({ wipes, queue, clock, newId: () => 'wipe-x' });
    await expect(request(sandbox)).rejects.toThrow('queue unavailable');
    refuse = false;
    expect((await request(sandbox)).wipeId).toBe('wipe-x');
    expect(sent).toEqual([{ tenantKey: sandboxKey, wipeId: 'wipe-x' }]);
  });

  it('starts a new wipe once the last one is done', async () => {
    const { request, wipes } = setUp();
    await request(sandbox);
    await wipes.finish({ tenantKey: sandboxKey, wipeId: 'wipe-1' }, '2026-03-01T10:00:10.000Z');
    expect(await request(sandbox)).toMatchObject({ wipeId: 'wipe-2', status: 'RUNNING' });
  });
});

describe('runSandboxWipe', () => {
  const started = async () => {
    const context = setUp();
    const wipe = await context.request(sandbox);
    context.sent.length = 0;
    return { ...context, message: { tenantKey: wipe.tenantKey, wipeId: wipe.wipeId } };
  };

  it('deletes every store page by page, under the sandbox key alone, and marks the wipe done', async () => {
    const { wipes, queue, clock, message } = await started();
    const tokens = storeOf('tokens', { [sandboxKey]: 250, 'org-wipe': 40 });
    const jobs = storeOf('jobs', { [sandboxKey]: 30, 'org-wipe': 7 });
    const run = runSandboxWipe({ wipes, queue, clock, stores: [tokens.store, jobs.store] });
    expect(await run(message, () => true)).toEqual({ outcome: 'done', deleted: { tokens: 250, jobs: 30 } });
    expect(tokens.objects).toEqual({ [sandboxKey]: 0, 'org-wipe': 40 });
    expect(jobs.objects).toEqual({ [sandboxKey]: 0, 'org-wipe': 7 });
    expect(new Set([...tokens.keysAsked, ...jobs.keysAsked])).toEqual(new Set([sandboxKey]));
    expect((await wipes.get(sandboxKey))?.status).toBe('DONE');
  });

  it('refuses a message naming a live key before it reads or deletes anything', async () => {
    const { wipes, queue, clock } = await started();
    const tokens = storeOf('tokens', { 'org-wipe': 40 });
    const run = runSandboxWipe({ wipes, queue, clock, stores: [tokens.store] });
    await expect(run({ tenantKey: 'org-wipe', wipeId: 'wipe-1' }, () => true)).rejects.toThrow(LiveDataRefusedError);
    expect(tokens.keysAsked).toEqual([]);
    expect(tokens.objects['org-wipe']).toBe(40);
  });

  it('skips a message of a wipe that no longer runs', async () => {
    const { wipes, queue, clock, message } = await started();
    await wipes.finish(message, '2026-03-01T10:00:01.000Z');
    const tokens = storeOf('tokens', { [sandboxKey]: 5 });
    const run = runSandboxWipe({ wipes, queue, clock, stores: [tokens.store] });
    expect(await run(message, () => true)).toEqual({ outcome: 'skipped', reason: 'not-running' });
    expect(await run({ ...message, wipeId: 'another' }, () => true)).toMatchObject({ outcome: 'skipped' });
    expect(tokens.objects[sandboxKey]).toBe(5);
  });

  it('sends itself a continuation when its time runs out, and the continuation finishes', async () => {
    const { wipes, queue, clock, sent, message } = await started();
    const tokens = storeOf('tokens', { [sandboxKey]: 1_000 });
    const run = runSandboxWipe({ wipes, queue, clock, stores: [tokens.store] });
    let pages = 0;
    expect(await run(message, () => ++pages <= 3)).toEqual({ outcome: 'continued', deleted: { tokens: 300 } });
    expect(sent).toEqual([message]);
    expect((await wipes.get(sandboxKey))?.status).toBe('RUNNING');
    expect(await run(message, () => true)).toEqual({ outcome: 'done', deleted: { tokens: 700 } });
  });

  it('is finished by the next run after a store fails half way', async () => {
    const { wipes, queue, clock, message } = await started();
    const objects = { [sandboxKey]: 500, 'org-wipe': 9 };
    const failing = storeOf('users', objects, { failAfter: 200 });
    const run = runSandboxWipe({ wipes, queue, clock, stores: [failing.store] });
    await expect(run(message, () => true)).rejects.toThrow('users failed');
    expect(objects[sandboxKey]).toBe(300);
    const recovered = storeOf('users', objects);
    const rerun = runSandboxWipe({ wipes, queue, clock, stores: [recovered.store] });
    expect(await rerun(message, () => true)).toEqual({ outcome: 'done', deleted: { users: 300 } });
    expect(objects).toEqual({ [sandboxKey]: 0, 'org-wipe': 9 });
  });
});
