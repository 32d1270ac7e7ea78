import { Metrics } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BusinessMetric,
  metrics,
  MetricUnit,
  publishRecordedMetrics,
  recordReportFailed,
} from '#shared/observability/metrics.ts';
import { tokenEventMetrics } from '#shared/observability/token-event-metrics.ts';
import { lambdaContext } from '#test/support/api-event.ts';

afterEach(() => {
  vi.restoreAllMocks();
  metrics.clearMetrics();
});

/** Captures the EMF documents Powertools would write (one per flush), instead of writing them. */
function emfDocuments(): Array<ReturnType<Metrics['serializeMetrics']>> {
  const documents: Array<ReturnType<Metrics['serializeMetrics']>> = [];
  vi.spyOn(Metrics.prototype, 'publishStoredMetrics').mockImplementation(function (this: Metrics) {
    documents.push(this.serializeMetrics());
    this.clearMetrics();
    return this;
  });
  return documents;
}

describe('publishRecordedMetrics', () => {
  const handlerRecording = (record: boolean, fail = false) =>
    middy(async () => {
      if (record) metrics.addMetric(BusinessMetric.TokensIssued, MetricUnit.Count, 1);
      if (fail) throw new Error('boom');
      return 'ok';
    }).use(publishRecordedMetrics());

  it('flushes the invocation’s metrics as one EMF document, in the namespace with service and stage only', async () => {
    const publish = vi.spyOn(metrics, 'publishStoredMetrics');

    await handlerRecording(true)({}, lambdaContext());

    expect(publish).toHaveBeenCalledTimes(1);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it('flushes them when the handler fails too', async () => {
    const publish = vi.spyOn(metrics, 'publishStoredMetrics');

    await expect(handlerRecording(true, true)({}, lambdaContext())).rejects.toThrow('boom');

    expect(publish).toHaveBeenCalledTimes(1);
  });

  it('writes nothing (and warns nothing) for an invocation that recorded no metric', async () => {
    const publish = vi.spyOn(metrics, 'publishStoredMetrics');

    await handlerRecording(false)({}, lambdaContext());

    expect(publish).not.toHaveBeenCalled();
  });
});

describe('business metrics', () => {
  it('count a failed report per error code, never per organization', () => {
    const documents = emfDocuments();

    recordReportFailed('TIMED_OUT');

    const document = documents.at(-1)! as unknown as Record<string, unknown> & {
      _aws: {
        CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
      };
    };
    const [directive] = document._aws.CloudWatchMetrics;
    expect(directive!.Namespace).toBe('OnboardingService');
    expect(directive!.Metrics.map((metric) => metric.Name)).toEqual([BusinessMetric.ReportsFailed]);
    expect(directive!.Dimensions.flat().sort()).toEqual(['errorCode', 'service', 'stage']);
    expect(document.errorCode).toBe('TIMED_OUT');
  });

  it('count redeemed and revoked tokens from the lifecycle events', async () => {
    const add = vi.spyOn(metrics, 'addMetric');

    await tokenEventMetrics.tokenUsed({} as never);
    await tokenEventMetrics.tokenRevoked({} as never);

    expect(add.mock.calls).toEqual([
      [BusinessMetric.TokensRedeemed, MetricUnit.Count, 1],
      [BusinessMetric.TokensRevoked, MetricUnit.Count, 1],
    ]);
  });
});
