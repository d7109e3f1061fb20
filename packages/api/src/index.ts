// Domain services shared by the dashboard (tRPC) and the public REST API, the REST transport
// itself, and the schemas both validate with.
export * from './errors';
export * from './context';
export * from './security/passwords';
export * from './security/api-key-format';
export * from './security/scopes';
export * from './services/tenants';
export * from './services/signing-secrets';
export * from './services/audit';
export * from './services/pagination';
export * from './services/jobs';
export * from './services/job-changes';
export * from './services/runs';
export * from './services/dead-letter';
export * from './services/schedule-preview';
export * from './services/api-keys';
export * from './schemas/common';
export * from './schemas/job-input';
export * from './schemas/queries';
export * from './schemas/resources';
export * from './schemas/validate';
export { createRestHandler, type RestHandlerOptions } from './rest/handler';
export { buildOpenApiDocument } from './openapi/document';
export { ROUTES } from './rest/routes/index';
export * from './seed';
export * from './trpc/index';
export * from './dashboard/index';
