// Shared arithmetic of the identity benchmarks' reports (bench/passkey, bench/device).

/** The median (upper middle) of `key` over the rounds `list`. */
export function medianOf(list, key) {
  const xs = list.map((r) => r[key]).sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

/**
 * The store methods of all rounds (each round's `methods`: calls and ms per method), as
 * `name ms (calls×)` per operation, slowest first.
 */
export function storeMethodsPerOperation(results) {
  const methods = {};
  for (const r of results)
    for (const [name, m] of Object.entries(r.methods)) {
      methods[name] ??= { calls: 0, ms: 0 };
      methods[name].calls += m.calls;
      methods[name].ms += m.ms;
    }
  const total = results.reduce((sum, r) => sum + r.completions, 0);
  return Object.entries(methods)
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([name, m]) => `${name} ${(m.ms / total).toFixed(2)} (${(m.calls / total).toFixed(1)}×)`)
    .join(', ');
}
