'use client';
// A set in React state with the operations checkbox lists need.
import { useState } from 'react';

export function useToggleSet<T>(initial: Iterable<T> = []) {
  const [set, setSet] = useState<Set<T>>(() => new Set(initial));
  return {
    set,
    has: (value: T) => set.has(value),
    size: set.size,
    values: () => [...set],
    toggle: (value: T) =>
      setSet((s) => {
        const next = new Set(s);
        if (next.has(value)) next.delete(value);
        else next.add(value);
        return next;
      }),
    /** adds all of them, or removes all of them when every one is already in */
    toggleAll: (values: T[]) =>
      setSet((s) => {
        const every = values.length > 0 && values.every((v) => s.has(v));
        const next = new Set(s);
        for (const v of values) {
          if (every) next.delete(v);
          else next.add(v);
        }
        return next;
      }),
    clear: () => setSet(new Set()),
  };
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
