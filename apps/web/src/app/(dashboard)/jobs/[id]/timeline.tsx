'use client';
// The run-history timeline: every occurrence in the window on a shared time axis, in three
// lanes: the outcome (colour), the start lag (scheduled → started), and the duration of the
// last attempt (log scales, so 20 ms and 20 s both show). Hover shows a run's details, click
// opens it; the runs table below is the keyboard route to the same runs.
import type { Timeline as TimelineData, TimelinePoint } from '@belfry/api';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Legend, RUN_COLORS, type RunStatus, RunStatusBadge } from '@/components/status';
import { formatInZone, formatMs, formatTimeOnly, viewerZone } from '../../../_lib/time';

const PAD_LEFT = 72;
const PAD_RIGHT = 12;
const LANE_OUTCOME = { top: 8, height: 22 };
const LANE_LAG = { top: 44, height: 46 };
const LANE_DURATION = { top: 104, height: 46 };
const AXIS_TOP = 164;
const HEIGHT = 186;

function useWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(800);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver((entries) =>
      setWidth(Math.max(320, Math.floor(entries[0]?.contentRect.width ?? 800))),
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** log10 scale from 1 ms to `max` ms into [0, 1]. */
function logScale(max: number) {
  const top = Math.log10(Math.max(10, max));
  return (ms: number) => Math.min(1, Math.max(0, Math.log10(Math.max(1, ms)) / top));
}

function ticks(from: number, to: number, count: number): number[] {
  const span = to - from;
  const steps = [
    1e3,
    5e3,
    15e3,
    30e3,
    60e3,
    300e3,
    900e3,
    1800e3,
    3600e3,
    3 * 3600e3,
    6 * 3600e3,
    12 * 3600e3,
    86400e3,
  ];
  const step = steps.find((s) => span / s <= count) ?? 86400e3;
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

export function Timeline({ data, now }: { data: TimelineData; now: number }) {
  const router = useRouter();
  const [ref, width] = useWidth<HTMLDivElement>();
  const [hover, setHover] = useState<TimelinePoint | null>(null);
  const from = Date.parse(data.from);
  const to = Math.min(Date.parse(data.to), Math.max(now, from + 1));
  const inner = width - PAD_LEFT - PAD_RIGHT;
  const x = (t: number) => PAD_LEFT + ((t - from) / (to - from)) * inner;
  const points = data.points;
  const maxLag = Math.max(1000, ...points.map((p) => p.lagMs ?? 0));
  const maxDuration = Math.max(1000, ...points.map((p) => p.durationMs ?? 0));
  const lagY = logScale(maxLag);
  const durY = logScale(maxDuration);
  const barWidth = Math.max(1, Math.min(6, inner / Math.max(60, points.length) - 1));
  const axis = useMemo(() => ticks(from, to, Math.max(3, Math.floor(inner / 110))), [from, to, inner]);
  const zone = viewerZone();
  const showDate = to - from > 20 * 3600e3;

  const nearest = (clientX: number, rect: DOMRect): TimelinePoint | null => {
    const px = clientX - rect.left;
    let best: TimelinePoint | null = null;
    let bestDist = 10;
    for (const p of points) {
      const d = Math.abs(x(Date.parse(p.scheduledTime)) - px);
      if (d < bestDist) {
        best = p;
        bestDist = d;
      }
    }
    return best;
  };

  return (
    <div ref={ref} className="relative">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut; keyboard users open runs from the runs table below */}
      <svg
        width={width}
        height={HEIGHT}
        role="img"
        aria-label={`Run history: ${points.length} runs between ${formatInZone(data.from, zone)} and ${formatInZone(data.to, zone)}`}
        className="block select-none"
        onMouseMove={(e) => setHover(nearest(e.clientX, e.currentTarget.getBoundingClientRect()))}
        onMouseLeave={() => setHover(null)}
        onClick={() => hover && router.push(`/runs/${hover.id}`)}
        style={{ cursor: hover ? 'pointer' : 'default' }}
      >
        {[
          ['Outcome', LANE_OUTCOME],
          ['Start lag', LANE_LAG],
          ['Duration', LANE_DURATION],
        ].map(([label, lane]) => {
          const l = lane as typeof LANE_OUTCOME;
          return (
            <g key={label as string}>
              <rect x={PAD_LEFT} y={l.top} width={inner} height={l.height} fill="#f8fafc" />
              <text
                x={PAD_LEFT - 8}
                y={l.top + l.height / 2 + 4}
                textAnchor="end"
                className="fill-slate-500 text-[11px]"
              >
                {label as string}
              </text>
            </g>
          );
        })}
        <text x={PAD_LEFT - 8} y={LANE_LAG.top + 9} textAnchor="end" className="fill-slate-400 text-[9px]">
          {formatMs(maxLag)}
        </text>
        <text x={PAD_LEFT - 8} y={LANE_DURATION.top + 9} textAnchor="end" className="fill-slate-400 text-[9px]">
          {formatMs(maxDuration)}
        </text>
        {axis.map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={LANE_OUTCOME.top} y2={AXIS_TOP} stroke="#e2e8f0" strokeDasharray="2 3" />
            <text x={x(t)} y={AXIS_TOP + 14} textAnchor="middle" className="fill-slate-500 text-[10px]">
              {showDate
                ? new Intl.DateTimeFormat(undefined, {
                    timeZone: zone,
                    month: 'short',
                    day: 'numeric',
                    hour: '2-digit',
                    minute: '2-digit',
                    hour12: false,
                  }).format(t)
                : formatTimeOnly(new Date(t).toISOString(), zone)}
            </text>
          </g>
        ))}
        {points.map((p) => {
          const px = x(Date.parse(p.scheduledTime));
          const color = RUN_COLORS[p.status as RunStatus];
          const highlighted = hover?.id === p.id;
          const lagH = p.lagMs !== null ? Math.max(1, lagY(p.lagMs) * LANE_LAG.height) : 0;
          const durH = p.durationMs !== null ? Math.max(1, durY(p.durationMs) * LANE_DURATION.height) : 0;
          return (
            <g key={p.id} opacity={hover && !highlighted ? 0.45 : 1}>
              <rect
                x={px - barWidth / 2}
                y={p.status === 'skipped' ? LANE_OUTCOME.top + 6 : LANE_OUTCOME.top}
                width={barWidth}
                height={p.status === 'skipped' ? LANE_OUTCOME.height - 12 : LANE_OUTCOME.height}
                fill={color}
              />
              {lagH ? (
                <rect
                  x={px - barWidth / 2}
                  y={LANE_LAG.top + LANE_LAG.height - lagH}
                  width={barWidth}
                  height={lagH}
                  fill="#64748b"
                />
              ) : null}
              {durH ? (
                <rect
                  x={px - barWidth / 2}
                  y={LANE_DURATION.top + LANE_DURATION.height - durH}
                  width={barWidth}
                  height={durH}
                  fill={color}
                />
              ) : null}
            </g>
          );
        })}
        {hover ? (
          <line
            x1={x(Date.parse(hover.scheduledTime))}
            x2={x(Date.parse(hover.scheduledTime))}
            y1={2}
            y2={AXIS_TOP}
            stroke="#4f46e5"
            strokeWidth={1}
          />
        ) : null}
      </svg>
      {hover ? (
        <HoverCard point={hover} left={Math.min(width - 260, Math.max(0, x(Date.parse(hover.scheduledTime)) + 10))} />
      ) : null}
      <div className="mt-2 flex flex-wrap items-center justify-between gap-2">
        <Legend />
        <span className="text-xs text-slate-500">Lag and duration on log scales · click a run to open it</span>
      </div>
    </div>
  );
}

