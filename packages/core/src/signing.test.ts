import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret, signPayload, verifySignature, webhookSignatureHeader } from './signing';

// Test vector published with the Standard Webhooks / Svix libraries.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const msgId = 'run_01HZY3M6Q8W4V7K2N9T5R1B3XC';
const body = JSON.stringify({ job: 'nightly-report', payload: { ünïcode: '✓ 日本' } });
// The reference library rejects timestamps outside a 5-minute window around Date.now().
const nowSeconds = () => Math.floor(Date.now() / 1000);

function referenceVerify(secret: string, ts: number, header: string, b = body, id = msgId): boolean {
  try {
    new Webhook(secret).verify(b, {
      'webhook-id': id,
      'webhook-timestamp': String(ts),
      'webhook-signature': header,
    });
    return true;
  } catch {
    return false;
  }
}

describe('generateSigningSecret', () => {
  it('is whsec_ + base64 of 32 random bytes', () => {
    const s = generateSigningSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(s);
  });
});

describe('signPayload', () => {
  it('matches the published test vector', () => {
    expect(signPayload(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('agrees with the reference implementation byte for byte', () => {
    const secret = generateSigningSecret();
    const ts = nowSeconds();
    const ref = new Webhook(secret).sign(msgId, new Date(ts * 1000), body);
    expect(signPayload(secret, msgId, ts, body)).toBe(ref);
  });

  it('accepts keys of 24..64 bytes and rejects others', () => {
    for (const n of [24, 32, 64]) {
      const secret = `whsec_${randomBytes(n).toString('base64')}`;
      const ts = nowSeconds(); // once: a second boundary between two reads would sign another timestamp
      expect(referenceVerify(secret, ts, signPayload(secret, msgId, ts, body))).toBe(true);
    }
    for (const n of [0, 16, 23, 65]) {
      expect(() => signPayload(`whsec_${randomBytes(n).toString('base64')}`, msgId, 1, body)).toThrow();
    }
  });

  it('rejects malformed secrets instead of signing with a garbage key', () => {
    const b64 = randomBytes(32).toString('base64');
    for (const bad of [b64, `whsec-${b64}`, `whsec_${b64}!`, `whsec_${b64.slice(1)}`, `whsec_ ${b64}`, '']) {
      expect(() => signPayload(bad, msgId, 1, body), bad).toThrow();
    }
  });

  it('rejects msg ids that would make the signed content ambiguous, and bad timestamps', () => {
    const secret = generateSigningSecret();
    for (const id of ['', 'a.b', 'a b', 'a\nb']) expect(() => signPayload(secret, id, 1, body), id).toThrow();
    for (const ts of [-1, 1.5, Number.NaN, Infinity]) expect(() => signPayload(secret, msgId, ts, body)).toThrow();
  });
});

describe('webhookSignatureHeader + reference verification', () => {
  it('verifies with standardwebhooks for a single secret', () => {
    const secret = generateSigningSecret();
    const ts = nowSeconds();
    const header = webhookSignatureHeader([secret], msgId, ts, body);
    expect(header).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(referenceVerify(secret, ts, header)).toBe(true);
    expect(verifySignature([secret], msgId, ts, body, header)).toBe(true);
  });

  it('during rotation, each secret alone verifies the two-signature header', () => {
    const current = generateSigningSecret();
    const previous = generateSigningSecret();
    const ts = nowSeconds();
    const header = webhookSignatureHeader([current, previous], msgId, ts, body);
    const parts = header.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(signPayload(current, msgId, ts, body)); // current first
    expect(parts[1]).toBe(signPayload(previous, msgId, ts, body));

    expect(referenceVerify(current, ts, header)).toBe(true);
    expect(referenceVerify(previous, ts, header)).toBe(true);
    expect(referenceVerify(generateSigningSecret(), ts, header)).toBe(false);

    expect(verifySignature([current], msgId, ts, body, header)).toBe(true);
    expect(verifySignature([previous], msgId, ts, body, header)).toBe(true);
    expect(verifySignature([generateSigningSecret()], msgId, ts, body, header)).toBe(false);
  });

  it('fails when anything is tampered with', () => {
    const secret = generateSigningSecret();
    const ts = nowSeconds();
    const header = webhookSignatureHeader([secret], msgId, ts, body);
    const flipped = header.slice(0, 10) + (header[10] === 'A' ? 'B' : 'A') + header.slice(11);

    expect(referenceVerify(secret, ts, header, `${body} `)).toBe(false);
    expect(referenceVerify(secret, ts - 1, header)).toBe(false);
    expect(referenceVerify(secret, ts, header, body, `${msgId}X`)).toBe(false);
    expect(referenceVerify(secret, ts, flipped)).toBe(false);

    expect(verifySignature([secret], msgId, ts, `${body} `, header)).toBe(false);
    expect(verifySignature([secret], msgId, ts - 1, body, header)).toBe(false);
    expect(verifySignature([secret], `${msgId}X`, ts, body, header)).toBe(false);
    expect(verifySignature([secret], msgId, ts, body, flipped)).toBe(false);
  });

  it('rejects the empty secret list', () => {
    expect(() => webhookSignatureHeader([], msgId, 1, body)).toThrow();
  });
});

describe('verifySignature', () => {
  const secret = VECTOR.secret;
  const good = VECTOR.signature;
  const verify = (header: string) => verifySignature([secret], VECTOR.msgId, VECTOR.timestamp, VECTOR.body, header);

  it('accepts the vector, alone or among other (unknown-version) signatures', () => {
    expect(verify(good)).toBe(true);
    expect(verify(`v1,${'A'.repeat(43)}= ${good}`)).toBe(true);
    expect(verify(`v1a,whatever ${good}  v2,xyz`)).toBe(true);
  });

  it('rejects malformed or non-canonical headers without throwing', () => {
    const sig = good.slice(3);
    for (const h of [
      '',
      ' ',
      sig,
      `v2,${sig}`,
      `V1,${sig}`,
      `v1,${sig.slice(0, -1)}`, // missing padding decodes the same leniently, but is not canonical
      `v1,${sig}=`,
      `v1, ${sig}`,
      `v1,${sig.replace('+', '-')}`, // base64url spelling of the same bytes
      'v1,',
      ',',
    ]) {
      expect(verify(h), JSON.stringify(h)).toBe(false);
    }
  });

  it('returns false (does not throw) for request-derived garbage', () => {
    expect(verifySignature([secret], 'a.b', VECTOR.timestamp, VECTOR.body, good)).toBe(false);
    expect(verifySignature([secret], VECTOR.msgId, Number.NaN, VECTOR.body, good)).toBe(false);
    expect(verifySignature([secret], VECTOR.msgId, VECTOR.timestamp, VECTOR.body, null as unknown as string)).toBe(
      false,
    );
  });

  it('returns false for an empty secret list and throws for a malformed secret', () => {
    expect(verifySignature([], VECTOR.msgId, VECTOR.timestamp, VECTOR.body, good)).toBe(false);
    expect(() => verifySignature(['nope'], VECTOR.msgId, VECTOR.timestamp, VECTOR.body, good)).toThrow();
  });
});
