// Alert fixtures: channels written directly (sealed with the test key), tenant policies, a job's
// alerts override, and a real SMTP server on loopback (npm smtp-server) that keeps every message.
import type { AlertChannelType } from '@belfry/core';
import { ALERT_CHANNEL_PURPOSE, newId } from '@belfry/core';
import type pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { TEST_KEYRING } from './fixtures';

export async function insertChannel(
  pool: pg.Pool,
  tenantId: string,
  config: { type: AlertChannelType } & Record<string, unknown>,
): Promise<string> {
  const id = newId('ach');
  await pool.query(`INSERT INTO alert_channels (id, tenant_id, type, config, sealed) VALUES ($1, $2, $3, '{}', $4)`, [
    id,
    tenantId,
    config.type,
    TEST_KEYRING.seal(JSON.stringify(config), { tenantId, purpose: ALERT_CHANNEL_PURPOSE }),
  ]);
  return id;
}

export async function setPolicy(
  pool: pg.Pool,
  tenantId: string,
  p: {
    onDead?: boolean;
    afterConsecutiveFailures?: number | null;
    lateAfterSeconds?: number | null;
    notifyRecovery?: boolean;
  },
): Promise<void> {
  await pool.query(
    `INSERT INTO alert_policies (tenant_id, on_dead, after_consecutive_failures, late_after_seconds, notify_recovery)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id) DO UPDATE SET on_dead = $2, after_consecutive_failures = $3, late_after_seconds = $4,
       notify_recovery = $5`,
    [
      tenantId,
      p.onDead ?? true,
      p.afterConsecutiveFailures ?? null,
      p.lateAfterSeconds ?? null,
      p.notifyRecovery ?? true,
    ],
  );
}

export async function setJobAlerts(
  pool: pg.Pool,
  jobId: string,
  alerts: Record<string, unknown> | null,
): Promise<void> {
  await pool.query('UPDATE jobs SET alerts = $2 WHERE id = $1', [
    jobId,
    alerts === null ? null : JSON.stringify(alerts),
  ]);
}

export interface Mail {
  from: string;
  to: string[];
  subject: string;
  /** the decoded text body */
  text: string;
  raw: string;
}

export interface SmtpSink {
  url: string;
  mails: Mail[];
  close(): Promise<void>;
}

function decodeQuotedPrintable(s: string): string {
  const bytes = s
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Decodes RFC 2047 encoded words (=?UTF-8?Q?...?= and =?UTF-8?B?...?=) in a header value. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

/** Splits a raw RFC 5322 message into headers and a decoded (single-part) text body. */
export function parseMail(raw: string, envelope: { from: string; to: string[] }): Mail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return { ...envelope, subject: decodeHeader(header('Subject')), text, raw };
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        };
        mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), envelope));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
