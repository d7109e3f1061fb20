// Where a broker connection goes: the broker's host resolved once through the SSRF guard
// (every answer checked, as for HTTP targets), and the checked address is the one the socket
// is opened to — the client library never resolves the name again, so a rebinding DNS answer
// cannot slip an internal address in after the check. TLS still verifies the certificate
// against the name in the URL (SNI and servername).
import net from 'node:net';
import { type GuardOptions, resolveChecked } from '../guard/ssrf-guard';

export interface BrokerAddress {
  /** the checked IP to connect to */
  address: string;
  /** the host name as written (for TLS), or null when the URL names an IP */
  servername: string | null;
}

export async function guardedAddress(hostname: string, options: GuardOptions): Promise<BrokerAddress> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const [first] = await resolveChecked(host, 0, options);
  return { address: first!.address, servername: net.isIP(host) === 0 ? host : null };
}
