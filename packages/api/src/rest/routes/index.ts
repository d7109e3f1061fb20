// The route table of /api/v1.
import { buildOpenApiDocument } from '../../openapi/document';
import type { Route } from '../route';
import { alertRoutes } from './alerts';
import { jobRoutes } from './jobs';
import { miscRoutes, openApiRoute } from './misc';
import { queueRoutes } from './queues';
import { runRoutes } from './runs';

let document: unknown;

export const ROUTES: Route[] = [
  ...jobRoutes,
  ...runRoutes,
  ...alertRoutes,
  ...queueRoutes,
  ...miscRoutes,
  openApiRoute(() => {
    document ??= buildOpenApiDocument(ROUTES);
    return document;
  }),
];
