// Domain services shared by the dashboard (tRPC) and the public REST API.
export * from './errors';
export * from './context';
export * from './security/passwords';
export * from './security/api-key-format';
export * from './services/tenants';
export * from './services/signing-secrets';
export * from './services/audit';
export * from './seed';
