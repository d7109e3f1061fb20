// http: the webhook sink (its own process), as in the herd scenario.
import { startSink } from '../lib/harness';
import type { KindBench } from './kind';

export const httpBench: KindBench = {
  kind: 'http',
  async start() {
    const sink = await startSink();
    return {
      target: { type: 'http', url: sink.url, method: 'POST', headers: {} },
      records: sink.records,
      stop: () => sink.stop(),
    };
  },
};
