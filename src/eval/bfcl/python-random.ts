/**
 * Python's `random.Random` (MT19937 seeded the way CPython seeds it from an
 * integer), so that the stateful APIs hand out the same ids, timestamps and
 * readings as the reference for the same seed.
 */
export class PythonRandom {
  private readonly state = new Uint32Array(624);
  private index = 625;

  constructor(seed: number) {
    this.seedFromInteger(seed);
  }

  /** A float in [0, 1) built from 53 random bits, as CPython does. */
  random(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** An integer in [low, high], both ends included. */
  randint(low: number, high: number): number {
    return low + this.randomBelow(high - low + 1);
  }

  uniform(low: number, high: number): number {
    return low + (high - low) * this.random();
  }

  private randomBelow(limit: number): number {
    const bits = Math.floor(Math.log2(limit)) + 1;
    let value = this.randomBits(bits);
    while (value >= limit) value = this.randomBits(bits);
    return value;
  }

  private randomBits(bits: number): number {
    if (bits <= 32) return this.nextUint32() >>> (32 - bits);
    // CPython fills 32-bit words from the least significant end.
    let value = 0;
    let factor = 1;
    let remaining = bits;
    while (remaining > 0) {
      let word = this.nextUint32();
      if (remaining < 32) word >>>= 32 - remaining;
      value += word * factor;
      factor *= 2 ** 32;
      remaining -= 32;
    }
    return value;
  }

  private seedFromInteger(seed: number): void {
    let magnitude = Math.abs(Math.trunc(seed));
    const key: number[] = [];
    do {
      key.push(magnitude % 2 ** 32);
      magnitude = Math.floor(magnitude / 2 ** 32);
    } while (magnitude > 0);
    this.initialize(19650218);
    const mt = this.state;
    let i = 1;
    let j = 0;
    for (let k = Math.max(624, key.length); k > 0; k--) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(previous, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= 624) {
        mt[0] = mt[623]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k > 0; k--) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(previous, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) {
        mt[0] = mt[623]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.index = 624;
  }

  private initialize(seed: number): void {
    const mt = this.state;
    mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(previous, 1812433253) + i) >>> 0;
    }
  }

  private nextUint32(): number {
    const mt = this.state;
    if (this.index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % 624]! & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}
