'use client';
// Copying secrets and snippets: a button that says "Copied" for a moment, and a code block
// with one.
import { useState } from 'react';
import { Button } from './button';

export function CopyButton({
  text,
  label = 'Copy',
  size = 'sm',
}: {
  text: string;
  label?: string;
  size?: 'sm' | 'md';
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard API needs a secure context; fall back to a hidden textarea.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.appendChild(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1_500);
  };
  return (
    <Button size={size} onClick={copy} aria-label={copied ? 'Copied' : label}>
      {copied ? 'Copied' : label}
    </Button>
  );
}

export function CodeBlock({ code, label }: { code: string; label?: string }) {
  return (
    <div className="relative">
      {label ? <div className="mb-1 text-xs font-medium text-slate-500">{label}</div> : null}
      <pre className="overflow-x-auto rounded-md bg-slate-900 p-3.5 pr-20 font-mono text-xs leading-relaxed text-slate-100">
        <code>{code}</code>
      </pre>
      <div className={`absolute right-2 ${label ? 'top-7' : 'top-2'}`}>
        <CopyButton text={code} />
      </div>
    </div>
  );
}
