import { describe, expect, it } from 'vitest';
import { safeCallback } from './safe-callback';

// What sign-in does with `?callbackUrl=` after URLSearchParams has decoded it.
const decoded = (query: string) => new URLSearchParams(query).get('callbackUrl');

describe('safeCallback', () => {
  it('keeps a path on this site, with its query and fragment', () => {
    expect(safeCallback('/jobs/job_1?tab=runs#top')).toBe('/jobs/job_1?tab=runs#top');
    expect(safeCallback('/invite/abc')).toBe('/invite/abc');
  });

  it('falls back when there is nothing usable', () => {
    expect(safeCallback(null)).toBe('/jobs');
    expect(safeCallback('')).toBe('/jobs');
    expect(safeCallback('jobs')).toBe('/jobs');
    expect(safeCallback('/signin?callbackUrl=/x')).toBe('/jobs');
    expect(safeCallback('/signup')).toBe('/jobs');
  });

  it.each([
    'callbackUrl=//evil.example',
    'callbackUrl=/%09/evil.example',
    'callbackUrl=/%0a/evil.example',
    'callbackUrl=/%0d/evil.example',
    'callbackUrl=%2F%09%2Fevil.example',
    'callbackUrl=/%5Cevil.example',
    'callbackUrl=/%5C/evil.example',
    'callbackUrl=%5C%5Cevil.example',
    'callbackUrl=/%20/evil.example',
    'callbackUrl=https://evil.example',
    'callbackUrl=javascript:alert(1)',
    'callbackUrl=/%00/evil.example',
    'callbackUrl=/%E2%80%A8/evil.example',
  ])('never leaves the site: %s', (query) => {
    const target = safeCallback(decoded(query));
    // Resolve it as the browser would, against the dashboard's own origin.
    const landed = new URL(target, 'https://belfry.example.com');
    expect(landed.origin).toBe('https://belfry.example.com');
  });
});
