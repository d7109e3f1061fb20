// Child process: the webhook sink. First line on stdout is {"port":N}; then one CSV line per
// delivery: at,runId,jobId,scheduled,attempt. Exits on SIGTERM or when the bench goes away.
import { serveSink } from './sink';

let buffer: string[] = [];
const flush = () => {
  if (buffer.length) process.stdout.write(`${buffer.join('\n')}\n`);
  buffer = [];
};
setInterval(flush, 50);
const sink = await serveSink((r) => buffer.push(`${r.at},${r.runId},${r.jobId},${r.scheduled},${r.attempt}`));
process.stdout.write(`${JSON.stringify({ port: sink.port })}\n`);
const stop = () => {
  flush();
  sink.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
// stdin is a pipe from the bench: it closes when the bench dies, however it dies.
process.stdin.on('end', stop);
process.stdin.resume();
