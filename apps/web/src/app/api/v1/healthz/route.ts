import { getPool } from '@/server/db';

export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    const pool = await getPool();
    await pool.query('SELECT 1');
    return Response.json({ status: 'ok' });
  } catch (err) {
    return Response.json(
      { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: `database unreachable: ${(err as Error).message}` },
      { status: 503, headers: { 'content-type': 'application/problem+json' } },
    );
  }
}
