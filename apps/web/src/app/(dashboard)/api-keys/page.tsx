import type { Metadata } from 'next';
import { ApiKeysPage } from './api-keys-page';

export const metadata: Metadata = { title: 'API keys' };

export default function Page() {
  return <ApiKeysPage />;
}
