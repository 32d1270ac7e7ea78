import { describe, expect, it } from 'vitest';
import {
  applyEmailEvent,
  countEmailEvent,
  DEFAULT_EMAIL_REPUTATION_POLICY,
  emptyEmailReputation,
  MAX_EARLY_OUTCOMES,
  reputationFigures,
  type EmailEvent,
  type EmailPauseAlert,
  type EmailReputationState,
  type EmailReputationStore,
} from '#shared/domain/onboarding/email-reputation.ts';
import { emailEventFrom } from '#shared/adapters/ses/ses-events.ts';
import { FakeClock } from '#test/unit/reports/fakes.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const ORG = 'acme';
const send = (messageId: string): EmailEvent => ({ kind: 'send', messageId, orgId: ORG });
const bounce = (messageId: string): EmailEvent => ({ kind: 'bounce', messageId, orgId: ORG });
const complaint = (messageId: string): EmailEvent => ({ kind: 'complaint', messageId, orgId: ORG });

/** Applies the events in order; an event that changes nothing leaves the state as it was. */
function replay(events: EmailEvent[], state: EmailReputationState = emptyEmailReputation()): EmailReputationState {
  return events.reduce((current, event) => applyEmailEvent(current, event, NOW) ?? current, state);
}

const sends = (count: number, prefix = 'm') => Array.from({ length: count }, (_, i) => send(`${prefix}${i}`));

describe('an organization’s e-mail reputation', () => {
  it('counts a bounce that arrives twice once', () => {
    const state = replay([...sends(3), bounce('m1'), bounce('m1')]);

    expect(reputationFigures(state)).toMatchObject({ sent: 3, bounces: 1, complaints: 0 });
    expect(applyEmailEvent(state, bounce('m1'), NOW)).toBeUndefined();
  });

  it('counts a send that arrives twice once', () => {
    const state = replay([send('m0'), send('m0')]);
    expect(reputationFigures(state).sent).toBe(1);
  });

  it('counts a bounce that arrives before its send, once, when the send arrives', () => {
    const early = replay([bounce('m1'), bounce('m1')]);
    expect(reputationFigures(early)).toMatchObject({ sent: 0, bounces: 0 });

    const state = replay([send('m1')], early);
    expect(reputationFigures(state)).toMatchObject({ sent: 1, bounces: 1 });
    expect(state.early).toEqual([]);
    expect(reputationFigures(replay([bounce('m1')], state)).bounces).toBe(1);
  });

  it('ignores outcomes of a message id it never sees sent', () => {
    const state = replay([...sends(30), ...Array.from({ length: 5 }, (_, i) => bounce(`unknown-${i}`))]);

    expect(reputationFigures(state)).toMatchObject({ sent: 30, bounces: 0 });
    expect(state.paused).toBeUndefined();
  });

  it('keeps at most a bounded number of outcomes waiting for their send', () => {
    const state = replay(Array.from({ length: MAX_EARLY_OUTCOMES + 10 }, (_, i) => bounce(`unknown-${i}`)));
    expect(state.early).toHaveLength(MAX_EARLY_OUTCOMES);
    expect(state.early[0]!.messageId).toBe('unknown-10');
  });

  it('counts over the last 200 e-mails only', () => {
    const state = replay([...sends(10, 'old'), bounce('old0'), ...sends(200, 'new')]);
    expect(reputationFigures(state)).toMatchObject({ sent: 200, bounces: 0 });
    expect(state.recent[0]!.messageId).toBe('new0');
  });

  const bounces = (count: number) => Array.from({ length: count }, (_, i) => bounce(`m${i}`));
  const complaints = (count: number) => Array.from({ length: count }, (_, i) => complaint(`m${i}`));

  it('pauses past 5% bounces, but not before 20 e-mails', () => {
    // 10 of 19 is 53%, but the organization has not sent 20 yet.
    const before = replay([...sends(19), ...bounces(10)]);
    expect(before.paused).toBeUndefined();

    const paused = replay([send('m19')], before);
    expect(paused.paused).toEqual({ since: NOW.toISOString(), reason: 'bounces' });
  });

  it('does not pause for bounces before the 10th, whatever the rate (contract §27)', () => {
    const nine = replay([...sends(20), ...bounces(9)]);
    expect(reputationFigures(nine).bounceRate).toBe(0.45);
    expect(nine.paused).toBeUndefined();

    expect(replay([bounce('m9')], nine).paused?.reason).toBe('bounces');
  });

  it('does not pause at exactly 5% bounces (more than 5% pauses)', () => {
    const state = replay([...sends(200), ...bounces(10)]);
    expect(reputationFigures(state).bounceRate).toBe(0.05);
    expect(state.paused).toBeUndefined();
    expect(replay([bounce('m10')], state).paused?.reason).toBe('bounces');
  });

  it('does not pause for one spam click, nor two: the third complaint pauses (contract §27)', () => {
    const one = replay([...sends(20), ...complaints(1)]);
    expect(reputationFigures(one).complaintRate).toBe(0.05);
    expect(one.paused).toBeUndefined();
    const two = replay([complaint('m1')], one);
    expect(two.paused).toBeUndefined();

    expect(replay([complaint('m2')], two).paused).toEqual({ since: NOW.toISOString(), reason: 'complaints' });
  });

  it('pauses past 0.1% complaints: three complaints among 200', () => {
    const state = replay([...sends(200), ...complaints(3)]);
    expect(reputationFigures(state).complaintRate).toBe(0.015);
    expect(state.paused?.reason).toBe('complaints');
  });

  it('stays paused whatever the figures do afterwards', () => {
    const paused = replay([...sends(20), ...bounces(10)]);
    const later = replay(sends(200, 'later'), paused);
    expect(reputationFigures(later).bounces).toBe(0);
    expect(later.paused).toEqual(paused.paused);
  });

  it('uses the contract’s figures by default', () => {
    expect(DEFAULT_EMAIL_REPUTATION_POLICY).toEqual({
      window: 200,
      minimumSent: 20,
      maxBounceRate: 0.05,
      maxComplaintRate: 0.001,
      minimumBounces: 10,
      minimumComplaints: 3,
    });
  });
});

