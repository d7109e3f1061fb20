// Installs (or migrates) pg-boss's own schema, without starting its workers or maintenance.
import { PgBoss } from 'pg-boss';

export async function installQueueSchema(url: string): Promise<void> {
  const boss = new PgBoss({
    connectionString: url,
    max: 2,
    supervise: false,
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', () => {});
  await boss.start();
  await boss.stop({ graceful: false, close: true });
}
/** bump when the install changes, so test templates are rebuilt */
installQueueSchema.version = 1;
