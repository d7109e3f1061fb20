// What the broker handlers' failures look like to the retry policy: our own abort reasons
// (the attempt's deadline, a cancel), the broker's verdicts, and the mapping of anything
// thrown to a FailureKind. Authentication refused is final (asking again with the same
// password changes nothing); everything on the way to a confirmation — refused or dropped
// connections, unroutable or nacked messages, missing streams, timeouts — is retried.
import type { FailureKind } from '@belfry/core';
import { DeliveryCancelledError, DeliveryTimeoutError, describeFailure } from '../http/http-response';

export { DeliveryCancelledError, DeliveryTimeoutError };

/** The broker refused the login (or the permission): not retryable. */
export class BrokerAuthError extends Error {
  readonly kind = 'refused' as const;
  constructor(message: string) {
    super(message);
    this.name = 'BrokerAuthError';
  }
}

/** The broker did not take the message (unroutable, nack, no stream): retryable. */
export class NotConfirmedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotConfirmedError';
  }
}

/** A FailureKind and message for anything a broker publish threw; `where` names the broker without credentials. */
export function describeBrokerFailure(err: unknown, where: string): { failure: FailureKind; error: string } {
  if (err instanceof NotConfirmedError) return { failure: 'connection', error: err.message };
  if (err instanceof DeliveryTimeoutError) {
    return { failure: 'timeout', error: `${err.message} waiting for ${where} to confirm the message` };
  }
  return describeFailure(err, where);
}