function HoverCard({ point, left }: { point: TimelinePoint; left: number }) {
  const zone = viewerZone();
  return (
    <div
      className="pointer-events-none absolute top-2 z-10 w-64 rounded-md border border-slate-200 bg-white p-3 text-xs shadow-lg"
      style={{ left }}
    >
      <div className="mb-1.5 flex items-center justify-between gap-2">
        <RunStatusBadge status={point.status as RunStatus} skipReason={point.skipReason} />
        <span className="text-slate-500 capitalize">{point.trigger}</span>
      </div>
      <dl className="grid grid-cols-[5.5rem_1fr] gap-y-0.5 tabular-nums">
        <dt className="text-slate-500">Scheduled</dt>
        <dd>{formatInZone(point.scheduledTime, zone, false)}</dd>
        <dt className="text-slate-500">Start lag</dt>
        <dd>{formatMs(point.lagMs)}</dd>
        <dt className="text-slate-500">Duration</dt>
        <dd>{formatMs(point.durationMs)}</dd>
        <dt className="text-slate-500">Attempts</dt>
        <dd>{point.attempts}</dd>
        {point.httpStatus ? (
          <>
            <dt className="text-slate-500">HTTP</dt>
            <dd>{point.httpStatus}</dd>
          </>
        ) : null}
        {point.skipReason ? (
          <>
            <dt className="text-slate-500">Skipped</dt>
            <dd>
              {point.skipReason === 'overlap' ? 'previous run still running' : 'missed while nothing could run it'}
            </dd>
          </>
        ) : null}
      </dl>
      {point.error ? <p className="mt-1.5 line-clamp-2 text-rose-700">{point.error}</p> : null}
    </div>
  );
}
