// The alert settings every process that sends alerts reads (engine nodes and the web process):
// zod fields spread into each process's own environment schema, so both validate them alike.
import { z } from 'zod';

export const ALERT_ENV_FIELDS = {
  BELFRY_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'BELFRY_SMTP_URL must be an smtp:// or smtps:// URL')
    .optional(),
  BELFRY_SMTP_FROM: z.string().min(3).optional(),
  BELFRY_DASHBOARD_URL: z.url().optional(),
  BELFRY_ALERT_DIGEST_SECONDS: z.coerce.number().min(0).max(300).default(2),
  BELFRY_ALERT_RETRY_SECONDS: z.coerce.number().min(0.1).max(3600).default(10),
  BELFRY_LATE_CHECK_SECONDS: z.coerce.number().min(0.5).max(300).default(5),
};
