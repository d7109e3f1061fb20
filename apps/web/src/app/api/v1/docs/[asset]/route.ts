// GET /api/v1/docs/scalar.js and /api/v1/docs/init.js: the reference's scripts, from this server.
import { apiReferenceAsset } from '@/server/api-reference';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(_request: Request, { params }: { params: Promise<{ asset: string }> }): Promise<Response> {
  return apiReferenceAsset((await params).asset);
}
