// Child process: the webhook sink. First line on stdout is {"port":N}; then one CSV line per
// delivery: at,runId,jobId,scheduled,attempt.
import { serveSink } from './sink';

let buffer: string[] = [];
const flush = () => {
  if (buffer.length) process.stdout.write(`${buffer.join('\n')}\n`);
  buffer = [];
};
setInterval(flush, 50);
const sink = await serveSink((r) => buffer.push(`${r.at},${r.runId},${r.jobId},${r.scheduled},${r.attempt}`));
process.stdout.write(`${JSON.stringify({ port: sink.port })}\n`);
process.on('SIGTERM', () => {
  flush();
  sink.close();
  process.exit(0);
});
