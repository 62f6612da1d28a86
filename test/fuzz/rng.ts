// A small seeded PRNG (mulberry32), so every fuzz run generates the same arguments and a failure can be replayed.

export class Rng {
  private state: number;

  constructor(private readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `count` distinct items of `items`, in their original order. */
  sample<T>(items: readonly T[], count: number): T[] {
    if (count >= items.length) return [...items];
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(Math.floor(this.next() * items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
  }

  /** A generator derived from this one's seed and a label only: adding cases elsewhere leaves its stream alone. */
  fork(label: string): Rng {
    let hash = (this.seed ^ 0x9e3779b9) >>> 0;
    for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193);
    return new Rng(hash >>> 0);
  }
}
