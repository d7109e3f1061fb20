import { mkdtempSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPath, readConfig, removeConfig, resolveCredentials, writeConfig } from './config';
import { normalizeServerUrl, readCliEnv } from './env';

const temp = () => mkdtempSync(join(tmpdir(), 'belfry-cli-'));

describe('readCliEnv', () => {
  it('puts the config under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(readCliEnv({ XDG_CONFIG_HOME: '/x/cfg', HOME: '/home/u' }).configDir).toBe('/x/cfg/belfry');
    expect(readCliEnv({ HOME: '/home/u' }).configDir).toBe('/home/u/.config/belfry');
    // relative XDG values are invalid per the spec and ignored
    expect(readCliEnv({ XDG_CONFIG_HOME: 'rel', HOME: '/home/u' }).configDir).toBe('/home/u/.config/belfry');
  });

  it('reads BELFRY_URL and BELFRY_TOKEN, ignoring blanks', () => {
    const env = readCliEnv({ HOME: '/h', BELFRY_URL: 'http://localhost:3000/', BELFRY_TOKEN: ' bfy_x ' });
    expect(env.url).toBe('http://localhost:3000');
    expect(env.token).toBe('bfy_x');
    expect(readCliEnv({ HOME: '/h', BELFRY_URL: '', BELFRY_TOKEN: '  ' })).toMatchObject({
      url: undefined,
      token: undefined,
    });
    expect(() => readCliEnv({ HOME: '/h', BELFRY_URL: 'localhost:3000' })).toThrow(/BELFRY_URL must be an http/);
  });

  it('normalises server URLs, accepting the API base too', () => {
    expect(normalizeServerUrl('http://localhost:3000/api/v1/', '--url')).toBe('http://localhost:3000');
    expect(normalizeServerUrl('https://belfry.example.com/base/', '--url')).toBe('https://belfry.example.com/base');
    expect(() => normalizeServerUrl('ftp://x', '--url')).toThrow(/http/);
    expect(() => normalizeServerUrl('nope', '--url')).toThrow(/must be a URL/);
    expect(() => normalizeServerUrl('http://u:p@x', '--url')).toThrow(/credentials/);
  });
});

describe('config file', () => {
  it('writes the file 0600 in a 0700 directory, and reads it back', () => {
    const dir = join(temp(), 'belfry');
    const file = writeConfig(dir, { url: 'http://localhost:3000', token: 'bfy_secret' });
    expect(file).toBe(configPath(dir));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readConfig(dir)).toEqual({ url: 'http://localhost:3000', token: 'bfy_secret' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: 'http://localhost:3000', token: 'bfy_secret' });
    expect(removeConfig(dir)).toBe(true);
    expect(removeConfig(dir)).toBe(false);
    expect(readConfig(dir)).toBeNull();
  });

  it('tightens an existing directory', () => {
    const dir = join(temp(), 'belfry');
    mkdirSync(dir, { mode: 0o755 });
    writeConfig(dir, { url: 'http://x', token: 't' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('explains a corrupt file', () => {
    const dir = temp();
    writeFileSync(configPath(dir), '{not json');
    expect(() => readConfig(dir)).toThrow(/belfry login/);
  });

  it('resolves credentials with the environment winning over the file', () => {
    const base = temp();
    const env = readCliEnv({ XDG_CONFIG_HOME: base });
    expect(() => resolveCredentials(env)).toThrow(/not logged in: run `belfry login/);
    writeConfig(env.configDir, { url: 'http://file', token: 'file-token' });
    expect(resolveCredentials(env)).toEqual({ url: 'http://file', token: 'file-token', tokenSource: 'config' });
    expect(resolveCredentials({ ...env, token: 'env-token' })).toEqual({
      url: 'http://file',
      token: 'env-token',
      tokenSource: 'env',
    });
    expect(resolveCredentials({ ...env, url: 'http://env' }).url).toBe('http://env');
  });
});
