'use client';
// The sidebar's navigation (the current page marked for assistive technology too) and the
// signed-in user with the sign-out button.
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { signOut } from 'next-auth/react';
import { Button } from '@/components/button';
import { Icon, type IconName } from './icons';

const NAV: Array<{ href: string; label: string; icon: IconName; section?: string }> = [
  { href: '/jobs', label: 'Jobs', icon: 'jobs' },
  { href: '/dead-letter', label: 'Dead letter', icon: 'dead' },
  { href: '/incidents', label: 'Incidents', icon: 'dead' },
  { href: '/alerts', label: 'Alerts', icon: 'secret' },
  { href: '/queues', label: 'Queues', icon: 'queues' },
  { href: '/cluster', label: 'Cluster', icon: 'cluster' },
  { href: '/api-keys', label: 'API keys', icon: 'key', section: 'Settings' },
  { href: '/signing-secret', label: 'Signing secret', icon: 'secret' },
  { href: '/members', label: 'Members', icon: 'members' },
  { href: '/limits', label: 'Limits', icon: 'limits' },
];

export function SidebarNav({ user, role }: { user: { name: string | null; email: string }; role: string | null }) {
  const pathname = usePathname();
  return (
    <>
      <nav aria-label="Main" className="flex-1 overflow-y-auto p-2">
        <ul className="space-y-0.5">
          {NAV.map((item) => {
            const current =
              pathname === item.href ||
              pathname.startsWith(`${item.href}/`) ||
              (item.href === '/jobs' && pathname.startsWith('/runs/'));
            return (
              <li key={item.href}>
                {item.section ? (
                  <div className="mt-4 mb-1 px-2 text-xs font-semibold tracking-wide text-slate-400 uppercase">
                    {item.section}
                  </div>
                ) : null}
                <Link
                  href={item.href}
                  aria-current={current ? 'page' : undefined}
                  className={`flex items-center gap-2.5 rounded-md px-2 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-indigo-600 ${
                    current ? 'bg-indigo-50 text-indigo-700' : 'text-slate-700 hover:bg-slate-100'
                  }`}
                >
                  <Icon name={item.icon} className={current ? 'text-indigo-600' : 'text-slate-400'} />
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="border-t border-slate-200 p-3">
        <div className="truncate text-sm font-medium text-slate-800" title={user.email}>
          {user.name || user.email}
        </div>
        {user.name ? <div className="truncate text-xs text-slate-500">{user.email}</div> : null}
        {role ? <div className="mt-0.5 text-xs text-slate-500 capitalize">{role}</div> : null}
        <Button
          size="sm"
          variant="ghost"
          className="-ml-2.5 mt-2"
          onClick={() => void signOut({ callbackUrl: '/signin' })}
        >
          Sign out
        </Button>
      </div>
    </>
  );
}

export function Logo() {
  return (
    <svg
      viewBox="0 0 24 24"
      className="h-6 w-6 text-indigo-600"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      aria-hidden="true"
    >
      <path d="M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6z" strokeLinejoin="round" />
      <path d="M10 19a2 2 0 0 0 4 0" strokeLinecap="round" />
    </svg>
  );
}
