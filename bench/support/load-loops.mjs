// Load shapes of the identity benchmarks: a closed loop for a duration, a fixed batch of one-time
// items (each used once, e.g. approved device codes), and an untimed parallel preparation.
import { performance } from 'node:perf_hooks';
import { percentile } from './bench-http.mjs';

/** Throughput, latency percentiles and load-generator CPU per operation of one timed phase. */
function summary(latencies, elapsed, cpu0) {
  const cpu = process.cpuUsage(cpu0);
  const n = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    completions: n,
    perSecond: n / (elapsed / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    clientCpuMs: (cpu.user + cpu.system) / 1000 / n,
  };
}

/**
 * `concurrency` workers, each awaiting `operation(worker)` back to back until `seconds` have
 * passed; the latency of an operation is its client-side wall time.
 */
export async function closedLoop(concurrency, seconds, operation) {
  const latencies = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const start = performance.now();
        await operation(worker);
        latencies.push(performance.now() - start);
      }
    }),
  );
  return summary(latencies, performance.now() - t0, cpu0);
}

/**
 * Every item handed to `operation(item)` exactly once by `concurrency` workers; the latency of an
 * operation is its client-side wall time, the throughput items over the batch's wall time.
 */
export async function fixedWork(items, concurrency, operation) {
  const latencies = [];
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++];
        const start = performance.now();
        await operation(item);
        latencies.push(performance.now() - start);
      }
    }),
  );
  return summary(latencies, performance.now() - t0, cpu0);
}

/** `count` results of `make(i)`, at most `concurrency` at a time (untimed preparation). */
export async function inParallel(count, concurrency, make) {
  const results = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await make(i);
      }
    }),
  );
  return results;
}
