// The alert rules between the API's shape and the form's inputs: round trips, the checks made
// before sending, and the `alerts` a job form sends (null = the tenant policy).
import { describe, expect, it } from 'vitest';
import { checkRules, DEFAULT_RULES, jobAlertsOf, rulesDraft, rulesInWords, rulesOf } from './rules';

describe('alert rules in the dashboard', () => {
  it('round-trips the rules through the inputs; empty numbers are off', () => {
    const rules = { onDead: false, afterConsecutiveFailures: 3, lateAfterSeconds: 120, notifyRecovery: true };
    expect(rulesDraft(rules)).toEqual({ onDead: false, failures: '3', late: '120', notifyRecovery: true });
    expect(rulesOf(rulesDraft(rules))).toEqual(rules);
    expect(rulesOf(rulesDraft(DEFAULT_RULES))).toEqual(DEFAULT_RULES);
    expect(rulesOf({ ...rulesDraft(DEFAULT_RULES), failures: '  ', late: '' })).toEqual(DEFAULT_RULES);
  });

  it('names the fields that are not whole numbers, at the API paths', () => {
    const draft = { onDead: true, failures: '2.5', late: 'soon', notifyRecovery: true };
    expect(checkRules(draft, 'alerts.').map((e) => e.path)).toEqual([
      'alerts.afterConsecutiveFailures',
      'alerts.lateAfterSeconds',
    ]);
    expect(checkRules({ ...draft, failures: '', late: ' 60 ' })).toEqual([]);
  });

  it('sends null for the tenant policy, and channels only when chosen (an empty choice sends nothing)', () => {
    const rules = rulesDraft({ ...DEFAULT_RULES, afterConsecutiveFailures: 5 });
    expect(jobAlertsOf({ own: false, rules, channels: ['ach_x'] })).toBeNull();
    expect(jobAlertsOf({ own: true, rules, channels: null })).toEqual({
      onDead: true,
      afterConsecutiveFailures: 5,
      lateAfterSeconds: null,
      notifyRecovery: true,
    });
    expect(jobAlertsOf({ own: true, rules, channels: [] })).toMatchObject({ channels: [] });
  });

  it('puts each rule in words', () => {
    const words = rulesInWords({
      onDead: true,
      afterConsecutiveFailures: null,
      lateAfterSeconds: 30,
      notifyRecovery: false,
    });
    expect(words.map((w) => [w.key, w.value])).toEqual([
      ['onDead', 'Open an incident'],
      ['afterConsecutiveFailures', 'Off'],
      ['lateAfterSeconds', 'Incident when 30s late'],
      ['notifyRecovery', 'Not sent'],
    ]);
  });
});
