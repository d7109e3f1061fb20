// The alert rules (docs/alerts.md) as the dashboard edits and shows them: the draft the inputs
// hold, the checks the form makes before asking the server, and the rules in words. No
// React here, so it is tested on its own (rules.test.ts).
export interface AlertRules {
  onDead: boolean;
  afterConsecutiveFailures: number | null;
  lateAfterSeconds: number | null;
  notifyRecovery: boolean;
}

/** The rules as the inputs hold them: numbers as text, '' = off. */
export interface RulesDraft {
  onDead: boolean;
  failures: string;
  late: string;
  notifyRecovery: boolean;
}

export const DEFAULT_RULES: AlertRules = {
  onDead: true,
  afterConsecutiveFailures: null,
  lateAfterSeconds: null,
  notifyRecovery: true,
};

export function rulesDraft(rules: AlertRules): RulesDraft {
  return {
    onDead: rules.onDead,
    failures: rules.afterConsecutiveFailures?.toString() ?? '',
    late: rules.lateAfterSeconds?.toString() ?? '',
    notifyRecovery: rules.notifyRecovery,
  };
}

/** Text that is not a number goes as NaN (sent as null by JSON): check it first with `checkRules`. */
export function rulesOf(draft: RulesDraft): AlertRules {
  return {
    onDead: draft.onDead,
    afterConsecutiveFailures: draft.failures.trim() ? Number(draft.failures) : null,
    lateAfterSeconds: draft.late.trim() ? Number(draft.late) : null,
    notifyRecovery: draft.notifyRecovery,
  };
}

export const RULE_NUMBERS = [
  {
    key: 'failures',
    path: 'afterConsecutiveFailures',
    label: 'Open an incident after this many failures in a row',
    hint: '1 to 100; empty = off',
    min: 1,
    max: 100,
  },
  {
    key: 'late',
    path: 'lateAfterSeconds',
    label: 'Late after (seconds)',
    hint: 'An occurrence not started this long after it was due opens a late incident; 5 to 86400; empty = off',
    min: 5,
    max: 86_400,
  },
] as const;

/** Errors the form can tell before asking the server, at the API's paths under `prefix`. */
export function checkRules(draft: RulesDraft, prefix = ''): { path: string; message: string }[] {
  return RULE_NUMBERS.filter((n) => draft[n.key].trim() && !/^\s*\d+\s*$/.test(draft[n.key])).map((n) => ({
    path: `${prefix}${n.path}`,
    message: 'must be a whole number, or empty for off',
  }));
}

/** A job's own `alerts` from the job form: null = the tenant policy; own rules set all four, channels only when chosen. */
export function jobAlertsOf(draft: {
  own: boolean;
  rules: RulesDraft;
  channels: string[] | null;
}): (AlertRules & { channels?: string[] }) | null {
  if (!draft.own) return null;
  return { ...rulesOf(draft.rules), ...(draft.channels === null ? {} : { channels: draft.channels }) };
}

/** Where a channel sends, with its secrets as the API masks them. */
export function channelTarget(c: { type: string; to?: string[]; url?: string | null; routingKey?: string }): string {
  if (c.type === 'email') return (c.to ?? []).join(', ');
  if (c.type === 'pagerduty') return `routing key ${c.routingKey ?? ''}`;
  return c.url ?? '';
}

/** Each rule in words, for a definition list. */
export function rulesInWords(rules: AlertRules): { key: keyof AlertRules; label: string; value: string }[] {
  const failures = rules.afterConsecutiveFailures;
  return [
    { key: 'onDead', label: 'Dead runs', value: rules.onDead ? 'Open an incident' : 'Ignored' },
    {
      key: 'afterConsecutiveFailures',
      label: 'Failures in a row',
      value: failures === null ? 'Off' : `Incident after ${failures}`,
    },
    {
      key: 'lateAfterSeconds',
      label: 'Late starts',
      value: rules.lateAfterSeconds === null ? 'Off' : `Incident when ${rules.lateAfterSeconds}s late`,
    },
    { key: 'notifyRecovery', label: 'Recovery notice', value: rules.notifyRecovery ? 'Sent' : 'Not sent' },
  ];
}
