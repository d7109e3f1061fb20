// The few line icons the navigation uses (inline SVG, no icon font).
export type IconName = 'jobs' | 'dead' | 'queues' | 'cluster' | 'key' | 'secret' | 'members' | 'limits';

const PATHS: Record<IconName, string> = {
  jobs: 'M12 7v5l3 2 M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18',
  dead: 'M4 7h16 M6 7l1 12h10l1-12 M9 7V4h6v3 M10 11v5 M14 11v5',
  queues: 'M4 6h16 M4 12h16 M4 18h10 M18 16l2 2-2 2',
  cluster: 'M4 5h16v5H4z M4 14h16v5H4z M7 7.5h.01 M7 16.5h.01',
  limits: 'M4 20h16 M6 16V10 M10 16V6 M14 16v-4 M18 16V8',
  key: 'M14 10a4 4 0 1 0-3.5 3.97L10 14v3h3v3h3l1-1v-3.5l-2.03-2.03A4 4 0 0 0 14 10z M15 8h.01',
  secret: 'M6 11V8a6 6 0 1 1 12 0v3 M5 11h14v10H5z M12 15v2',
  members:
    'M9 11a4 4 0 1 0 0-8a4 4 0 1 0 0 8 M2 21v-1a6 6 0 0 1 12 0v1 M16 3.5a4 4 0 0 1 0 7.5 M22 21v-1a6 6 0 0 0-4-5.6',
};

export function Icon({ name, className = '' }: { name: IconName; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={`h-4 w-4 shrink-0 ${className}`}
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      aria-hidden="true"
    >
      <path d={PATHS[name]} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
