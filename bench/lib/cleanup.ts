// Clean-ups that must run even when the bench is interrupted (Ctrl-C, SIGTERM) in the middle of
// a scenario: a scenario registers what it has set up (processes, databases, Redis keys) and
// unregisters once its own `finally` has removed them.
type CleanUp = () => Promise<void>;

const pending = new Set<CleanUp>();

/** Registers `fn`; returns the function that unregisters it. */
export function onInterrupt(fn: CleanUp): () => void {
  pending.add(fn);
  return () => {
    pending.delete(fn);
  };
}

/** Runs every registered clean-up, newest first; errors are reported, not thrown. */
export async function runInterruptCleanUps(): Promise<void> {
  const list = [...pending].reverse();
  pending.clear();
  for (const fn of list) {
    await fn().catch((err) => process.stderr.write(`[bench] clean-up failed: ${String(err)}\n`));
  }
}
