/**
 * A seeded pseudo-random generator, so that a seed gives the same corpus byte for byte on every run.
 * sfc32 (Chris Doty-Humphrey's Small Fast Counter) seeded through a 32-bit string hash: fast, passes
 * PractRand far beyond what a corpus draws, and only integer arithmetic, so results never depend on the
 * platform. Each sample draws from its own stream (`Random.forSample(seed, index, purpose)`), so sample 7
 * is the same whether the corpus has 10 samples or 10 000, and adding a draw to one purpose (say, the
 * identity) does not shift another (the degradations).
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  private constructor(key: string) {
    const hash = hashString(key);
    this.a = hash();
    this.b = hash();
    this.c = hash();
    this.d = hash();
    for (let warmUp = 0; warmUp < 15; warmUp += 1) this.nextUint32();
  }

  static fromKey(key: string): Random {
    return new Random(key);
  }

  static forSample(seed: number, index: number, purpose: string): Random {
    return new Random(`${seed}/${index}/${purpose}`);
  }

  /** A generator for a sub-purpose of this one (a side of a document, a degradation). */
  fork(purpose: string): Random {
    return new Random(`${this.nextUint32()}/${purpose}`);
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A value of `items` drawn with the weights beside them. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((sum, [, weight]) => sum + weight, 0);
    let threshold = this.next() * total;
    for (const [item, weight] of items) {
      threshold -= weight;
      if (threshold < 0) return item;
    }
    const last = items[items.length - 1];
    if (last === undefined) throw new Error('weighted pick from an empty list');
    return last[0];
  }

  /** Standard normal (Box-Muller; one value per call keeps the stream simple to reason about). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /**
   * Standard normal from a table of 65 536 quantiles indexed by 16 random bits: for pixel noise, where
   * millions of draws are needed and the tails beyond ±4.3σ do not matter.
   */
  fastNormal(): number {
    return NORMAL_QUANTILES[this.nextUint32() >>> 16] ?? 0;
  }

  digits(count: number): string {
    let text = '';
    for (let index = 0; index < count; index += 1) text += String(this.int(0, 9));
    return text;
  }

  sign(): 1 | -1 {
    return this.chance(0.5) ? 1 : -1;
  }
}

/** xmur3: a string hash that yields a stream of 32-bit seeds. */
function hashString(text: string): () => number {
  let hash = 1779033703 ^ text.length;
  for (let index = 0; index < text.length; index += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 3432918353);
    hash = (hash << 13) | (hash >>> 19);
  }
  return () => {
    hash = Math.imul(hash ^ (hash >>> 16), 2246822507);
    hash = Math.imul(hash ^ (hash >>> 13), 3266489909);
    hash ^= hash >>> 16;
    return hash >>> 0;
  };
}

/** Acklam's rational approximation of the standard normal quantile function (relative error < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0] = a;
  const [b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0] = b;
  const [c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0] = c;
  const [d0 = 0, d1 = 0, d2 = 0, d3 = 0] = d;
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

const NORMAL_QUANTILES = Float32Array.from({ length: 65536 }, (_, index) => normalQuantile((index + 0.5) / 65536));
