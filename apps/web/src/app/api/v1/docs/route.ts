// GET /api/v1/docs: the interactive API reference (see server/api-reference.ts).
import { apiReferencePage } from '@/server/api-reference';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(): Response {
  return apiReferencePage();
}
