// What the broker handlers' failures look like to the retry policy: our own abort reasons
// (the attempt's deadline, a cancel), the broker's verdicts, and the mapping of anything
// thrown to a FailureKind. Authentication refused is final (asking again with the same
// password changes nothing); everything on the way to a confirmation — refused or dropped
// connections, TLS handshakes the client refused, unroutable or nacked messages, missing
// streams, timeouts — is retried.
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

// OpenSSL's verify codes as Node reports them (UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED,
// DEPTH_ZERO_SELF_SIGNED_CERT, ...), Node's own (ERR_TLS_CERT_ALTNAME_INVALID) and OpenSSL's
// handshake errors (ERR_SSL_WRONG_VERSION_NUMBER when the port does not speak TLS).
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_)|CERT|^UNABLE_TO_|SELF_SIGNED/;
// The codes that mean "no trusted CA issued this certificate".
const UNTRUSTED_CODE = /^UNABLE_TO_(GET_ISSUER|VERIFY_LEAF)|SELF_SIGNED/;

/** The TLS failure in `err`'s cause chain, if any: a certificate the client refused or a failed handshake. */
function tlsError(err: unknown, depth = 0): { code: string; message: string } | null {
  const e = err as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (!e || typeof e !== 'object' || depth > 5) return null;
  if (typeof e.code === 'string' && TLS_CODE.test(e.code)) {
    return { code: e.code, message: typeof e.message === 'string' ? e.message : e.code };
  }
  return tlsError(e.cause, depth + 1);
}

/** A FailureKind and message for anything a broker publish threw; `where` names the broker without credentials. */
export function describeBrokerFailure(err: unknown, where: string): { failure: FailureKind; error: string } {
  if (err instanceof NotConfirmedError) return { failure: 'connection', error: err.message };
  // Retried like any connection failure: a renewed or fixed certificate needs no change in Belfry.
  const tls = tlsError(err);
  if (tls) {
    const hint = UNTRUSTED_CODE.test(tls.code)
      ? ' (the certificate is not issued by a trusted CA; for a private CA start Belfry with NODE_EXTRA_CA_CERTS=/path/to/ca.pem)'
      : '';
    return { failure: 'connection', error: `TLS handshake with ${where} failed: ${tls.code}: ${tls.message}${hint}` };
  }
  if (err instanceof DeliveryTimeoutError) {
    return { failure: 'timeout', error: `${err.message} waiting for ${where} to confirm the message` };
  }
  return describeFailure(err, where);
}
