// What bench/call.mjs measures of each caller: latencies one call at a time, throughput and latencies with calls
// in flight, and the CPU time each process spent meanwhile (from /proc, Linux).

import { readFileSync } from "node:fs";

/** Latencies (ms) of `count` calls made one at a time. */
export async function sequential({ call, count }) {
  const latencies = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    latencies[i] = performance.now() - started;
  }
  return latencies;
}

/** `count` calls with `concurrency` in flight: calls/s over the whole, and each call's latency. */
export async function loaded({ call, count, concurrency }) {
  const latencies = new Float64Array(count);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const begun = performance.now();
      await call();
      latencies[i] = performance.now() - begun;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: count / seconds, latencies };
}

/** CPU milliseconds (user + system) used so far by this process, the upstream and a server (0 without one). */
export function cpuNow({ upstreamPid, serverPid }) {
  const own = process.cpuUsage();
  return {
    client: (own.user + own.system) / 1000,
    upstream: processCpuMs(upstreamPid),
    server: serverPid === undefined ? 0 : processCpuMs(serverPid),
  };
}

/** From /proc/<pid>/stat (utime + stime, in clock ticks of 10 ms); NaN where there is no /proc. */
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

export function percentile(values, p) {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function printTable(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  for (const [i, r] of rows.entries()) {
    console.log(
      r.map((cell, j) => (j === 0 ? String(cell).padEnd(widths[j]) : String(cell).padStart(widths[j]))).join("  "),
    );
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}
