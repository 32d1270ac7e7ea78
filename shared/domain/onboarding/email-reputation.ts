import type { Clock } from '#shared/domain/clock.ts';

/**
 * An organization's e-mail reputation (contract §19): its last e-mails, which of them bounced or
 * drew a complaint, and whether its e-mail is paused. Counted from the SES configuration set's
 * events, each carrying the `org_id` tag the mailer puts on every e-mail.
 */
export interface EmailReputationPolicy {
  /** How many of the organization's latest e-mails the rates are counted over. */
  window: number;
  /** No pause before the organization has sent this many (in the window). */
  minimumSent: number;
  /** Paused when bounces / sent is above this. */
  maxBounceRate: number;
  /** Paused when complaints / sent is above this. */
  maxComplaintRate: number;
  /** No pause for bounces with fewer than this many in the window, whatever the rate. */
  minimumBounces: number;
  /** No pause for complaints with fewer than this many in the window: one spam click stops nobody. */
  minimumComplaints: number;
}

/** Contract §19, with §27's minimum counts. */
export const DEFAULT_EMAIL_REPUTATION_POLICY: EmailReputationPolicy = {
  window: 200,
  minimumSent: 20,
  maxBounceRate: 0.05,
  maxComplaintRate: 0.001,
  minimumBounces: 10,
  minimumComplaints: 3,
};

/**
 * Outcomes whose e-mail is not (yet) among the organization's recent ones, kept until its send
 * event arrives (events are not ordered); a message id never sent is never counted, and falls out.
 */
export const MAX_EARLY_OUTCOMES = 50;

/** One SES event, reduced to what is counted. */
export interface EmailEvent {
  kind: 'send' | 'bounce' | 'complaint';
  messageId: string;
  orgId: string;
}

export interface RecentEmail {
  messageId: string;
  bounced: boolean;
  complained: boolean;
}

export interface EarlyOutcome {
  messageId: string;
  kind: 'bounce' | 'complaint';
}

export interface EmailPause {
  /** ISO time the pause began. */
  since: string;
  reason: 'bounces' | 'complaints';
}

export interface EmailReputationState {
  /** Oldest first, at most `policy.window`. */
  recent: RecentEmail[];
  early: EarlyOutcome[];
  paused: EmailPause | undefined;
}

export const emptyEmailReputation = (): EmailReputationState => ({ recent: [], early: [], paused: undefined });

export interface EmailReputationFigures {
  sent: number;
  bounces: number;
  complaints: number;
  bounceRate: number;
  complaintRate: number;
  paused: EmailPause | undefined;
}

export function reputationFigures(state: EmailReputationState): EmailReputationFigures {
  const sent = state.recent.length;
  const bounces = state.recent.filter((email) => email.bounced).length;
  const complaints = state.recent.filter((email) => email.complained).length;
  return {
    sent,
    bounces,
    complaints,
    bounceRate: sent === 0 ? 0 : bounces / sent,
    complaintRate: sent === 0 ? 0 : complaints / sent,
    paused: state.paused,
  };
}

/** Why the figures call for a pause, if they do. */
export function pauseReason(
  figures: EmailReputationFigures,
  policy: EmailReputationPolicy,
): EmailPause['reason'] | undefined {
  if (figures.sent < policy.minimumSent) return undefined;
  if (figures.complaints >= policy.minimumComplaints && figures.complaintRate > policy.maxComplaintRate) {
    return 'complaints';
  }
  if (figures.bounces >= policy.minimumBounces && figures.bounceRate > policy.maxBounceRate) return 'bounces';
  return undefined;
}

/**
 * The state after one event, or `undefined` when the event changes nothing: a duplicate (an
 * e-mail already counted as sent, an outcome already counted or already waiting for its send) or
 * an outcome of an e-mail not among the recent ones (kept as early until its send arrives, or
 * never counted). A pause, once begun, lasts until `resumed`.
 */
