import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError, NotFoundError } from '#shared/domain/errors.ts';
import type { OnboardingTokenStore } from '#shared/domain/onboarding/ports.ts';
import type { ReportJobStore, ReportStorage, UserDirectory } from '#shared/domain/reports/ports.ts';
import { isOpen, reportObjectKey, type ReportJob } from '#shared/domain/reports/report-job.ts';
import type { PendingWebhookEvents } from '#shared/domain/webhooks/ports.ts';
import { eventNamesEmail } from '#shared/domain/webhooks/webhook-events.ts';
import type { UserEraser } from './ports.ts';

export interface EraseUserDeps {
  users: UserDirectory;
  jobs: ReportJobStore;
  storage: Pick<ReportStorage, 'remove'>;
  tokens: Pick<OnboardingTokenStore, 'eraseIssuedTo'>;
  /** Webhook events kept while the queue refused them: token events among them carry the e-mail. */
  pendingEvents: Pick<PendingWebhookEvents, 'ofOrganization' | 'remove'>;
  eraser: UserEraser;
  clock: Clock;
}

export interface ErasureSummary {
  /** Open jobs this call ended FAILED/USER_ERASED. */
  jobsFailed: number;
  /** Finished jobs whose record (and PDF) this call removed. */
  jobsDeleted: number;
  tokensDeleted: number;
  /** Pending webhook events naming the user's e-mail, removed undelivered. */
  pendingEventsDeleted: number;
}

/**
 * How long an erasure keeps new report jobs from being created for the user. It must outlast the
 * erasure itself plus a report request that found the user just before the record went (an API
 * function runs at most 29 s): such a request is then refused instead of queueing a job whose
 * worker could still read the user and store a PDF after the erasure answered.
 */
export const ERASURE_HOLD_MS = 60_000;
/** Jobs erased at once: each is an S3 and a DynamoDB call, and a user may have many. */
const JOB_CONCURRENCY = 8;
/** Jobs read per listing call; the listing filters the organization's jobs by user. */
const JOB_PAGE_SIZE = 1_000;
/** Attempts at ending a job another writer keeps changing before giving up with a 503. */
const MAX_ROUNDS = 5;

/**
 * GDPR erasure of one user (contract §16, §20). Primary course:
 * 1. the user must exist in the caller's organization (else NotFoundError: unknown, already
 *    erased, or another organization's); `started` records the erasure's start before anything is
 *    deleted, so one cut off half way is in the audit trail;
 * 2. the user's open-job slot is held, so no new report job can start for them while (and just
 *    after) this runs; an open job holding it ends FAILED/USER_ERASED;
 * 3. every report job of the user: open ones end FAILED/USER_ERASED, finished ones lose their PDF
 *    and then their record;
 * 4. every onboarding token issued to the user's e-mail (trimmed, lower-cased), with its items, and
 *    every webhook event naming that e-mail still pending (kept while SQS refused it), undelivered;
 * 5. the user's record, last: a failure anywhere before it (a stall is a 503) leaves the user in
 *    place, so a retry finds them and redoes every step, each idempotent; once it is gone a retry
 *    answers 404. Parallel calls do the same work; the one whose delete finds no row has still
 *    done every step, so it succeeds too.
 *
 * A USER_ERASED job's record stays (ids and times only; it expires with the other jobs): a poller
 * sees FAILED/USER_ERASED rather than a job that vanished, and a worker still rendering it finds it
 * FAILED when its completion is refused, which is how it knows to remove the PDF it stored.
 */
export function eraseUser(deps: EraseUserDeps) {
  const now = () => deps.clock.now();

  /** Ends `job` if open; then removes its PDF and, unless this erasure failed it, its record. */
  const eraseJob = async (listed: ReportJob, summary: ErasureSummary): Promise<void> => {
    let job: ReportJob | undefined = listed;
    for (let round = 1; isOpen(job.status); round += 1) {
      if (round > MAX_ROUNDS) throw new DependencyUnavailableError('report jobs (job kept changing)');
      if (await deps.jobs.fail(job, 'USER_ERASED', now())) {
        summary.jobsFailed += 1;
        job = { ...job, status: 'FAILED', errorCode: 'USER_ERASED' };
        break;
      }
      // Finished or taken over meanwhile (or the listing, an index, was behind): read it again.
      job = await deps.jobs.get(job.jobId);
      if (!job) return;
    }
    // The PDF before the record: a crash in between leaves the record, which a retry finds again.
    // A failed job may have one too: a worker that stored it and then lost the job removes it, unless it crashed.
    await deps.storage.remove(reportObjectKey(job.orgId, job.jobId));
    if (job.errorCode === 'USER_ERASED') return;
    if (!(await deps.jobs.delete(job))) throw new DependencyUnavailableError('report jobs (job reopened)');
    summary.jobsDeleted += 1;
  };

  const holdReportSlot = async (orgId: string, userId: string, summary: ErasureSummary): Promise<void> => {
    let staleJobId: string | undefined;
    for (let round = 1; ; round += 1) {
      const at = now();
      const holder = await deps.jobs.holdForErasure(orgId, userId, {
        now: at,
        until: new Date(at.getTime() + ERASURE_HOLD_MS),
        ...(staleJobId === undefined ? {} : { staleJobId }),
      });
      if (holder === undefined) return;
      if (round >= MAX_ROUNDS) throw new DependencyUnavailableError('report jobs (open-job slot kept changing)');
      const job = await deps.jobs.get(holder);
      if (job && isOpen(job.status)) {
        if (await deps.jobs.fail(job, 'USER_ERASED', now())) summary.jobsFailed += 1;
        staleJobId = undefined;
      } else {
        staleJobId = holder;
      }
    }
  };

  const jobsOf = async (orgId: string, userId: string): Promise<ReportJob[]> => {
    const jobs: ReportJob[] = [];
    let cursor: string | undefined;
    do {
      const page = await deps.jobs.listByOrganization(orgId, { limit: JOB_PAGE_SIZE, cursor, userId, now: now() });
      jobs.push(...page.jobs);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return jobs;
  };

  return async (input: {
    orgId: string;
    userId: string;
    /** Records that the erasure starts (the trail's `user.erasure_started`); throws to stop it before any deletion. */
    started: () => Promise<void>;
  }): Promise<ErasureSummary> => {
    const { orgId, userId } = input;
    const user = await deps.users.find(orgId, userId);
    if (!user) throw new NotFoundError(`user ${userId.slice(0, 16)} not found`);
    await input.started();
    const summary: ErasureSummary = { jobsFailed: 0, jobsDeleted: 0, tokensDeleted: 0, pendingEventsDeleted: 0 };

    await holdReportSlot(orgId, userId, summary);
    const jobs = await jobsOf(orgId, userId);
    for (let start = 0; start < jobs.length; start += JOB_CONCURRENCY) {
      await Promise.all(jobs.slice(start, start + JOB_CONCURRENCY).map((job) => eraseJob(job, summary)));
    }

    const email = user.email?.trim().toLowerCase();
    if (email) {
      summary.tokensDeleted = await deps.tokens.eraseIssuedTo(orgId, email);
      const naming = (await deps.pendingEvents.ofOrganization(orgId)).filter(({ event }) =>
        eventNamesEmail(event, email),
      );
      await Promise.all(naming.map((pending) => deps.pendingEvents.remove(pending)));
      summary.pendingEventsDeleted = naming.length;
    }

    await deps.eraser.erase(orgId, userId);
    return summary;
  };
}