/** One organization's reputation in memory, changed as the DynamoDB store changes it. */
function storeInMemory(): EmailReputationStore {
  let stored = emptyEmailReputation();
  return {
    read: () => Promise.resolve(stored),
    update: (_orgId, change) => {
      const next = change(stored);
      if (next) stored = next;
      return Promise.resolve(next);
    },
  };
}

describe('counting an event (the counter function)', () => {
  it('alerts the operator of every pause, once, naming the organization, its reason and figures (contract §27)', async () => {
    const alerts: EmailPauseAlert[] = [];
    const store = storeInMemory();
    const count = countEmailEvent({
      store,
      clock: new FakeClock(NOW),
      alerts: { emailPaused: (alert) => Promise.resolve(void alerts.push(alert)) },
    });
    const outcomes: string[] = [];
    for (const event of [...sends(20), complaint('m0'), complaint('m1')]) outcomes.push(await count(event));
    expect(alerts).toEqual([]);

    expect(await count(complaint('m2'))).toBe('paused');
    expect(alerts).toEqual([
      {
        orgId: ORG,
        pause: { since: NOW.toISOString(), reason: 'complaints' },
        figures: expect.objectContaining({ sent: 20, bounces: 0, complaints: 3 }),
      },
    ]);
    // Paused already: later outcomes are counted, and alert nobody again.
    expect(await count(complaint('m3'))).toBe('counted');
    expect(await count(complaint('m3'))).toBe('unchanged');
    expect(alerts).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== 'counted')).toEqual([]);

    // Resumed, the organization is counted afresh, and its next pause alerts again.
    await store.update(ORG, () => emptyEmailReputation());
    for (const event of [...sends(20, 'n'), ...Array.from({ length: 10 }, (_, i) => bounce(`n${i}`))])
      await count(event);
    expect(alerts.map((alert) => alert.pause.reason)).toEqual(['complaints', 'bounces']);
  });
});

describe('SES event records', () => {
  const record = (eventType: string, extra: Record<string, unknown> = {}, tags: Record<string, string[]> = {}) => ({
    eventType,
    mail: { messageId: 'msg-1', tags: { org_id: [ORG], ...tags } },
    ...extra,
  });

  it('reads sends, permanent bounces and complaints with the org_id tag', () => {
    expect(emailEventFrom(record('Send'))).toEqual(send('msg-1'));
    expect(emailEventFrom(record('Bounce', { bounce: { bounceType: 'Permanent' } }))).toEqual(bounce('msg-1'));
    expect(emailEventFrom(record('Complaint', { complaint: {} }))).toEqual(complaint('msg-1'));
  });

  it('reads the organization id escaped in the org_id tag (acme_-eu is acme.eu), and a value written before the escaping as it is', () => {
    expect(emailEventFrom(record('Send', {}, { org_id: ['acme_-eu'] }))).toEqual({
      ...send('msg-1'),
      orgId: 'acme.eu',
    });
    expect(emailEventFrom(record('Complaint', {}, { org_id: ['a__b_-c'] }))).toEqual({
      ...complaint('msg-1'),
      orgId: 'a_b.c',
    });
    expect(emailEventFrom(record('Send', {}, { org_id: ['acme_eu'] }))).toEqual({ ...send('msg-1'), orgId: 'acme_eu' });
    expect(emailEventFrom(record('Send', {}, { org_id: ['not/an-id'] }))).toEqual({
      ignored: 'org_id tag names no organization',
    });
  });

  it('counts neither transient bounces, other event types, untagged e-mails nor non-SES records', () => {
    expect(emailEventFrom(record('Bounce', { bounce: { bounceType: 'Transient' } }))).toEqual({
      ignored: 'not a permanent bounce',
    });
    expect(emailEventFrom(record('Delivery'))).toEqual({ ignored: 'event type Delivery' });
    expect(emailEventFrom({ eventType: 'Send', mail: { messageId: 'msg-1', tags: {} } })).toEqual({
      ignored: 'no org_id tag',
    });
    expect(emailEventFrom({ hello: 'world' })).toEqual({ ignored: 'not an SES event record' });
  });
});
