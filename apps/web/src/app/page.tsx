export default function Home() {
  return (
    <main className="mx-auto max-w-3xl p-8">
      <h1 className="text-2xl font-semibold">Belfry</h1>
      <p className="mt-2 text-slate-600">Managed job scheduler. The dashboard is coming together.</p>
    </main>
  );
}
