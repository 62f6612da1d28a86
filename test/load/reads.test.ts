// What a load reads is noted for the catalog cache while the load is recorded (src/load/recorded-reads.ts). The recording
// is switched off once no load is recorded (it costs every later promise of the process otherwise): two loads
// recorded at once each keep their own log, the first to end not ending the other's.

import { describe, expect, it } from "vitest";
import { noteRead, type ReadLog, recordReads } from "../../src/load/recorded-reads.js";

const newLog = (): ReadLog => ({ given: new Map(), read: [] });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("recordReads", () => {
  it("notes each load's reads in its own log, also after another recorded load ended", async () => {
    const [first, second] = [newLog(), newLog()];
    let endFirst = () => {};
    const firstEnded = new Promise<void>((resolve) => {
      endFirst = resolve;
    });
    const one = recordReads(first, async () => {
      noteRead({ location: "/a.yaml", remote: false, bytes: "a" });
      await tick();
    }).then(endFirst);
    const two = recordReads(second, async () => {
      await firstEnded;
      await tick();
      noteRead({ location: "/b.yaml", remote: false, bytes: "b" });
    });
    await Promise.all([one, two]);
    expect(first.read.map((r) => r.location)).toEqual(["/a.yaml"]);
    expect(second.read.map((r) => r.location)).toEqual(["/b.yaml"]);
    // Outside any recorded load nothing is noted, and a later load records again.
    noteRead({ location: "/c.yaml", remote: false, bytes: "c" });
    const third = newLog();
    await recordReads(third, async () => noteRead({ location: "/d.yaml", remote: false, bytes: "d" }));
    expect(third.read.map((r) => r.location)).toEqual(["/d.yaml"]);
  });
});
