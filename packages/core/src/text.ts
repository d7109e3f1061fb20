// Text checks shared by every input schema: what PostgreSQL cannot store (NUL, refused in text
// and jsonb; unpaired UTF-16 surrogates, which JSON.stringify escapes as \ud800 and jsonb
// refuses) and control characters (header injection, invisible names).

function hasLoneSurrogate(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

/** Null for text the database can store, else why it cannot. */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (hasLoneSurrogate(value)) return 'must be valid Unicode (it contains an unpaired surrogate)';
  return null;
}

/** True for C0 controls, DEL and (optionally) the space. */
export function hasControlCharacter(value: string, includingSpace = false): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || (includingSpace && c === 0x20)) return true;
  }
  return false;
}
