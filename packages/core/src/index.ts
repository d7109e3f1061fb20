// Pure domain code: the vocabulary, schedule maths, retry backoff (a run's, and a failing loop's),
// webhook signing, target address classification, identifiers and partition hashing. No I/O, no
// frameworks.
export * from './schedule/index';
export * from './retry';
export * from './backoff';
export * from './retry-decision';
export * from './signing';
export * from './ssrf';
export * from './ids';
export * from './partition';
export * from './vocabulary';
export * from './text';
export * from './secret-box';
export * from './jitter';
export * from './periodic';
