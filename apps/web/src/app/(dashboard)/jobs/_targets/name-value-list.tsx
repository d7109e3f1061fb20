// A target's name/value map (headers, a container's env) as a list; secret values come masked as ***.
export function NameValueList({ entries }: { entries: Array<[string, string]> }) {
  if (!entries.length) return <span className="text-slate-500">None</span>;
  return (
    <ul className="font-mono text-xs">
      {entries.map(([k, v]) => (
        <li key={k} className="break-all">
          {k}: {v}
        </li>
      ))}
    </ul>
  );
}
