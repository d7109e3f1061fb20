// Where to go after signing in: only a path on this site, never another origin.
//
// Browsers strip tabs and newlines from URLs and read `\` as `/`, so `/\t/evil.example` and
// `/\/evil.example` become `//evil.example`: a prefix check on the raw string is not enough.
// The value is resolved the way a browser would, against a placeholder origin, and must stay
// on it; what comes back is the normalised path, never the raw input.
const PLACEHOLDER = 'http://belfry.invalid';

export function safeCallback(value: string | null | undefined, fallback = '/jobs'): string {
  if (!value?.startsWith('/')) return fallback;
  // Control characters, whitespace and backslashes have no business in a callback path.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(value) || value.length > 2000) return fallback;
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!path.startsWith('/') || path.startsWith('//')) return fallback;
  if (path === '/signin' || path.startsWith('/signin?') || path.startsWith('/signin/')) return fallback;
  if (path === '/signup' || path.startsWith('/signup?') || path.startsWith('/signup/')) return fallback;
  return path;
}
