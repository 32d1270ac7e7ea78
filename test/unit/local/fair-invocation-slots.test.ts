import { describe, expect, it } from 'vitest';
import { createFairInvocationSlots } from '#local/fair-invocation-slots.ts';

/** Lets every already-resolved promise run its continuation. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('fair invocation slots', () => {
  it('runs at most the given number of invocations of one function at once', async () => {
    const slots = createFairInvocationSlots({ slotsPerFunction: 2 });
    const started: string[] = [];
    const releases = ['a1', 'a2', 'a3'].map((id) =>
      slots.acquire('query', 'org-a').then((release) => {
        started.push(id);
        return release;
      }),
    );
    await settle();
    expect(started).toEqual(['a1', 'a2']);
    (await releases[0]!)();
    await settle();
    expect(started).toEqual(['a1', 'a2', 'a3']);
  });

  it('gives a freed slot to the organizations waiting in turn, so a quiet one does not wait behind a burst', async () => {
    const slots = createFairInvocationSlots({ slotsPerFunction: 1 });
    const order: string[] = [];
    const first = await slots.acquire('query', 'org-a');
    const waiting = [
      ...['a1', 'a2', 'a3', 'a4'].map((id) => ({ id, tenant: 'org-a' })),
      { id: 'b1', tenant: 'org-b' },
      { id: 'c1', tenant: 'org-c' },
    ].map(({ id, tenant }) =>
      slots.acquire('query', tenant).then((release) => {
        order.push(id);
        release();
      }),
    );
    first();
    await Promise.all(waiting);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3', 'a4']);
  });

  it('keeps each function’s slots apart', async () => {
    const slots = createFairInvocationSlots({ slotsPerFunction: 1 });
    await slots.acquire('query', 'org-a');
    let other = false;
    void slots.acquire('create', 'org-a').then(() => (other = true));
    await settle();
    expect(other).toBe(true);
  });

  it('counts a release called twice once', async () => {
    const slots = createFairInvocationSlots({ slotsPerFunction: 1 });
    const release = await slots.acquire('query', 'org-a');
    const started: string[] = [];
    for (const id of ['x', 'y']) void slots.acquire('query', 'org-a').then(() => started.push(id));
    release();
    release();
    await settle();
    expect(started).toEqual(['x']);
  });

  it('keeps slots beyond one organization’s share free for the others, however many it has waiting', async () => {
    const slots = createFairInvocationSlots({ slotsPerFunction: 4, slotsPerTenant: 2 });
    const started: string[] = [];
    const acquire = (id: string, tenant: string) =>
      slots.acquire('query', tenant).then((release) => {
        started.push(id);
        return release;
      });
    const burst = ['a1', 'a2', 'a3', 'a4'].map((id) => acquire(id, 'org-a'));
    await settle();
    expect(started).toEqual(['a1', 'a2']);

    const quiet = [acquire('b1', 'org-b'), acquire('c1', 'org-c')];
    await settle();
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);

    (await quiet[0]!)();
    await settle();
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);
    (await burst[0]!)();
    await settle();
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3']);
  });

  it('refuses a size or a share that is not a positive integer', () => {
    expect(() => createFairInvocationSlots({ slotsPerFunction: 0 })).toThrow(
      /slotsPerFunction must be a positive integer/,
    );
    expect(() => createFairInvocationSlots({ slotsPerFunction: 2, slotsPerTenant: 1.5 })).toThrow(
      /slotsPerTenant must be a positive integer/,
    );
  });
});
