'use client';
// Sign-up: a new account and a new workspace owned by it, then straight in.
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { signIn } from 'next-auth/react';
import { useState } from 'react';
import { Button } from '@/components/button';
import { Notice } from '@/components/empty';
import { Field, Input } from '@/components/field';
import { errorMessage, errorsAt, fieldErrors } from '../../_lib/errors';
import { useTRPC } from '../../_lib/trpc';

export function SignUpForm() {
  const trpc = useTRPC();
  const [form, setForm] = useState({ name: '', email: '', password: '', workspaceName: '' });
  const [signInError, setSignInError] = useState<string | null>(null);
  const signUp = useMutation(
    trpc.account.signUp.mutationOptions({
      onSuccess: async ({ email }) => {
        const result = await signIn('credentials', { email, password: form.password, redirect: false });
        if (!result || result.error) {
          setSignInError('Your account was created, but signing in failed. Sign in with your new password.');
          return;
        }
        window.location.assign('/jobs');
      },
    }),
  );
  const errors = fieldErrors(signUp.error);
  const set = (key: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setForm({ ...form, [key]: e.target.value });
  const general = signUp.error && !errors.length ? errorMessage(signUp.error) : null;

  return (
    <>
      <h1 className="text-lg font-semibold">Create your account</h1>
      <p className="mt-1 text-sm text-slate-600">and a workspace for your team&apos;s jobs</p>
      <form
        className="mt-5 space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          signUp.mutate({ ...form, name: form.name || undefined });
        }}
        noValidate
      >
        {general ? <Notice tone="error">{general}</Notice> : null}
        {signInError ? <Notice tone="warn">{signInError}</Notice> : null}
        <Field label="Your name" optional errors={errorsAt(errors, 'name')}>
          {({ id, describedBy, invalid }) => (
            <Input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              autoComplete="name"
              value={form.name}
              onChange={set('name')}
            />
          )}
        </Field>
        <Field label="Email" errors={errorsAt(errors, 'email')}>
          {({ id, describedBy, invalid }) => (
            <Input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              type="email"
              autoComplete="email"
              required
              value={form.email}
              onChange={set('email')}
            />
          )}
        </Field>
        <Field label="Password" hint="At least 10 characters." errors={errorsAt(errors, 'password')}>
          {({ id, describedBy, invalid }) => (
            <Input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              type="password"
              autoComplete="new-password"
              required
              value={form.password}
              onChange={set('password')}
            />
          )}
        </Field>
        <Field
          label="Workspace name"
          hint="Your team or project, e.g. Acme billing."
          errors={errorsAt(errors, 'workspaceName')}
        >
          {({ id, describedBy, invalid }) => (
            <Input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              required
              value={form.workspaceName}
              onChange={set('workspaceName')}
            />
          )}
        </Field>
        <Button type="submit" variant="primary" busy={signUp.isPending || signUp.isSuccess} className="w-full">
          Create account
        </Button>
      </form>
      <p className="mt-5 text-center text-sm text-slate-600">
        Already have an account?{' '}
        <Link href="/signin" className="font-medium text-indigo-600 hover:text-indigo-500">
          Sign in
        </Link>
      </p>
    </>
  );
}
