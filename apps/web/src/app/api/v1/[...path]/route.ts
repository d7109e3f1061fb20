// Mounts the public REST API (packages/api/src/rest) under /api/v1. All routing, auth,
// validation and error mapping happen there; this file only adapts Next's route handlers.
import { createRestHandler } from '@belfry/api';
import { getDeps } from '@/server/deps';
import { log } from '@/server/log';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const handle = createRestHandler(getDeps, { log });

export function GET(request: Request): Promise<Response> {
  return handle(request);
}
export function POST(request: Request): Promise<Response> {
  return handle(request);
}
export function PUT(request: Request): Promise<Response> {
  return handle(request);
}
export function PATCH(request: Request): Promise<Response> {
  return handle(request);
}
export function DELETE(request: Request): Promise<Response> {
  return handle(request);
}
