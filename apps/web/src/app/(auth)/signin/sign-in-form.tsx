'use client';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { useState } from 'react';
import { Button } from '@/components/button';
import { Notice } from '@/components/empty';
import { Field, Input } from '@/components/field';
import { safeCallback } from '../safe-callback';

export function SignInForm() {
  const params = useSearchParams();
  const callbackUrl = safeCallback(params.get('callbackUrl'));
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(
    params.get('error') ? 'Sign-in failed. Check your email and password.' : null,
  );
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn('credentials', { email, password, redirect: false });
    if (!result || result.error) {
      setBusy(false);
      setError(
        result?.error && result.error !== 'CredentialsSignin'
          ? result.error
          : 'That email and password do not match an account.',
      );
      return;
    }
    // A full navigation, so the server sees the new session cookie.
    window.location.assign(callbackUrl);
  };

  return (
    <>
      <h1 className="text-lg font-semibold">Sign in</h1>
      <p className="mt-1 text-sm text-slate-600">to your Belfry workspace</p>
      <form onSubmit={submit} className="mt-5 space-y-4">
        {error ? <Notice tone="error">{error}</Notice> : null}
        <Field label="Email">
          {({ id }) => (
            <Input
              id={id}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              autoFocus
            />
          )}
        </Field>
        <Field label="Password">
          {({ id }) => (
            <Input
              id={id}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Button type="submit" variant="primary" busy={busy} className="w-full">
          Sign in
        </Button>
      </form>
      <p className="mt-5 text-center text-sm text-slate-600">
        New to Belfry?{' '}
        <Link href="/signup" className="font-medium text-indigo-600 hover:text-indigo-500">
          Create an account
        </Link>
      </p>
    </>
  );
}
