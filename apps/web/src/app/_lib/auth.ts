// next-auth (v4) configuration: email + password (Argon2id, via the domain's authenticateUser),
// JWT sessions. The token carries only the user's id (`sub`); who they are and what they may
// do in which tenant is read from the database on every request.
import {
  authenticateUser,
  CLIENT_ADDRESS_HEADER,
  stampedClientAddress,
  throttleSignIn,
  UNKNOWN_ADDRESS,
} from '@belfry/api';
import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { getDeps } from '@/server/deps';
import { webEnv } from '@/server/env';
import { log } from '@/server/log';
import { publicUrlIsHttps } from '@/security-headers';

export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

export function authSecret(): string | undefined {
  return webEnv().NEXTAUTH_SECRET;
}

/** Cookies are Secure whenever the public URL is https, even behind a proxy that speaks http to us. */
export function secureCookies(): boolean {
  return publicUrlIsHttps(webEnv().NEXTAUTH_URL);
}

export const authOptions: NextAuthOptions = {
  secret: authSecret(),
  useSecureCookies: secureCookies(),
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: '/signin' },
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: {
        email: { label: 'Email', type: 'email' },
        password: { label: 'Password', type: 'password' },
      },
      async authorize(credentials, req) {
        const email = credentials?.email ?? '';
        const password = credentials?.password ?? '';
        if (!email || !password) return null;
        const deps = await getDeps();
        const stamped = (req.headers as Record<string, unknown> | undefined)?.[CLIENT_ADDRESS_HEADER];
        const address = stampedClientAddress(typeof stamped === 'string' ? stamped : null) ?? UNKNOWN_ADDRESS;
        try {
          await throttleSignIn(deps, email, address);
        } catch (err) {
          log.warn({ email: email.trim().toLowerCase(), address }, 'sign-in throttled');
          throw err;
        }
        const user = await authenticateUser(deps, email, password);
        if (!user) {
          log.warn({ email: email.trim().toLowerCase() }, 'sign-in failed');
          return null;
        }
        return { id: user.id, email: user.email, name: user.name };
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) token.sub = user.id;
      return token;
    },
  },
  logger: {
    error: (code, metadata) => log.error({ code, metadata: String(metadata) }, 'next-auth error'),
    warn: (code) => log.warn({ code }, 'next-auth warning'),
    debug: () => {},
  },
};