export function applyEmailEvent(
  state: EmailReputationState,
  event: EmailEvent,
  now: Date,
  policy: EmailReputationPolicy = DEFAULT_EMAIL_REPUTATION_POLICY,
): EmailReputationState | undefined {
  const recent = state.recent.map((email) => ({ ...email }));
  let early = [...state.early];
  const known = recent.find((email) => email.messageId === event.messageId);
  if (event.kind === 'send') {
    if (known) return undefined;
    const outcomes = early.filter((outcome) => outcome.messageId === event.messageId);
    early = early.filter((outcome) => outcome.messageId !== event.messageId);
    recent.push({
      messageId: event.messageId,
      bounced: outcomes.some((outcome) => outcome.kind === 'bounce'),
      complained: outcomes.some((outcome) => outcome.kind === 'complaint'),
    });
    recent.splice(0, Math.max(0, recent.length - policy.window));
  } else if (known) {
    const flag = event.kind === 'bounce' ? 'bounced' : 'complained';
    if (known[flag]) return undefined;
    known[flag] = true;
  } else {
    if (early.some((outcome) => outcome.messageId === event.messageId && outcome.kind === event.kind)) {
      return undefined;
    }
    early.push({ messageId: event.messageId, kind: event.kind });
    early.splice(0, Math.max(0, early.length - MAX_EARLY_OUTCOMES));
  }
  const next: EmailReputationState = { recent, early, paused: state.paused };
  if (!next.paused) {
    const reason = pauseReason(reputationFigures(next), policy);
    if (reason) next.paused = { since: now.toISOString(), reason };
  }
  return next;
}

/**
 * An operator's resume: e-mail flows again and counting starts afresh, so the e-mails that led to
 * the pause do not pause the organization again on its next bounce.
 */
export const resumed = (): EmailReputationState => emptyEmailReputation();

/**
 * Whether an organization's e-mail is paused for its bounces and complaints (contract §19).
 * `pausedFor` answers the pause's reason, or `undefined` when the organization may send.
 */
export interface EmailSendingStatus {
  pausedFor(orgId: string, now: Date): Promise<EmailPause['reason'] | undefined>;
}

/**
 * Where each organization's e-mail reputation is kept. `change` runs on the state as stored and
 * returns the next state, or `undefined` to write nothing; a concurrent change meanwhile makes the
 * store run it again on fresh state, so every event is applied exactly once to what it sees.
 */
export interface EmailReputationStore {
  read(orgId: string): Promise<EmailReputationState>;
  update(
    orgId: string,
    change: (state: EmailReputationState) => EmailReputationState | undefined,
  ): Promise<EmailReputationState | undefined>;
}

/** What counting one event did, for the counter's log line. */
export type EmailEventOutcome = 'counted' | 'paused' | 'unchanged';

/** A pause as the operator hears of it: the organization is named here, never in a metric dimension. */
export interface EmailPauseAlert {
  orgId: string;
  pause: EmailPause;
  figures: EmailReputationFigures;
}

/**
 * Tells the operator that an organization's e-mail was paused (contract §27: every pause alarms).
 * Called once per pause, after it is stored; the pause is not stored again when an event is
 * retried, so an alert that cannot be delivered is the alerts' own to report, not to throw.
 */
export interface EmailPauseAlerts {
  emailPaused(alert: EmailPauseAlert): Promise<void>;
}

/**
 * Counts one SES event in its organization's reputation (the counter function): duplicates and
 * unknown message ids change nothing; the event that takes the organization past a limit pauses it,
 * and alerts the operator.
 */
export function countEmailEvent(deps: {
  store: EmailReputationStore;
  clock: Clock;
  alerts: EmailPauseAlerts;
  policy?: EmailReputationPolicy;
}) {
  return async (event: EmailEvent): Promise<EmailEventOutcome> => {
    let wasPaused = false;
    const next = await deps.store.update(event.orgId, (state) => {
      wasPaused = state.paused !== undefined;
      return applyEmailEvent(state, event, deps.clock.now(), deps.policy);
    });
    if (!next) return 'unchanged';
    if (!next.paused || wasPaused) return 'counted';
    await deps.alerts.emailPaused({ orgId: event.orgId, pause: next.paused, figures: reputationFigures(next) });
    return 'paused';
  };
}

/** The operator's command: the figures as they are, and resuming (which starts counting afresh). */
export function emailReputationCommands(deps: { store: EmailReputationStore }) {
  return {
    show: async (orgId: string): Promise<EmailReputationFigures> => reputationFigures(await deps.store.read(orgId)),
    resume: async (orgId: string): Promise<EmailReputationFigures> => {
      let before = reputationFigures(emptyEmailReputation());
      await deps.store.update(orgId, (state) => {
        before = reputationFigures(state);
        return resumed();
      });
      return before;
    },
  };
}
