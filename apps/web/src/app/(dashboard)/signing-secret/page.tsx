import type { Metadata } from 'next';
import { SigningSecretPage } from './signing-secret-page';

export const metadata: Metadata = { title: 'Signing secret' };

export default function Page() {
  return <SigningSecretPage />;
}
