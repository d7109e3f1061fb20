import { describe, expect, it } from 'vitest';
import { dashboardLinks, messageText, messageTitle } from './render';
import { pagerdutyEvent, slackBody } from './senders';
import type { AlertItem, AlertMessage } from './types';

const links = dashboardLinks('https://belfry.example.com/');
const item = (n: number, event: AlertItem['event'] = 'opened'): AlertItem => ({
  notificationId: `ntf_${n}`,
  event,
  incident: {
    id: `inc_${n}`,
    kind: 'dead',
    openedAt: new Date('2026-12-01T07:00:00Z'),
    resolvedAt: null,
    runId: `run_${n}`,
    scheduledTime: null,
  },
  job: { id: `job_${n}`, name: `job <${n}>` },
});
const message = (items: AlertItem[]): AlertMessage => ({ id: 'ntf_1', tenantId: 'ten_1', test: false, items });

describe('alert messages', () => {
  it('name the job, the incident and the run, with dashboard links', () => {
    const m = message([item(1)]);
    expect(messageTitle(m)).toBe('[Belfry] Job "job <1>": a run is dead (attempts exhausted)');
    const text = messageText(m, links);
    expect(text).toContain('job <1> (job_1) https://belfry.example.com/jobs/job_1');
    expect(text).toContain('incident: inc_1 (dead)');
    expect(text).toContain('run: run_1 https://belfry.example.com/runs/run_1');
  });

  it('a digest says how many opened and resolved', () => {
    expect(messageTitle(message([item(1), item(2), item(3, 'resolved')]))).toBe(
      '[Belfry] 3 incidents: 2 opened, 1 resolved',
    );
  });

  it('Slack: at most 45 incident sections plus "more", text escaped', () => {
    const body = slackBody(message(Array.from({ length: 60 }, (_, i) => item(i))), links) as {
      blocks: { type: string; text?: { text: string }; elements?: { text: string }[] }[];
    };
    expect(body.blocks).toHaveLength(47);
    expect(body.blocks[1]?.text?.text).toContain('job &lt;0&gt;');
    expect(body.blocks[46]?.elements?.[0]?.text).toContain('…and 15 more');
  });

  it('PagerDuty: trigger with a dedup key per incident; resolve with the same key', () => {
    expect(pagerdutyEvent('rk', item(7), links)).toMatchObject({
      routing_key: 'rk',
      event_action: 'trigger',
      dedup_key: 'belfry-inc_7',
      payload: { source: 'belfry', severity: 'error', custom_details: { job_id: 'job_7', run_id: 'run_7' } },
    });
    expect(pagerdutyEvent('rk', item(7, 'resolved'), links)).toEqual({
      routing_key: 'rk',
      event_action: 'resolve',
      dedup_key: 'belfry-inc_7',
    });
  });
});
