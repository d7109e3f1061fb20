// Operators: dashboard users who run the deployment and so may see what crosses tenants
// (the cluster page's every-workspace numbers and node hosts). Set only from the command line
// (`belfry admin set-operator`), never from the dashboard or the API.
import type { ServiceDeps } from '../context';
import { AppError } from '../errors';

export async function setOperator(
  deps: Pick<ServiceDeps, 'pool'>,
  email: string,
  operator: boolean,
): Promise<{ userId: string; email: string; operator: boolean }> {
  const normalised = email.trim().toLowerCase();
  const { rows } = await deps.pool.query<{ id: string; email: string; is_operator: boolean }>(
    'UPDATE users SET is_operator = $2, updated_at = now() WHERE email = $1 RETURNING id, email, is_operator',
    [normalised, operator],
  );
  const row = rows[0];
  if (!row) {
    throw new AppError('not_found', `no user with e-mail ${normalised}`, {
      errors: [{ path: 'email', message: 'no user has this address' }],
    });
  }
  return { userId: row.id, email: row.email, operator: row.is_operator };
}
