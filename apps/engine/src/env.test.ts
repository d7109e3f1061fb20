import { describe, expect, it } from 'vitest';
import { DEFAULT_DASHBOARD_URL, readEngineEnv } from './env';

describe('readEngineEnv: the dashboard links of alert notifications', () => {
  it('uses BELFRY_DASHBOARD_URL, else the public URL npm start passes on, else the default dashboard', () => {
    const url = (env: NodeJS.ProcessEnv) => readEngineEnv(env).alerts.dashboardUrl;
    expect(url({ BELFRY_DASHBOARD_URL: 'https://belfry.example.com', NEXTAUTH_URL: 'http://localhost:4000' })).toBe(
      'https://belfry.example.com',
    );
    expect(url({ NEXTAUTH_URL: 'http://localhost:4000' })).toBe('http://localhost:4000');
    // PORT is the web's, not the engine's: a node run apart does not guess from it.
    expect(url({ PORT: '4000' })).toBe(DEFAULT_DASHBOARD_URL);
    expect(() => readEngineEnv({ NEXTAUTH_URL: 'not a url' })).toThrow(/NEXTAUTH_URL/);
  });
});
