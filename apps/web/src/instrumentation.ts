// Next.js calls register() once when a server process starts: the web process begins its
// alerting loops (late watchdog, notification dispatcher) without waiting for a request.
export async function register(): Promise<void> {
  // biome-ignore lint/style/noProcessEnv: Next sets NEXT_RUNTIME per bundle; the env module is Node-only and must not load in the edge one
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startWebAlerts } = await import('./server/alerts');
  // A database that is not reachable yet must not stop the server from starting.
  void startWebAlerts();
}
