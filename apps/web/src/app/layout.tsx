import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Providers } from './_lib/providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Belfry', template: '%s · Belfry' },
  description: 'Managed job scheduler',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
