import { describe, expect, it } from 'vitest';
import { ImageAllowList, imageReferenceProblem } from './images';

describe('imageReferenceProblem', () => {
  it('accepts references as Docker writes them', () => {
    for (const ref of [
      'busybox',
      'busybox:1.36',
      'library/busybox:latest',
      'registry.example.com/jobs/report:1.4',
      'localhost:5000/a/b_c/d-e:v1.0-rc.1',
      'belfry-test/busybox:1',
      `alpine@sha256:${'a'.repeat(64)}`,
      `registry.example.com:443/x/y:tag@sha256:${'0'.repeat(64)}`,
    ]) {
      expect(imageReferenceProblem(ref), ref).toBeNull();
    }
  });

  it('refuses what is not a reference', () => {
    for (const ref of [
      '',
      'Busybox',
      'busybox:',
      'busybox::1',
      'a b',
      '-busybox',
      'busybox:-tag',
      '/busybox',
      'busybox/',
      'busybox@sha256:abc',
      `busybox:${'t'.repeat(129)}`,
      `${'a'.repeat(256)}:1`,
      'x'.repeat(513),
      'busy\nbox',
    ]) {
      expect(imageReferenceProblem(ref), ref).not.toBeNull();
    }
  });
});

describe('ImageAllowList', () => {
  it('allows nothing when unset or blank', () => {
    expect(ImageAllowList.parse(undefined).allows('busybox')).toBe(false);
    expect(ImageAllowList.parse(' , ').empty).toBe(true);
    expect(ImageAllowList.parse(undefined).refusal('busybox')).toMatch(/not enabled/);
  });

  it('matches the reference as written, `*` for any characters, nothing else special', () => {
    const list = ImageAllowList.parse('registry.example.com/jobs/*, belfry-test/busybox:1,a.b?c');
    expect(list.allows('registry.example.com/jobs/report:1.4')).toBe(true);
    expect(list.allows('registry.example.com/jobs/nested/x')).toBe(true);
    expect(list.allows('registry.example.com/other/report')).toBe(false);
    expect(list.allows('evil.com/registry.example.com/jobs/x')).toBe(false);
    expect(list.allows('belfry-test/busybox:1')).toBe(true);
    expect(list.allows('belfry-test/busybox:2')).toBe(false);
    expect(list.allows('aXb?c')).toBe(false);
    expect(list.refusal('busybox')).toMatch(/not allowed/);
    expect(ImageAllowList.parse('*').allows('anything/at:all')).toBe(true);
  });
});
