// Preloaded (--import) into the engine nodes the bench starts: their stdin is a pipe from the
// bench, which closes when the bench dies, however it dies (SIGKILL included). The node is then
// sent SIGTERM, its own graceful shutdown, like any engine node told to stop. Without it an
// interrupted bench left its engine nodes delivering thousands of runs a second into the next
// run's measurements.
process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
// The pipe must not keep the node alive on its own (the engine decides when it is done).
process.stdin.unref?.();
