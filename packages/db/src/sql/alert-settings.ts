// A job's effective alert settings in SQL: each key of the job's own `alerts` wins when present
// (an explicit null too: "not for this job"), otherwise the tenant's policy, otherwise the
// defaults (onDead and notifyRecovery on, no failure threshold, no late detection, every
// channel). One fragment so that the engine's incident rules, the watchdog and the API agree.

/**
 * Columns on_dead, after_consecutive_failures, late_after_seconds, notify_recovery, channels
 * (text[]; null = every channel of the tenant), for a query that has `jobs j` and
 * `LEFT JOIN alert_policies p ON p.tenant_id = j.tenant_id` in scope.
 */
export const EFFECTIVE_ALERT_SETTINGS_SQL = `
  CASE WHEN jsonb_typeof(j.alerts -> 'onDead') = 'boolean' THEN (j.alerts ->> 'onDead')::boolean
       ELSE coalesce(p.on_dead, true) END AS on_dead,
  CASE WHEN j.alerts ? 'afterConsecutiveFailures' THEN (j.alerts ->> 'afterConsecutiveFailures')::int
       ELSE p.after_consecutive_failures END AS after_consecutive_failures,
  CASE WHEN j.alerts ? 'lateAfterSeconds' THEN (j.alerts ->> 'lateAfterSeconds')::int
       ELSE p.late_after_seconds END AS late_after_seconds,
  CASE WHEN jsonb_typeof(j.alerts -> 'notifyRecovery') = 'boolean' THEN (j.alerts ->> 'notifyRecovery')::boolean
       ELSE coalesce(p.notify_recovery, true) END AS notify_recovery,
  CASE WHEN jsonb_typeof(j.alerts -> 'channels') = 'array'
       THEN ARRAY(SELECT jsonb_array_elements_text(j.alerts -> 'channels'))
       ELSE p.channels END AS channels`;

/** The late threshold alone, for the watchdog's scans (same precedence as above). */
export const EFFECTIVE_LATE_AFTER_SQL = `(CASE WHEN j.alerts ? 'lateAfterSeconds' THEN (j.alerts ->> 'lateAfterSeconds')::int
       ELSE p.late_after_seconds END)`;
