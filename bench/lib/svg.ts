// Minimal SVG charts (no dependency): start lag over time, and the lag distribution.
function esc(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);
}

const W = 900;
const H = 360;
const M = { l: 70, r: 20, t: 40, b: 50 };

function frame(title: string, xLabel: string, yLabel: string, xMax: number, yMax: number, body: string): string {
  const ticks = (max: number, n: number) => Array.from({ length: n + 1 }, (_, i) => (max * i) / n);
  const x = (v: number) => M.l + (v / (xMax || 1)) * (W - M.l - M.r);
  const y = (v: number) => H - M.b - (v / (yMax || 1)) * (H - M.t - M.b);
  const grid = [
    ...ticks(yMax, 5).map(
      (v) =>
        `<line x1="${M.l}" x2="${W - M.r}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e7eb"/><text x="${M.l - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11">${Math.round(v)}</text>`,
    ),
    ...ticks(xMax, 6).map(
      (v) =>
        `<text x="${x(v)}" y="${H - M.b + 16}" text-anchor="middle" font-size="11">${Math.round(v * 10) / 10}</text>`,
    ),
  ].join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${W / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>
${grid}
<line x1="${M.l}" x2="${M.l}" y1="${M.t}" y2="${H - M.b}" stroke="#374151"/>
<line x1="${M.l}" x2="${W - M.r}" y1="${H - M.b}" y2="${H - M.b}" stroke="#374151"/>
<text x="${W / 2}" y="${H - 10}" text-anchor="middle" font-size="12">${esc(xLabel)}</text>
<text x="16" y="${H / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${H / 2})">${esc(yLabel)}</text>
${body}
</svg>`;
}

export function lagOverTime(title: string, points: { t: number; lag: number }[]): string {
  const sample = points.length > 6000 ? points.filter((_, i) => i % Math.ceil(points.length / 6000) === 0) : points;
  const xMax = Math.max(1, ...sample.map((p) => p.t));
  const yMax = Math.max(1, ...sample.map((p) => p.lag));
  const x = (v: number) => M.l + (v / xMax) * (W - M.l - M.r);
  const y = (v: number) => H - M.b - (v / yMax) * (H - M.t - M.b);
  const dots = sample
    .map(
      (p) =>
        `<circle cx="${x(p.t).toFixed(1)}" cy="${y(p.lag).toFixed(1)}" r="1.4" fill="#2563eb" fill-opacity="0.5"/>`,
    )
    .join('');
  return frame(title, 'seconds since start', 'start lag (ms)', xMax, yMax, dots);
}

export function lagHistogram(title: string, lags: number[]): string {
  if (!lags.length) return frame(title, 'start lag (ms)', 'runs', 1, 1, '');
  const sorted = [...lags].sort((a, b) => a - b);
  const top = sorted[Math.floor(sorted.length * 0.999)] ?? sorted.at(-1) ?? 1;
  const bins = 40;
  const width = Math.max(1, top / bins);
  const counts = new Array<number>(bins).fill(0);
  for (const l of sorted) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor(l / width)));
    counts[i] = (counts[i] ?? 0) + 1;
  }
  const yMax = Math.max(...counts);
  const bw = (W - M.l - M.r) / bins;
  const bars = counts
    .map((c, i) => {
      const h = (c / yMax) * (H - M.t - M.b);
      return `<rect x="${(M.l + i * bw).toFixed(1)}" y="${(H - M.b - h).toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="#059669"/>`;
    })
    .join('');
  return frame(title, 'start lag (ms)', 'runs', top, yMax, bars);
}
