export * from './names';
export * from './client';
export * from './enqueue';
export * from './depth';
