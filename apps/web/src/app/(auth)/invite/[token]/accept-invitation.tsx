'use client';
// Accepting an invitation: join directly when signed in with the invited address, sign in
// first when that address has an account, or create the account here.
import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { signIn, signOut } from 'next-auth/react';
import { useState } from 'react';
import { Button, ButtonLink } from '@/components/button';
import { Notice } from '@/components/empty';
import { Field, Input } from '@/components/field';
import { Loading } from '@/components/spinner';
import { errorMessage, errorsAt, fieldErrors } from '../../../_lib/errors';
import { useTRPC } from '../../../_lib/trpc';

export function AcceptInvitation({ token, signedInAs }: { token: string; signedInAs: string | null }) {
  const trpc = useTRPC();
  const invitation = useQuery({ ...trpc.account.invitation.queryOptions({ token }), retry: false });
  const accept = useMutation(
    trpc.account.acceptInvitation.mutationOptions({ onSuccess: () => window.location.assign('/jobs') }),
  );
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const signUp = useMutation(
    trpc.account.signUpWithInvitation.mutationOptions({
      onSuccess: async ({ email }) => {
        const result = await signIn('credentials', { email, password, redirect: false });
        window.location.assign(result?.error ? `/signin?email=${encodeURIComponent(email)}` : '/jobs');
      },
    }),
  );

  if (invitation.isPending) return <Loading />;
  if (invitation.isError) {
    return (
      <>
        <h1 className="text-lg font-semibold">Invitation not found</h1>
        <p className="mt-2 text-sm text-slate-600">This link is not valid. Ask whoever invited you for a new one.</p>
      </>
    );
  }
  const inv = invitation.data;
  const heading = (
    <>
      <h1 className="text-lg font-semibold">Join {inv.tenantName}</h1>
      <p className="mt-1 text-sm text-slate-600">
        {inv.email} is invited as <strong className="font-medium">{inv.role}</strong>.
      </p>
    </>
  );
  if (inv.state !== 'pending') {
    return (
      <>
        {heading}
        <div className="mt-4">
          <Notice tone="warn">
            {inv.state === 'accepted'
              ? 'This invitation has already been used.'
              : 'This invitation has expired. Ask for a new one.'}
          </Notice>
        </div>
        <ButtonLink href="/signin" className="mt-4 w-full">
          Go to sign in
        </ButtonLink>
      </>
    );
  }
  if (signedInAs) {
    const matches = signedInAs.toLowerCase() === inv.email.toLowerCase();
    return (
      <>
        {heading}
        {matches ? (
          <>
            {accept.error ? (
              <div className="mt-4">
                <Notice tone="error">{errorMessage(accept.error)}</Notice>
              </div>
            ) : null}
            <Button
              variant="primary"
              className="mt-5 w-full"
              busy={accept.isPending}
              onClick={() => accept.mutate({ token })}
            >
              Join {inv.tenantName}
            </Button>
          </>
        ) : (
          <>
            <div className="mt-4">
              <Notice tone="warn">
                You are signed in as {signedInAs}. This invitation is for {inv.email}; sign in with that address to
                accept it.
              </Notice>
            </div>
            <Button className="mt-4 w-full" onClick={() => void signOut({ callbackUrl: `/invite/${token}` })}>
              Sign out
            </Button>
          </>
        )}
      </>
    );
  }
  if (inv.hasAccount) {
    return (
      <>
        {heading}
        <p className="mt-4 text-sm text-slate-600">{inv.email} already has a Belfry account. Sign in to accept.</p>
        <ButtonLink
          variant="primary"
          href={`/signin?email=${encodeURIComponent(inv.email)}&callbackUrl=${encodeURIComponent(`/invite/${token}`)}`}
          className="mt-4 w-full"
        >
          Sign in to accept
        </ButtonLink>
      </>
    );
  }
  const errors = fieldErrors(signUp.error);
  return (
    <>
      {heading}
      <form
        className="mt-5 space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          signUp.mutate({ token, password, name: name || undefined });
        }}
      >
        {signUp.error && !errors.length ? <Notice tone="error">{errorMessage(signUp.error)}</Notice> : null}
        <Field label="Email">{({ id }) => <Input id={id} value={inv.email} disabled readOnly />}</Field>
        <Field label="Your name" optional errors={errorsAt(errors, 'name')}>
          {({ id }) => <Input id={id} autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Choose a password" hint="At least 10 characters." errors={errorsAt(errors, 'password')}>
          {({ id, describedBy, invalid }) => (
            <Input
              id={id}
              type="password"
              autoComplete="new-password"
              aria-describedby={describedBy}
              aria-invalid={invalid}
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Button type="submit" variant="primary" className="w-full" busy={signUp.isPending || signUp.isSuccess}>
          Create account and join
        </Button>
      </form>
      <p className="mt-4 text-center text-xs text-slate-500">
        By joining you can see {inv.tenantName}&apos;s jobs{inv.role === 'viewer' ? '' : ' and manage them'}.{' '}
        <Link href="/signin" className="text-indigo-600">
          Sign in instead
        </Link>
      </p>
    </>
  );
}
