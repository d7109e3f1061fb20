import type { Metadata } from 'next';
import { Suspense } from 'react';
import { DeadLetterPage } from './dead-letter-page';

export const metadata: Metadata = { title: 'Dead letter' };

export default function Page() {
  return (
    <Suspense>
      <DeadLetterPage />
    </Suspense>
  );
}
