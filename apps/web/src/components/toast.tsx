'use client';
// Short confirmations and failures after an action ("Job paused"), announced politely to
// screen readers and gone after a few seconds.
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';

type ToastTone = 'success' | 'error' | 'info';
interface ToastItem {
  id: number;
  tone: ToastTone;
  text: string;
}

const ToastContext = createContext<(text: string, tone?: ToastTone) => void>(() => {});

export function useToast() {
  return useContext(ToastContext);
}

let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<ToastItem[]>([]);
  const push = useCallback((text: string, tone: ToastTone = 'success') => {
    const id = nextId++;
    setItems((list) => [...list.slice(-3), { id, tone, text }]);
    setTimeout(() => setItems((list) => list.filter((t) => t.id !== id)), tone === 'error' ? 8_000 : 4_000);
  }, []);
  const value = useMemo(() => push, [push]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed right-4 bottom-4 z-50 flex w-80 flex-col gap-2">
        {items.map((t) => (
          <div
            key={t.id}
            role={t.tone === 'error' ? 'alert' : 'status'}
            className={`pointer-events-auto rounded-md px-3.5 py-2.5 text-sm shadow-lg ring-1 ${
              t.tone === 'error'
                ? 'bg-rose-50 text-rose-900 ring-rose-200'
                : t.tone === 'info'
                  ? 'bg-white text-slate-800 ring-slate-200'
                  : 'bg-emerald-50 text-emerald-900 ring-emerald-200'
            }`}
          >
            {t.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}
