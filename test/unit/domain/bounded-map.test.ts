import { describe, expect, it } from 'vitest';
import { BoundedMap } from '#shared/support/bounded-map.ts';

describe('BoundedMap', () => {
  it('drops the entry set longest ago once past its capacity', () => {
    const memory = new BoundedMap<string, number>(2);
    memory.set('a', 1);
    memory.set('b', 2);
    memory.set('c', 3);

    expect([memory.get('a'), memory.get('b'), memory.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('makes a key set again the newest, so it outlives the others', () => {
    const memory = new BoundedMap<string, number>(2);
    memory.set('a', 1);
    memory.set('b', 2);
    memory.set('a', 10);
    memory.set('c', 3);

    expect([memory.get('a'), memory.get('b'), memory.get('c')]).toEqual([10, undefined, 3]);
  });

  it('forgets a deleted key', () => {
    const memory = new BoundedMap<string, number>(2);
    memory.set('a', 1);
    memory.delete('a');

    expect(memory.get('a')).toBeUndefined();
  });
});
