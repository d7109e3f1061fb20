// Node's flags for an engine node, wherever one is started (`npm start`, `npm run engine`, the
// bench): kept in one place so that what the bench measures is what runs.
//
// --max-semi-space-size=64: V8's young generation may grow to 64 MiB per semi-space (Node 22's
// default is 16). An engine allocates a little for every run (rows, requests, promises) and
// keeps almost none of it, so fewer, larger scavenges copy the same few survivors less often.
// Three 20,000-run herds each way, side by side (2026-12-02): engine CPU per 1,000 runs
// 349 -> 321 ms on average, all delivered 6.0 -> 5.3 s; the cost is up to ~100 MiB more
// resident memory at the peak of a burst.
export const ENGINE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
