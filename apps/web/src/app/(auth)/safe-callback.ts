// Where to go after signing in: only a path on this site, never another origin.
export function safeCallback(value: string | null | undefined, fallback = '/jobs'): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback;
  if (value.startsWith('/signin') || value.startsWith('/signup')) return fallback;
  return value;
}
