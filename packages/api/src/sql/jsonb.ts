// What a value reads back as after a trip through a jsonb column: JSON.stringify's rules
// (undefined and functions dropped from objects, null in arrays; toJSON applied; non-finite
// numbers null) and jsonb's own, which stores an object's keys ordered by their length in
// UTF-8 bytes, then bytewise, and keeps the last of duplicate keys. Lets a writer answer what
// it stored without reading it back. Numbers need nothing: jsonb keeps the decimal digits
// JSON.stringify wrote, which parse back to the same double.

// compareUtf8 is right for every key; compareAscii is its shortcut for keys of printable ASCII
// (and tab, newline, return), where code unit order is byte order.
const NOT_PLAIN = /[^ -~\t\n\r]/;

function compareAscii(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareUtf8(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length !== y.length ? x.length - y.length : Buffer.compare(x, y);
}

function dropped(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** `value` as it reads back from a jsonb column (SQL NULL aside: a JSON null stays null). */
export function asStoredJsonb(value: unknown): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'object':
      break;
    default:
      return null;
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return asStoredJsonb(toJSON.call(value));
  if (Array.isArray(value)) return value.map((v) => (dropped(v) ? null : asStoredJsonb(v)));
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source).filter((k) => !dropped(source[k]));
  if (keys.length > 1) keys.sort(keys.some((k) => NOT_PLAIN.test(k)) ? compareUtf8 : compareAscii);
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = asStoredJsonb(source[k]);
    // A "__proto__" key stays an own key, as JSON.parse makes it (assigning it would set the prototype).
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}
